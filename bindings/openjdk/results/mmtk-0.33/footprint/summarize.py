#!/usr/bin/env python3
"""Tables of the footprint runs (`command.sh`): per build and thread count, the split of the
space's reported pages at the GC with the most of them (the peak line) and the mean over every
GC, in MiB. Usage: summarize.py [DIR]   (DIR: where command.sh wrote LABEL-tN.out)."""
import re
import statistics
import sys
from pathlib import Path

PARTS = ("live", "rounding", "dead", "free", "filling", "unlisted", "header", "tail", "idle")
D = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
MIB = 1 << 20


def fields(line):
    return {k: v for k, v in re.findall(r"(\w+)=(\S+)", line)}


def mib_of(f):
    out = {p: int(f[p]) / MIB for p in PARTS}
    out["kept"] = int(f["kept_pages"]) * 4096 / MIB
    out["meta"] = int(f["meta_pages"]) * 4096 / MIB
    out["reported"] = int(f["reported_pages"]) * 4096 / MIB
    return out


cols = ("reported",) + PARTS + ("kept", "meta")
print("| build | threads | heap | GCs | at | " + " | ".join(cols) + " |")
print("|---|---:|---:|---:|---|" + "---:|" * len(cols))
for out in sorted(D.glob("*-t*.out"), key=lambda p: (p.name.split("-t")[0], int(p.stem.split("-t")[1]))):
    label, t = out.stem.rsplit("-t", 1)
    text = out.read_text(errors="replace")
    gcs = [fields(l) for l in text.splitlines() if l.startswith("shardsweep-footprint gc=")]
    peak = [fields(l) for l in text.splitlines() if l.startswith("shardsweep-footprint peak ")]
    status = "PASSED" if "PASSED" in text else ("OOM" if "OutOfMemoryError" in text else "?")
    heap = re.search(r"heap=(\S+)", (D / "runs.txt").read_text()) if (D / "runs.txt").exists() else None
    if not gcs:
        continue
    rows = [("peak", mib_of(peak[0]) if peak else None),
            ("mean", {c: statistics.mean(mib_of(g)[c] for g in gcs) for c in cols})]
    for at, m in rows:
        if m is None:
            continue
        print(f"| {label} ({status}) | {t} | | {len(gcs)} | {at} | " + " | ".join(f"{m[c]:.2f}" for c in cols) + " |")
