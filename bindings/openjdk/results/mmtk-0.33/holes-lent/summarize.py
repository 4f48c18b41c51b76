#!/usr/bin/env python3
"""Lending's reach: per run, the mean over its GCs (the first, during the index load, left out) of
the reported pages, live bytes, the small classes' holes of at least 1 KiB (`holes_small`), the
bytes lent (`lent`), the lent bytes used (`lent - lent_unused`) and the pages charged between GCs
(`charged_by_class`, summed), MiB; the peak reported MiB; whether the run passed (its digest line).
usage: summarize.py FILE.out ...   (plain or .gz)"""
import gzip
import re
import sys


def row(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", errors="replace") as fh:
        text = fh.read()
    lines = [l for l in text.splitlines() if l.startswith("shardsweep-footprint gc=")][1:]
    f = [dict(re.findall(r"(\w+)=(\S+)", l)) for l in lines]
    name = path.split("/")[-1]
    passed = "PASSED" in text
    if not f:
        return f"| {name} | 0 |" + " |" * 8 + f" {passed} |"
    n, mib = len(f), 2**20
    mean = lambda g: sum(g(x) for x in f) / n
    charged = lambda x: sum(int(v) for v in re.findall(r":(\d+)", x["charged_by_class"]))
    hole1k = lambda x: int(re.search(r"1024:(\d+)", x["holes_small"]).group(1))
    peak = max(int(x["reported_pages"]) for x in f) * 4096 / mib
    return (f"| {name} | {n} | {mean(lambda x: int(x['reported_pages'])) * 4096 / mib:.2f} | {peak:.2f} "
            f"| {mean(lambda x: int(x['live'])) / mib:.2f} | {mean(hole1k) / mib:.2f} "
            f"| {mean(lambda x: int(x.get('lent', 0))) / mib:.2f} "
            f"| {mean(lambda x: int(x.get('lent', 0)) - int(x.get('lent_unused', 0))) / mib:.2f} "
            f"| {mean(charged) * 4096 / mib:.2f} | {passed} |")


def main(paths):
    print("| run | GCs | reported | peak reported | live | small-class holes ≥ 1 KiB | lent | lent, used | charged between GCs | passed |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for path in sorted(paths):
        print(row(path))


if __name__ == "__main__":
    main(sys.argv[1:])
