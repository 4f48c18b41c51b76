#!/usr/bin/env python3
"""What the mutators hold in reserve, by size class: the mean over a run's GCs (the first, during
the index load, left out) of `filling` (free cells of the blocks the mutators are filling) and
`unlisted` (cells on charged pages neither listed nor allocated), split at 1 KiB cells (below:
classes both builds serve; from 1 KiB: classes only the 64K build serves, which the 4K build sends
to the large-object space), with the largest classes, and the reported total and live bytes.
usage: summarize.py FILE.out ...   (plain or .gz)"""
import gzip
import re
import sys
from collections import Counter


def by_class(s):
    return {int(k): int(v) for k, v in (kv.split(":") for kv in s.split(",") if ":" in kv)}


def main(paths):
    print("| run | GCs | reported | live | filling | of it ≥ 1 KiB cells | unlisted | of it ≥ 1 KiB cells | free | largest filling classes |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", errors="replace") as fh:
            lines = [l for l in fh if l.startswith("shardsweep-footprint gc=")][1:]
        f = [dict(re.findall(r"(\w+)=(\S+)", l)) for l in lines]
        if not f:
            print(f"| {path} | 0 | | | | | | | | |")
            continue
        n, mib = len(f), 2**20
        mean = lambda k: sum(int(x[k]) for x in f) / n / mib
        fill, unl = Counter(), Counter()
        for x in f:
            fill.update(by_class(x.get("filling_by_class", "-")))
            unl.update(by_class(x.get("unlisted_by_class", "-")))
        big = lambda c: sum(v for k, v in c.items() if k >= 1024) / n / mib
        top = ", ".join(f"{k} B {v / n / mib:.2f}" for k, v in fill.most_common(4))
        reported = sum(int(x["reported_pages"]) for x in f) / n * 4096 / mib
        print(f"| {path.split('/')[-1]} | {n} | {reported:.2f} | {mean('live'):.2f} | {mean('filling'):.2f} | {big(fill):.2f} "
              f"| {mean('unlisted'):.2f} | {big(unl):.2f} | {mean('free'):.2f} | {top} |")


if __name__ == "__main__":
    main(sys.argv[1:])
