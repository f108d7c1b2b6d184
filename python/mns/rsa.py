"""RSA-CRT private operations on mns fields (mns_rsa.h).

    >>> key = mns.RSA.from_file("key.pem")          # PEM or DER, through `cryptography`
    >>> sig = key.sign(b"message", "sha256")          # RSASSA-PKCS1-v1_5
    >>> key.verify(sig, b"message", "sha256")          # OpenSSL, through `cryptography`
    True

The private operation and the signature run without the GIL, with up to
`threads` threads (one per prime). A key signs at once: with spec="auto" its
channels start on a backend that needs no parameter generation and switch,
in the background, to the tuned ones (key.wait(), key.tuned).
Keys whose PKCS#8 algorithm is RSASSA-PSS are loaded restricted to PSS
(key.pss_only): sign() then raises ValueError, private() still works. Key loading and verification need the
`cryptography` package; mns.RSA(n, e, d, primes) does not."""
import hashlib
import os

from ._errors import check
from ._field import _as_int, _to_bytes
from ._mns import ffi, lib

__all__ = ["RSA"]

# The hashes of sign()/verify(), as the C library spells them; any case, and
# "_" or "/" for "-", and the "sha2-"/"sha-" spellings are accepted too.
HASHES = ("sha1", "sha224", "sha256", "sha384", "sha512", "sha512-224", "sha512-256",
          "sha3-224", "sha3-256", "sha3-384", "sha3-512")

# id-RSASSA-PSS (RFC 8017 A.2.3), DER-encoded
_PSS_OID = bytes.fromhex("06092a864886f70d01010a")


def _hash_name(hash):
    """The canonical name of hash (as mns_rsa_sign_pkcs1v15 reads it)."""
    if not isinstance(hash, str):
        raise TypeError("hash must be a string")
    h = hash.lower().replace("_", "-").replace("/", "-")
    for prefix in ("sha2-", "sha-"):
        if h.startswith(prefix):
            h = "sha" + h[len(prefix):]
    if h not in HASHES:
        raise ValueError(f"hash must be one of {', '.join(HASHES)} (any case), not {hash!r}")
    return h


def _der_item(der, at):
    """(tag, start of contents, end) of the DER item at offset at."""
    tag, n = der[at], der[at + 1]
    at += 2
    if n & 0x80:
        k = n & 0x7F
        n = int.from_bytes(der[at:at + k], "big")
        at += k
    return tag, at, at + n


def _pkcs8_is_pss(der):
    """True if der is a PKCS#8 PrivateKeyInfo whose algorithm is RSASSA-PSS
    (SEQUENCE { INTEGER version, SEQUENCE { OID, ... }, ... })."""
    try:
        tag, body, _ = _der_item(der, 0)
        if tag != 0x30:
            return False
        tag, _, end = _der_item(der, body)  # version
        if tag != 0x02:
            return False
        tag, alg, _ = _der_item(der, end)
        return tag == 0x30 and der[alg:alg + len(_PSS_OID)] == _PSS_OID
    except IndexError:
        return False


def _pem_is_pss(data):
    """The same for a PEM "PRIVATE KEY" block. An encrypted PKCS#8 key hides
    its algorithm until decrypted, and `cryptography` reports a PSS key as a
    plain RSA key: such a key is not detected (pass pss_only=True)."""
    import base64
    import re
    m = re.search(rb"-----BEGIN PRIVATE KEY-----(.*?)-----END PRIVATE KEY-----", data, re.S)
    if not m:
        return False
    try:
        return _pkcs8_is_pss(base64.b64decode(b"".join(m.group(1).split())))
    except ValueError:
        return False


def _crypto():
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa as crsa
    except ImportError as e:
        raise ImportError("RSA keys in PEM/DER need the `cryptography` package (pip install cryptography)") from e
    return serialization, crsa


def _digest(message, hash):
    h = _hash_name(hash)
    if not isinstance(message, (bytes, bytearray, memoryview)):
        raise TypeError("message must be bytes")
    return hashlib.new(h.replace("-", "_"), bytes(message)).digest()


