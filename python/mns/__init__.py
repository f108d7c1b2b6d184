"""mns: modular arithmetic on large primes with alternative number systems.

    >>> import mns
    >>> F = mns.Field(2**255 - 19)
    >>> int(F(3) ** 100) == pow(3, 100, 2**255 - 19)
    True

A Field wraps one mns_field (one modulus, one backend). Elements are kept
tight: after + and - the Python layer reduces, so any mix of operations is
valid whatever the backend's delta. Long calls (field creation, which may
generate PMNS parameters, and exponentiation) run without the GIL: cffi
releases it around every C call.
"""
from ._field import Element, Field
from ._errors import MNSError, NotSupportedError
from ._mns import ffi as _ffi, lib as _lib

__all__ = ["Field", "Element", "MNSError", "NotSupportedError", "version", "cpu_features"]


def version():
    """Version of the C library."""
    return _ffi.string(_lib.mns_version()).decode()


def cpu_features():
    """CPU features the kernels can use (as the C library sees them)."""
    return _ffi.string(_lib.mnspy_cpu_features()).decode()
