"""mns.Vector: the whole-array calls against the scalar element operations,
from lists, array('Q'), memoryview and NumPy buffers, on one thread and
several; the refusals; and the GIL released during a long vector call."""
import array
import pickle
import time

import pytest

import mns
from conftest import prime
from test_gil import _overlap

SPECS = [(2**255 - 19, "auto"), (2**255 - 19, "pmns"), ((1 << 1024) - 105, "auto"), (2**127 - 1, "rns"),
         (2**521 - 1, "mont"), (2**127 - 1, "mont-ifma:kernel=generic")]


def fields():
    out = []
    for p, b in SPECS:
        try:
            out.append(mns.Field(p, b))
        except (mns.NotSupportedError, ValueError):
            pass
    return out


FIELDS = fields()
IDS = [f"{F.p.bit_length()}-{F.describe.split()[0]}" for F in FIELDS]


def values(F, rng, n):
    p = F.p
    edge = [0, 1, p - 1, p, p + 1, -1, -p - 3, 2**(64 * F.pwords) - 1]
    return edge + [rng.randrange(-p, 3 * p) for _ in range(n - len(edge))]


def words_of(xs, k):
    """Little-endian 64-bit words, k per value (values in [0, 2^(64k)))."""
    out = []
    for x in xs:
        out += [(x >> (64 * i)) & (2**64 - 1) for i in range(k)]
    return out


@pytest.mark.parametrize("F", FIELDS, ids=IDS)
@pytest.mark.parametrize("threads", [1, 2, 3, 0])
def test_vector_against_scalars(F, threads, rng):
    p = F.p
    n = 37
    xs, ys = values(F, rng, n), values(F, rng, n)[::-1]
    V, W = F.vector(xs), F.vector([F(y) for y in ys])
    X, Y = [F(x) for x in xs], [F(y) for y in ys]
    assert len(V) == n and V.to_list() == [int(x) for x in X] == [x % p for x in xs]
    assert V.mul(W, threads=threads).to_list() == [int(a * b) for a, b in zip(X, Y)]
    assert V.add(W, threads=threads).to_list() == [int(a + b) for a, b in zip(X, Y)]
    assert V.sub(W, threads=threads).to_list() == [int(a - b) for a, b in zip(X, Y)]
    assert V.sqr(threads=threads).to_list() == [int(a * a) for a in X]
    e = rng.randrange(2**300)
    assert V.powm(e, threads=threads).to_list() == [int(a ** e) for a in X]
    es = [rng.randrange(2**rng.randrange(0, 700)) for _ in range(n)]
    es[0], es[1] = 0, 1
    assert V.powm(es, threads=threads).to_list() == [int(a ** k) for a, k in zip(X, es)]
    # one element or one integer for every index, on either side
    c = F(rng.randrange(p))
    assert V.mul(c, threads=threads).to_list() == [int(a * c) for a in X]
    assert (V * 5).to_list() == (5 * V).to_list() == [int(a * 5) for a in X]
    assert (V + c).to_list() == (c + V).to_list() == [int(a + c) for a in X]
    assert (V - 7).to_list() == [int(a - 7) for a in X]
    assert (V ** 3).to_list() == [int(a ** 3) for a in X]
    assert [int(v) for v in V] == V.to_list() and V[-1] == X[-1] and V[3] == X[3]


@pytest.mark.parametrize("F", FIELDS, ids=IDS)
def test_vector_from_buffers(F, rng):
    k, p = F.pwords, F.p
    xs = [rng.randrange(2**(64 * k)) for _ in range(20)] + [0, p - 1, p, 2**(64 * k) - 1]
    want = [x % p for x in xs]
    w = words_of(xs, k)
    assert F.vector(array.array("Q", w)).to_list() == want
    assert F.vector(memoryview(array.array("Q", w))).to_list() == want
    V = F.vector(xs)
    out = V.words()
    assert out.format == "Q" and len(out) == len(xs) * k and list(out) == words_of(want, k)
    assert F.vector(out).to_list() == want
    np = pytest.importorskip("numpy")
    a = np.array(w, dtype=np.uint64)
    assert F.vector(a).to_list() == want
    assert F.vector(a.reshape(len(xs), k)).to_list() == want
    back = np.frombuffer(V.words(), dtype=np.uint64).reshape(-1, k)
    assert [sum(int(r[i]) << (64 * i) for i in range(k)) for r in back] == want
    with pytest.raises(TypeError):
        F.vector(np.zeros(k, dtype=np.float64))
    with pytest.raises(ValueError):
        F.vector(np.zeros((2, k + 1), dtype=np.uint64))


def test_refusals():
    F, G = mns.Field(2**255 - 19), mns.Field(2**255 - 19)
    V = F.vector([1, 2, 3])
    with pytest.raises(ValueError, match="different fields"):
        V.mul(G.vector([1, 2, 3]))
    with pytest.raises(ValueError, match="different fields"):
        V.mul(G(2))
    with pytest.raises(ValueError, match="different fields"):
        F.vector([F(1), G(2)])
    with pytest.raises(ValueError, match="lengths"):
        V.add(F.vector([1, 2]))
    with pytest.raises(ValueError):
        F.vector(array.array("Q", [1, 2, 3]))                 # not a multiple of 4 words
    for bad in (array.array("d", [1.0] * 4), array.array("I", [1] * 8), b"\0" * 32):
        with pytest.raises(TypeError):
            F.vector(bad)
    for bad in (["x"], [1.5], [None], 5, None):
        with pytest.raises(TypeError):
            F.vector(bad)
    for bad in ("x", 1.5, None, [1, 2, 3]):
        with pytest.raises(TypeError):
            V.mul(bad)
        with pytest.raises(TypeError):
            V * bad
    with pytest.raises(ValueError, match="negative"):
        V.powm(-1)
    with pytest.raises(ValueError, match="3 elements"):
        V.powm([1, 2])
    with pytest.raises(TypeError):
        V.powm([1, 2.0, 3])
    with pytest.raises(TypeError):
        V.powm(F(2))
    with pytest.raises(ValueError):
        V.mul(V, threads=-1)
    with pytest.raises(IndexError):
        V[3]
    with pytest.raises(TypeError):
        mns.Vector(object(), [1])


def test_empty_and_pickled():
    F = mns.Field(2**127 - 1, "mont")
    E = F.vector([])
    assert len(E) == 0 and E.mul(E, threads=4).to_list() == [] and E.powm(3).to_list() == []
    V = F.vector([5, 6, 7])
    F2, V2 = pickle.loads(pickle.dumps((F, V)))
    assert V2.field is F2 and V2.to_list() == [5, 6, 7]
    assert "n=3" in repr(V)


def test_vector_powm_releases_the_gil():
    F = mns.Field(prime(1024, 3), "mont")
    V = F.vector(list(range(2, 40)))
    t0 = time.monotonic()
    V.powm(2**1024 - 1)
    one = max(time.monotonic() - t0, 1e-4)
    e = 2 ** (1024 * max(1, int(0.15 / one))) - 1      # one call of about 0.15 s
    inside, spans = _overlap(lambda: V.powm(e))
    assert inside > 100, (inside, spans)
