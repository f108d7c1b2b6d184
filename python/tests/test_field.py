"""mns.Field against Python's own arithmetic (hypothesis), on every backend
this CPU serves."""
import os

import pytest
from hypothesis import given, settings, strategies as st

import mns

SEED = int(os.environ.get("MNS_TEST_SEED", "0") or 0)
print(f"test_field.py: hypothesis derandomized, MNS_TEST_SEED={SEED}")

PRIMES = [2**127 - 1, 2**255 - 19, 2**521 - 1, (1 << 1024) - 105, 2**448 - 2**224 - 1]
BACKENDS = ["auto", "mont", "mont:kernel=generic", "mont-ifma", "mont-ifma:kernel=generic", "pmns",
            "pmns-ifma", "pmns-mp", "pmns-mp-ifma", "rns", "rns-ifma", "mpart:threads=1", "bipartite", "sor",
            "sor-ifma"]


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


def test_sor_serves_pseudo_mersenne():
    # every prime above but the 1024-bit one is pseudo-Mersenne with a small
    # enough epsilon for sum-of-residues reduction (docs/sor.md, eq. (22))
    served = {F.p for F in FIELDS if F.describe.startswith("sor ")}
    assert 2**255 - 19 in served and 2**127 - 1 in served
ints = st.integers(min_value=-(2**1100), max_value=2**1100)


@pytest.mark.parametrize("F", FIELDS, ids=lambda F: f"{F.p.bit_length()}-{F.describe.split()[0]}")
@settings(max_examples=40, deadline=None, derandomize=True)
@given(a=ints, b=ints, e=st.integers(min_value=0, max_value=2**600))
def test_ops(F, a, b, e):
    p = F.p
    A, B = F(a), F(b)
    assert int(A) == a % p
    assert int(A * B) == a * b % p
    assert int(A * A) == a * a % p
    assert int(A + B) == (a + b) % p
    assert int(A - B) == (a - b) % p
    assert int(-A) == -a % p
    assert int(A ** e) == pow(a, e, p)
    assert A * b == a * b % p
    assert (3 * A) == 3 * a % p


def test_example_from_the_issue():
    F = mns.Field(2**255 - 19)
    assert str(F(3) ** 100) == str(pow(3, 100, 2**255 - 19))
    assert "mns.Element(" in repr(F(3))


def test_negative_exponent_is_the_inverse():
    p = 2**255 - 19
    F = mns.Field(p)
    assert int(F(7) ** -1) == pow(7, -1, p)
    assert int(F(7) ** -5) == pow(7, -5, p)


@pytest.mark.parametrize("p,spec", [(4, "mont"), (2, "mont"), (1, "auto"), (-7, "mont"),
                                    (2**61 - 1, "nosuch"), (2**61 - 1, "mont:x=1"),
                                    (2**61 - 1, "mont:"), (2**61 - 1, "")])
def test_bad_input_raises(p, spec):
    with pytest.raises(ValueError):
        mns.Field(p, spec)


def test_bad_types_raise():
    with pytest.raises(TypeError):
        mns.Field(3.5)
    with pytest.raises(TypeError):
        mns.Field(2**61 - 1, backend=3)
    F = mns.Field(2**61 - 1)
    with pytest.raises(TypeError):
        F("12")
    with pytest.raises(TypeError):
        F(2) ** 1.5
    with pytest.raises(ValueError):
        F(2) * mns.Field(2**89 - 1)(3)


def test_error_message_comes_from_the_library():
    with pytest.raises(ValueError, match="unknown backend"):
        mns.Field(2**61 - 1, "nosuch")


def test_version_and_features():
    assert mns.version().count(".") == 2
    assert isinstance(mns.cpu_features(), str)


RANDOM_BACKENDS = ["auto", "mont", "mont-ifma:kernel=generic", "pmns", "pmns-ifma", "pmns-mp", "pmns-mp-ifma", "rns",
                   "rns-ifma", "bipartite"]


@settings(max_examples=12, deadline=None, derandomize=True)
@given(bits=st.integers(min_value=20, max_value=1100), seed=st.integers(0, 10**9),
       backend=st.sampled_from(RANDOM_BACKENDS), data=st.data())
def test_random_primes(bits, seed, backend, data):
    from conftest import prime
    p = prime(bits, seed)
    try:
        F = mns.Field(p, backend)
    except (mns.NotSupportedError, ValueError) as e:
        # not this CPU, or a size the backend does not serve: the library says so
        assert str(e)
        return
    for _ in range(3):
        a = data.draw(st.integers(min_value=-p * p, max_value=p * p))
        b = data.draw(st.one_of(st.integers(0, p - 1), st.sampled_from([0, 1, p - 1])))
        e = data.draw(st.integers(min_value=0, max_value=2**(bits + 8)))
        A, B = F(a), F(b)
        assert int(A * B) == a * b % p
        assert int(A * A) == a * a % p
        assert int(A + B - A * B) == (a + b - a * b) % p
        assert int(A ** e) == pow(a, e, p)


def test_huge_values_and_moduli():
    p = 2**255 - 19
    F = mns.Field(p)
    for x in (2**100000 + 12345, -(2**100000), 10**5000):
        assert int(F(x)) == x % p
    assert int(F(3) ** (2**20000 + 1)) == pow(3, 2**20000 + 1, p)
    # a large odd modulus: mont serves any odd modulus
    m = 2**20001 + 1
    G = mns.Field(m, "mont")
    assert int(G(3) ** 65537) == pow(3, 65537, m)
    # a composite for a PMNS backend: refused with the library's reason
    with pytest.raises(ValueError, match="prime"):
        mns.Field(2**255 - 21, "pmns")


def test_wrong_operand_types():
    F = mns.Field(2**127 - 1)
    for bad in ("x", 1.5, None, [1], b"1"):
        with pytest.raises(TypeError):
            F(2) + bad
        with pytest.raises(TypeError):
            F(2) * bad
        with pytest.raises(TypeError):
            bad - F(2)
    with pytest.raises(TypeError):
        pow(F(2), 3, 5)
    with pytest.raises(ValueError):
        F(0) ** -1          # no inverse


def test_hand_made_objects_are_refused():
    from mns._mns import ffi
    F = mns.Field(2**127 - 1)
    for words in (ffi.new("uint64_t[]", F.limbs + 5), ffi.new("uint64_t[]", 1), [0, 0], None):
        with pytest.raises(TypeError):
            mns.Element(F, words)
    with pytest.raises(TypeError):
        mns.Element(object(), ffi.new("uint64_t[]", F.limbs))
    for handle in (None, ffi.NULL, ffi.new("int *"), 5):
        with pytest.raises(TypeError):
            mns.pmns.Params(handle)
