#!/usr/bin/env python3
"""Size-class rounding of a run's small requests, from the histogram the sizes-histogram.diff
toggle prints (`SSEXP_SIZES <bytes>:<count> ...`, cumulative, the last line of a run):
the bytes the cells take beyond the requests, in all and by size range, the largest
contributors, and the rounding other size-class rules would give (mimalloc's rule below a
threshold, 8 or 16 bins per doubling above it; or mimalloc's rule plus a few cell sizes).
usage: rounding.py sizes-t24-64m.txt"""
import bisect
import sys

h = {int(a): int(b) for a, b in (x.split(":") for x in open(sys.argv[1]).read().split()[1:])}
small = {s: n for s, n in h.items() if s <= 8192}


def cells_of(per_doubling_top, from_b):
    """Cell sizes in bytes: words 1..8 exact, then per power of two of words (2^b .. 2^(b+1)) 4
    bins below b = from_b and per_doubling_top from it, up to 8 KiB."""
    words = set(range(1, 9))
    for b in range(3, 10):
        n = 4 if b < from_b else per_doubling_top
        words.update((1 << b) + k * ((1 << b) // n) for k in range(1, n + 1))
    return sorted(w * 8 for w in words if w * 8 <= 8192)


def rounding(cells, sizes=small):
    req = sum(s * n for s, n in sizes.items())
    got = sum(cells[bisect.bisect_left(cells, s)] * n for s, n in sizes.items())
    return 100 * (got - req) / req if req else 0.0


current = cells_of(4, 99)
req = sum(s * n for s, n in small.items())
print(f"requests up to 8 KiB: {sum(small.values())}, {req / 2**20:.0f} MiB; rounding {rounding(current):.1f}% (36 bins)")
for lo, hi in [(0, 64), (65, 256), (257, 1024), (1025, 4096), (4097, 8192)]:
    part = {s: n for s, n in small.items() if lo <= s <= hi}
    b = sum(s * n for s, n in part.items())
    print(f"  {lo:5}-{hi:5} B: {100 * b / req:4.1f}% of the bytes, rounding {rounding(current, part):4.1f}%")
print("largest by bytes (size, requests, MiB, cell, rounding):")
for s, n in sorted(small.items(), key=lambda x: -x[0] * x[1])[:12]:
    c = current[bisect.bisect_left(current, s)]
    print(f"  {s:5} {n:9} {s * n / 2**20:5.0f} {c:5} {100 * (c - s) / s:3.0f}%")
print("other rules (bins, rounding):")
for top, fb in [(8, 3), (8, 4), (8, 6), (8, 7), (16, 8)]:
    c = cells_of(top, fb)
    print(f"  {top} per doubling from {8 << fb} B: {len(c)}, {rounding(c):.1f}%")
for extra in ([528, 1040, 2064, 4112], [528, 1040, 2064, 4112, 4608]):
    c = sorted(set(current + extra))
    print(f"  mimalloc's + {extra}: {len(c)}, {rounding(c):.1f}%")
