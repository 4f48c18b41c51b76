#!/usr/bin/env python3
"""What the mutators hold at each GC (this directory: SHARDSWEEP_ADOPT=block against lease): per
run, the mean over its GCs (the first, during the index load, left out) of the reported pages, the
free cells in blocks the mutators hold plus the untouched cells of the blocks they fill plus the
cells on their leases (`free - free_abandoned + filling + leased`), the free cells of abandoned
blocks (`free_abandoned`, any mutator may take them), and `leased` alone, MiB; the most the mutators held at GCs 2 and 3 (right after the threads start: the bursts in
which they adopt); the peak reported MiB; the pages the slow paths charged over the run (every
class); GCs; whether the run passed.
usage: summarize.py FILE.out ...   (plain or .gz)"""
import gzip
import re
import sys


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
    num = lambda x, k: int(x.get(k, 0))
    held = lambda x: num(x, "free") - num(x, "free_abandoned") + num(x, "filling") + num(x, "leased")
    charged = sum(int(b) for x in allf for _, b in re.findall(r"(\d+):(\d+)", x["charged_by_class"]))
    peak = max(num(x, "reported_pages") for x in f) * 4096 / mib
    return (f"| {name} | {n} | {mean(lambda x: num(x, 'reported_pages')) * 4096 / mib:.2f} | {peak:.2f} "
            f"| {mean(held) / mib:.2f} | {mean(lambda x: num(x, 'free_abandoned')) / mib:.2f} "
            f"| {mean(lambda x: num(x, 'leased')) / mib:.2f} | {max(held(x) for x in allf[1:3]) / mib:.2f} "
            f"| {charged} | {passed} |")


def main(paths):
    print("| run | GCs | reported | peak reported | held by mutators | free in abandoned blocks | leased | held at GCs 2–3 | pages charged over the run | passed |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for path in sorted(paths):
        print(row(path))


if __name__ == "__main__":
    main(sys.argv[1:])
