"""`mns bench --python`: what one operation costs a Python user, mns elements
against gmpy2 (and python-flint's fmpz_mod when installed) in the same
process, and whole-array products against the loop over elements.

Every figure is the fastest of seven batches of one statement repeated in a
timeit loop, timed by the process's CPU time, in nanoseconds per operation:
on a shared machine the wall clock mostly measures the other tenants, and the
least disturbed batch is the closest to the cost. The batches of one row
(mns, gmpy2, flint) alternate, so that a burst of load falls on all three
alike. The ratio mns/gmpy2 is a time ratio (below 1: mns is faster).

The comparators compute the same result: `a * b % p` for a product,
`invert(a, p)` for the inverse, `a.to_bytes(n, "big")` for the canonical
bytes (the same bytes as mns's `a.to_bytes()` and `bytes(a)`),
`mpz.from_bytes(b, "big") % p` for an element from bytes. `bytes(a)` is
CPython's bytes() protocol (a method lookup and a bound method per call):
the row "bytes(b)" times it on a bytes object, the part of `bytes(a)` no
extension type can avoid."""
import os
import platform
import random
import time
import timeit

import mns

DEFAULT_SIZES = (256, 1024, 2048, 4096)

# name, mns statement, gmpy2 statement, flint statement (None: not timed)
OPS = [
    ("a*b", "a * b", "a * b % p", "a * b"),
    ("a+b", "a + b", "(a + b) % p", "a + b"),
    ("a-b", "a - b", "(a - b) % p", "a - b"),
    ("-a", "-a", "-a % p", "-a"),
    ("a**e", "a ** e", "powmod(a, e, p)", "a ** e"),
    ("a.inv()", "a.inv()", "invert(a, p)", "a.inverse()"),
    ("a**-1", "a ** -1", "invert(a, p)", "a ** -1"),
    ("a/b", "a / b", "a * invert(b, p) % p", "a / b"),
    ("a.sqrt()", "s.sqrt()", None, "s.sqrt()"),
    ("a==b", "a == b", "a == b", "a == b"),
    ("int(a)", "int(a)", "int(a)", "int(a)"),
    ("to_bytes", "a.to_bytes()", "a.to_bytes(nbytes, 'big')", None),
    ("bytes(a)", "bytes(a)", "a.to_bytes(nbytes, 'big')", None),
    ("bytes(b)", "bytes(bb)", "bytes(bb)", None),
    ("from_bytes", "F.from_bytes(bb)", "from_bytes(bb, 'big') % p", None),
]

def cpu_name():
    """The model name, with the family where the name is as terse as "AMD EPYC"."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                info.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    name = info.get("model name") or platform.processor() or platform.machine()
    return f"{name} (family {info['cpu family']})" if "cpu family" in info else name


def _number(t, seconds):
    """Executions per batch: long enough for the CPU clock's resolution,
    seven batches within the budget."""
    number = 1
    while True:
        total = t.timeit(number)
        if total >= 0.002 or number >= 1 << 24:
            break
        number *= 4
    return max(1, int(number * seconds / 7 / max(total, 1e-9)))


def per_call_ns_all(stmts, seconds=0.2):
    """{key: ns per execution} for {key: (stmt, env)}, the fastest of seven
    batches each (CPU time), the statements' batches taken in turn."""
    timers = {k: timeit.Timer(stmt, globals=env, timer=time.process_time) for k, (stmt, env) in stmts.items()}
    numbers = {k: _number(t, seconds) for k, t in timers.items()}
    best = {k: float("inf") for k in timers}
    for _ in range(7):
        for k, t in timers.items():
            best[k] = min(best[k], t.timeit(numbers[k]) / numbers[k])
    return {k: v * 1e9 for k, v in best.items()}


def per_call_ns(stmt, env, seconds=0.2):
    """The fastest of seven batches (CPU time), ns per execution of stmt."""
    return per_call_ns_all({0: (stmt, env)}, seconds)[0]


def _comparators():
    try:
        import gmpy2
    except ImportError:
        gmpy2 = None
    try:
        import flint
        if not hasattr(flint, "fmpz_mod_ctx"):
            flint = None
    except ImportError:
        flint = None
    return gmpy2, flint


def _square(rng, p):
    """A square mod p (the operand of sqrt, which refuses non-squares)."""
    x = rng.randrange(1, p)
    return x * x % p


