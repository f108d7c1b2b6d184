"""mns.RSA against OpenSSL (through `cryptography`): identical PKCS#1 v1.5
signatures, the private operation against Python's pow, keys in PEM/DER,
k-prime keys, and bad input."""
import hashlib

import pytest
from hypothesis import given, settings, strategies as st

import mns
from conftest import prime

pytest.importorskip("cryptography")
from cryptography.hazmat.primitives import hashes  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import padding  # noqa: E402


@pytest.mark.parametrize("fmt", ["pem", "pk8", "der"])
def test_load_and_sign_like_openssl(rsa_key, key_files, fmt):
    key = mns.RSA.from_file(key_files[fmt])
    assert key.bits == 2048 and key.nbytes == 256 and "rsa bits=2048" in key.describe()
    for h in mns.rsa.HASHES:
        msg = f"message for {h}".encode()
        sig = key.sign(msg, h)
        algorithm = getattr(hashes, h.upper().replace("-", "_"))()
        assert sig == rsa_key.sign(msg, padding.PKCS1v15(), algorithm)
        assert key.verify(sig, msg, h)
        assert not key.verify(sig, msg + b"!", h)


@pytest.mark.parametrize("backend", ["auto", "mont", "pmns-ifma", "rns"])
def test_backends_and_threads(rsa_key, backend):
    try:
        key = mns.RSA.from_key(rsa_key, spec=backend)
    except mns.NotSupportedError:
        pytest.skip(f"{backend} not on this CPU")
    n, d = key.n, key.d
    x = 0x1234567890abcdef ** 20 % n
    for t in (1, 2, 3):
        assert key.private(x, threads=t) == pow(x, d, n)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(x=st.integers(min_value=0))
def test_private_against_pow(rsa_key, x):
    key = _cached(rsa_key)
    x %= key.n
    assert key.private(x) == pow(x, key.d, key.n)


_keys = {}


def _cached(rsa_key):
    if id(rsa_key) not in _keys:
        _keys[id(rsa_key)] = mns.RSA.from_key(rsa_key)
    return _keys[id(rsa_key)]


