#!/usr/bin/env python3
"""Summarizes the large-object space at each GC (command.sh's *.out.gz): per run, the means over
its GCs of the space's reported pages, the large-object space's pages before the sweeps
(`los_pages`) and after them (its survivors: pages, bytes, objects, the rounding of objects to
pages), the survivors by size; then, per source and build, the per-thread slope of each mean
from 1 to 48 threads (MiB/thread), and of the space's parts (KiB/thread).

    summarize.py *.out.gz > summary.md
"""
import gzip
import re
import sys
from collections import defaultdict

MIB = 1 << 20
# The footprint report's parts of the space (policy/space/footprint.rs), for the last table.
SPACE_PARTS = ("live", "dead", "free", "filling", "unlisted", "rounding", "header", "tail")
PAGE = 4096


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split() if "=" in kv)


def read(path):
    foot, los = [], {}
    with gzip.open(path, "rt", errors="replace") as f:
        for line in f:
            if line.startswith("shardsweep-footprint gc="):
                foot.append(fields(line))
            elif line.startswith("shardsweep-footprint-los gc="):
                g = fields(line)
                los[g["gc"]] = g
    return foot, los


def summarize(path):
    foot, los = read(path)
    rows = [(f, los[f["gc"]]) for f in foot if f["gc"] in los and f.get("los_pages", "-") != "-"]
    if not rows:
        return None
    n = len(rows)
    mean = lambda xs: sum(xs) / n
    bins = defaultdict(float)
    for _, g in rows:
        if g["by_size"] != "-":
            for kv in g["by_size"].split(","):
                low, _, b = kv.split(":")
                bins[int(low)] += int(b) / n
    parts = {k: mean([int(f[k]) for f, _ in rows]) / MIB for k in SPACE_PARTS}
    opages = mean([int(g["object_pages"]) for _, g in rows])
    bytes_ = mean([int(g["bytes"]) for _, g in rows])
    return {
        "gcs": n,
        "space": mean([int(f["reported_pages"]) for f, _ in rows]) * PAGE / MIB,
        "space_live": mean([int(f["live"]) for f, _ in rows]) / MIB,
        "los_before": mean([int(f["los_pages"]) for f, _ in rows]) * PAGE / MIB,
        "los_before_max": max(int(f["los_pages"]) for f, _ in rows) * PAGE / MIB,
        "los_after": mean([int(g["pages"]) for _, g in rows]) * PAGE / MIB,
        "los_bytes": bytes_ / MIB,
        "los_objects": mean([int(g["objects"]) for _, g in rows]),
        "rounding": 1 - bytes_ / (opages * PAGE) if opages else 0.0,
        "bins": dict(bins),
        "parts": parts,
    }


def main(paths):
    runs = {}
    for p in paths:
        m = re.search(r"([a-z0-9-]+)-ss(\d+)-t(\d+)\.out\.gz$", p)
        if not m:
            continue
        s = summarize(p)
        if s:
            runs[(m.group(1), int(m.group(2)), int(m.group(3)))] = s
    print("Means over each run's GCs, MiB (`space`: the shardsweep space's reported pages and its live")
    print("objects, after marking; `LOS before`: the large-object space's pages then, dead objects")
    print("included; `LOS after`: its pages after its sweep, and its survivors' bytes and count;")
    print("`rounding`: the share of the survivors' pages no object byte fills).\n")
    print("| source | build | threads | GCs | space | space live | LOS before (max) | LOS after | LOS live | objects | rounding |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (src, b, t), s in sorted(runs.items()):
        print(f"| {src} | {b}K | {t} | {s['gcs']} | {s['space']:.2f} | {s['space_live']:.2f} | "
              f"{s['los_before']:.2f} ({s['los_before_max']:.2f}) | {s['los_after']:.2f} | {s['los_bytes']:.2f} | "
              f"{s['los_objects']:.0f} | {s['rounding']:.2f} |")
    print("\nThe survivors by size (mean KiB per GC; bin = lower bound of the object size):\n")
    lows = sorted({low for s in runs.values() for low in s["bins"]})
    print("| source | build | threads | " + " | ".join(f"≥{l}" for l in lows) + " |")
    print("|---|---|---:|" + "---:|" * len(lows))
    for (src, b, t), s in sorted(runs.items()):
        print(f"| {src} | {b}K | {t} | " + " | ".join(f"{s['bins'].get(l, 0) / 1024:.0f}" for l in lows) + " |")
    print("\nPer-thread slopes, (48 threads − 1 thread) / 47, MiB/thread:\n")
    print("| source | build | space | space live | LOS before | LOS after | LOS live |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for src, b in sorted({(k[0], k[1]) for k in runs}):
        a, z = runs.get((src, b, 1)), runs.get((src, b, 48))
        if a and z:
            sl = lambda k: (z[k] - a[k]) / 47
            print(f"| {src} | {b}K | {sl('space'):.3f} | {sl('space_live'):.3f} | {sl('los_before'):.3f} | "
                  f"{sl('los_after'):.3f} | {sl('los_bytes'):.3f} |")
    print("\nThe space's parts (the footprint report's split), the same slopes in KiB/thread:\n")
    print("| source | build | " + " | ".join(SPACE_PARTS) + " |")
    print("|---|---|" + "---:|" * len(SPACE_PARTS))
    for src, b in sorted({(k[0], k[1]) for k in runs}):
        a, z = runs.get((src, b, 1)), runs.get((src, b, 48))
        if a and z:
            print(f"| {src} | {b}K | " + " | ".join(f"{(z['parts'][k] - a['parts'][k]) / 47 * 1024:.0f}"
                                                   for k in SPACE_PARTS) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