def _row(bits, p, backend, gmpy2, flint, rng, seconds):
    F = mns.Field(p, backend)
    x, y, e = rng.randrange(1, p), rng.randrange(1, p), rng.randrange(p // 2, p)
    s, nbytes = _square(rng, p), (bits + 7) // 8
    bb = rng.randrange(p).to_bytes(nbytes, "big")
    envs = {"mns": dict(a=F(x), b=F(y), e=e, s=F(s), F=F, bb=bb)}
    if gmpy2:
        envs["gmpy2"] = dict(a=gmpy2.mpz(x), b=gmpy2.mpz(y), e=gmpy2.mpz(e), p=gmpy2.mpz(p),
                             powmod=gmpy2.powmod, invert=gmpy2.invert, nbytes=nbytes, bb=bb,
                             from_bytes=gmpy2.mpz.from_bytes)
    if flint:
        C = flint.fmpz_mod_ctx(p)
        envs["flint"] = dict(a=C(x), b=C(y), e=e, s=C(s))
    out = []
    for name, *stmts in OPS:
        todo = {lib: (stmt, envs[lib]) for lib, stmt in zip(("mns", "gmpy2", "flint"), stmts)
                if lib in envs and stmt is not None}
        out.append((bits, name, per_call_ns_all(todo, seconds)))
    return F.describe, out


def _load():
    try:
        return ", ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


def _fmt_ratio(t, base):
    return f"{t / base:9.2f}" if base else f"{'-':>9}"


def table(sizes=DEFAULT_SIZES, backend="auto", seconds=0.2, seed=1, out=print):
    gmpy2, flint = _comparators()
    rng = random.Random(seed)
    from .cli import random_prime
    out(f"# mns {mns.version()} Python layer, CPU: {cpu_name()}, load average {_load()}; ns per "
        f"operation (fastest of 7 CPU-time batches); ratio = mns time / comparator time")
    if not gmpy2:
        out("# gmpy2 not installed: pip install gmpy2")
    out(f"{'bits':>5} {'op':9} {'mns':>10} {'gmpy2':>10} {'mns/gmpy2':>9}"
        + (f" {'flint':>10} {'mns/flint':>9}" if flint else ""))
    for bits in sizes:
        p = random_prime(bits, rng)
        desc, rows = _row(bits, p, backend, gmpy2, flint, rng, seconds)
        out(f"# {bits} bits: {desc.split(' auto=')[0]}")
        for bits_, name, t in rows:
            line = f"{bits_:5d} {name:9} {t['mns']:10.1f}"
            g = t.get("gmpy2")
            line += f" {g:10.1f} {_fmt_ratio(t['mns'], g)}" if g else f" {'-':>10} {'-':>9}"
            if flint:
                fl = t.get("flint")
                line += f" {fl:10.1f} {_fmt_ratio(t['mns'], fl)}" if fl else f" {'-':>10} {'-':>9}"
            out(line)


def _c_floor(p, backend, xs, ys):
    """The same products as one C call on arrays made beforehand (through the
    cffi module: its own field of p): what a Vector call cannot go below."""
    from ._field import _to_bytes
    from ._mns import ffi, lib
    from ._errors import check
    fp = ffi.new("mns_field **")
    pb = _to_bytes(p)
    check(lib.mnspy_field_new(fp, pb, len(pb), backend.encode()))
    f = ffi.gc(fp[0], lib.mns_field_free)
    L, n = lib.mns_field_limbs(f), len(xs)
    ca, cb, cr = (ffi.new("uint64_t[]", n * L) for _ in range(3))
    for arr, vals in ((ca, xs), (cb, ys)):
        for i, v in enumerate(vals):
            b = _to_bytes(v)
            check(lib.mnspy_set(f, arr + i * L, b, len(b), 0))
    return dict(mul_n=lib.mns_field_mul_n, cf=f, ca=ca, cb=cb, cr=cr, n=n)


def vector_table(bits=256, n=100_000, backend="auto", seed=2, out=print):
    """n products of `bits`-bit elements: one Vector call against the loops."""
    gmpy2, _ = _comparators()
    rng = random.Random(seed)
    from .cli import random_prime
    p = random_prime(bits, rng)
    F = mns.Field(p, backend)
    xs = [rng.randrange(p) for _ in range(n)]
    ys = [rng.randrange(p) for _ in range(n)]
    A, B = [F(x) for x in xs], [F(y) for y in ys]
    V, W = F.vector(xs), F.vector(ys)
    env = dict(A=A, B=B, V=V, W=W)
    rows = [("loop over mns elements: [a * b for a, b in zip(A, B)]", "[a * b for a, b in zip(A, B)]"),
            ("Vector: V.mul(W)", "V.mul(W)"),
            ("Vector: V.mul(W, threads=2)", "V.mul(W, threads=2)")]
    env.update(_c_floor(p, backend, xs, ys))
    rows.append(("C: mns_field_mul_n on preallocated arrays", "mul_n(cf, cr, ca, cb, n)"))
    if gmpy2:
        env.update(G=[gmpy2.mpz(x) for x in xs], H=[gmpy2.mpz(y) for y in ys], p=gmpy2.mpz(p))
        rows.append(("loop over gmpy2: [a * b % p for a, b in zip(G, H)]", "[a * b % p for a, b in zip(G, H)]"))
    out(f"# {n} products at {bits} bits ({F.describe.split(' auto=')[0]}), CPU: {cpu_name()}, "
        f"load average {_load()}; ns per product, fastest of 7 calls (the rows in turn) by CPU "
        "time (all threads) and by the wall clock")
    cpu = {label: float("inf") for label, _ in rows}
    wall = dict(cpu)
    code = {label: compile(stmt, label, "eval") for label, stmt in rows}
    for _ in range(7):
        for label, _ in rows:
            c0, w0 = time.process_time(), time.perf_counter()
            eval(code[label], env)
            c1, w1 = time.process_time(), time.perf_counter()
            cpu[label] = min(cpu[label], (c1 - c0) / n * 1e9)
            wall[label] = min(wall[label], (w1 - w0) / n * 1e9)
    loop = cpu[rows[0][0]]
    out(f"{'':58} {'CPU ns':>8} {'wall ns':>8}  speed against the mns loop (CPU)")
    for label, _ in rows:
        out(f"{label:58} {cpu[label]:8.1f} {wall[label]:8.1f}  {loop / cpu[label]:6.1f}x")
