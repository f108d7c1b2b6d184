"""The constant-time field API of mns.h on Python elements (inverse,
division, square root, Legendre symbol, bytes in and out, random elements,
the public-exponent power) against Python's own integers on random and
structured values (hypothesis): 0, 1, p - 1, non-residues, byte strings
longer than p and with leading zeros, composite moduli where the inverse
must refuse; the batch calls (Vector.inv, Field.powm_n) against the scalar
ones; the refusals (TypeError, ValueError); RSA.sign_many against sign."""
import os

import pytest
from hypothesis import given, settings, strategies as st

import mns
from conftest import prime

SEED = int(os.environ.get("MNS_TEST_SEED", "0") or 0)
print(f"test_fieldapi.py: hypothesis derandomized, MNS_TEST_SEED={SEED}")

# p = 3 mod 4, 5 mod 8, 1 mod 8 (P-224: Tonelli-Shanks with 2^96 | p - 1),
# and a 1024-bit prime
PRIMES = [2**127 - 1, 2**255 - 19, 2**224 - 2**96 + 1, (1 << 1024) - 105]
BACKENDS = ["auto", "mont", "mont-ifma:kernel=generic", "pmns", "pmns-mp", "rns", "sor", "mpart:threads=1"]


def fields(primes, backends):
    out = []
    for p in primes:
        for b in backends:
            try:
                out.append(mns.Field(p, b))
            except (mns.NotSupportedError, ValueError):
                pass
    return out


FIELDS = fields(PRIMES, BACKENDS)
IDS = [f"{F.p.bit_length()}-{F.describe.split()[0]}" for F in FIELDS]
# odd composites: the inverse must refuse multiples of a factor
COMPOSITES = fields([prime(128, 1) * prime(128, 2), (2**127 - 1) ** 2, 3 * 5 * 7 * (2**89 - 1)],
                    ["auto", "mont"])
CIDS = [f"{F.p.bit_length()}-{F.describe.split()[0]}" for F in COMPOSITES]


