#!/usr/bin/env python3
"""Mean over a run's GCs (the first, during the index load, left out) of the free cells, the part
of them in abandoned blocks, the free cells by cell size (largest five), and the pages charged
between GCs by cell size (sum over the run, largest eight). usage: summarize.py t1.out.gz ..."""
import gzip, re, sys
from collections import Counter

for path in sys.argv[1:]:
    lines = [l for l in gzip.open(path, "rt") if l.startswith("shardsweep-footprint gc=")][1:]
    f = [dict(re.findall(r"(\w+)=(\S+)", l)) for l in lines]
    mean = lambda k: sum(int(x[k]) for x in f) / len(f) / 2**20
    free_by, charged = Counter(), Counter()
    for x in f:
        for k, v in (kv.split(":") for kv in x["free_by_class"].split(",") if ":" in kv):
            free_by[int(k)] += int(v) / len(f) / 2**20
        for k, v in (kv.split(":") for kv in x["charged_by_class"].split(",") if ":" in kv):
            charged[int(k)] += int(v)
    total = sum(charged.values())
    small = sum(v for k, v in charged.items() if k < 1024)
    print(f"{path}: {len(f)} GCs; MiB, mean over GCs: live {mean('live'):.2f}, free {mean('free'):.2f} "
          f"(in abandoned blocks {mean('free_abandoned'):.2f}), dead {mean('dead'):.2f}, filling {mean('filling'):.2f}")
    print("  free by cell size (MiB): " + ", ".join(f"{k} B {v:.2f}" for k, v in free_by.most_common(5)))
    print(f"  pages charged between GCs: {total}, {100 * small / max(total, 1):.1f}% for cells under 1 KiB; largest: "
          + ", ".join(f"{k} B {v}" for k, v in charged.most_common(8)))