class RSA:
    """An RSA private key with k = 2..8 primes, one mns field per prime.

    spec: the mns_field backend of every channel ("auto" by default);
    threads: default for the calls (None: one per prime);
    pss_only: refuse PKCS#1 v1.5 signing (an RSASSA-PSS key)."""

    __slots__ = ("_k", "n", "e", "d", "primes", "threads", "pss_only", "__weakref__")

    def __init__(self, n, e, d, primes, spec="auto", threads=None, pss_only=False):
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
        self.pss_only = bool(pss_only)
        if self.pss_only:
            check(lib.mns_rsa_restrict(self._k, lib.MNS_RSA_PSS_ONLY))

    @staticmethod
    def _threads(t):
        t = _as_int(t, "threads")
        if not 1 <= t <= 1024:
            raise ValueError("threads must be in [1, 1024]")
        return t

    @classmethod
    def from_key(cls, key, spec="auto", threads=None, pss_only=False):
        """From a `cryptography` RSAPrivateKey."""
        _, crsa = _crypto()
        if not isinstance(key, crsa.RSAPrivateKey):
            raise TypeError(f"not an RSA private key: {type(key).__name__}")
        pn = key.private_numbers()
        return cls(pn.public_numbers.n, pn.public_numbers.e, pn.d, [pn.p, pn.q], spec, threads,
                   pss_only)

    @classmethod
    def from_pem(cls, data, password=None, spec="auto", threads=None, pss_only=None):
        """From a PEM (or DER) PKCS#1 / PKCS#8 private key, bytes or str.
        pss_only=None: from the key's PKCS#8 algorithm (RSASSA-PSS or not)."""
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
        if pss_only is None:
            pss_only = _pem_is_pss(data) if b"-----BEGIN" in data else _pkcs8_is_pss(data)
        return cls.from_key(key, spec, threads, pss_only)

    from_der = from_pem

    @classmethod
    def from_file(cls, path, password=None, spec="auto", threads=None, pss_only=None):
        with open(os.fspath(path), "rb") as f:
            return cls.from_pem(f.read(), password, spec, threads, pss_only)

    @property
    def bits(self):
        return self.n.bit_length()

    @property
    def nbytes(self):
        return lib.mns_rsa_bytes(self._k)

    def describe(self):
        """Each channel's field and what its creation cost."""
        return ffi.string(lib.mns_rsa_describe(self._k)).decode()

    def wait(self):
        """Blocks until the background tuning of an "auto" key has ended."""
        lib.mns_rsa_wait(self._k)

    @property
    def tuned(self):
        """True once calls run on the tuned channels."""
        return bool(lib.mns_rsa_tuned(self._k))

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
        hash = _hash_name(hash)
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

    def sign_digest_many(self, digests, hash="sha256", threads=None):
        """The signatures of many digests of one hash in one call of
        mns_rsa_sign_pkcs1v15_n (groups of eight in the lanes of the IFMA
        batch kernels where the CPU has them, the groups shared over up to
        threads threads), without the GIL: a list of bytes, each what
        sign_digest gives."""
        hash = _hash_name(hash)
        try:
            digests = [bytes(d) if isinstance(d, (bytes, bytearray, memoryview)) else None
                       for d in digests]
        except TypeError:
            raise TypeError("digests must be a sequence of bytes") from None
        if any(d is None for d in digests):
            raise TypeError("digests must be bytes")
        t = self.threads if threads is None else self._threads(threads)
        if not digests:
            return []
        dlen = len(digests[0])
        if any(len(d) != dlen for d in digests):
            raise ValueError("digests of one hash have one length")
        nb = self.nbytes
        sig = ffi.new("unsigned char[]", nb * len(digests))
        check(lib.mns_rsa_sign_pkcs1v15_n(self._k, sig, hash.encode(), b"".join(digests), dlen,
                                          len(digests), t))
        out = ffi.buffer(sig, nb * len(digests))[:]
        return [out[i * nb:(i + 1) * nb] for i in range(len(digests))]

    def sign_many(self, messages, hash="sha256", threads=None):
        """RSASSA-PKCS1-v1_5 signatures of many messages (bytes) with hash, in
        one batch call (sign_digest_many): a list of bytes."""
        try:
            digests = [_digest(m, hash) for m in messages]
        except TypeError as e:
            raise TypeError(f"messages must be a sequence of bytes: {e}") from None
        return self.sign_digest_many(digests, hash, threads)

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
    algorithm = getattr(hashes, _hash_name(hash).upper().replace("-", "_"))()
    try:
        public_key.verify(bytes(signature), bytes(message), padding.PKCS1v15(), algorithm)
        return True
    except InvalidSignature:
        return False
