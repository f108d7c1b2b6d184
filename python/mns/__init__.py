"""mns: modular arithmetic on large primes with alternative number systems.

    >>> import mns
    >>> F = mns.Field(2**255 - 19)
    >>> int(F(3) ** 100) == pow(3, 100, 2**255 - 19)
    True

A Field wraps one mns_field (one modulus, one backend); its elements (+ - *
/ **, inv, sqrt, to_bytes, ...) and Vectors of them are types of the
compiled extension mns._ext, and any mix of operations is valid whatever the
backend's delta. mns.pmns generates, saves and loads PMNS parameter sets;
mns.RSA signs with RSA-CRT keys read from PEM/DER files. Long calls (field
creation, which may generate PMNS parameters, exponentiation, Vector
operations, generation, RSA) run without the GIL.
"""
# the package's version, the same as the C library's (CMakeLists.txt)
__version__ = "0.1.0"

from ._field import Element, Field, Vector
from ._errors import InvalidArgumentError, MNSError, NotInvertibleError, NotSupportedError
from ._mns import ffi as _ffi, lib as _lib
from . import pmns
from .rsa import RSA

__all__ = ["__version__", "Field", "Element", "Vector", "RSA", "pmns", "MNSError", "InvalidArgumentError",
           "NotInvertibleError", "NotSupportedError", "version", "cpu_features", "is_probable_prime"]


def version():
    """Version of the C library."""
    return _ffi.string(_lib.mns_version()).decode()


def cpu_features():
    """CPU features the kernels can use (as the C library sees them)."""
    return _ffi.string(_lib.mnspy_cpu_features()).decode()


def is_probable_prime(n, reps=25):
    """GMP's mpz_probab_prime_p (Baillie-PSW, then reps-24 Miller-Rabin
    rounds): True for primes, False for composites (and for n < 2)."""
    from ._field import _as_int, _to_bytes
    n, reps = _as_int(n, "n"), _as_int(reps, "reps")
    if n < 2:
        return False
    if not 1 <= reps <= 100:
        raise ValueError("reps must be in [1, 100]")
    b = _to_bytes(n)
    return _lib.mnspy_probab_prime(b, len(b), reps) != 0
