#!/usr/bin/env python3
"""The figures size-classes/command.txt quotes about the stand-in's requests, from the histogram
of ../gap-24/sizes-t24-64m.txt (`SSEXP_SIZES <bytes>:<count> ...`): the share of requests of
16-32 B and of at most 64 B, the bytes mimalloc's bins round (in all and for 1-8 KiB), and what
coarse.diff and fine.diff change (bytes in MB of 10^6).
usage: shares.py ../gap-24/sizes-t24-64m.txt"""
import sys

h = {int(a): int(b) for a, b in (x.split(":") for x in open(sys.argv[1]).read().split()[1:])}
small = {s: n for s, n in h.items() if s <= 8192}


def mi_words(w):
    """Cell words of mimalloc's bin for a request of w words (src/size_class.rs)."""
    if w <= 8:
        return max(w, 1)
    x = w - 1
    b = x.bit_length() - 1
    r = (x >> (b - 2)) & 3
    return (5 + r) << (b - 2)


def coarse_words(w):
    """coarse.diff: 2-4 words in the 4-word bin, 5-6 in the 6, 7-8 in the 8."""
    if 2 <= w <= 4:
        return 4
    if 5 <= w <= 6:
        return 6
    if 7 <= w <= 8:
        return 8
    return mi_words(w)


def fine_words(w):
    """fine.diff: mimalloc's rule up to 128 words, then eight bins per power of two."""
    if w <= 128:
        return mi_words(w)
    x = w - 1
    b = x.bit_length() - 1
    return ((x >> (b - 3)) + 1) << (b - 3)


def cell_bytes(rule, s):
    return rule((s + 7) // 8) * 8


n_all = sum(small.values())
req = sum(s * n for s, n in small.items())
print(f"requests up to 8 KiB: {n_all / 1e6:.1f} million, {req / 1e6:.0f} MB")
for lo, hi in [(16, 32), (0, 64)]:
    n = sum(c for s, c in small.items() if lo <= s <= hi)
    print(f"  {lo}-{hi} B: {100 * n / n_all:.1f}% of the requests")
for name, rule in [("mimalloc's bins", mi_words), ("coarse.diff", coarse_words), ("fine.diff", fine_words)]:
    rnd = sum((cell_bytes(rule, s) - s) * n for s, n in small.items())
    big = sum((cell_bytes(rule, s) - s) * n for s, n in small.items() if s > 1024)
    print(f"{name}: rounding {rnd / 1e6:.0f} MB ({100 * rnd / req:.1f}% of the bytes), {big / 1e6:.0f} MB of it above 1 KiB")
mi = sum((cell_bytes(mi_words, s)) * n for s, n in small.items())
for name, rule in [("coarse.diff", coarse_words), ("fine.diff", fine_words)]:
    got = sum(cell_bytes(rule, s) * n for s, n in small.items())
    print(f"{name}: cells {100 * (got - mi) / req:+.1f}% of the requested bytes against mimalloc's bins")
