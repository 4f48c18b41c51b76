#!/usr/bin/env python3
"""Medians (min-max) per threads and configuration, and paired ratios (per round) to the first
configuration and to Immix, from a runs.csv of command.sh. usage: summarize.py runs.csv"""
import csv, statistics, sys
from collections import defaultdict

rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["last_iteration_ms"]]
by = defaultdict(dict)  # (threads, round) -> config -> (ms, faults)
for r in rows:
    by[(r["threads"], r["round"])][r["config"]] = (float(r["last_iteration_ms"]), float(r["minor_faults"] or "nan"))
configs = list(dict.fromkeys(r["config"] for r in rows))
for t in sorted({k[0] for k in by}, key=int):
    rounds = [v for k, v in by.items() if k[0] == t]
    print(f"\n{t} threads, {len(rounds)} rounds\n")
    print("| configuration | ms, median (min–max) | minor faults, median | ratio to " + configs[0] + " | ratio to Immix |")
    print("|---|---:|---:|---:|---:|")
    for c in configs:
        ms = [r[c][0] for r in rounds if c in r]
        f = [r[c][1] for r in rounds if c in r]
        def ratio(base):
            q = [r[c][0] / r[base][0] for r in rounds if c in r and base in r]
            return f"{statistics.median(q):.3f} ({min(q):.3f}–{max(q):.3f})" if q else "—"
        immix = next((x for x in configs if "Immix" in x), None)
        print(f"| {c} | {statistics.median(ms):.0f} ({min(ms):.0f}–{max(ms):.0f}) | {statistics.median(f):.0f} | "
              f"{ratio(configs[0])} | {ratio(immix) if immix else '—'} |")