def legendre(a, p):
    s = pow(a, (p - 1) // 2, p)
    return -1 if s == p - 1 else s


def non_residue(p):
    return next(z for z in range(2, 1000) if legendre(z, p) == -1)


def structured(p):
    z = non_residue(p)
    return [0, 1, 2, p - 1, p - 2, z, z * 4 % p, (p - 1) // 2, (p + 1) // 2, 2**(p.bit_length() - 1)]


ints = st.integers(min_value=-(2**1100), max_value=2**1100)


def check_value(F, a):
    """Every call of the API on the element of a, against Python's integers."""
    p, A, v = F.p, F(a), a % F.p
    n = F.pbytes
    assert A.to_bytes() == bytes(A) == v.to_bytes(n, "big")
    assert A.to_bytes(n + 5, "little") == v.to_bytes(n + 5, "little")
    assert A.to_bytes(byteorder="little") == v.to_bytes(n, "little")
    assert int(F.from_bytes(v.to_bytes(n, "big"))) == v
    assert int(F.from_bytes(v.to_bytes(n + 9, "little"), byteorder="little")) == v
    assert A.legendre() == legendre(v, p)
    if v:
        inv = pow(v, -1, p)
        assert int(A.inv()) == inv and int(1 / A) == inv and int(A ** -1) == inv
        assert int(A ** -3) == pow(v, -3, p) and int(7 / A) == 7 * inv % p
        assert int(A.pow(-2, public=True)) == pow(v, -2, p)
    else:
        for op in (A.inv, lambda: 1 / A, lambda: A ** -1, lambda: F(5) / A):
            with pytest.raises(mns.NotInvertibleError):
                op()
    if legendre(v, p) >= 0:
        r = A.sqrt()
        assert int(r) ** 2 % p == v
    else:
        with pytest.raises(ValueError, match="not a square"):
            A.sqrt()


@pytest.mark.parametrize("F", FIELDS, ids=IDS)
@settings(max_examples=15, deadline=None, derandomize=True)
@given(a=ints, b=ints, e=st.integers(min_value=0, max_value=2**300))
def test_random_values(F, a, b, e):
    check_value(F, a)
    p = F.p
    A, B = F(a), F(b)
    if b % p:
        assert int(A / B) == a * pow(b, -1, p) % p and int(a / B) == int(A / B)
    assert int(A.pow(e, public=True)) == int(A ** e) == pow(a, e, p)
    # loose operands (sums) go in as they are
    S = A + B + A - B
    check_value(F, 2 * a)
    assert S.to_bytes() == F(2 * a).to_bytes()
    if (2 * a) % p:
        assert int(S.inv()) == pow(2 * a, -1, p)


@pytest.mark.parametrize("F", FIELDS, ids=IDS)
def test_structured_values(F):
    for a in structured(F.p):
        check_value(F, a)


@pytest.mark.parametrize("F", FIELDS, ids=IDS)
@settings(max_examples=15, deadline=None, derandomize=True)
@given(b=st.binary(max_size=300), lead=st.integers(min_value=0, max_value=70))
def test_from_bytes_any_length(F, b, lead):
    p = F.p
    big = bytes(lead) + b   # leading zeros, and strings longer than p
    assert int(F.from_bytes(big)) == int.from_bytes(big, "big") % p
    assert int(F.from_bytes(big[::-1], "little")) == int.from_bytes(big, "big") % p
    assert int(F.from_bytes(bytearray(big))) == int(F.from_bytes(memoryview(big)))
    assert int(F.from_bytes(b"")) == 0
    assert int(F.from_bytes(p.to_bytes(F.pbytes + 3, "big"))) == 0


@pytest.mark.parametrize("F", FIELDS[:6], ids=IDS[:6])
def test_random_elements(F):
    xs = [F.random() for _ in range(64)]
    assert all(isinstance(x, mns.Element) and x.field is F and 0 <= int(x) < F.p for x in xs)
    assert len({int(x) for x in xs}) == 64   # 64 draws of >= 127 bits do not collide
    top = sum(int(x) > F.p // 2 for x in xs)
    assert 10 < top < 54                     # both halves of [0, p) are reached


@pytest.mark.parametrize("F", COMPOSITES, ids=CIDS)
def test_composite_moduli(F, rng):
    n = F.p
    factors = [q for q in (prime(128, 1), prime(128, 2), 2**127 - 1, 3, 5, 7, 2**89 - 1) if n % q == 0]
    assert factors
    for q in factors:
        for a in (q, 2 * q, n - q):
            with pytest.raises(mns.NotInvertibleError):
                F(a).inv()
            with pytest.raises(ZeroDivisionError):
                1 / F(a)
            with pytest.raises(ValueError):
                F(a) ** -1
    for _ in range(20):
        a = rng.randrange(1, n)
        if all(a % q for q in factors):
            assert int(F(a).inv()) == pow(a, -1, n) and int(F(a) ** -2) == pow(a, -2, n)
        s = F(a * a)
        try:
            r = s.sqrt()     # a root, when one is found, is a root
            assert int(r) ** 2 % n == a * a % n
        except (ValueError, mns.NotSupportedError):
            pass
    v = F.vector([1, 2, factors[0], 4])
    with pytest.raises(mns.NotInvertibleError, match="element 2"):
        v.inv()


@pytest.mark.parametrize("F", FIELDS, ids=IDS)
@pytest.mark.parametrize("threads", [1, 2])
def test_batch_calls_against_scalars(F, threads, rng):
    p = F.p
    xs = [0, 1, p - 1] + [rng.randrange(p) for _ in range(17)]
    inv_xs = [x or 1 for x in xs]
    V = F.vector(inv_xs)
    assert V.inv(threads=threads).to_list() == [int(F(x).inv()) for x in inv_xs]
    es = [0, 1, p - 1, 2**200 + 1] + [rng.randrange(2**(i * 7 % 300 + 1)) for i in range(16)]
    for count in (1, 7, 8, 9, 17, 20):
        got = F.powm_n(xs[:count], es[:count], threads=threads)
        assert isinstance(got, mns.Vector) and len(got) == count
        assert got.to_list() == [pow(x, e, p) for x, e in zip(xs, es[:count])]
        assert [int(y) for y in got] == [int(F(x) ** e) for x, e in zip(xs, es[:count])]
    same = F.powm_n(xs, 65537, threads=threads)
    assert same.to_list() == [pow(x, 65537, p) for x in xs]
    assert F.powm_n([F(3)] * 9, [5] * 9).to_list() == [pow(3, 5, p)] * 9  # equal lanes


def test_refusals():
    F, G = mns.Field(2**127 - 1), mns.Field(2**127 - 1)
    a = F(5)
    for bad in ("big", 1.5, b"x", [16]):
        with pytest.raises(TypeError):
            a.to_bytes(bad)
    with pytest.raises(ValueError):
        a.to_bytes(16, "middle")
    with pytest.raises(TypeError):
        a.to_bytes(16, 1)
    with pytest.raises(ValueError):
        a.to_bytes(-1)
    with pytest.raises(mns.InvalidArgumentError, match="p needs 16"):
        a.to_bytes(15)
    with pytest.raises(TypeError):
        a.to_bytes(16, "big", 3)
    with pytest.raises(TypeError):
        a.to_bytes(lenght=16)
    with pytest.raises(TypeError):
        a.to_bytes(16, length=16)
    for bad in ("00", 12, 1.0, None, [1, 2]):
        with pytest.raises(TypeError):
            F.from_bytes(bad)
    with pytest.raises(ValueError):
        F.from_bytes(b"\x01", "network")
    with pytest.raises(TypeError):
        F.from_bytes()
    for op in (lambda: F(2) / G(3), lambda: G(2) / F(2)):
        with pytest.raises(ValueError, match="different fields"):
            op()
    for bad in ("x", 1.5, None, b"1"):
        with pytest.raises(TypeError):
            a / bad
        with pytest.raises(TypeError):
            bad / a
        with pytest.raises(TypeError):
            a.pow(bad)
    with pytest.raises(TypeError):
        a.pow()
    with pytest.raises(TypeError):
        a.pow(3, secret=True)
    with pytest.raises(TypeError):
        a.inv(1)
    with pytest.raises(TypeError):
        F.powm_n([1, 2], ["x", 3])
    with pytest.raises(ValueError):
        F.powm_n([1, 2], [1, 2, 3])
    with pytest.raises(ValueError):
        F.powm_n([1, 2], [-1, 2])
    with pytest.raises(ValueError, match="different fields"):
        F.powm_n([G(1)], 3)


def test_not_invertible_is_both_kinds():
    assert issubclass(mns.NotInvertibleError, ZeroDivisionError)
    assert issubclass(mns.NotInvertibleError, ValueError)
    assert issubclass(mns.NotInvertibleError, mns.MNSError)
    F = mns.Field(2**61 - 1)
    with pytest.raises(mns.NotInvertibleError) as e:
        F(0).inv()
    assert e.value.status == 5 and "not invertible" in str(e.value)   # MNS_ERANGE


@pytest.fixture(scope="module")
def rsa(rsa_key):
    return mns.RSA.from_key(rsa_key)


def test_sign_many_like_sign(rsa):
    msgs = [f"message {i}".encode() for i in range(11)] + [b"", b"\x00" * 100]
    for h in ("sha256", "sha384", "SHA_512"):
        for t in (1, 2):
            sigs = rsa.sign_many(msgs, h, threads=t)
            assert len(sigs) == len(msgs) and all(len(s) == rsa.nbytes for s in sigs)
            assert sigs == [rsa.sign(m, h) for m in msgs]
            assert all(rsa.verify(s, m, h) for s, m in zip(sigs[:3], msgs))
    assert rsa.sign_many([]) == []
    import hashlib
    ds = [hashlib.sha256(m).digest() for m in msgs]
    assert rsa.sign_digest_many(ds) == [rsa.sign_digest(d) for d in ds]


def test_sign_many_refusals(rsa):
    with pytest.raises(TypeError):
        rsa.sign_many(["text"])
    with pytest.raises(TypeError):
        rsa.sign_many(5)
    with pytest.raises(ValueError):
        rsa.sign_many([b"x"], "md5")
    with pytest.raises(ValueError):
        rsa.sign_digest_many([bytes(32), bytes(31)])
    with pytest.raises(ValueError):
        rsa.sign_digest_many([bytes(31)] * 2)      # not a sha256 digest length
    with pytest.raises(TypeError):
        rsa.sign_digest_many([bytes(32), 7])
    with pytest.raises(ValueError):
        rsa.sign_many([b"x"], threads=0)
