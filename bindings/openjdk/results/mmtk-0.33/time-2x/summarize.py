#!/usr/bin/env python3
"""Time at 2x MarkCompact's minimum heap: per thread count and configuration, the runs that
passed, and the ratio of the last iteration's wall time (and of the JVM's CPU time) to Immix's
in the same round: median (min-max) over the rounds.
usage: summarize.py runs.csv"""
import csv
import statistics
import sys
from collections import defaultdict


def main(path):
    rows = list(csv.DictReader(open(path)))
    by = defaultdict(dict)  # (threads, round) -> config -> row
    for r in rows:
        by[(int(r["threads"]), int(r["round"]))][r["config"]] = r
    configs = sorted({r["config"] for r in rows})
    print("| threads | heap MiB | configuration | passed | wall ÷ Immix's, median (min–max) | CPU ÷ Immix's |")
    print("|---:|---:|---|---:|---|---|")
    for t in sorted({k[0] for k in by}):
        rounds = sorted(k[1] for k in by if k[0] == t)
        heap = next(r["heap_mib"] for r in rows if int(r["threads"]) == t)
        for c in configs:
            w, u, ok = [], [], 0
            for rd in rounds:
                x, im = by[(t, rd)].get(c), by[(t, rd)].get("hstock-Immix")
                if x and x["rc"] == "0" and x["last_iteration_ms"]:
                    ok += 1
                    if im and im["rc"] == "0" and im["last_iteration_ms"]:
                        w.append(float(x["last_iteration_ms"]) / float(im["last_iteration_ms"]))
                        u.append(float(x["cpu_s"]) / float(im["cpu_s"]))
            f = lambda v: f"{statistics.median(v):.3f} ({min(v):.3f}–{max(v):.3f})" if v else "—"
            print(f"| {t} | {heap} | {c} | {ok} of {len(rounds)} | {f(w)} | {f(u)} |")


if __name__ == "__main__":
    main(sys.argv[1])
