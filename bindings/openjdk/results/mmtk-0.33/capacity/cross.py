#!/usr/bin/env python3
"""Ours at one heap against Immix at another, paired by round, from a time-parts/command.sh CSV.

    cross.py RUNS.csv [OURS_LABEL] [IMMIX_LABEL]

Prints each configuration's medians per heap (time of the last iteration, GCs, GC CPU, minor
faults), then for pairs of heaps (ours at H1, Immix at H2) the time ratio by round: median,
geometric mean and an approximate 95% interval (mean log ratio +- two standard errors), and the
median ratio of the GC counts.
"""
import csv
import math
import statistics as st
import sys


def summary(xs):
    logs = [math.log(x) for x in xs]
    m, se = st.mean(logs), st.stdev(logs) / math.sqrt(len(logs))
    return (f"median {st.median(xs):.3f} gm {math.exp(m):.3f} "
            f"({math.exp(m - 2 * se):.3f}-{math.exp(m + 2 * se):.3f}) n {len(xs)}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    ours = sys.argv[2] if len(sys.argv) > 2 else "base-ss64k-MarkSweep"
    immix = sys.argv[3] if len(sys.argv) > 3 else "stock-Immix"
    rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["rc"] == "0"]
    by = {(r["round"], r["heap_mib"], r["config"]): r for r in rows}
    rounds = sorted({r["round"] for r in rows}, key=int)
    heaps = sorted({r["heap_mib"] for r in rows}, key=int)
    for h in heaps:
        for c in (ours, immix):
            v = [by[(r, h, c)] for r in rounds if (r, h, c) in by]
            print(f"{h} MiB {c}: time {st.median(int(x['last_iteration_ms']) for x in v)} ms, "
                  f"GCs {st.median(int(x['gcs']) for x in v)}, GC CPU {st.median(float(x['cpu_gc_s']) for x in v):.3f} s, "
                  f"faults {st.median(int(x['faults']) for x in v):.0f}")
    for ho in heaps:
        for hi in heaps:
            pairs = [(by[(r, ho, ours)], by[(r, hi, immix)]) for r in rounds
                     if (r, ho, ours) in by and (r, hi, immix) in by]
            if len(pairs) < 2:
                continue
            t = [int(a["last_iteration_ms"]) / int(b["last_iteration_ms"]) for a, b in pairs]
            g = [int(a["gcs"]) / int(b["gcs"]) for a, b in pairs]
            print(f"ours at {ho} / Immix at {hi}: time {summary(t)}; GCs {st.median(g):.3f}")


if __name__ == "__main__":
    main()
