"""The GIL is released during long calls: while two threads are inside
exponentiations, PMNS generation or RSA signatures in C, the main thread
keeps running Python code. The proof: time stamps the main thread takes
fall inside a single C call of a worker; with the GIL held for the call,
none could."""
import threading
import time

import mns
from conftest import prime


def _overlap(call, calls_per_thread=1):
    """Two threads each make calls_per_thread calls of call(); returns how many
    of the main thread's time stamps fall in the middle 80% of a call of
    *both* threads at once. (A span measured from Python also covers the
    wait for the GIL before the call; a stamp deep inside a span of each
    thread cannot come from such a wait when the call holds the GIL: then
    the main thread runs only between calls.)"""
    start = threading.Barrier(3)
    spans, errors, done = ([], []), [], []

    def run(mine):
        try:
            start.wait()
            for _ in range(calls_per_thread):
                t0 = time.monotonic()
                call()
                mine.append((t0, time.monotonic()))
        except BaseException as e:  # noqa: B902
            errors.append(e)
        done.append(1)

    threads = [threading.Thread(target=run, args=(spans[i],)) for i in range(2)]
    for t in threads:
        t.start()
    start.wait()
    stamps = []
    i = 0
    while len(done) < 2:
        i += 1
        if i % 64 == 0:
            stamps.append(time.monotonic())
    for t in threads:
        t.join()
    assert not errors, errors

    def deep(s, t0, t1):
        m = 0.1 * (t1 - t0)
        return t0 + m < s < t1 - m
    inside = sum(1 for s in stamps if all(any(deep(s, *sp) for sp in mine) for mine in spans))
    return inside, spans


def test_powm_releases_the_gil():
    F = mns.Field(prime(1024, 0), "mont")
    a = F(3)
    t0 = time.monotonic()
    a ** (2**1024 - 1)
    one = max(time.monotonic() - t0, 1e-4)
    e = 2 ** (1024 * max(1, int(0.15 / one))) - 1      # one call of about 0.15 s
    inside, spans = _overlap(lambda: a ** e)
    assert inside > 100, (inside, spans)


def test_generation_releases_the_gil():
    p = prime(1024, 7)
    inside, spans = _overlap(lambda: mns.pmns.generate(p, word="u52"))
    assert min(t1 - t0 for mine in spans for t0, t1 in mine) > 0.01
    assert inside > 100, (inside, spans)


def test_rsa_releases_the_gil(rsa_key):
    # key creation is the long RSA call (a field per prime, PMNS parameters
    # generated for each); one signature is a few milliseconds, too short
    # for this proof, so signatures from both threads are checked for
    # agreement instead
    inside, spans = _overlap(lambda: mns.RSA.from_key(rsa_key, spec="pmns"))
    assert inside > 100, (inside, spans)
    key = mns.RSA.from_key(rsa_key, threads=2)
    sigs = []
    _overlap(lambda: sigs.append(key.sign(b"gil")), calls_per_thread=10)
    assert len(sigs) == 20 and len(set(sigs)) == 1 and key.verify(sigs[0], b"gil")


def test_sign_many_releases_the_gil(rsa_key):
    key = mns.RSA.from_key(rsa_key, threads=1)
    msgs = [b"gil %d" % i for i in range(8)]
    t0 = time.monotonic()
    key.sign_many(msgs)
    one = max(time.monotonic() - t0, 1e-4)
    batch = msgs * max(1, int(0.15 / one))                # one call of about 0.15 s
    sigs = []
    inside, spans = _overlap(lambda: sigs.append(key.sign_many(batch)))
    assert inside > 100, (inside, spans)
    assert sigs[0] == sigs[1] and sigs[0][:8] == [key.sign(m) for m in msgs]
