"""Field and Element: a Pythonic surface over mns_field."""
import operator

from ._errors import check
from ._mns import ffi, lib


def _to_bytes(x):
    """|x| as big-endian bytes (at least one byte)."""
    x = abs(x)
    return x.to_bytes(max(1, (x.bit_length() + 7) // 8), "big")


def _as_int(x, what):
    try:
        return operator.index(x)
    except TypeError:
        raise TypeError(f"{what} must be an integer, not {type(x).__name__}") from None


class Field:
    """Integers modulo an odd modulus p >= 3, in the representation of one
    backend ("auto", "mont", "pmns-ifma", "rns-ifma", "mpart:k=4", ...)."""

    __slots__ = ("_f", "_p", "_limbs", "_pbytes", "__weakref__")

    def __init__(self, p, backend="auto"):
        p = _as_int(p, "p")
        if not isinstance(backend, str):
            raise TypeError("backend must be a string")
        self._p = p
        self._f = None
        if p < 3:
            raise ValueError("modulus must be >= 3")
        fp = ffi.new("mns_field **")
        check(lib.mnspy_field_new(fp, _to_bytes(p), len(_to_bytes(p)), backend.encode()))
        self._f = ffi.gc(fp[0], lib.mns_field_free)
        self._limbs = lib.mns_field_limbs(self._f)
        self._pbytes = (p.bit_length() + 7) // 8

    @property
    def p(self):
        return self._p

    @property
    def describe(self):
        """Backend, kernel and parameters actually used."""
        return ffi.string(lib.mns_field_describe(self._f)).decode()

    @property
    def limbs(self):
        return self._limbs

    @property
    def delta(self):
        return lib.mns_field_delta(self._f)

    def _new(self):
        return Element(self, ffi.new("uint64_t[]", self._limbs))

    def __call__(self, x):
        """The element x mod p (x any integer)."""
        x = _as_int(x, "value")
        e = self._new()
        b = _to_bytes(x)
        check(lib.mnspy_set(self._f, e._w, b, len(b), 1 if x < 0 else 0))
        return e

    def __repr__(self):
        return f"mns.Field({self._p:#x}, backend={self.describe.split()[0]!r})"

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)


_WORDS = ffi.typeof("uint64_t[]")


class Element:
    """An element of a Field. Immutable from Python's point of view: every
    operation returns a new element."""

    __slots__ = ("field", "_w")

    def __init__(self, field, words):
        # only Field makes elements; the checks keep a hand-made one from
        # handing the library a buffer of the wrong size
        if not isinstance(field, Field):
            raise TypeError("field must be an mns.Field")
        if not isinstance(words, ffi.CData) or ffi.typeof(words) is not _WORDS or len(words) != field._limbs:
            raise TypeError("elements are made by calling their Field: F(x)")
        self.field = field
        self._w = words

    def _coerce(self, other):
        if isinstance(other, Element):
            if other.field is not self.field:
                raise ValueError("elements of different fields")
            return other
        try:
            return self.field(operator.index(other))
        except TypeError:
            return None

    def _binary(self, other, fn, reduce_after):
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        f = self.field
        r = f._new()
        fn(f._f, r._w, self._w, o._w)
        if reduce_after:
            lib.mns_field_reduce(f._f, r._w, r._w)
        return r

    def __mul__(self, other):
        if other is self:
            r = self.field._new()
            lib.mns_field_sqr(self.field._f, r._w, self._w)
            return r
        return self._binary(other, lib.mns_field_mul, False)

    __rmul__ = __mul__

    def __add__(self, other):
        return self._binary(other, lib.mns_field_add, True)

    __radd__ = __add__

    def __sub__(self, other):
        return self._binary(other, lib.mns_field_sub, True)

    def __rsub__(self, other):
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        return o - self

    def __neg__(self):
        return self.field(0) - self

    def __pow__(self, e, mod=None):
        if mod is not None:
            raise TypeError("pow() with a modulus: the field already has one")
        e = _as_int(e, "exponent")
        base = self
        if e < 0:
            # the inverse by Python (variable time, like any Python int code)
            base = self.field(pow(int(self), -1, self.field.p))
            e = -e
        r = self.field._new()
        b = _to_bytes(e)
        lib.mnspy_powm(self.field._f, r._w, base._w, b, len(b))
        return r

    def __int__(self):
        f = self.field
        out = ffi.new("unsigned char[]", f._pbytes + 1)
        n = lib.mnspy_get(f._f, self._w, out, f._pbytes + 1)
        return int.from_bytes(ffi.buffer(out, n)[:], "big")

    # no __index__: with it, "ab" * element and [x] * element would repeat
    # sequences instead of failing; int(element) is explicit

    def __eq__(self, other):
        if isinstance(other, Element):
            return other.field is self.field and int(self) == int(other)
        try:
            return int(self) == operator.index(other) % self.field.p
        except TypeError:
            return NotImplemented

    def __hash__(self):
        return hash((id(self.field), int(self)))

    def __bool__(self):
        return int(self) != 0

    def __repr__(self):
        return f"mns.Element({int(self)}, p={self.field.p:#x})"

    def __str__(self):
        return str(int(self))
