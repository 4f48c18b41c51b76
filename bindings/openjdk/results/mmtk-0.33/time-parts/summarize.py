#!/usr/bin/env python3
"""Where the time at 2x MarkCompact's minimum heap goes: per cell (threads, heap) and configuration,
medians over the rounds of the GCs, the GC workers' and the mutators' CPU seconds and the GC
workers' CPU per GC, and each one's ratio to Immix's in the same round, median (min-max).
usage: summarize.py runs.csv [--base CONFIG]   (default base: hstock-Immix)"""
import csv
import statistics
import sys
from collections import defaultdict

PARTS = [("last_iteration_ms", "wall, last iteration"), ("gcs", "GCs"), ("cpu_gc_s", "GC CPU"),
         ("cpu_mutator_s", "mutator CPU"), ("gc_per_gc_ms", "GC CPU per GC")]


def value(row, key):
    if key == "gc_per_gc_ms":
        return 1000 * float(row["cpu_gc_s"]) / int(row["gcs"]) if int(row["gcs"]) else None
    return float(row[key]) if row[key] else None


def main(path, base):
    rows = [r for r in csv.DictReader(open(path))]
    by = defaultdict(dict)  # (threads, heap, round) -> config -> row
    for r in rows:
        by[(int(r["threads"]), int(r["heap_mib"]), int(r["round"]))][r["config"]] = r
    configs = sorted({r["config"] for r in rows}, key=lambda c: (c == base, c))
    fmt = lambda v: f"{statistics.median(v):.3f} ({min(v):.3f}–{max(v):.3f})" if v else "—"
    print("| threads | heap MiB | configuration | passed | " + " | ".join(f"{p[1]}, median" for p in PARTS) + " |")
    print("|---:|---:|---|---:|" + "---:|" * len(PARTS))
    for cell in sorted({k[:2] for k in by}):
        rounds = sorted(k[2] for k in by if k[:2] == cell)
        for c in configs:
            ok = [by[cell + (rd,)][c] for rd in rounds if by[cell + (rd,)].get(c, {}).get("rc") == "0"]
            med = []
            for key, _ in PARTS:
                v = [x for x in (value(r, key) for r in ok) if x is not None]
                med.append(f"{statistics.median(v):.{0 if key in ('gcs', 'last_iteration_ms') else 2}f}" if v else "—")
            print(f"| {cell[0]} | {cell[1]} | {c} | {len(ok)} of {len(rounds)} | " + " | ".join(med) + " |")
    print(f"\n| threads | heap MiB | configuration | " + " | ".join(f"{p[1]} ÷ {base}'s" for p in PARTS) + " |")
    print("|---:|---:|---|" + "---|" * len(PARTS))
    for cell in sorted({k[:2] for k in by}):
        rounds = sorted(k[2] for k in by if k[:2] == cell)
        for c in configs:
            if c == base:
                continue
            cols = []
            for key, _ in PARTS:
                v = []
                for rd in rounds:
                    x, b = by[cell + (rd,)].get(c), by[cell + (rd,)].get(base)
                    if x and b and x["rc"] == b["rc"] == "0":
                        xv, bv = value(x, key), value(b, key)
                        if xv is not None and bv:
                            v.append(xv / bv)
                cols.append(fmt(v))
            print(f"| {cell[0]} | {cell[1]} | {c} | " + " | ".join(cols) + " |")


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) == 1:
        main(a[0], "hstock-Immix")
    elif len(a) == 3 and a[1] == "--base":
        main(a[0], a[2])
    else:
        sys.exit("usage: summarize.py runs.csv [--base CONFIG]")
