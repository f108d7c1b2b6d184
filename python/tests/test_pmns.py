"""mns.pmns: generation for random primes, the parameters' defining
properties checked in Python, the text format round trip, Fields on a set,
progress and cancellation, and bad input (composites, huge, wrong types,
malformed files)."""
import pytest
from hypothesis import given, settings, strategies as st

import mns
from conftest import prime


def check_set(P, p):
    """Definition of a PMNS, recomputed with Python integers."""
    assert P.p == p
    n, g = P.n, P.gamma
    assert 1 <= g < p
    if P.eshape == "binomial":
        assert (pow(g, n, p) - P.lam) % p == 0            # E(gamma) = 0
    else:
        assert (pow(g, n, p) - g - 1) % p == 0
    M = P.M
    assert len(M) == n and len(P.Mprime) == n
    assert sum(m * pow(g, i, p) for i, m in enumerate(M)) % p == 0   # M(gamma) = 0
    assert all(0 <= m < 2**P.phi_log2 for m in P.Mprime)
    if P.word == "u52":
        assert all(m >= 0 for m in M)
    assert 2 <= P.rho <= p - 1 and (P.rho - 1).bit_length() == P.rho_bits
    assert P.phi_log2 == P.s * P.chunk_bits


@settings(max_examples=6, deadline=None, derandomize=True)
@given(bits=st.integers(min_value=64, max_value=700), seed=st.integers(0, 10**6),
       word=st.sampled_from(["s64", "u52"]), delta=st.integers(0, 3))
def test_generate_random_primes(bits, seed, word, delta):
    p = prime(bits, seed)
    P = mns.pmns.generate(p, word=word, delta=delta)
    check_set(P, p)
    assert P.delta >= delta and P.s == 1
    P.verify()
    Q = mns.pmns.loads(P.dumps())
    assert Q == P and Q.M == P.M and Q.gamma == P.gamma
    try:
        F = P.field()
    except mns.NotSupportedError:
        assert word == "u52"   # pmns-ifma: not on this CPU (or MNS_CPU=generic)
        return
    a, b = (seed * 7919) % p, (seed * 104729 + 1) % p
    assert int(F(a) * F(b)) == a * b % p
    assert int(F(a) ** (p - 2)) == pow(a, p - 2, p)


def test_multiprecision_and_trinomial():
    p = prime(1024, 1)
    P = mns.pmns.generate(p, word="u52", s=0, toeplitz_adds=1)
    check_set(P, p)
    assert P.s >= 1
    T = mns.pmns.generate(prime(300, 2), eshape="trinomial")
    check_set(T, T.p)
    assert T.E.endswith("-X-1") and T.lam == 0
    # E auto: never more coefficients than X^n - lambda; X^n - X - 1 exactly when it wins
    A = mns.pmns.generate(prime(768, 3), word="u52", eshape="auto")
    check_set(A, A.p)
    B = mns.pmns.generate(A.p, word="u52")
    assert A.n <= B.n and A.E.endswith("-X-1") == (A.n < B.n)
    assert mns.pmns.nopt(2048, 52) > mns.pmns.nopt(2048, 64) > 1


# A 1024-bit prime whose smallest lambda for X^8 - lambda gives no u52 set
# with s = 3, delta = 1 while lambda = 14 does (tests/gen/test_gen.c's
# test_lambda_walk, found by search there)
WALK_P = int("faa1a4777eae6549beb770db06a8ec8ce26ecc34b4d9366c56d59834176dcf4599e1ba9f02"
             "3d7ffb72f46881fcea9b6b8946c9a3320900b05f39919a54aa29adfd26b0422a80d9c253409"
             "1bbe08b96257b7e8e983fe62c1da465829c3bb1d9b6378b242f329153199d1eab4496d8af16"
             "e4c740761ae33519a6135aa03a706ae5", 16)


def test_lambda_walk():
    kw = dict(word="u52", s=3, n=8, delta=1, toeplitz_adds=1, lambda_max=64)
    with pytest.raises(mns.MNSError):
        mns.pmns.generate(WALK_P, **kw)
    P = mns.pmns.generate(WALK_P, lambda_walk=True, **kw)
    check_set(P, WALK_P)
    assert (P.n, P.s, P.lam) == (8, 3, 14)
    assert "--lambda-walk" in P.dumps()
    assert not P.lambda_carried


