"""The README's results tables, from the latest `make bench` of each CPU class.

    python3 scripts/results.py [--save bench-out/bench.json] [--readme README.md]

docs/results/ holds one run per CPU class of the tuning tables (adx, ifma,
ifma-zen5, generic): <class>.json (mns-bench --json) or <class>.txt (the
text mns-bench prints, with '# machine:' and '# date:' lines above it), and
<class>.png (bench/plot.py). --save files a new run there under the class of
the CPU that made it, replacing that class's previous one (git keeps the
history), with the plot beside the JSON if there is one. The README's text
between the results markers is then rewritten: one table per class, auto
(what mns_field_new(p, "auto") gives) against the best of GMP and of OpenSSL
in the same process, modmul and modexp, and where IPP was linked against
Intel's single-buffer exponentiation."""
import argparse
import glob
import json
import os
import re
import shutil
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
RESULTS = os.path.join(ROOT, "docs", "results")
CLASSES = ["adx", "ifma", "ifma-zen5", "generic"]
BEGIN, END = "<!-- results: begin (make results writes this part) -->", "<!-- results: end -->"
OPS = ("modmul", "modexp")
# the standard sizes of mns-bench's default run (the paper sizes stay in the raw files)
SIZES = {256, 512, 1024, 2048, 3072, 4096, 6144, 8192}


def cpu_class(run):
    """The tuning-table class of the CPU of a JSON run (src/field/tune.c)."""
    cpu = run.get("cpu") or {}
    feats = set((cpu.get("features") or "").split())
    if run.get("mns_cpu") == "generic":
        return "generic"
    if "avx512ifma" in feats:
        fam = re.search(r"family (\d+)", cpu.get("signature", ""))
        amd = "AMD" in cpu.get("model", "")
        return "ifma-zen5" if amd and fam and int(fam[1]) >= 26 else "ifma"
    return "adx" if {"adx", "bmi2"} <= feats else "generic"


def amd_core(signature):
    """The AMD core of a family/model signature, for the tables' CPU line."""
    m = re.search(r"family (\d+) model (\d+)", signature)
    if not m:
        return ""
    fam, model = int(m[1]), int(m[2])
    if fam == 26:
        return "Zen 5"
    if fam == 25:
        zen4 = 0x10 <= model <= 0x1F or 0x60 <= model <= 0x7F or 0xA0 <= model <= 0xAF
        return "Zen 4" if zen4 else "Zen 3"
    return "Zen 2" if fam == 23 and model >= 0x30 else ""


def from_json(path):
    with open(path) as f:
        run = json.load(f)
    cpu = run.get("cpu") or {}
    rows = {}
    for r in run["results"]:
        if r.get("kind") == "mns" and r["impl"] == "auto":
            rows[(r["op"], r["bits"])] = (r["ticks"], r.get("x_gmp"), r.get("x_openssl"),
                                          r.get("describe", "").split()[0], r.get("x_ipp"))
    core = amd_core(cpu.get("signature", "")) if "AMD" in cpu.get("model", "") else ""
    machine = (f"{cpu.get('model', '?')}{' ' + core if core else ''} ({cpu.get('signature', '?')}, "
               f"{cpu.get('features', '')}); "
               f"GMP {run.get('gmp_version', '?')}, {run.get('openssl_version', 'OpenSSL ?')}")
    return {"machine": machine, "date": run.get("date", "?").replace("T", " ").replace("Z", " UTC"), "rows": rows}


def text_tables(lines):
    """{(title, op): (header words, {bits: cells})} of mns-bench's text tables."""
    tables, i = {}, 0
    while i < len(lines):
        m = re.match(r"== (\w+): (TSC ticks|speed-up)", lines[i])
        if not m:
            i += 1
            continue
        head = lines[i + 1].split()
        j = i + 2
        if m[2] == "speed-up":
            j += 1  # the "bits xGMP xOpenSSL ..." line
        rows = {}
        while j < len(lines) and re.match(r"\s+\d+\s", lines[j]):
            cells = lines[j].split()
            rows[int(cells[0])] = cells[1:]
            j += 1
        tables[(m[2], m[1])] = (head, rows)
        i = j
    return tables


