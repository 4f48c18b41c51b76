#!/usr/bin/env python3
"""Pools the paired rounds of several command.sh batches: for one case and thread count, the
ratio of configuration A's last-iteration time to B's within each round (both passed), per file
and over all files together, with the share of rounds at or below a goal, and the pooled
geometric mean with an approximate 95% interval (the mean of the rounds' log ratios plus or minus
two standard errors: rounds taken as independent, which the batches' spread makes optimistic).

A batch's median moves by up to 15% between batches on the same images (this machine is shared),
so a goal near 1.0 is judged on the pooled rounds, not on one batch.

    pool.py [--case lusearch-64] [--threads 24] [--a ss64k-MarkSweep-jit] [--b stock-Immix]
            [--goal 1.05] FILE.csv ...

--a may name several labels, comma-separated, for one code under several image names (a round
has at most one of them: the first found in that order is taken). --column pairs another column
of the CSV instead of the time (minor_faults, cpu_s, max_rss_kib), or last3_ms: the mean of the
last three iterations, in files that hold the warm-ups (`warmup_ms`).
"""
import argparse
import csv
import math
import statistics
import sys


def last3(row):
    """The mean of a run's last three iterations (the timed one and the two warm-ups before it),
    from `warmup_ms` (files begun with it); None where the run has fewer than two warm-ups."""
    warm = [int(x) for x in (row.get("warmup_ms") or "").split(";") if x]
    if len(warm) < 2 or not row.get("last_iteration_ms"):
        return None
    return (warm[-2] + warm[-1] + int(row["last_iteration_ms"])) / 3


def ratios(path, case, threads, a, b, column="last_iteration_ms"):
    """The paired ratios a / b of `column` in one file, one per round that has both passed; `a`
    is a list of labels, the first present in a round taken."""
    by_round = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["case"] != case or row["threads"] != threads or row["rc"] != "0":
                continue
            value = last3(row) if column == "last3_ms" else row.get(column)
            if not value:
                continue
            by_round.setdefault(row["round"], {})[row["config"]] = float(value)
    out = []
    for v in by_round.values():
        got = [v[x] for x in a if x in v]
        if got and b in v:
            out.append(got[0] / v[b])
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--case", default="lusearch-64")
    p.add_argument("--threads", default="24")
    p.add_argument("--a", default="ss64k-MarkSweep-jit")
    p.add_argument("--b", default="stock-Immix")
    p.add_argument("--goal", type=float, default=1.05)
    p.add_argument("--column", default="last_iteration_ms")
    p.add_argument("files", nargs="+")
    o = p.parse_args()
    pooled = []
    print(f"{o.case}, {o.threads} threads: {o.a} / {o.b}, {o.column}, paired by round")
    print("| file | rounds | median (min–max) |")
    print("|---|---:|---|")
    for path in o.files:
        r = ratios(path, o.case, o.threads, o.a.split(","), o.b, o.column)
        if r:
            print(f"| {path} | {len(r)} | {statistics.median(r):.3f} ({min(r):.3f}–{max(r):.3f}) |")
            pooled += r
    if not pooled:
        print(f"pool.py: no round has both {o.a} and {o.b}", file=sys.stderr)
        sys.exit(2)
    within = sum(x <= o.goal for x in pooled)
    print(f"| pooled | {len(pooled)} | {statistics.median(pooled):.3f} ({min(pooled):.3f}–{max(pooled):.3f}) |")
    print(f"mean {statistics.mean(pooled):.3f}; rounds at or below {o.goal}: {within} of {len(pooled)}")
    logs = [math.log(x) for x in pooled]
    if len(logs) > 1:
        m = statistics.mean(logs)
        half = 2 * statistics.stdev(logs) / math.sqrt(len(logs))
        lo, hi = math.exp(m - half), math.exp(m + half)
        side = "below" if hi <= o.goal else "above" if lo > o.goal else "across"
        print(f"geometric mean {math.exp(m):.3f}, 95% interval {lo:.3f}–{hi:.3f} ({side} {o.goal})")


if __name__ == "__main__":
    main()
