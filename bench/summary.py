"""Markdown summary of an mns-bench JSON file: for each operation, ticks of
the chosen implementations per size and their ratios to the best GMP and to
OpenSSL (> 1: mns faster), for notes on a run (the README's tables are
scripts/results.py's). The table itself is made by the Python package
(python/mns/summary.py, also used by `mns bench`), loaded from the source
tree here.

    python3 bench/summary.py bench-out/bench.json [impl ...]
"""
import importlib.util
import json
import os
import sys


def main():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "mns", "summary.py")
    spec = importlib.util.spec_from_file_location("mns_summary", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with open(sys.argv[1]) as f:
        d = json.load(f)
    print("\n".join(mod.summary(d, sys.argv[2:] or mod.DEFAULT_IMPLS)))


if __name__ == "__main__":
    main()
