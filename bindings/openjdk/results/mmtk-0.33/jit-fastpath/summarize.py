#!/usr/bin/env python3
"""Medians (min-max) per threads and configuration, and paired ratios (per round) to the first
configuration and to Immix, of the timed iteration's wall time and, where recorded (cpu_s), of
the whole JVM's CPU time, from a runs.csv of command.sh. usage: summarize.py runs.csv"""
import csv, math, statistics, sys
from collections import defaultdict

rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["last_iteration_ms"]]
has_cpu = all(r.get("cpu_s") for r in rows)
by = defaultdict(dict)  # (threads, round) -> config -> (ms, faults, cpu)
for r in rows:
    by[(r["threads"], r["round"])][r["config"]] = (float(r["last_iteration_ms"]), float(r["minor_faults"] or "nan"),
                                                   float(r["cpu_s"]) if has_cpu else math.nan)
configs = list(dict.fromkeys(r["config"] for r in rows))
immix = next((x for x in configs if "Immix" in x), None)
for t in sorted({k[0] for k in by}, key=int):
    rounds = [v for k, v in by.items() if k[0] == t]
    print(f"\n{t} threads, {len(rounds)} rounds\n")
    head = "| configuration | ms, median (min–max) | minor faults, median | ms ratio to " + configs[0] + " | ms ratio to Immix |"
    if has_cpu:
        head += " CPU s, median | CPU ratio to " + configs[0] + " | CPU ratio to Immix |"
    print(head)
    print("|---|" + "---:|" * (7 if has_cpu else 4))
    for c in configs:
        ms = [r[c][0] for r in rounds if c in r]
        f = [r[c][1] for r in rounds if c in r]

        def ratio(base, i):
            q = [r[c][i] / r[base][i] for r in rounds if c in r and base in r]
            return f"{statistics.median(q):.3f} ({min(q):.3f}–{max(q):.3f})" if q else "—"
        line = (f"| {c} | {statistics.median(ms):.0f} ({min(ms):.0f}–{max(ms):.0f}) | {statistics.median(f):.0f} | "
                f"{ratio(configs[0], 0)} | {ratio(immix, 0) if immix else '—'} |")
        if has_cpu:
            cpu = [r[c][2] for r in rounds if c in r]
            line += f" {statistics.median(cpu):.1f} | {ratio(configs[0], 2)} | {ratio(immix, 2) if immix else '—'} |"
        print(line)
