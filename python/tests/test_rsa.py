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
        assert sig == rsa_key.sign(msg, padding.PKCS1v15(), getattr(hashes, h.upper())())
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
