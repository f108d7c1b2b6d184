#!/usr/bin/env python3
"""Draw an mns-bench JSON file: TSC ticks per call against prime size, log
scale, one panel per operation, one line per implementation.

usage: python3 bench/plot.py bench-out/bench.json bench-out/bench.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend choice)

OPS = ["modmul", "modsqr", "modexp"]
# references dashed, mns solid, so the eye finds the comparison at once
STYLE = {"mns": "-", "gmp": "--", "openssl": ":"}
MARKER = {"mns": "o", "gmp": "s", "openssl": "^"}


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1]) as f:
        data = json.load(f)
    results = data["results"]
    ops = [op for op in OPS if any(r["op"] == op for r in results)]
    if not ops:
        sys.stderr.write("plot.py: no results in %s\n" % argv[1])
        return 1

    # one colour per implementation across the panels
    every = []
    for r in results:
        if r["impl"] not in every:
            every.append(r["impl"])
    # tab20: the ten strong colours first, then their light twins
    palette = plt.get_cmap("tab20")
    order = list(range(0, 20, 2)) + list(range(1, 20, 2))
    colour = {impl: palette(order[i % 20]) for i, impl in enumerate(every)}

    fig, axes = plt.subplots(1, len(ops), figsize=(6.2 * len(ops), 5.8), squeeze=False)
    for ax, op in zip(axes[0], ops):
        impls = []
        for r in results:
            if r["op"] == op and r["impl"] not in impls:
                impls.append(r["impl"])
        for impl in impls:
            pts = sorted((r["bits"], r["ticks"], r["kind"], r["mismatches"])
                         for r in results if r["op"] == op and r["impl"] == impl)
            kind = pts[0][2]
            label = impl if kind == "mns" else "%s (%s)" % (impl, kind)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], STYLE.get(kind, "-"),
                    marker=MARKER.get(kind, "o"), markersize=3.5, color=colour[impl], linewidth=1.4, label=label)
            bad = [p for p in pts if p[3]]
            if bad:
                ax.plot([p[0] for p in bad], [p[1] for p in bad], "rx", markersize=10,
                        label="%s: WRONG RESULT" % impl)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        sizes = sorted({r["bits"] for r in results if r["op"] == op})
        major = [s for s in sizes if s & (s - 1) == 0 or s % 1024 == 0] or sizes
        ax.set_xticks(major)
        ax.set_xticklabels([str(s) for s in major], rotation=45)
        ax.minorticks_off()
        ax.set_xlabel("prime size (bits)")
        ax.set_ylabel("TSC ticks per call (log)")
        ax.set_title(op)
        ax.grid(True, which="both", alpha=0.3)

    # one legend for the figure, below the panels
    handles, labels = [], []
    for ax in axes[0]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)

    cpu = data.get("cpu", {}).get("model", "?")
    mode = data.get("method", {}).get("mode", "?")
    fig.suptitle("mns-bench %s — %s, GMP %s, %s — %s run, median of per-batch minima%s"
                 % (data.get("mns_version", "?"), cpu, data.get("gmp_version", "?"),
                    data.get("openssl_version", "?").split(" ")[1]
                    if " " in data.get("openssl_version", "") else "?",
                    mode, ", MNS_CPU=%s" % data["mns_cpu"] if data.get("mns_cpu") else ""),
                 fontsize=10)
    ncol = min(len(labels), 7)
    fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=9, frameon=False)
    rows = (len(labels) + ncol - 1) // ncol
    fig.tight_layout(rect=(0, 0.045 * rows + 0.02, 1, 1))
    fig.savefig(argv[2], dpi=110)
    print("wrote %s" % argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
