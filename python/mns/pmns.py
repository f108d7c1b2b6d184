"""PMNS parameter sets (mns_pmns.h): generation for any prime, the library's
strict text format, and a Field built on a set.

    >>> P = mns.pmns.generate(2**255 - 19, word="u52")
    >>> P.n, P.rho_bits, P.lam, P.M[:2]
    >>> P.save("p255.pmns"); mns.pmns.load("p255.pmns") == P
    True

Generation runs without the GIL (cffi releases it around the C call); the
optional progress callable is called back, with the GIL, from the generating
thread as progress(stage, n, fraction); a true return value cancels
(mns.MNSError, "cancelled")."""
import os
import tempfile

from ._errors import check
from ._field import Field, _as_int, _to_bytes
from ._mns import ffi, lib

__all__ = ["Params", "generate", "load", "loads", "nopt"]

_WORDS = {"s64": 0, "u52": 1}
_ESHAPES = {"binomial": 0, "trinomial": 1, "auto": 2}
_FLAG_SMOOTH_N = 1
_FLAG_NO_IMPROVE = 2
_FLAG_LAMBDA_WALK = 4
_FLAG_LAMBDA_CARRIED = 8
_INT_MAX = 2**31 - 1
_HANDLE = ffi.typeof("mns_pmns_params *")


def _int_opt(value, name, lo, hi):
    v = _as_int(value, name)
    if not lo <= v <= hi:
        raise ValueError(f"{name} must be in [{lo}, {hi}], not {v}")
    return v


@ffi.def_extern(onerror=lambda exc, val, tb: 1)
def mnspy_progress(arg, stage, n, fraction):
    """Trampoline of mns_pmns_progress_fn. An exception in the user's callable
    (KeyboardInterrupt included) cancels the run and is re-raised by generate()."""
    state = ffi.from_handle(arg)
    try:
        return 1 if state["fn"](ffi.string(stage).decode(), n, fraction) else 0
    except BaseException as e:  # noqa: B902  (re-raised in the caller's thread)
        state["error"] = e
        return 1


def _mpz(ptr):
    if ptr == ffi.NULL:
        raise IndexError("no such coefficient")
    cap = lib.mnspy_mpz_bytes(ptr)
    buf = ffi.new("unsigned char[]", cap)
    sign = lib.mnspy_mpz_export(ptr, buf, cap)
    v = int.from_bytes(ffi.buffer(buf, cap)[:], "big")
    return -v if sign < 0 else v


