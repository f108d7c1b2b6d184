"""The `mns` command end to end: gen (with its progress bar and the file it
writes), bench (table, JSON, PNG), rsa sign -> `openssl dgst -verify`, rsa
verify and speed, info, and clean failures on bad input."""
import json
import shutil
import subprocess
import sys

import pytest

import mns

OPENSSL = shutil.which("openssl")


def run(*args, input=None, text=True):
    return subprocess.run([sys.executable, "-m", "mns.cli", *map(str, args)], capture_output=True,
                          text=text, input=input, timeout=300)


def test_info():
    r = run("info")
    assert r.returncode == 0, r.stderr
    assert "cpu features" in r.stdout and f"mns {mns.version()}" in r.stdout
    assert "mont" in r.stdout and "mns-bench:" in r.stdout


def test_gen_prime_to_file(tmp_path):
    out = tmp_path / "p.pmns"
    p = 2**255 - 19
    r = run("gen", hex(p), "--backend", "pmns", "--delta", "1", "-o", out)
    assert r.returncode == 0, r.stderr
    P = mns.pmns.load(out)
    assert P.p == p and P.word == "s64" and P.delta >= 1
    for key in ("n ", "s ", "lambda ", "gamma ", "rho ", "phi ", "M "):
        assert f"\n{key}" in "\n" + r.stdout
    assert f"\nn        {P.n}\n" in r.stdout and f"\ngamma    {P.gamma}\n" in r.stdout
    assert out.read_text().startswith(f"# regenerate: mns gen {p} --backend pmns --delta 1")
    # regenerating with the recorded command gives the same set
    again = tmp_path / "q.pmns"
    r = run("gen", p, "--backend", "pmns", "--delta", "1", "-o", again, "-q")
    assert r.returncode == 0 and r.stdout == "" and mns.pmns.load(again) == P


@pytest.mark.parametrize("backend", ["pmns-ifma", "pmns-mp-ifma", "pmns-mp"])
def test_gen_bits_with_progress(backend):
    r = run("gen", "--bits", 1024, "--seed", 5, "--backend", backend, "--progress")
    assert r.returncode == 0, r.stderr
    assert "[" in r.stderr and "100% done" in r.stderr       # the progress bar, one line per stage
    bits = int(r.stdout.split("\nbits")[1].split()[0])
    assert bits == 1024
    s = int(r.stdout.split("\ns ")[1].split()[0])
    assert (s == 1) == (backend == "pmns-ifma")


@pytest.mark.parametrize("args,msg", [
    (["gen", "15"], "prime"),
    (["gen", "-7"], "prime"),
    (["gen", hex(2**70000 + 1)], "bits"),
    (["gen", "9" * 5000], "prime"),          # above Python's default str->int digit limit
    (["gen", "0xzz"], "not an integer"),
    (["gen"], "PRIME or --bits"),
    (["gen", "--bits", "2"], ">= 3"),
    (["gen", "7", "--bits", "20"], "not both"),
    (["gen", str(2**255 - 19), "--delta", "-1"], "delta"),
    (["gen", str(2**255 - 19), "--backend", "nosuch"], "invalid choice"),
    (["nosuch"], "invalid choice"),
])
def test_bad_input_fails_cleanly(args, msg):
    r = run(*args)
    assert r.returncode != 0
    assert "Traceback" not in r.stderr
    assert msg in r.stderr


def test_bench_table_json_and_plot(tmp_path):
    pytest.importorskip("matplotlib")
    from mns.cli import find_bench
    if not find_bench():
        pytest.skip("mns-bench not built")
    js, png = tmp_path / "b.json", tmp_path / "b.png"
    r = run("bench", "--quick", "--budget", "2", "--sizes", "256,512", "--backends", "mont,auto",
            "--ops", "modmul,modexp", "--json", js, "--plot", png)
    assert r.returncode == 0, r.stderr
    assert "### modmul" in r.stdout and "### modexp" in r.stdout and "| 256 |" in r.stdout
    data = json.loads(js.read_text())
    assert {x["impl"] for x in data["results"]} >= {"mont", "auto", "openssl-mont", "gmp-powm-sec"}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20000
    r = run("bench", "--exe", tmp_path / "missing")
    assert r.returncode != 0 and "Traceback" not in r.stderr


