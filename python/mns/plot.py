"""Draws an mns-bench JSON file (needs matplotlib; no C extension, so
bench/plot.py loads this file straight from the source tree).

Two rows, one column per operation:
  top     TSC ticks per call against prime size (log-log), mns backends in
          colour (solid), GMP and OpenSSL in grey and black (dashed/dotted);
  bottom  speed relative to OpenSSL (OpenSSL ticks / ticks, > 1 = faster
          than OpenSSL) of every mns backend and of the best GMP, with the
          line 1 drawn: the comparison the benchmark exists for, readable
          without reading log-scale distances off the top row.
Results that differed from GMP's are marked with a red cross."""
import json
import os

OPS = ["modmul", "modsqr", "modexp"]
REF_STYLE = {"gmp": "--", "openssl": ":"}
REF_MARKER = {"gmp": "s", "openssl": "^"}


def _ordered(seq):
    out = []
    for x in seq:
        if x not in out:
            out.append(x)
    return out


def _colours(plt, results):
    """mns backends: strong distinct colours; references: greys, OpenSSL black."""
    mns_impls = _ordered(r["impl"] for r in results if r["kind"] == "mns")
    refs = _ordered(r["impl"] for r in results if r["kind"] != "mns")
    # tab10 without its grey (index 7, the references' colour), then Dark2
    palette = [plt.get_cmap("tab10")(i) for i in (0, 1, 2, 3, 4, 5, 6, 8, 9)]
    palette += [plt.get_cmap("Dark2")(i) for i in (0, 2, 3, 5, 6)]
    colour = {impl: palette[i % len(palette)] for i, impl in enumerate(mns_impls)}
    greys = ["0.45", "0.65", "0.3", "0.55"]
    gi = 0
    for impl in refs:
        kind = next(r["kind"] for r in results if r["impl"] == impl)
        if kind == "openssl":
            colour[impl] = "black"
        else:
            colour[impl] = greys[gi % len(greys)]
            gi += 1
    return colour


def _title(data):
    cpu = data.get("cpu", {})
    cpu = cpu.get("model", "?") if isinstance(cpu, dict) else str(cpu)
    ossl = data.get("openssl_version", "?")
    ossl = " ".join(ossl.split(" ")[:2]) if ossl else "?"
    mode = data.get("method", {}).get("mode", "?") if isinstance(data.get("method"), dict) else "?"
    extra = f", MNS_CPU={data['mns_cpu']}" if data.get("mns_cpu") else ""
    return (f"mns-bench {data.get('mns_version', '?')} on {cpu}; GMP {data.get('gmp_version', '?')}, {ossl}; "
            f"{mode} run, median of per-batch minima{extra}")


def _ratio_label(v, _pos=None):
    """1x, 4x, 1/4x: powers of two read as such, not as 0.0625x."""
    if v >= 1:
        return f"{v:g}x"
    return f"1/{1 / v:g}x" if v > 0 else ""


def _size_axis(ax, sizes):
    ax.set_xscale("log", base=2)
    major = [s for s in sizes if s & (s - 1) == 0 or s % 1024 == 0] or sizes
    if len(sizes) <= 8:
        major = sizes
    ax.set_xticks(major)
    ax.set_xticklabels([str(s) for s in major], rotation=45)
    ax.minorticks_off()
    ax.grid(True, which="major", alpha=0.3)


