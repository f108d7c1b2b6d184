"""The `mns` command line: info, gen, bench, rsa."""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import mns

# `mns gen --backend X`: the generator options that give the sets backend X uses
GEN_BACKENDS = {
    "pmns": dict(word="s64", s=1),
    "pmns-ifma": dict(word="u52", s=1),
    "pmns-mp": dict(word="s64", s=0),
    "pmns-mp-ifma": dict(word="u52", s=0, toeplitz_adds=1),
}


def _int(text):
    """An integer in any Python notation (0x..., 2**255-19 is not accepted)."""
    try:
        return int(text.replace("_", ""), 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None


class Progress:
    """A one-line progress bar on stderr. On a terminal it is redrawn in
    place, four times a second, by a thread of its own (the generator runs
    without the GIL), so the elapsed time moves even while the library's
    fraction does not; while that fraction is 0 the bar is a moving block.
    Elsewhere (logs, tests: --progress) it prints one line per stage."""

    def __init__(self, stream=sys.stderr, width=30, force=False):
        self.stream, self.width = stream, width
        self.tty = stream.isatty()
        self.enabled = self.tty or force
        self.start = time.monotonic()
        self.state = ("start", 0, 0.0)
        self.last_stage = None
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.ticker = None

    def _line(self):
        stage, n, fraction = self.state
        elapsed = time.monotonic() - self.start
        if fraction > 0:
            done = int(round(fraction * self.width))
            bar = "#" * done + "." * (self.width - done)
            pct = f"{fraction * 100:3.0f}%"
        else:
            pos = int(elapsed * 8) % (2 * (self.width - 4))
            pos = pos if pos < self.width - 4 else 2 * (self.width - 4) - pos
            bar = "." * pos + "####" + "." * (self.width - 4 - pos)
            pct = "   "
        return f"[{bar}] {pct} {stage:7} n={n:<4} {elapsed:6.1f} s"

    def _draw(self):
        with self.lock:
            self.stream.write("\r" + self._line())
            self.stream.flush()

    def _tick(self):
        while not self.stop.wait(0.25):
            self._draw()

    def __call__(self, stage, n, fraction):
        if not self.enabled:
            return 0
        self.state = (stage, n, min(max(fraction, 0.0), 1.0))
        if self.tty:
            if self.ticker is None:
                self.ticker = threading.Thread(target=self._tick, daemon=True)
                self.ticker.start()
            self._draw()
        elif stage != self.last_stage:
            self.stream.write(self._line() + "\n")
            self.stream.flush()
        self.last_stage = stage
        return 0

    def finish(self):
        if self.ticker is not None:
            self.stop.set()
            self.ticker.join()
            self.ticker = None
        if self.enabled and self.tty and self.last_stage is not None:
            self._draw()
            self.stream.write("\n")
            self.stream.flush()


# --- info ---------------------------------------------------------------------

def cmd_info(args):
    print(f"mns {mns.version()}")
    print(f"cpu features: {mns.cpu_features() or '(none: portable kernels only)'}")
    if os.environ.get("MNS_CPU"):
        print(f"MNS_CPU={os.environ['MNS_CPU']}")
    probe = args.p if args.p else 2**255 - 19
    print(f"backends serving p = {probe:#x} ({probe.bit_length()} bits):")
    for name in ("auto", "mont", "mont-ifma", "pmns", "pmns-ifma", "pmns-mp", "pmns-mp-ifma",
                 "rns", "rns-ifma", "sor", "mpart", "bipartite"):
        try:
            F = mns.Field(probe, name)
            print(f"  {name:13} {F.describe}")
        except mns.NotSupportedError as e:
            print(f"  {name:13} not for this p/CPU: {e}")
        except ValueError as e:
            print(f"  {name:13} not available: {e}")
    bench = find_bench()
    print(f"mns-bench: {bench or 'not found (set MNS_BENCH)'}")
    return 0


# --- gen ----------------------------------------------------------------------

def random_prime(bits, rng, progress=None):
    """A random prime of exactly `bits` bits: odd candidates with the top bit
    set, a sieve by small primes in Python, then GMP's BPSW (mns.is_probable_prime)."""
    if bits < 3:
        raise ValueError("--bits must be >= 3")
    small = [q for q in range(3, 2000, 2) if all(q % d for d in range(3, int(q**0.5) + 1, 2))]
    tried = 0
    while True:
        c = rng.getrandbits(bits) | (1 << (bits - 1)) | 1
        if any(c % q == 0 and c != q for q in small):
            continue
        tried += 1
        if progress and tried % 8 == 0:
            progress("prime", 0, min(0.99, tried / (0.35 * bits)))
        if mns.is_probable_prime(c, 25):
            return c


def cmd_gen(args):
    if (args.prime is None) == (args.bits is None):
        print("mns gen: give a PRIME or --bits N (not both)", file=sys.stderr)
        return 2
    progress = Progress(force=args.progress)
    if args.quiet:
        progress.enabled = False
    if args.bits is not None:
        rng = random.Random(args.seed) if args.seed is not None else random.SystemRandom()
        p = random_prime(args.bits, rng, progress if args.bits >= 1024 else None)
    else:
        p = args.prime
    opts = dict(GEN_BACKENDS[args.backend])
    opts.update(delta=args.delta, n=args.n)
    if args.s is not None:
        opts["s"] = args.s
    t0 = time.monotonic()
    try:
        P = mns.pmns.generate(p, progress=progress, **opts)
    finally:
        progress.finish()
    seconds = time.monotonic() - t0
    show = print if not args.quiet else (lambda *a, **k: None)
    show(f"# {P.describe()}")
    show(f"backend  {args.backend}")
    show(f"p        {P.p}")
    show(f"bits     {P.p.bit_length()}")
    show(f"n        {P.n}")
    show(f"s        {P.s}")
    show(f"word     {P.word}")
    show(f"delta    {P.delta}")
    show(f"E        {P.E}")
    show(f"lambda   {P.lam}")
    show(f"gamma    {P.gamma}")
    show(f"rho      {P.rho} (2^{P.rho_bits} > rho - 1)")
    show(f"phi      2^{P.phi_log2}" + (f" (s = {P.s} chunks of {P.chunk_bits} bits)" if P.s > 1 else ""))
    show(f"w        {P.w}")
    show(f"norm1    {P.norm1}")
    show("M        " + " ".join(str(m) for m in P.M))
    show(f"time     {seconds:.2f} s")
    if args.output:
        how = f"mns gen {P.p} --backend {args.backend} --delta {args.delta}" \
            + (f" --n {args.n}" if args.n else "") + (f" --s {args.s}" if args.s is not None else "")
        P.save(args.output, regenerate=how)
        print(f"wrote {args.output}", file=sys.stderr)
    return 0


# --- bench --------------------------------------------------------------------

def find_bench():
    """mns-bench: $MNS_BENCH, then PATH (make install puts it there), then the
    build tree this package was compiled against."""
    env = os.environ.get("MNS_BENCH")
    if env:
        return env if os.access(env, os.X_OK) else None
    onpath = shutil.which("mns-bench")
    if onpath:
        return onpath
    built = os.path.join(mns._ffi.string(mns._lib.mnspy_build_dir()).decode(), "bench", "mns-bench")
    return built if os.access(built, os.X_OK) else None


def cmd_bench(args):
    exe = args.exe or find_bench()
    if not exe:
        print("mns bench: mns-bench not found: build the C library (make build), `make install` it, "
              "or set MNS_BENCH=/path/to/mns-bench", file=sys.stderr)
        return 2
    tmp = None
    json_path = args.json
    if not json_path:
        fd, tmp = tempfile.mkstemp(suffix=".json", prefix="mns-bench-")
        os.close(fd)
        json_path = tmp
    cmd = [exe, "--json", json_path]
    for opt in ("sizes", "backends", "ops", "baselines", "budget", "seed"):
        v = getattr(args, opt)
        if v is not None:
            cmd += [f"--{opt}", str(v)]
    if args.quick:
        cmd.append("--quick")
    if args.full:
        cmd.append("--full")
    try:
        print("running: " + " ".join(cmd), file=sys.stderr, flush=True)
        rc = subprocess.call(cmd)
        if rc not in (0, 1):   # 1: some result differed from GMP's, still plotted
            print(f"mns bench: mns-bench exited with status {rc}", file=sys.stderr)
            return rc
        with open(json_path) as f:
            data = json.load(f)
        from .summary import summary
        print()
        print("\n".join(summary(data)))
        if args.plot:
            from .plot import plot
            try:
                import matplotlib  # noqa: F401
            except ImportError:
                print("mns bench: the plot needs matplotlib (pip install matplotlib)", file=sys.stderr)
                return 1
            plot(data, args.plot)
            print(f"wrote {args.plot}", file=sys.stderr)
        return rc
    finally:
        if tmp:
            os.unlink(tmp)


# --- rsa ----------------------------------------------------------------------

def _read_input(path):
    if path in (None, "-"):
        return sys.stdin.buffer.read()
    with open(path, "rb") as f:
        return f.read()


def _load_private(args):
    return mns.RSA.from_file(args.key, spec=args.backend, threads=args.threads)


def _load_public(path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa as crsa
    with open(path, "rb") as f:
        data = f.read()
    pem = b"-----BEGIN" in data
    try:
        key = (serialization.load_pem_private_key if pem else serialization.load_der_private_key)(data, None)
        return key.public_key()
    except (ValueError, TypeError):
        pass
    try:
        key = (serialization.load_pem_public_key if pem else serialization.load_der_public_key)(data)
    except (ValueError, TypeError) as e:
        raise ValueError(f"{path}: neither a private nor a public key: {e}") from None
    if not isinstance(key, crsa.RSAPublicKey):
        raise ValueError(f"{path}: not an RSA key")
    return key


def cmd_rsa_sign(args):
    key = _load_private(args)
    sig = key.sign(_read_input(args.input), args.hash)
    if args.output in (None, "-"):
        sys.stdout.buffer.write(sig)
        sys.stdout.buffer.flush()
    else:
        with open(args.output, "wb") as f:
            f.write(sig)
    return 0


def cmd_rsa_verify(args):
    public = _load_public(args.key)
    with open(args.signature, "rb") as f:
        sig = f.read()
    ok = mns.rsa.verify(public, sig, _read_input(args.input), args.hash)
    print("Verified OK" if ok else "Verification failure")
    return 0 if ok else 1


def _time_per_call(fn, seconds):
    """(CPU seconds, wall seconds) per call: the medians of seven batches of
    about seconds/7 each. CPU time (all of the process's threads) is what
    the comparison uses: on a shared machine the wall clock mostly measures
    the other tenants (a batch longer than the scheduler's slice gets
    preempted, a shorter one does not)."""
    fn()
    t0 = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t0, 1e-6)
    calls = max(1, int(seconds / 7 / one))
    cpu, wall = [], []
    for _ in range(7):
        c0, w0 = time.process_time(), time.perf_counter()
        for _ in range(calls):
            fn()
        cpu.append((time.process_time() - c0) / calls)
        wall.append((time.perf_counter() - w0) / calls)
    return sorted(cpu)[3], sorted(wall)[3]


def cmd_rsa_speed(args):
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding, rsa as crsa
    from cryptography.hazmat.primitives.asymmetric.utils import Prehashed
    if args.key:
        with open(args.key, "rb") as f:
            data = f.read()
        load = serialization.load_pem_private_key if b"-----BEGIN" in data else serialization.load_der_private_key
        ckey = load(data, None)
    else:
        ckey = crsa.generate_private_key(public_exponent=65537, key_size=args.bits)
    # one thread unless asked: then CPU time is also the latency
    key = mns.RSA.from_key(ckey, spec=args.backend, threads=args.threads or 1)
    digest = mns.rsa._digest(b"mns rsa speed", args.hash)
    halg = Prehashed(getattr(hashes, mns.rsa._hash_name(args.hash).upper().replace("-", "_"))())
    print(f"key: {key.bits} bits, {len(key.primes)} primes, backend {args.backend}, threads {key.threads}")
    print(key.describe().rstrip())
    c_mns, w_mns = _time_per_call(lambda: key.sign_digest(digest, args.hash), args.seconds)
    c_ossl, w_ossl = _time_per_call(lambda: ckey.sign(digest, padding.PKCS1v15(), halg), args.seconds)
    sig = key.sign_digest(digest, args.hash)
    same = sig == ckey.sign(digest, padding.PKCS1v15(), halg)
    print(f"{'':24} {'CPU ms/sign':>11} {'wall ms/sign':>12} {'signs/s (CPU)':>14}")
    print(f"{'mns':24} {c_mns * 1e3:11.3f} {w_mns * 1e3:12.3f} {1 / c_mns:14.1f}")
    print(f"{'OpenSSL (cryptography)':24} {c_ossl * 1e3:11.3f} {w_ossl * 1e3:12.3f} {1 / c_ossl:14.1f}")
    print(f"mns / OpenSSL speed: {c_ossl / c_mns:.2f}x by CPU time ({w_ossl / w_mns:.2f}x by wall clock); "
          f"PKCS#1 v1.5 {args.hash} of a digest, medians of 7 batches"
          + ("; CPU time adds up mns's threads" if key.threads > 1 else ""))
    print(f"signatures identical: {'yes' if same else 'NO'}")
    return 0 if same else 1


# --- main ---------------------------------------------------------------------

def parser():
    ap = argparse.ArgumentParser(prog="mns", description="modular arithmetic with alternative number systems")
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("info", help="CPU features, kernels available, library version")
    p.add_argument("--p", type=_int, help="modulus to probe the backends with")
    p.set_defaults(fn=cmd_info)

    p = sub.add_parser("gen", help="generate PMNS parameters for a prime")
    p.add_argument("prime", nargs="?", type=_int, help="the prime (decimal or 0x...)")
    p.add_argument("--bits", type=int, help="a random prime of this many bits instead")
    p.add_argument("--seed", type=int, help="seed of the random prime (default: system randomness)")
    p.add_argument("--backend", choices=sorted(GEN_BACKENDS), default="pmns-ifma",
                   help="the backend the set is for (default pmns-ifma)")
    p.add_argument("--delta", type=int, default=0, help="free additions before a multiplication")
    p.add_argument("--n", type=int, default=0, help="exactly this n (default: the smallest)")
    p.add_argument("--s", type=int, help="words per coefficient (default: 1, or automatic for pmns-mp*)")
    p.add_argument("-o", "--output", help="write the set in the library's text format")
    p.add_argument("--progress", action="store_true", help="progress lines even when stderr is not a terminal")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    p.set_defaults(fn=cmd_gen)

    p = sub.add_parser("bench", help="run mns-bench (C), print the table, draw the plot")
    p.add_argument("--sizes", help="prime sizes in bits, e.g. 256,1024,2048")
    p.add_argument("--backends", help="mns specs, e.g. auto,mont,rns-ifma")
    p.add_argument("--ops", help="modmul,modsqr,modexp")
    p.add_argument("--baselines", help="gmp,openssl (default), gmp, openssl or none")
    p.add_argument("--budget", type=float, help="target duration in seconds")
    p.add_argument("--seed", type=int)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--full", action="store_true")
    p.add_argument("--json", help="keep mns-bench's JSON here")
    p.add_argument("--plot", default="mns-bench.png", help="PNG to draw (default mns-bench.png; '' for none)")
    p.add_argument("--exe", help="the mns-bench executable (default: $MNS_BENCH, PATH, the build tree)")
    p.set_defaults(fn=cmd_bench)

    p = sub.add_parser("rsa", help="RSA-CRT with mns: sign, verify, speed")
    rsub = p.add_subparsers(dest="rsacmd", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--hash", default="sha256", type=str.lower, choices=mns.rsa.HASHES)
    common.add_argument("--backend", default="auto", help="mns field backend of the channels")
    common.add_argument("--threads", type=int, help="threads (default: one per prime)")
    q = rsub.add_parser("sign", parents=[common], help="PKCS#1 v1.5 signature with mns")
    q.add_argument("--key", required=True, help="private key, PEM or DER")
    q.add_argument("--in", dest="input", help="message file (default stdin)")
    q.add_argument("-o", "--out", dest="output", help="signature file (default stdout)")
    q.set_defaults(fn=cmd_rsa_sign)
    q = rsub.add_parser("verify", parents=[common], help="verify with the public key (OpenSSL)")
    q.add_argument("--key", required=True, help="private or public key, PEM or DER")
    q.add_argument("--sig", dest="signature", required=True, help="signature file")
    q.add_argument("--in", dest="input", help="message file (default stdin)")
    q.set_defaults(fn=cmd_rsa_verify)
    q = rsub.add_parser("speed", parents=[common], help="signatures per second: mns against OpenSSL")
    q.add_argument("--key", help="private key, PEM or DER (default: a fresh one of --bits)")
    q.add_argument("--bits", type=int, default=2048)
    q.add_argument("--seconds", type=float, default=2.0, help="time per implementation")
    q.set_defaults(fn=cmd_rsa_speed)
    return ap


def main(argv=None):
    # primes of up to 32768 bits are ~9900 decimal digits, above Python's
    # default limit on int <-> str conversions (3.11+)
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)
    args = parser().parse_args(argv)
    try:
        return args.fn(args)
    except mns.MNSError as e:
        print(f"mns: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # the reader went away (mns gen ... | head): nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (ValueError, TypeError, OSError, ImportError) as e:
        print(f"mns: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("mns: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
