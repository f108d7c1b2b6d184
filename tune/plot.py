#!/usr/bin/env python3
"""Plot of an mns-tune --csv file: per size, the fastest mns backend's speed-up
over the best GMP and the OpenSSL figure, for modmul and modexp, labelled with
the winner (docs/auto.md). Usage: tune/plot.py tune/ifma.csv docs/auto.png"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


VARIABLE_TIME = {"mpart", "bipartite", "mpart-mont", "mpart-barrett"}


def main(src, dst):
    rows = list(csv.DictReader(open(src)))
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, op in zip(axes, ("mul", "exp")):
        sizes = sorted({int(r["bits"]) for r in rows if r["op"] == op and r["form"] == "any"})
        if not sizes:
            continue
        xg, xo, win = [], [], []
        for b in sizes:
            cell = [r for r in rows if r["op"] == op and r["form"] == "any"
                    and int(r["bits"]) == b and r["mismatches"] == "0"]
            # the constant-time backends, as in the tables (mpart family excluded)
            mns = [r for r in cell if r["kind"] == "mns"
                   and r["impl"].split(":")[0] not in VARIABLE_TIME]
            best = min(mns, key=lambda r: int(r["ticks"]))
            g = min(int(r["ticks"]) for r in cell if r["kind"] == "gmp")
            o = min(int(r["ticks"]) for r in cell if r["kind"] == "openssl")
            xg.append(g / int(best["ticks"]))
            xo.append(o / int(best["ticks"]))
            win.append(best["impl"])
        ax.plot(sizes, xg, "o-", label="fastest mns backend vs best GMP")
        ax.plot(sizes, xo, "s-", label="fastest mns backend vs OpenSSL")
        for b, y, w in zip(sizes, xg, win):
            ax.annotate(w, (b, y), textcoords="offset points", xytext=(0, 6), fontsize=6,
                        rotation=60)
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("bits of p")
        ax.set_ylabel("speed-up (ticks of reference / ticks of winner)")
        ax.set_title({"mul": "modmul", "exp": "modexp (full-size exponent)"}[op])
        ax.legend(fontsize=8)
    fig.suptitle("mns-tune: winner per size (" + src + ")")
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
