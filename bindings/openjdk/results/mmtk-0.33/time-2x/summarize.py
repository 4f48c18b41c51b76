#!/usr/bin/env python3
"""Time at 2x MarkCompact's minimum heap: per cell (thread count and heap size) and configuration, the runs that
passed, and the ratio of the last iteration's wall time (and of the JVM's CPU time) to Immix's
in the same round: median (min-max) over the rounds. With --pair A B, also the ratio of
configuration A's wall (and CPU) time to B's in the same round, paired by round.
usage: summarize.py runs.csv [--pair A B]"""
import csv
import statistics
import sys
from collections import defaultdict


def pair(by, a, b):
    """A's time over B's, round by round, per cell."""
    print(f"\n| threads | heap MiB | {a} ÷ {b}, wall, median (min–max) | ≤ 1 | CPU, median (min–max) | rounds |")
    print("|---:|---:|---|---:|---|---:|")
    for cell in sorted({k[:2] for k in by}):
        w, u = [], []
        for k in sorted(k for k in by if k[:2] == cell):
            x, y = by[k].get(a), by[k].get(b)
            if x and y and x["rc"] == y["rc"] == "0" and x["last_iteration_ms"] and y["last_iteration_ms"]:
                w.append(float(x["last_iteration_ms"]) / float(y["last_iteration_ms"]))
                u.append(float(x["cpu_s"]) / float(y["cpu_s"]))
        f = lambda v: f"{statistics.median(v):.3f} ({min(v):.3f}–{max(v):.3f})" if v else "—"
        print(f"| {cell[0]} | {cell[1]} | {f(w)} | {sum(v <= 1 for v in w)} of {len(w)} | {f(u)} | {len(w)} |")


def main(path, pair_with=None):
    rows = list(csv.DictReader(open(path)))
    by = defaultdict(dict)  # (threads, heap, round) -> config -> row
    for r in rows:
        by[(int(r["threads"]), int(r["heap_mib"]), int(r["round"]))][r["config"]] = r
    configs = sorted({r["config"] for r in rows})
    print("| threads | heap MiB | configuration | passed | wall ÷ Immix's, median (min–max) | CPU ÷ Immix's |")
    print("|---:|---:|---|---:|---|---|")
    for t, heap in sorted({k[:2] for k in by}):
        rounds = sorted(k[2] for k in by if k[:2] == (t, heap))
        for c in configs:
            w, u, ok = [], [], 0
            for rd in rounds:
                x, im = by[(t, heap, rd)].get(c), by[(t, heap, rd)].get("hstock-Immix")
                if x and x["rc"] == "0" and x["last_iteration_ms"]:
                    ok += 1
                    if im and im["rc"] == "0" and im["last_iteration_ms"]:
                        w.append(float(x["last_iteration_ms"]) / float(im["last_iteration_ms"]))
                        u.append(float(x["cpu_s"]) / float(im["cpu_s"]))
            f = lambda v: f"{statistics.median(v):.3f} ({min(v):.3f}–{max(v):.3f})" if v else "—"
            print(f"| {t} | {heap} | {c} | {ok} of {len(rounds)} | {f(w)} | {f(u)} |")
    if pair_with:
        pair(by, *pair_with)


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) == 4 and args[1] == "--pair":
        main(args[0], (args[2], args[3]))
    elif len(args) == 1:
        main(args[0])
    else:
        sys.exit("usage: summarize.py runs.csv [--pair A B]")