def test_lambda_carried():
    # (B3) with lambda_eff = 1: the smallest lambda at n = 8, past 2^52 with k
    kw = dict(word="u52", s=3, n=8, delta=1, toeplitz_adds=1)
    P = mns.pmns.generate(WALK_P, lambda_carried=True, **kw)
    check_set(P, WALK_P)
    assert P.lambda_carried and (P.n, P.s) == (8, 3) and P.lam < 14
    assert P.lam * 2**(P.phi_log2 // P.s) >= 2**52
    text = P.dumps()
    assert "\nlambda_carried 1\n" in text and "--lambda-carried" in text
    Q = mns.pmns.loads(text)
    assert Q == P and Q.lambda_carried
    with pytest.raises(mns.MNSError):
        mns.pmns.loads(text.replace("lambda_carried 1\n", ""))
    with pytest.raises(mns.MNSError):
        mns.pmns.generate(WALK_P, word="s64", s=3, n=8, lambda_carried=True)


def test_save_load_file(tmp_path):
    P = mns.pmns.generate(2**255 - 19, word="s64")
    path = tmp_path / "p.pmns"
    P.save(path, regenerate="test_save_load_file")
    text = path.read_text()
    assert text.startswith("# regenerate: test_save_load_file\n") and "\nmns-pmns 1\n" in text
    Q = mns.pmns.load(path)
    assert Q == P and Q.gen_seconds == 0
    assert P.dumps().startswith("# regenerate: mns-pmns-gen --p ")
    # the C backend reads the same file
    F = mns.Field(P.p, f"pmns:params={path}")
    assert "params=file" in F.describe and int(F(5) ** 3) == 125


def test_progress_and_cancel():
    seen = []
    P = mns.pmns.generate(prime(1024, 3), word="u52", progress=lambda *a: seen.append(a))
    stages = [s for s, _, _ in seen]
    assert "lll" in stages and stages[-1] == "done"
    assert all(0.0 <= f <= 1.0 for _, _, f in seen)
    assert any(n == P.n for _, n, _ in seen)
    with pytest.raises(mns.MNSError, match="cancel"):
        mns.pmns.generate(prime(1024, 3), progress=lambda *a: True)

    class Boom(Exception):
        pass

    def boom(*a):
        raise Boom("from the callback")
    with pytest.raises(Boom):
        mns.pmns.generate(prime(512, 3), progress=boom)


@pytest.mark.parametrize("p", [15, 2**255 - 21, 2**127 + 1, 4, 2, 1, 0, -7, -(2**255 - 19)])
def test_generate_refuses_non_primes(p):
    with pytest.raises(ValueError):
        mns.pmns.generate(p)


def test_generate_bad_options_and_types():
    p = 2**255 - 19
    for kw in (dict(word="u64"), dict(eshape="x"), dict(delta=-1), dict(n=-3), dict(s=17), dict(delta=2**40),
               dict(lambda_max=-1)):
        with pytest.raises(ValueError):
            mns.pmns.generate(p, **kw)
    with pytest.raises(mns.NotSupportedError):
        mns.pmns.generate(p, n=2)  # too small an n for 255 bits
    for bad in (2.5, "57", None, [p]):
        with pytest.raises(TypeError):
            mns.pmns.generate(bad)
    with pytest.raises(TypeError):
        mns.pmns.generate(p, progress=3)
    with pytest.raises(TypeError):
        mns.pmns.loads(42)
    # huge: above the generator's limit, refused at once
    with pytest.raises(ValueError):
        mns.pmns.generate(2**40000 + 1)


def test_malformed_text_is_refused(tmp_path):
    good = mns.pmns.generate(2**255 - 19).dumps()
    lines = good.splitlines(keepends=True)
    bad = [
        "", "\0\0\0", "garbage", good.replace("mns-pmns 1", "mns-pmns 2"),
        good.replace("\nend\n", "\n"),                       # truncated
        good + "extra\n",                                    # after end
        "".join(lines[:len(lines) // 2]),                    # cut in the middle
        good.replace("word s64", "word u52"),                # inconsistent
        good.replace("\nn 5\n", "\nn 6\n"),
        good.replace("\ndelta 0\n", "\ndelta  0\n"),          # double space
        good.replace("\ndelta 0\n", "\ndelta 00\n"),          # non-canonical
        good.replace(" 1\n", " 1" + "9" * 5000 + "\n", 1),    # huge number
    ]
    # one digit changed in M: the checks must catch it
    i = good.index("\nM ") + 4
    bad.append(good[:i] + str((int(good[i]) + 1) % 10) + good[i + 1:])
    for text in bad:
        with pytest.raises(ValueError):
            mns.pmns.loads(text)
    with pytest.raises(ValueError, match="line"):
        mns.pmns.loads(good.replace("\ngamma ", "\ngama "))
    f = tmp_path / "bad.pmns"
    f.write_bytes(b"\xff\xfe" * 100)
    with pytest.raises(ValueError):
        mns.pmns.load(f)
    with pytest.raises(ValueError):
        mns.pmns.load(tmp_path / "does-not-exist")
    with pytest.raises(ValueError):
        mns.Field(2**255 - 19, f"pmns:params={f}")
