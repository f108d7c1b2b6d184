"""Markdown summary of an mns-bench JSON document: for each operation, the
ticks of the chosen implementations per size and their ratios to the best
GMP and to OpenSSL (> 1: mns faster). Used by `mns bench` and
bench/summary.py. No C extension needed."""

DEFAULT_IMPLS = ["mont", "auto", "pmns-ifma", "pmns-mp-ifma", "rns-ifma"]
REFS = (("modmul", ("gmp-mul-tdiv", "gmp-mont"), "openssl-mont"),
        ("modsqr", ("gmp-mul-tdiv", "gmp-mont"), "openssl-mont"),
        ("modexp", ("gmp-powm-sec",), "openssl-mont-ct"))


def summary(d, wanted=None):
    """The summary as a list of lines."""
    results = d.get("results", [])
    if not wanted:
        present = {r["impl"] for r in results if r["kind"] == "mns"}
        wanted = [w for w in DEFAULT_IMPLS if w in present] or sorted(present)
    cells = {(r["op"], r["bits"], r["impl"]): r for r in results}
    sizes = sorted({r["bits"] for r in results})
    cpu = d.get("cpu", "?")
    cpu = cpu.get("model", cpu) if isinstance(cpu, dict) else cpu
    out = [f"Run: {d.get('date', '?')}, {cpu}, GMP {d.get('gmp_version', '?')}, {d.get('openssl_version', '?')}; "
           "TSC ticks per call, median of per-batch minima.", ""]
    for op, gmp_refs, ossl in REFS:
        rows = []
        for b in sizes:
            g = [cells[(op, b, x)]["ticks"] for x in gmp_refs if (op, b, x) in cells]
            o = cells.get((op, b, ossl))
            if not g or not o:
                continue
            gbest, ot = min(g), o["ticks"]
            ticks, ratios = [], []
            for w in wanted:
                c = cells.get((op, b, w))
                if c is None:
                    ticks.append("-")
                    ratios.append("-")
                else:
                    ticks.append(str(c["ticks"]))
                    ratios.append(f"{gbest / c['ticks']:.2f} / {ot / c['ticks']:.2f}")
            rows.append(f"| {b} | " + " | ".join(ticks) + f" | {gbest} | {ot} | " + " | ".join(ratios) + " |")
        if not rows:
            continue
        out.append(f"### {op}")
        out.append("")
        out.append("| bits | " + " | ".join(wanted) + " | best GMP | OpenSSL | "
                   + " | ".join(f"{w} xGMP / xOpenSSL" for w in wanted) + " |")
        out.append("|" + "---:|" * (3 + 2 * len(wanted)))
        out.extend(rows)
        out.append("")
    return out
