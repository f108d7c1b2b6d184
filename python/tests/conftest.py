"""Shared fixtures: RSA keys made by `cryptography` (OpenSSL), written as PEM
and DER files, and seeded random primes."""
import os
import random

import pytest

import mns
from mns.cli import random_prime

SEED = int(os.environ.get("MNS_TEST_SEED", "0") or 0)


@pytest.fixture(scope="package")
def rng():
    print(f"MNS_TEST_SEED={SEED}")
    return random.Random(SEED)


def prime(bits, seed):
    return random_prime(bits, random.Random(f"{SEED}-{bits}-{seed}"))


@pytest.fixture(scope="package")
def rsa_key():
    """A 2048-bit key from OpenSSL (through cryptography)."""
    crsa = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.rsa")
    return crsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="package")
def key_files(rsa_key, tmp_path_factory):
    from cryptography.hazmat.primitives import serialization as ser
    d = tmp_path_factory.mktemp("keys")
    files = {
        "pem": (ser.Encoding.PEM, ser.PrivateFormat.TraditionalOpenSSL),
        "pk8": (ser.Encoding.PEM, ser.PrivateFormat.PKCS8),
        "der": (ser.Encoding.DER, ser.PrivateFormat.PKCS8),
    }
    out = {}
    for name, (enc, fmt) in files.items():
        path = d / f"key.{name}"
        path.write_bytes(rsa_key.private_bytes(enc, fmt, ser.NoEncryption()))
        out[name] = path
    pub = d / "pub.pem"
    pub.write_bytes(rsa_key.public_key().public_bytes(ser.Encoding.PEM, ser.PublicFormat.SubjectPublicKeyInfo))
    out["pub"] = pub
    return out


__all__ = ["prime", "mns"]
