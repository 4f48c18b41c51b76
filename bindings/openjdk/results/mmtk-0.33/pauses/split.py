#!/usr/bin/env python3
"""Summarises command.sh's CSV: per (threads, heap), each configuration's medians (min-max) of the
GCs, the pauses' sum and its three parts (handoff_ms, sync_ms, work_ms) and the last iteration,
then A's / B's paired by round (medians, min-max). Rounds in --skip are left out.

    split.py [--a ss64k-MarkSweep] [--b stock-Immix] [--skip 6,7] runs.csv
"""
import argparse
import csv
import statistics

COLS = ("gcs", "pause_sum_ms", "handoff_ms", "sync_ms", "work_ms", "last_iteration_ms")


def spread(v):
    return f"{statistics.median(v):.3f} ({min(v):.3f}-{max(v):.3f})" if v else "-"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--a", default="ss64k-MarkSweep")
    p.add_argument("--b", default="stock-Immix")
    p.add_argument("--skip", default="")
    p.add_argument("csv")
    o = p.parse_args()
    skip = set(filter(None, o.skip.split(",")))
    rows = [r for r in csv.DictReader(open(o.csv)) if r["rc"] == "0" and r["round"] not in skip]
    for cell in sorted({(int(r["threads"]), int(r["heap_mib"])) for r in rows}):
        here = [r for r in rows if (int(r["threads"]), int(r["heap_mib"])) == cell]
        print(f"{cell[0]} threads, {cell[1]} MiB:")
        for c in (o.a, o.b):
            rs = [r for r in here if r["config"] == c]
            print(f"  {c}: " + "; ".join(
                f"{k} {statistics.median(float(r[k]) for r in rs):.0f}" for k in COLS) if rs else f"  {c}: none")
        by = {}
        for r in here:
            by.setdefault(r["round"], {})[r["config"]] = r
        pairs = [v for v in by.values() if o.a in v and o.b in v]
        for k in COLS[1:]:
            ratios = [float(v[o.a][k]) / float(v[o.b][k]) for v in pairs if float(v[o.b][k]) > 0]
            print(f"  {k} {o.a} / {o.b}: {spread(ratios)}, {len(ratios)} rounds")


if __name__ == "__main__":
    main()
