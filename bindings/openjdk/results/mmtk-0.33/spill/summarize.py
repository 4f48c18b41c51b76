#!/usr/bin/env python3
"""The footprint report's small-class figures (this directory: what SHARDSWEEP_SPILL changes;
../reserve-blocksize: the block size): per run, the mean over its GCs (the first, during the index load,
left out) of the reported pages, `unlisted` (cells on charged pages neither listed nor allocated:
the spill pages charged ahead), the small classes' free cells (`free + filling`, cells ≤ 512 B),
MiB; the peak reported MiB; the pages charged for cells ≤ 512 B up to the first GC and over the
whole run; whether the run passed.
usage: summarize.py FILE.out ...   (plain or .gz)"""
import gzip
import re
import sys


def by_class(x, key, hi=512):
    return sum(int(b) for a, b in re.findall(r"(\d+):(\d+)", x[key]) if int(a) <= hi)


def row(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", errors="replace") as fh:
        text = fh.read()
    allf = [dict(re.findall(r"(\w+)=(\S+)", l)) for l in text.splitlines() if l.startswith("shardsweep-footprint gc=")]
    f, name, passed = allf[1:], path.split("/")[-1], "PASSED" in text
    if not f:
        return f"| {name} | 0 |" + " |" * 7 + f" {passed} |"
    n, mib = len(f), 2**20
    mean = lambda g: sum(g(x) for x in f) / n
    peak = max(int(x["reported_pages"]) for x in f) * 4096 / mib
    return (f"| {name} | {n} | {mean(lambda x: int(x['reported_pages'])) * 4096 / mib:.2f} | {peak:.2f} "
            f"| {mean(lambda x: int(x['unlisted'])) / mib:.2f} "
            f"| {mean(lambda x: by_class(x, 'free_by_class') + by_class(x, 'filling_by_class')) / mib:.2f} "
            f"| {by_class(allf[0], 'charged_by_class')} | {sum(by_class(x, 'charged_by_class') for x in allf)} | {passed} |")


def main(paths):
    print("| run | GCs | reported | peak reported | unlisted | small free + filling | small pages charged by the first GC | over the run | passed |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for path in sorted(paths):
        print(row(path))


if __name__ == "__main__":
    main(sys.argv[1:])