class Params:
    """One verified PMNS parameter set (immutable). Integer fields are Python
    ints; M and Mprime are tuples of the n coefficients."""

    __slots__ = ("_P", "__weakref__")

    def __init__(self, handle):
        # from generate()/load()/loads() only
        if not isinstance(handle, ffi.CData) or ffi.typeof(handle) is not _HANDLE or handle == ffi.NULL:
            raise TypeError("parameter sets come from mns.pmns.generate, load or loads")
        self._P = ffi.gc(handle, lib.mns_pmns_params_free)

    # scalar fields, as the library reports them
    p = property(lambda self: _mpz(lib.mnspy_pmns_mpz(self._P, 0, 0)))
    gamma = property(lambda self: _mpz(lib.mnspy_pmns_mpz(self._P, 1, 0)))
    rho = property(lambda self: _mpz(lib.mnspy_pmns_mpz(self._P, 2, 0)), doc="tight: |c| < rho (s64), 0 <= c < rho (u52)")
    norm1 = property(lambda self: _mpz(lib.mnspy_pmns_mpz(self._P, 3, 0)), doc="||M||_1 of the reduction matrix")
    word = property(lambda self: "u52" if lib.mns_pmns_params_word(self._P) == 1 else "s64")
    n = property(lambda self: lib.mns_pmns_params_n(self._P))
    s = property(lambda self: lib.mns_pmns_params_s(self._P))
    delta = property(lambda self: lib.mns_pmns_params_delta(self._P))
    eshape = property(lambda self: "trinomial" if lib.mns_pmns_params_eshape(self._P) == 1 else "binomial")
    lam = property(lambda self: lib.mns_pmns_params_lambda(self._P), doc="lambda of E = X^n - lambda (0 for X^n - X - 1)")
    rho_bits = property(lambda self: lib.mns_pmns_params_rho_bits(self._P))
    phi_log2 = property(lambda self: lib.mns_pmns_params_phi_log2(self._P))
    chunk_bits = property(lambda self: lib.mns_pmns_params_chunk_bits(self._P))
    sigma_log2 = property(lambda self: lib.mns_pmns_params_sigma_log2(self._P))
    toeplitz_adds = property(lambda self: lib.mns_pmns_params_toeplitz_adds(self._P))
    lambda_carried = property(lambda self: bool(lib.mns_pmns_params_lambda_carried(self._P)))
    w = property(lambda self: lib.mns_pmns_params_w(self._P))
    gen_seconds = property(lambda self: lib.mns_pmns_params_gen_seconds(self._P))

    @property
    def E(self):
        """The external reduction polynomial, as text."""
        if self.eshape == "trinomial":
            return f"X^{self.n}-X-1"
        return f"X^{self.n}-{self.lam}" if self.lam >= 0 else f"X^{self.n}+{-self.lam}"

    @property
    def M(self):
        return tuple(_mpz(lib.mnspy_pmns_mpz(self._P, 4, i)) for i in range(self.n))

    @property
    def Mprime(self):
        return tuple(_mpz(lib.mnspy_pmns_mpz(self._P, 5, i)) for i in range(self.n))

    def describe(self):
        return ffi.string(lib.mns_pmns_params_describe(self._P)).decode()

    def verify(self):
        """Re-runs every check of mns_pmns.h; raises MNSError if one fails."""
        check(lib.mns_pmns_verify_var(self._P))

    def dumps(self, regenerate=None):
        """The library's text format (version 1). regenerate: the first
        line's recipe; None for the generator's own (mns-pmns-gen --p ...)."""
        if regenerate is None:
            arg = ffi.NULL
        elif not isinstance(regenerate, str) or "\n" in regenerate or "\0" in regenerate:
            raise ValueError("regenerate must be a one-line string")
        else:
            arg = regenerate.encode()
        text = lib.mns_pmns_params_to_string_var(self._P, arg)
        if text == ffi.NULL:
            raise MemoryError("mns_pmns_params_to_string_var")
        try:
            return ffi.string(text).decode()
        finally:
            lib.mnspy_free(text)

    def save(self, path, regenerate=None):
        """Writes the text format to path (mns_pmns_params_save_var)."""
        path = os.fsencode(path)
        if b"\0" in path:
            raise ValueError("path contains a NUL byte")
        if regenerate is not None and (not isinstance(regenerate, str) or "\n" in regenerate or "\0" in regenerate):
            raise ValueError("regenerate must be a one-line string")
        check(lib.mns_pmns_params_save_var(self._P, path, ffi.NULL if regenerate is None else regenerate.encode()))

    def field(self, delta=None):
        """A Field ("pmns" for s64, "pmns-ifma" for u52) on this very set.
        s = 1 sets only: the multi-precision backends generate their own."""
        if self.s != 1:
            raise ValueError("a Field takes s = 1 sets only (pmns-mp generates its own)")
        backend = "pmns-ifma" if self.word == "u52" else "pmns"
        # the backend reads sets from a file (params=FILE); a private temporary one
        fd, path = tempfile.mkstemp(suffix=".pmns", prefix="mns-")
        try:
            with os.fdopen(fd, "w") as f:
                f.write(self.dumps())
            if "," in path or ":" in path:
                raise ValueError(f"temporary path {path!r} cannot go into a backend spec")
            spec = f"{backend}:params={path}" + ("" if delta is None else f",delta={_as_int(delta, 'delta')}")
            return Field(self.p, spec)
        finally:
            os.unlink(path)

    def __eq__(self, other):
        if not isinstance(other, Params):
            return NotImplemented
        # the data lines; the comments (how to regenerate) may differ
        def body(P):
            return [line for line in P.dumps().splitlines() if not line.startswith("#")]
        return body(self) == body(other)

    __hash__ = None

    def __repr__(self):
        return f"<mns.pmns.Params {self.describe()}>"


