#!/usr/bin/env python3
"""Draw an mns-bench JSON file: ticks per call and speed relative to OpenSSL
against prime size, one column per operation. The drawing lives in the
Python package (python/mns/plot.py, also used by `mns bench`); it is loaded
from the source tree here so that `make bench` needs only matplotlib.

usage: python3 bench/plot.py bench-out/bench.json bench-out/bench.png
"""
import importlib.util
import os
import sys


def _plot_module():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "mns", "plot.py")
    spec = importlib.util.spec_from_file_location("mns_plot", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    try:
        _plot_module().plot_file(argv[1], argv[2])
    except ValueError as e:
        sys.stderr.write("plot.py: %s: %s\n" % (argv[1], e))
        return 1
    print("wrote %s" % argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
