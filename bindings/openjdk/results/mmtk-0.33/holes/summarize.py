#!/usr/bin/env python3
"""The small classes' free memory by hole size: the mean over a run's GCs (the first, during the
index load, left out) of `holes_small` (bytes of free cells of classes under 1 KiB that the sweep
leaves on kept pages, in holes of at least 512 B, 1, 2, 4 KiB, and in all holes), beside the
reported total, live bytes and the free cells (`free + filling`), MiB.
usage: summarize.py FILE.out ...   (plain or .gz)"""
import gzip
import re
import sys


def main(paths):
    print("| run | GCs | reported | live | free + filling | small-class holes, all | ≥ 512 B | ≥ 1 KiB | ≥ 2 KiB | ≥ 4 KiB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", errors="replace") as fh:
            lines = [l for l in fh if l.startswith("shardsweep-footprint gc=")][1:]
        f = [dict(re.findall(r"(\w+)=(\S+)", l)) for l in lines]
        if not f:
            print(f"| {path} | 0 |" + " |" * 8)
            continue
        n, mib = len(f), 2**20
        mean = lambda k: sum(int(x[k]) for x in f) / n / mib
        holes = [[int(v) for v in re.findall(r":(\d+)", x["holes_small"])] for x in f]
        h = [sum(col) / n / mib for col in zip(*holes)]  # 512, 1024, 2048, 4096, all
        reported = sum(int(x["reported_pages"]) for x in f) / n * 4096 / mib
        print(f"| {path.split('/')[-1]} | {n} | {reported:.2f} | {mean('live'):.2f} | {mean('free') + mean('filling'):.2f} "
              f"| {h[4]:.2f} | {h[0]:.2f} | {h[1]:.2f} | {h[2]:.2f} | {h[3]:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
