"""The `mns` command end to end."""
import subprocess
import sys


def run(*args):
    return subprocess.run([sys.executable, "-m", "mns.cli", *args], capture_output=True, text=True)


def test_info():
    r = run("info")
    assert r.returncode == 0, r.stderr
    assert "cpu features" in r.stdout
    assert "mont" in r.stdout


def test_unknown_command_fails_cleanly():
    r = run("nosuch")
    assert r.returncode != 0