def generate(p, word="s64", s=1, delta=0, n=0, *, s_max=0, n_max=0, eshape="binomial",
             lambda_max=0, toeplitz_adds=0, gamma_tries=0, smooth_n=False, improve=True,
             lambda_walk=False, lambda_carried=False, progress=None):
    """A verified PMNS parameter set for the prime p (mns_pmns_generate_var).

    word: "s64" (signed 64-bit words) or "u52" (AVX-512 IFMA words); s: words
    per coefficient, 0 = automatic; n: 0 = the smallest that works. The other
    options are those of mns_pmns_gen_opts (0 = the library's default);
    lambda_walk (with an explicit n): when the smallest lambda's set does not
    fit, try the next lambdas up to lambda_max (MNS_PMNS_GEN_LAMBDA_WALK);
    lambda_carried (u52, s != 1): (B3) with lambda_eff = 1, for kernels that
    carry lambda a into digits (MNS_PMNS_GEN_LAMBDA_CARRIED)."""
    p = _as_int(p, "p")
    if p < 3:
        raise ValueError("p must be a prime >= 3")
    if word not in _WORDS:
        raise ValueError(f"word must be one of {sorted(_WORDS)}, not {word!r}")
    if eshape not in _ESHAPES:
        raise ValueError(f"eshape must be one of {sorted(_ESHAPES)}, not {eshape!r}")
    if progress is not None and not callable(progress):
        raise TypeError("progress must be callable")
    iopt = ffi.new("int[9]", [
        _WORDS[word], _int_opt(s, "s", 0, _INT_MAX), _int_opt(s_max, "s_max", 0, _INT_MAX),
        _int_opt(delta, "delta", 0, _INT_MAX), _int_opt(n, "n", 0, _INT_MAX),
        _int_opt(n_max, "n_max", 0, _INT_MAX), _ESHAPES[eshape],
        _int_opt(toeplitz_adds, "toeplitz_adds", 0, _INT_MAX),
        _int_opt(gamma_tries, "gamma_tries", 0, _INT_MAX)])
    lmax = _int_opt(lambda_max, "lambda_max", 0, 2**62)
    flags = ((_FLAG_SMOOTH_N if smooth_n else 0) | (0 if improve else _FLAG_NO_IMPROVE)
             | (_FLAG_LAMBDA_WALK if lambda_walk else 0)
             | (_FLAG_LAMBDA_CARRIED if lambda_carried else 0))
    state = {"fn": progress, "error": None}
    handle = ffi.new_handle(state) if progress is not None else ffi.NULL
    out = ffi.new("mns_pmns_params **")
    b = _to_bytes(p)
    st = lib.mnspy_pmns_generate(out, b, len(b), iopt, lmax, flags, handle)
    if state["error"] is not None:
        if out[0] != ffi.NULL:
            lib.mns_pmns_params_free(out[0])
        raise state["error"]
    check(st)
    return Params(out[0])


def loads(text):
    """Reads the text format (strict: MNSError naming the line otherwise)."""
    if isinstance(text, str):
        text = text.encode()
    if not isinstance(text, (bytes, bytearray)):
        raise TypeError("text must be str or bytes")
    out = ffi.new("mns_pmns_params **")
    check(lib.mns_pmns_params_from_string_var(out, bytes(text), len(text)))
    return Params(out[0])


def load(path):
    """Reads a parameter file (mns_pmns_params_load_var)."""
    path = os.fsencode(path)
    if b"\0" in path:
        raise ValueError("path contains a NUL byte")
    out = ffi.new("mns_pmns_params **")
    check(lib.mns_pmns_params_load_var(out, path))
    return Params(out[0])


def nopt(p_bits, sigma_log2=64):
    """n_opt of the CIOS paper (section 3.2)."""
    return lib.mns_pmns_nopt(_int_opt(p_bits, "p_bits", 1, 2**40), _int_opt(sigma_log2, "sigma_log2", 1, 64))
