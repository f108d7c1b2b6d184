"""Markdown summary of an mns-bench JSON file: for each operation, ticks of
the chosen implementations per size and their ratios to the best GMP and to
OpenSSL (> 1: mns faster). Used for docs/performance.md.

    python3 bench/summary.py bench-out/bench.json [impl ...]
"""
import json
import sys


def main():
    path = sys.argv[1]
    wanted = sys.argv[2:] or ["mont", "auto", "pmns-ifma", "pmns-mp-ifma", "rns-ifma"]
    d = json.load(open(path))
    cells = {}
    for r in d["results"]:
        cells[(r["op"], r["bits"], r["impl"])] = r
    sizes = sorted({r["bits"] for r in d["results"]})
    print(f"Run: {d['date']}, {d['cpu'].get('model', d['cpu']) if isinstance(d['cpu'], dict) else d['cpu']}, "
          f"GMP {d['gmp_version']}, {d['openssl_version']}; TSC ticks per call, median of per-batch minima.\n")
    for op, gmp_refs, ossl in (("modmul", ("gmp-mul-tdiv", "gmp-mont"), "openssl-mont"),
                               ("modsqr", ("gmp-mul-tdiv", "gmp-mont"), "openssl-mont"),
                               ("modexp", ("gmp-powm-sec",), "openssl-mont-ct")):
        print(f"### {op}\n")
        head = "| bits | " + " | ".join(wanted) + " | best GMP | OpenSSL | " + " | ".join(
            f"{w} xGMP / xOpenSSL" for w in wanted) + " |"
        print(head)
        print("|" + "---:|" * (3 + 2 * len(wanted)))
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
            print(f"| {b} | " + " | ".join(ticks) + f" | {gbest} | {ot} | " + " | ".join(ratios) + " |")
        print()


if __name__ == "__main__":
    main()