def plot(data, path, dpi=110):
    """Writes the figure of an mns-bench JSON document (dict) to path."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator

    results = data.get("results", [])
    ops = [op for op in OPS if any(r["op"] == op for r in results)]
    if not ops:
        raise ValueError("no results to plot")
    colour = _colours(plt, results)
    fig, axes = plt.subplots(2, len(ops), figsize=(5.6 * len(ops), 9.0), squeeze=False,
                             gridspec_kw={"height_ratios": [3, 2]}, sharex="col")
    for col, op in enumerate(ops):
        top, bottom = axes[0][col], axes[1][col]
        mine = [r for r in results if r["op"] == op]
        sizes = sorted({r["bits"] for r in mine})
        for impl in _ordered(r["impl"] for r in mine):
            pts = sorted((r["bits"], r["ticks"], r["mismatches"], r.get("x_openssl"))
                         for r in mine if r["impl"] == impl)
            kind = next(r["kind"] for r in mine if r["impl"] == impl)
            ref = kind != "mns"
            label = f"{impl} ({kind})" if ref else impl
            top.plot([p[0] for p in pts], [p[1] for p in pts], REF_STYLE.get(kind, "-"),
                     marker=REF_MARKER.get(kind, "o"), markersize=4, color=colour[impl],
                     linewidth=1.2 if ref else 1.8, label=label, zorder=2 if ref else 3)
            bad = [p for p in pts if p[2]]
            if bad:
                top.plot([p[0] for p in bad], [p[1] for p in bad], "rx", markersize=11, mew=2,
                         label="WRONG RESULT", zorder=5)
            if not ref:
                rp = [(p[0], p[3]) for p in pts if p[3]]
                if rp:
                    bottom.plot([p[0] for p in rp], [p[1] for p in rp], "-", marker="o", markersize=4,
                                color=colour[impl], linewidth=1.8, label=label, zorder=3)
        # the best GMP relative to OpenSSL, from the references' own ticks
        ossl = {r["bits"]: r["ticks"] for r in mine if r["kind"] == "openssl"}
        gbest = {}
        for r in mine:
            if r["kind"] == "gmp" and r["bits"] in ossl:
                gbest[r["bits"]] = min(gbest.get(r["bits"], r["ticks"]), r["ticks"])
        if gbest:
            xs = sorted(gbest)
            bottom.plot(xs, [ossl[b] / gbest[b] for b in xs], "--", marker="s", markersize=4, color="0.45",
                        linewidth=1.2, label="best GMP", zorder=2)
        bottom.axhline(1.0, color="black", linewidth=1.4, linestyle=":", label="OpenSSL = 1", zorder=1)

        top.set_yscale("log")
        top.set_title(op, fontsize=12, fontweight="bold")
        top.set_ylabel("TSC ticks per call (log)")
        bottom.set_yscale("log", base=2)
        bottom.yaxis.set_major_locator(LogLocator(base=2, numticks=7))
        bottom.yaxis.set_major_formatter(FuncFormatter(_ratio_label))
        bottom.minorticks_off()
        bottom.set_ylabel("speed vs OpenSSL (> 1: faster)")
        bottom.set_xlabel("prime size (bits)")
        for ax in (top, bottom):
            _size_axis(ax, sizes)

    handles, labels = [], []
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.suptitle(_title(data), fontsize=10)
    ncol = min(len(labels), 6)
    rows = (len(labels) + ncol - 1) // ncol
    fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=9, frameon=False)
    fig.tight_layout(rect=(0, 0.03 * rows + 0.01, 1, 0.98))
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


def _batch_colour(impl):
    if impl.startswith("mns") and "batch" in impl:
        return "tab:blue"
    if impl.startswith("mns"):
        return "tab:cyan"
    if impl.startswith("openssl"):
        return "black"
    return "0.55"  # crypto_mb, IPP


def plot_batch(data, path, dpi=110):
    """The batch section (mns-bench --batch-section): ticks per operation of
    each implementation, one panel per operation and size; None if the
    document has no batch figures."""
    rows = [r for r in data.get("batch", []) if r.get("ticks_per_op", 0) > 0]
    if not rows:
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = _ordered((r["op"], r["bits"]) for r in rows)
    ncol = min(len(groups), 7)
    nrow = (len(groups) + ncol - 1) // ncol
    fig, axes = plt.subplots(nrow, ncol, figsize=(2.4 * ncol + 1, 5.4 * nrow), squeeze=False)
    for ax in axes.flat[len(groups):]:
        ax.set_visible(False)
    for ax, (op, bits) in zip(axes.flat, groups):
        mine = [r for r in rows if r["op"] == op and r["bits"] == bits]
        xs = range(len(mine))
        ax.bar(xs, [r["ticks_per_op"] for r in mine], color=[_batch_colour(r["impl"]) for r in mine],
               yerr=[[r["ticks_per_op"] - r["ticks_min"] for r in mine],
                     [r["ticks_max"] - r["ticks_per_op"] for r in mine]], capsize=2)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([r["impl"] for r in mine], rotation=70, ha="right", fontsize=7)
        ax.set_title(f"{op} {bits}", fontsize=10, fontweight="bold")
        ax.grid(True, axis="y", alpha=0.3)
    for row in axes:
        row[0].set_ylabel("TSC ticks per operation (groups of 8)")
    fig.suptitle(_title(data) + "\nbatch section: per operation, 8 operations per timed call",
                 fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


def plot_file(json_path, png_path):
    """The main figure at png_path and, where the run has a batch section,
    its figure beside it (NAME-batch.png); a run of the batch section only
    draws that at png_path."""
    with open(json_path) as f:
        data = json.load(f)
    if not data.get("results"):
        if plot_batch(data, png_path) is None:
            raise ValueError("no results to plot")
        return png_path
    plot(data, png_path)
    root, ext = os.path.splitext(png_path)
    plot_batch(data, root + "-batch" + (ext or ".png"))
    return png_path