def test_multiprime_key_from_numbers():
    ps = [prime(512, i) for i in range(3)]
    n = ps[0] * ps[1] * ps[2]
    e = 65537
    from math import lcm
    d = pow(e, -1, lcm(*(p - 1 for p in ps)))
    key = mns.RSA(n, e, d, ps)
    assert len(key.primes) == 3
    for x in (0, 1, 2, n - 1, n // 3):
        assert key.private(x) == pow(x, d, n)
    sig = key.sign(b"three primes")
    assert key.verify(sig, b"three primes")


def test_bad_input(rsa_key, key_files, tmp_path):
    key = _cached(rsa_key)
    with pytest.raises(ValueError):
        key.private(key.n)
    with pytest.raises(ValueError):
        key.private(-1)
    with pytest.raises(TypeError):
        key.private("12")
    with pytest.raises(ValueError):
        key.sign(b"m", "md5")
    with pytest.raises(TypeError):
        key.sign("text", "sha256")
    with pytest.raises(ValueError):          # digest of the wrong length: the library refuses
        key.sign_digest(hashlib.sha1(b"m").digest(), "sha256")
    with pytest.raises(ValueError):
        key.private(5, threads=0)
    pn = rsa_key.private_numbers()
    n, e, d, p, q = pn.public_numbers.n, pn.public_numbers.e, pn.d, pn.p, pn.q
    with pytest.raises(ValueError, match="."):
        mns.RSA(n, e, d + 2, [p, q])                 # e d != 1
    with pytest.raises(ValueError):
        mns.RSA(n + 2, e, d, [p, q])                 # primes do not multiply to n
    with pytest.raises(ValueError):
        mns.RSA(n, e, d, [p])                        # one prime
    with pytest.raises(ValueError):
        mns.RSA(n, e, d, [p, q], spec="nosuch")
    with pytest.raises(TypeError):
        mns.RSA(n, e, d, 5)
    with pytest.raises(TypeError):
        mns.RSA(n, e, 1.5, [p, q])
    for data in (b"", b"-----BEGIN RSA PRIVATE KEY-----\ngarbage\n-----END RSA PRIVATE KEY-----\n",
                 b"\x30\x82\x01" + b"\x00" * 50, key_files["pub"].read_bytes(),
                 key_files["pem"].read_bytes()[:300]):
        with pytest.raises(ValueError):
            mns.RSA.from_pem(data)
    with pytest.raises(TypeError):
        mns.RSA.from_pem(12)
    ec = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.ec")
    with pytest.raises(TypeError):
        mns.RSA.from_key(ec.generate_private_key(ec.SECP256R1()))
    with pytest.raises(OSError):
        mns.RSA.from_file(tmp_path / "missing.pem")


def test_hash_names_any_case_and_spelling(rsa_key):
    key = _cached(rsa_key)
    msg = b"spelling"
    for canon, names in {"sha256": ("SHA256", "Sha-256", "sha2-256"),
                         "sha512-224": ("SHA512/224", "sha512_224", "SHA2-512/224"),
                         "sha3-256": ("SHA3-256", "sha3_256")}.items():
        want = key.sign(msg, canon)
        for name in names:
            assert key.sign(msg, name) == want
            assert key.verify(want, msg, name)
    with pytest.raises(ValueError, match="hash must be one of"):
        key.sign(msg, "md5")


def _as_pss_pkcs8(der):
    """The PKCS#8 DER of an rsaEncryption key with its algorithm made
    id-RSASSA-PSS (parameters absent, as `openssl genpkey -algorithm RSA-PSS`
    writes it)."""
    rsa_alg = bytes.fromhex("300d06092a864886f70d0101010500")
    pss_alg = bytes.fromhex("300b06092a864886f70d01010a")
    assert der[:2] == b"\x30\x82" and rsa_alg in der[:30]
    body = der[4:].replace(rsa_alg, pss_alg, 1)
    return b"\x30\x82" + len(body).to_bytes(2, "big") + body


def test_pss_key_refuses_pkcs1v15(rsa_key, key_files):
    import base64
    der = _as_pss_pkcs8(key_files["der"].read_bytes())
    pem = (b"-----BEGIN PRIVATE KEY-----\n" + base64.encodebytes(der)
           + b"-----END PRIVATE KEY-----\n")
    for data in (der, pem):
        key = mns.RSA.from_pem(data)
        assert key.pss_only
        with pytest.raises(ValueError, match="RSASSA-PSS"):
            key.sign(b"m", "sha256")
        x = 12345
        assert key.private(x) == pow(x, key.d, key.n)
    assert not mns.RSA.from_file(key_files["pk8"]).pss_only
    assert not mns.RSA.from_file(key_files["pem"]).pss_only
    forced = mns.RSA.from_key(rsa_key, pss_only=True)
    with pytest.raises(ValueError, match="RSASSA-PSS"):
        forced.sign_digest(hashlib.sha256(b"m").digest(), "sha256")


def test_every_error_has_its_own_message(rsa_key):
    from mns._mns import ffi, lib
    key = _cached(rsa_key)
    with pytest.raises(ValueError, match="hash must be one of"):
        key.sign(b"m", "nosuch")
    kp = ffi.new("mns_rsa **")
    lens = ffi.new("size_t[]", [1] * 16)
    # a bad prime count straight into the shim: the library's own message
    assert lib.mnspy_rsa_new(kp, b"\x01" * 16, lens, 9, b"auto") == lib.MNS_EINVAL
    assert "9 primes" in ffi.string(lib.mns_last_error()).decode()
    assert lib.mnspy_rsa_new(kp, b"\x01" * 16, lens, -1, b"auto") == lib.MNS_EINVAL
    assert "-1 primes" in ffi.string(lib.mns_last_error()).decode()


def test_ready_at_once_then_tuned(rsa_key):
    key = mns.RSA.from_key(rsa_key)
    x = 987654321
    first = key.private(x)
    key.wait()
    assert key.tuned and "plan=tuned" in key.describe()
    assert key.private(x) == first == pow(x, key.d, key.n)
    assert not mns.RSA.from_key(rsa_key, spec="mont").tuned