def num(cell):
    return None if cell == "-" else float(cell)


def from_text(path):
    with open(path) as f:
        lines = f.read().split("\n")
    meta = dict(re.findall(r"^# (\w+): (.*)$", "\n".join(lines), re.M))
    tables = text_tables(lines)
    describe = dict((int(b), d.split()[0]) for b, d in
                    re.findall(r"^  auto\s+(\d+): (\S+)", "\n".join(lines), re.M))
    rows = {}
    for op in OPS:
        ticks_head, ticks = tables[("TSC ticks", op)]
        x_head, xs = tables[("speed-up", op)]
        col = ticks_head.index("auto") - 1  # the header starts with "bits"
        xcol = 2 * x_head.index("auto")
        for bits, cells in ticks.items():
            t = num(cells[col])
            if t is None:
                continue
            x = xs.get(bits, [])
            rows[(op, bits)] = (t, num(x[xcol]) if x else None, num(x[xcol + 1]) if x else None,
                                describe.get(bits, "?"), None)
    return {"machine": meta.get("machine", "?"), "date": meta.get("date", "?"), "rows": rows}


def load(cls):
    for ext, fn in ((".json", from_json), (".txt", from_text)):
        path = os.path.join(RESULTS, cls + ext)
        if os.path.isfile(path):
            return path, fn(path)
    return None, None


def fmt_x(x):
    return "-" if x is None else f"{x:.2f}"


def fmt_ticks(t):
    if t >= 1e6:
        return f"{t / 1e6:.2f} M"
    return f"{t / 1e3:.1f} k" if t >= 1e4 else f"{t:.0f}"


def table(cls, path, run):
    rel = os.path.relpath(path, ROOT)
    # x IPP: Intel's single-buffer exponentiation, in runs where IPP was linked
    ipp = any(r[4] is not None for (op, _), r in run["rows"].items() if op == "modexp")
    out = [f"**{cls}**: {run['machine']}; {run['date']} ([raw]({rel}))", "",
           "| bits | modmul ticks | backend | x GMP | x OpenSSL | modexp ticks | backend | x GMP | x OpenSSL |"
           + (" x IPP |" if ipp else ""),
           "|---:|---:|---|---:|---:|---:|---|---:|---:|" + ("---:|" if ipp else "")]
    for bits in sorted({b for (_, b) in run["rows"]} & SIZES):
        cells = [str(bits)]
        for op in OPS:
            r = run["rows"].get((op, bits))
            cells += [fmt_ticks(r[0]), r[3], fmt_x(r[1]), fmt_x(r[2])] if r else ["-"] * 4
        if ipp:
            r = run["rows"].get(("modexp", bits))
            cells.append(fmt_x(r[4] if r else None))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def save(bench_json):
    if not os.path.isfile(bench_json):
        sys.exit(f"results: no {bench_json} (make bench writes it)")
    with open(bench_json) as f:
        cls = cpu_class(json.load(f))
    for old in glob.glob(os.path.join(RESULTS, cls + ".*")):
        os.remove(old)
    shutil.copyfile(bench_json, os.path.join(RESULTS, cls + ".json"))
    png = os.path.splitext(bench_json)[0] + ".png"
    if os.path.isfile(png):
        shutil.copyfile(png, os.path.join(RESULTS, cls + ".png"))
    print(f"saved {bench_json} as docs/results/{cls}.json")


def rewrite(readme):
    parts = []
    for cls in CLASSES:
        path, run = load(cls)
        if run:
            parts.append(table(cls, path, run))
    with open(readme) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        sys.exit(f"results: {readme} has no results markers")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(readme, "w") as f:
        f.write(head + BEGIN + "\n" + "\n\n".join(parts) + "\n" + END + tail)
    print(f"rewrote the results of {readme} ({len(parts)} CPU classes)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--save", help="a mns-bench JSON to file under its CPU class")
    ap.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    args = ap.parse_args()
    if args.save:
        save(args.save)
    rewrite(args.readme)


if __name__ == "__main__":
    main()
