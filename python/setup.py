# Two extensions, both against the static libmns.a of the enclosing build
# tree (see mns/_build.py for where it is found): the cffi module (RSA, PMNS
# parameters, the command line) built out of line, and mns._ext, the field,
# element and vector types in the CPython C API, where an operation costs one
# object and one library call.
import importlib.util
import os

from setuptools import Extension, setup

_spec = importlib.util.spec_from_file_location("_build", os.path.join(os.path.dirname(__file__), "mns", "_build.py"))
_build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_build)

EXT = "mns/_ext"
ext = Extension(
    "mns._ext",
    sources=[f"{EXT}/{name}.c" for name in ("module", "convert", "field", "element", "vector", "vecops")],
    depends=[f"{EXT}/ext.h", f"{EXT}/vecops.h", os.path.join(_build.BUILD, "libmns.a")],
    # src/ for field/field_internal.h: the constant-time word entries of the front door
    include_dirs=[os.path.join(_build.ROOT, "include"), os.path.join(_build.ROOT, "src")],
    extra_objects=[os.path.join(_build.BUILD, "libmns.a")],
    libraries=_build._private_libs(),
    extra_compile_args=["-std=gnu17", "-Wall", "-Wextra", "-Werror", "-Wno-missing-field-initializers",
                        "-Wno-cast-function-type"],
)

setup(cffi_modules=["mns/_build.py:ffibuilder"], ext_modules=[ext])
