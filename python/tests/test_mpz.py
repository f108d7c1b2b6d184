"""gmpy2.mpz wherever an int is accepted: moduli, values, operands,
exponents, RSA numbers, generator options."""
import random

import pytest

import mns
from conftest import SEED, prime

gmpy2 = pytest.importorskip("gmpy2")
mpz = gmpy2.mpz


def test_field_and_element_take_mpz():
    rng = random.Random(SEED)
    for bits in (127, 255, 1024):
        p = prime(bits, "mpz")
        F = mns.Field(mpz(p))
        assert F.p == p
        a, b, e = rng.randrange(p), rng.randrange(p), rng.randrange(1, p)
        assert int(F(mpz(a)) * F(mpz(b))) == a * b % p
        assert int(F(a) * mpz(b)) == a * b % p
        assert int(mpz(b) * F(a)) == a * b % p
        assert int(F(a) + mpz(b)) == (a + b) % p
        assert int(mpz(a) - F(b)) == (a - b) % p
        assert int(F(a) ** mpz(e)) == pow(a, e, p)
        assert F(a) == mpz(a)
        assert F(mpz(-a)) == F(p - a)


def test_rsa_and_helpers_take_mpz():
    rng = random.Random(SEED + 1)
    e = 65537
    while True:
        q1, q2 = prime(512, f"rsa1-{rng.random()}"), prime(512, f"rsa2-{rng.random()}")
        if q1 != q2 and (q1 - 1) % e and (q2 - 1) % e:
            break
    n = q1 * q2
    d = pow(e, -1, (q1 - 1) * (q2 - 1))
    key = mns.RSA(mpz(n), mpz(e), mpz(d), [mpz(q1), mpz(q2)], threads=mpz(1))
    x = rng.randrange(n)
    assert key.private(mpz(x)) == pow(x, d, n)
    assert mns.is_probable_prime(mpz(q1)) and not mns.is_probable_prime(mpz(n))
    assert mns.pmns.nopt(mpz(256)) == mns.pmns.nopt(256)
