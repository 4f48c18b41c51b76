#!/usr/bin/env python3
"""Minimum heaps of command.sh by configuration and round: 1 / 24 / 48 threads (MiB), the
least-squares slope over them (MiB/thread), and the slope and 48-thread minimum as ratios to the
4K build's and MarkCompact's of the same round; the peak RSS above start-up at 48 threads (the JVM's
`ru_maxrss` in the passing probe at the minimum, less the start-up RSS of every MMTk image,
548 MiB: bindings/openjdk/RESULTS.md) and its ratio to MarkCompact's of the same round. Rounds
missing a thread count are listed without ratios.
usage: summarize-minheap.py [DIR] (default: this script's directory)"""
import csv
import glob
import os
import sys

START_UP_RSS_MIB = 548
NAMES = {"ss64-headroom": "64K, headroom", "ss64-headroom-inuse-cap12": "64K, headroom, in-use, idle cap 12%",
         "ss64-lease": "64K, lease", "ss64-block": "64K, block", "ss4": "4K",
         "markcompact": "MarkCompact", "immix": "Immix"}


def slope(d):
    xs = sorted(d)
    ys = [d[x] for x in xs]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main(d):
    rows, rss = {}, {}
    for f in glob.glob(os.path.join(d, "*", "minheap.csv")):
        for r in csv.DictReader(open(f)):
            cfg, rd = r["label"].rsplit("-r", 1)
            if r["status"] == "ok":
                rows.setdefault((cfg, int(rd)), {})[int(r["threads"])] = float(r["minheap_mib"])
                if r["threads"] == "48" and r.get("peak_rss_kib"):
                    rss[(cfg, int(rd))] = int(r["peak_rss_kib"]) / 1024 - START_UP_RSS_MIB
    full = lambda k: k in rows and set(rows[k]) == {1, 24, 48}
    print("| configuration | round | 1 / 24 / 48 threads (MiB) | slope | ÷ 4K's slope | ÷ MarkCompact's slope | 48 threads ÷ MarkCompact's "
          "| peak RSS above start-up, 48 threads (MiB) | ÷ MarkCompact's |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for cfg in NAMES:
        for rd in sorted(r for c, r in rows if c == cfg):
            m = rows[(cfg, rd)]
            mins = " / ".join(f"{m[t]:g}" if t in m else "–" for t in (1, 24, 48))
            p = rss.get((cfg, rd))
            pmc = rss.get(("markcompact", rd))
            prss = (f"{p:.0f} | {p / pmc:.2f}" if p is not None and pmc else f"{p:.0f} |" if p is not None else " |")
            if not full((cfg, rd)):
                print(f"| {NAMES[cfg]} | {rd} | {mins} | | | | | {prss} |")
                continue
            s = slope(m)
            r4 = f"{s / slope(rows[('ss4', rd)]):.2f}" if full(("ss4", rd)) else ""
            mc = rows.get(("markcompact", rd), {})
            rmc = f"{s / slope(mc):.2f}" if full(("markcompact", rd)) else ""
            r48 = f"{m[48] / mc[48]:.2f}" if 48 in mc else ""
            print(f"| {NAMES[cfg]} | {rd} | {mins} | {s:.3f} | {r4} | {rmc} | {r48} | {prss} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