@pytest.mark.skipif(OPENSSL is None, reason="no openssl command")
@pytest.mark.parametrize("fmt,hash,backend", [("pem", "sha256", "auto"), ("der", "sha512", "mont"),
                                              ("pk8", "sha1", "rns")])
def test_rsa_sign_verified_by_openssl(key_files, tmp_path, fmt, hash, backend):
    msg, sig = tmp_path / "msg", tmp_path / f"sig.{fmt}"
    msg.write_bytes(b"signed by mns, checked by openssl\n" * 100)
    r = run("rsa", "sign", "--key", key_files[fmt], "--hash", hash, "--in", msg, "-o", sig, "--backend", backend)
    assert r.returncode == 0, r.stderr
    assert sig.stat().st_size == 256
    v = subprocess.run([OPENSSL, "dgst", f"-{hash}", "-verify", key_files["pub"], "-signature", sig, msg],
                       capture_output=True, text=True)
    assert v.returncode == 0 and "Verified OK" in v.stdout, v.stdout + v.stderr
    # and our own verify, with the public or the private key
    for key in (key_files["pub"], key_files[fmt]):
        r = run("rsa", "verify", "--key", key, "--hash", hash, "--sig", sig, "--in", msg)
        assert r.returncode == 0 and "Verified OK" in r.stdout
    msg.write_bytes(b"tampered")
    r = run("rsa", "verify", "--key", key_files["pub"], "--hash", hash, "--sig", sig, "--in", msg)
    assert r.returncode == 1 and "Verification failure" in r.stdout


def test_rsa_sign_stdin_stdout(key_files, rsa_key):
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding
    r = run("rsa", "sign", "--key", key_files["pem"], "--backend", "mont", input=b"from stdin", text=False)
    assert r.returncode == 0
    assert r.stdout == rsa_key.sign(b"from stdin", padding.PKCS1v15(), hashes.SHA256())


def test_rsa_speed(key_files):
    r = run("rsa", "speed", "--key", key_files["pem"], "--seconds", "0.2")
    assert r.returncode == 0, r.stderr
    assert "mns / OpenSSL speed" in r.stdout and "signatures identical: yes" in r.stdout


def test_rsa_bad_keys(tmp_path, key_files):
    bad = tmp_path / "bad.pem"
    bad.write_text("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
    for key in (bad, tmp_path / "missing.pem", key_files["pub"]):
        r = run("rsa", "sign", "--key", key, input="x")
        assert r.returncode == 1 and r.stderr.startswith("mns: ") and "Traceback" not in r.stderr
    r = run("rsa", "verify", "--key", bad, "--sig", bad, input="x")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    r = run("rsa", "sign", "--key", key_files["pem"], "--hash", "md5", input="x")
    assert r.returncode != 0 and "invalid choice" in r.stderr


def test_bench_python_table():
    pytest.importorskip("gmpy2")
    r = run("bench", "--python", "--sizes", "256,1024", "--backends", "auto,mont", "--budget", "0.01",
            "--vector-n", 2000)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert sum(1 for line in lines if line.startswith("# mns ") and "CPU:" in line) == 2
    rows = [line.split() for line in lines if line[:5].strip() in ("256", "1024")]
    ops = {row[1] for row in rows}
    assert {"a*b", "a+b", "a-b", "-a", "a**e", "a**-1", "a==b", "int(a)", "bytes(a)", "a.inv()", "a/b",
            "a.sqrt()", "to_bytes", "from_bytes", "bytes(b)"} <= ops
    from mns.pybench import OPS
    assert len(rows) == 2 * 2 * len(OPS)
    for row in rows:
        if row[3] == "-":       # no gmpy2 equivalent (the square root)
            assert row[1] == "a.sqrt()" and float(row[2]) > 0
            continue
        mns_ns, gmpy2_ns, ratio = map(float, row[2:5])
        assert mns_ns > 0 and gmpy2_ns > 0 and abs(ratio - mns_ns / gmpy2_ns) < 0.01 * ratio + 0.01
    assert "Vector: V.mul(W)" in r.stdout and "loop over mns elements" in r.stdout
    assert "C: mns_field_mul_n on preallocated arrays" in r.stdout
