"""mns.Element (the compiled type of mns._ext) against Python's own integers:
every operation on random and structured values (hypothesis), long chains of
additions across the backends' delta, gmpy2 integers where an int goes,
hashing, pickling, copies, and the refusals (TypeError, ValueError)."""
import copy
import os
import pickle

import pytest
from hypothesis import given, settings, strategies as st

import mns

SEED = int(os.environ.get("MNS_TEST_SEED", "0") or 0)
print(f"test_element.py: hypothesis derandomized, MNS_TEST_SEED={SEED}")

PRIMES = [2**127 - 1, 2**255 - 19, (1 << 1024) - 105, 2**521 - 1]
BACKENDS = ["auto", "mont", "mont-ifma:kernel=generic", "pmns", "pmns-mp", "rns", "sor", "mpart:threads=1",
            "bipartite"]


def fields():
    out = []
    for p in PRIMES:
        for b in BACKENDS:
            try:
                out.append(mns.Field(p, b))
            except (mns.NotSupportedError, ValueError):
                pass
    return out


FIELDS = fields()
IDS = [f"{F.p.bit_length()}-{F.describe.split()[0]}" for F in FIELDS]


def structured(p):
    return [0, 1, 2, p - 1, p, p + 1, -1, -p, p * p - 1, 2**(p.bit_length() - 1), (1 << 64) - 1,
            (1 << (64 * ((p.bit_length() + 63) // 64))) - 1, 3**200]


ints = st.integers(min_value=-(2**1100), max_value=2**1100)


@pytest.mark.parametrize("F", FIELDS, ids=IDS)
@settings(max_examples=25, deadline=None, derandomize=True)
@given(a=ints, b=ints, e=st.integers(min_value=-(2**300), max_value=2**600))
def test_every_operation(F, a, b, e):
    p = F.p
    A, B = F(a), F(b)
    assert int(A * B) == a * b % p and int(A * A) == a * a % p
    assert int(A + B) == (a + b) % p and int(A - B) == (a - b) % p
    assert int(-A) == -a % p and int(+A) == a % p
    assert (A == B) == (a % p == b % p) and (A != B) == (a % p != b % p)
    assert A == a and A == a + 7 * p and A != a + 1
    assert bool(A) == (a % p != 0)
    assert bytes(A) == (a % p).to_bytes((p.bit_length() + 7) // 8, "big")
    assert str(A) == str(a % p) and repr(A) == f"mns.Element({a % p}, p={p:#x})"
    if a % p:
        assert int(A ** e) == pow(a, e, p)
    else:
        assert int(A ** abs(e)) == pow(a, abs(e), p)
    # integers on either side
    assert int(A * b) == int(b * A) == a * b % p
    assert int(b - A) == (b - a) % p and int(A - b) == (a - b) % p and int(b + A) == (a + b) % p


@pytest.mark.parametrize("F", FIELDS, ids=IDS)
def test_structured_values(F):
    p = F.p
    vals = structured(p)
    for a in vals:
        A = F(a)
        assert int(A) == a % p
        for b in vals:
            B = F(b)
            assert int(A * B) == a * b % p, (a, b)
            assert int(A + B) == (a + b) % p and int(A - B) == (a - b) % p
            assert (A == B) == ((a - b) % p == 0)
        assert int(A ** (p - 2)) == pow(a, p - 2, p)
        assert int(A ** 0) == 1


@pytest.mark.parametrize("F", FIELDS, ids=IDS)
def test_chains_of_additions(F, rng):
    # sums stay loose up to delta + 1 tight summands; longer chains must
    # still give the right value, in products and in every way out
    p = F.p
    n = min(F.delta + 1, 400) * 2 + 3 if F.delta < 2**31 - 1 else 50
    xs = [rng.randrange(-p, 2 * p) for _ in range(n)]
    S, s = F(0), 0
    for i, x in enumerate(xs):
        if i % 3 == 2:
            S, s = S - F(x), s - x
        else:
            S, s = S + x, s + x
        if i % 17 == 0:
            assert int(S * S) == s * s % p
    assert int(S) == s % p and S == s and hash(S) == hash(F(s))
    assert int(S ** 5) == pow(s, 5, p)
    N, m = -S, -s
    for _ in range(5):
        N = -N - S
    for _ in range(5):
        m = -m - s
    assert int(N) == m % p and int(N * F(3)) == 3 * m % p


def test_hash_equal_elements_hash_alike():
    F = mns.Field(2**255 - 19)
    a, b = F(5) * F(7), F(35)
    assert a == b and hash(a) == hash(b)
    assert len({a, b, F(36)}) == 2
    G = mns.Field(2**255 - 19)
    assert F(3) != G(3)      # another field, not the same element


def test_pickle_and_copies():
    F = mns.Field(2**127 - 1, "mont")
    xs = [F(3), F(2**100), F(-1)]
    back = pickle.loads(pickle.dumps(xs))
    assert [int(x) for x in back] == [int(x) for x in xs]
    assert back[0].field is back[1].field and back[0].field.backend == "mont"
    assert copy.copy(xs[0]) is xs[0] and copy.deepcopy(xs) == xs
    assert copy.deepcopy(F) is F
    assert int(back[0] * back[1]) == 3 * 2**100 % (2**127 - 1)


def test_gmpy2_integers_where_an_int_goes():
    gmpy2 = pytest.importorskip("gmpy2")
    p = 2**255 - 19
    F = mns.Field(p)
    a, b = gmpy2.mpz(3)**150, gmpy2.mpz(-12345)
    assert int(F(a)) == int(a) % p and int(F(b)) == int(b) % p
    assert int(F(7) * a) == 7 * int(a) % p and int(a + F(7)) == (int(a) + 7) % p
    assert int(F(7) ** gmpy2.mpz(1000)) == pow(7, 1000, p)
    assert F(int(a)) == a
    G = mns.Field(gmpy2.mpz(p))
    assert G.p == p and type(G.p) is int


def test_inverse_by_negative_power():
    p = 2**255 - 19
    F = mns.Field(p)
    assert int(F(7) ** -1) == pow(7, -1, p) and int((F(7) + F(3)) ** -3) == pow(10, -3, p)
    with pytest.raises(ValueError):
        F(0) ** -1
    with pytest.raises(ValueError):
        F(p) ** -2


def test_bad_types_are_refused():
    F = mns.Field(2**127 - 1)
    a = F(2)
    for bad in ("x", 1.5, None, [1], b"1", (), 2j, object()):
        for op in (lambda: a + bad, lambda: bad + a, lambda: a - bad, lambda: bad - a, lambda: a * bad,
                   lambda: bad * a, lambda: a ** bad, lambda: F(bad)):
            with pytest.raises(TypeError):
                op()
        assert (a == bad) is False and (a != bad) is True
    with pytest.raises(TypeError):
        pow(a, 3, 5)
    with pytest.raises(TypeError):
        2 ** a
    with pytest.raises(TypeError):
        a < a
    with pytest.raises(TypeError):
        "ab" * a               # no __index__: no sequence repetition
    with pytest.raises(TypeError):
        F(a)                   # an element is not an integer
    with pytest.raises(TypeError):
        mns.Element()


def test_mixed_fields_are_refused():
    F, G = mns.Field(2**127 - 1), mns.Field(2**127 - 1)
    for op in (lambda: F(2) * G(3), lambda: F(2) + G(3), lambda: F(2) - G(3), lambda: G(2) * F(2)):
        with pytest.raises(ValueError, match="different fields"):
            op()
    assert (F(2) == G(2)) is False


def test_field_attributes():
    F = mns.Field(2**255 - 19, "mont")
    assert F.p == 2**255 - 19 and F.limbs == 4 and F.pwords == 4 and F.backend == "mont"
    assert F.describe.startswith("mont ") and repr(F).startswith("mns.Field(0x7fff")
    assert F(3).field is F and isinstance(F(3), mns.Element)
    with pytest.raises(AttributeError):
        F(3).field = None
