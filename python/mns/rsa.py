"""RSA-CRT private operations on mns fields (mns_rsa.h).

    >>> key = mns.RSA.from_file("key.pem")          # PEM or DER, through `cryptography`
    >>> sig = key.sign(b"message", "sha256")          # RSASSA-PKCS1-v1_5
    >>> key.verify(sig, b"message", "sha256")          # OpenSSL, through `cryptography`
    True

The private operation and the signature run without the GIL, with up to
`threads` threads (one per prime). Key loading and verification need the
`cryptography` package; mns.RSA(n, e, d, primes) does not."""
import hashlib
import os

from ._errors import check
from ._field import _as_int, _to_bytes
from ._mns import ffi, lib

__all__ = ["RSA"]

HASHES = ("sha1", "sha224", "sha256", "sha384", "sha512")


def _crypto():
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa as crsa
    except ImportError as e:
        raise ImportError("RSA keys in PEM/DER need the `cryptography` package (pip install cryptography)") from e
    return serialization, crsa


def _digest(message, hash):
    if hash not in HASHES:
        raise ValueError(f"hash must be one of {', '.join(HASHES)}, not {hash!r}")
    if not isinstance(message, (bytes, bytearray, memoryview)):
        raise TypeError("message must be bytes")
    return hashlib.new(hash, bytes(message)).digest()


class RSA:
    """An RSA private key with k = 2..8 primes, one mns field per prime.

    spec: the mns_field backend of every channel ("auto" by default);
    threads: default for the calls (None: one per prime)."""

    __slots__ = ("_k", "n", "e", "d", "primes", "threads", "__weakref__")

    def __init__(self, n, e, d, primes, spec="auto", threads=None):
        n, e, d = _as_int(n, "n"), _as_int(e, "e"), _as_int(d, "d")
        try:
            primes = [_as_int(q, "prime") for q in primes]
        except TypeError:
            raise TypeError("primes must be a sequence of integers") from None
        if not isinstance(spec, str):
            raise TypeError("spec must be a string")
        if min([n, e, d] + primes) < 0:
            raise ValueError("RSA numbers must be positive")
        if not 2 <= len(primes) <= 8:
            raise ValueError("an RSA key has 2 to 8 primes")
        self.threads = self._threads(threads if threads is not None else len(primes))
        self._k = None
        nums = [_to_bytes(x) for x in [n, e, d] + primes]
        lens = ffi.new("size_t[]", [len(b) for b in nums])
        kp = ffi.new("mns_rsa **")
        check(lib.mnspy_rsa_new(kp, b"".join(nums), lens, len(primes), spec.encode()))
        self._k = ffi.gc(kp[0], lib.mns_rsa_free)
        self.n, self.e, self.d, self.primes = n, e, d, tuple(primes)

    @staticmethod
    def _threads(t):
        t = _as_int(t, "threads")
        if not 1 <= t <= 1024:
            raise ValueError("threads must be in [1, 1024]")
        return t

    @classmethod
    def from_key(cls, key, spec="auto", threads=None):
        """From a `cryptography` RSAPrivateKey."""
        _, crsa = _crypto()
        if not isinstance(key, crsa.RSAPrivateKey):
            raise TypeError(f"not an RSA private key: {type(key).__name__}")
        pn = key.private_numbers()
        return cls(pn.public_numbers.n, pn.public_numbers.e, pn.d, [pn.p, pn.q], spec, threads)

    @classmethod
    def from_pem(cls, data, password=None, spec="auto", threads=None):
        """From a PEM (or DER) PKCS#1 / PKCS#8 private key, bytes or str."""
        serialization, _ = _crypto()
        if isinstance(data, str):
            data = data.encode()
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError("key data must be bytes or str")
        data = bytes(data)
        load = serialization.load_pem_private_key if b"-----BEGIN" in data else serialization.load_der_private_key
        try:
            key = load(data, password=password)
        except (ValueError, TypeError) as e:
            raise ValueError(f"cannot read the private key: {e}") from None
        except Exception as e:  # cryptography's UnsupportedAlgorithm and friends
            raise ValueError(f"cannot read the private key: {type(e).__name__}: {e}") from None
        return cls.from_key(key, spec, threads)

    from_der = from_pem

    @classmethod
    def from_file(cls, path, password=None, spec="auto", threads=None):
        with open(os.fspath(path), "rb") as f:
            return cls.from_pem(f.read(), password, spec, threads)

    @property
    def bits(self):
        return self.n.bit_length()

    @property
    def nbytes(self):
        return lib.mns_rsa_bytes(self._k)

    def describe(self):
        """Each channel's field and what its creation cost."""
        return ffi.string(lib.mns_rsa_describe(self._k)).decode()

    def private(self, x, threads=None):
        """x^d mod n by the CRT, for 0 <= x < n (constant time in the secrets)."""
        x = _as_int(x, "x")
        if not 0 <= x < self.n:
            raise ValueError("x must be in [0, n)")
        t = self.threads if threads is None else self._threads(threads)
        out = ffi.new("unsigned char[]", self.nbytes)
        b = _to_bytes(x)
        check(lib.mnspy_rsa_private(self._k, out, b, len(b), t))
        return int.from_bytes(ffi.buffer(out, self.nbytes)[:], "big")

    def sign_digest(self, digest, hash="sha256", threads=None):
        """RSASSA-PKCS1-v1_5 signature of an already computed digest."""
        if hash not in HASHES:
            raise ValueError(f"hash must be one of {', '.join(HASHES)}, not {hash!r}")
        if not isinstance(digest, (bytes, bytearray, memoryview)):
            raise TypeError("digest must be bytes")
        digest = bytes(digest)
        t = self.threads if threads is None else self._threads(threads)
        sig = ffi.new("unsigned char[]", self.nbytes)
        check(lib.mns_rsa_sign_pkcs1v15(self._k, sig, hash.encode(), digest, len(digest), t))
        return ffi.buffer(sig, self.nbytes)[:]

    def sign(self, message, hash="sha256", threads=None):
        """RSASSA-PKCS1-v1_5 signature of message (bytes) with hash."""
        return self.sign_digest(_digest(message, hash), hash, threads)

    def public_key(self):
        """The `cryptography` RSAPublicKey (OpenSSL) of this key."""
        _, crsa = _crypto()
        return crsa.RSAPublicNumbers(self.e, self.n).public_key()

    def verify(self, signature, message, hash="sha256"):
        """True if signature is a valid PKCS#1 v1.5 signature of message,
        checked by OpenSSL through `cryptography` (not by mns)."""
        return verify(self.public_key(), signature, message, hash)

    def __repr__(self):
        return f"<mns.RSA {self.bits} bits, {len(self.primes)} primes>"


def verify(public_key, signature, message, hash="sha256"):
    """PKCS#1 v1.5 verification by OpenSSL (`cryptography`)."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding
    _digest(message, hash)  # same argument checks as sign
    try:
        public_key.verify(bytes(signature), bytes(message), padding.PKCS1v15(), getattr(hashes, hash.upper())())
        return True
    except InvalidSignature:
        return False
