# The cffi extension is built out of line (API mode) against the C library of
# the enclosing build tree; see mns/_build.py.
from setuptools import setup

setup(cffi_modules=["mns/_build.py:ffibuilder"])
