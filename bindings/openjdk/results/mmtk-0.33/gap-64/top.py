#!/usr/bin/env python3
"""The top symbols of one kind of thread, from `perf script -F comm,tid,ip,sym,dso` of one run:
the threads whose `comm` starts with PREFIX, their samples per symbol (dso where unknown), the N
largest with their share of those threads' samples.
usage: top.py PERF_SCRIPT_OUTPUT PREFIX N"""
import re
import sys
from collections import Counter

LINE = re.compile(r"^\s*(?P<comm>.+?)\s+(?P<tid>\d+)\s+(?P<ip>[0-9a-f]+)\s+(?P<sym>.*?)\s+\((?P<dso>[^()]*)\)\s*$")


def main():
    path, prefix, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    c = Counter()
    for line in open(path, errors="replace"):
        m = LINE.match(line)
        if m and m.group("comm").startswith(prefix):
            sym = m.group("sym")
            if sym in ("", "[unknown]"):
                sym = "[" + m.group("dso").rsplit("/", 1)[-1] + "]"
            # Rust symbols: drop the hash suffix and generic arguments, keep the path.
            sym = re.sub(r"::h[0-9a-f]{16}$", "", sym)
            sym = re.sub(r"<[^<>]*>", "<>", sym)
            c[sym[:110]] += 1
    total = sum(c.values()) or 1
    print(f"{prefix}: {total} samples")
    for sym, k in c.most_common(n):
        print(f"  {100 * k / total:5.1f}%  {k:6d}  {sym}")


if __name__ == "__main__":
    main()
