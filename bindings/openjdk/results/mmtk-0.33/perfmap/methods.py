#!/usr/bin/env python3
"""Mutator samples by Java method (or native symbol), summed over the runs of two configurations,
side by side: which code takes the extra samples of A over B. Reads `perf script -F
comm,tid,ip,sym,dso` output (gzipped or not) of runs made with the perfmap agent
(`PERFMAP=1 ../gap-64/command.sh`). Rows: the TOP symbols by A - B, then by B - A, then the
totals by kind (compiled Java methods, generated stubs and the interpreter, native code).
usage: methods.py WORKLOAD TOP "A_FILE ..." "B_FILE ..." """
import gzip
import os
import sys
from collections import Counter

# The line format of `perf script -F comm,tid,ip,sym,dso`, as ../profile/breakdown.py parses it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "profile"))
from breakdown import LINE  # noqa: E402


def kind(sym, dso):
    if dso.rsplit("/", 1)[-1].startswith("perf-"):
        return "stub" if sym.startswith("stub:") else "java"
    if dso in ("[unknown]", ""):
        return "unmapped"
    return "native"


def load(paths, workload):
    c, k, runs = Counter(), Counter(), 0
    for p in paths:
        runs += 1
        opener = gzip.open if p.endswith(".gz") else open
        with opener(p, "rt", errors="replace") as f:
            for line in f:
                m = LINE.match(line)
                if not m or not m.group("comm").startswith(workload[:8]):
                    continue
                sym, dso = m.group("sym"), m.group("dso")
                c[sym] += 1
                k[kind(sym, dso)] += 1
    return c, k, runs


def main():
    workload, top, a_paths, b_paths = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
    a, ak, na = load(a_paths, workload)
    b, bk, nb = load(b_paths, workload)
    print(f"A: {na} runs, {sum(ak.values())} mutator samples; B: {nb} runs, {sum(bk.values())}; per run below")
    for name, keyf in (("A - B", lambda s: b[s] / nb - a[s] / na), ("B - A", lambda s: a[s] / na - b[s] / nb)):
        print(f"{name}: {'A':>8} {'B':>8} {'A-B':>8}  symbol")
        for s in sorted(set(a) | set(b), key=lambda s: (keyf(s), s))[:top]:  # ties by name: reproducible
            print(f"       {a[s] / na:8.1f} {b[s] / nb:8.1f} {a[s] / na - b[s] / nb:+8.1f}  {s[:110]}")
    print("by kind:", "  ".join(f"{x} {ak[x] / na:.0f}/{bk[x] / nb:.0f}" for x in ("java", "stub", "unmapped", "native")))


if __name__ == "__main__":
    main()
