"""Field, Element and Vector: the types of mns._ext (the CPython C API),
with the methods that are not on the hot path."""
import operator
import os

from . import _ext

Element = _ext.Element


def _to_bytes(x):
    """|x| as big-endian bytes (at least one byte)."""
    x = abs(x)
    return x.to_bytes(max(1, (x.bit_length() + 7) // 8), "big")


def _as_int(x, what):
    try:
        return operator.index(x)
    except TypeError:
        raise TypeError(f"{what} must be an integer, not {type(x).__name__}") from None


class Field(_ext.Field):
    """Integers modulo an odd modulus p >= 3, in the representation of one
    backend ("auto", "mont", "pmns-ifma", "rns-ifma", "mpart:k=4", ...).

    F(x) is the element x mod p (x an int, or anything with __index__ such
    as gmpy2.mpz). Elements are immutable; sums stay loose only while a
    product accepts them, so any mix of operations is valid whatever the
    backend's delta. Elements of different fields do not mix (ValueError);
    F.from_bytes(b) and F.random() make elements from bytes."""

    __slots__ = ()

    @property
    def pwords(self):
        """64-bit words of a canonical value (of p): the layout of
        Vector buffers and Vector.words()."""
        return (self.p.bit_length() + 63) // 64

    def random(self):
        """A random element, for secrets too: p's byte length plus 16 bytes of
        os.urandom reduced mod p by from_bytes (constant time), so its
        distribution is within 2^-128 of uniform (statistical distance)."""
        return self.from_bytes(os.urandom(self.pbytes + 16))

    def powm_n(self, bases, exponents, threads=1):
        """bases[i] ** e for every base, e one integer >= 0 for all or one
        per base: one call of the batch exponentiation mns_field_powm_n
        (constant time for the largest exponent length), without the GIL,
        split over threads when asked. A Vector (list() of it: elements)."""
        return _ext.Vector(self, bases).powm(exponents, threads=threads)

    def vector(self, values):
        """A Vector of these values: a sequence of integers or elements, or a
        buffer of uint64 words (array('Q'), memoryview, NumPy uint64), pwords
        words per value, least significant first."""
        return _ext.Vector(self, values)

    def __repr__(self):
        return f"mns.Field({self.p:#x}, backend={self.describe.split()[0]!r})"

    def __reduce__(self):
        return (type(self), (self.p, self.backend))

    # a field is a handle on one C object: copies are the field itself, so
    # that copied elements stay in their field
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


Vector = _ext.Vector
