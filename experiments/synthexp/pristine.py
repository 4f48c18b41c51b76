"""The verdict of the stock-copy vs pristine-crate check (scripts/minheap-study.sh pristine)."""
import csv

from .binaries import binaries_section
from .reporting import med
from .runner import Store


def pristine_summary(cfg, out, command):
    """Verdict of the stock-copy vs pristine-crate check: same minimum heap (within the search
    resolution) and same median GC count (within 10 % or 1 GC) at every point."""
    res = float(cfg["search"]["resolution_mib"])
    mh = {}
    with open(out / "minheap.csv", newline="") as f:
        for r in csv.DictReader(f):
            mh[(r["build"], int(r["threads"]))] = r
    gc_dir = out.parent / "pristine-check-gc"  # beside this study's results
    runs = Store(gc_dir / "runs.csv").rows if (gc_dir / "runs.csv").exists() else []
    gc = {}
    for r in runs:
        if r["outcome"] == "pass":
            gc.setdefault((r["build"], int(r["threads"]), r["heap_factor"], r["heap_mib"]), []).append(
                (float(r["last_iteration_gc_count"]), float(r["last_iteration_ms"])))
    L = ["# Overlay copy without the feature vs pristine mmtk 0.33.0\n",
         f"**Command:** `{command}`\n",
         "`stock` = synthvm built against `.build/mmtk-0.33.0-shardsweep` (our overlay copy) without "
         "`--features mmtk/shardsweep`; `pristine` = synthvm built against the unmodified crate in cargo's "
         "registry (`--config 'patch.crates-io.mmtk.path=\"$CARGO_HOME/registry/src/index.crates.io-*/mmtk-0.33.0\"'`). "
         f"Both MarkSweep, lusearch `--size {cfg['size']}`, `MMTK_THREADS=2`. Minimum heaps: `README.md` / "
         "`probes.csv` here; GC counts: `../pristine-check-gc/` (fixed heaps, 3 invocations).\n",
         "| threads | minheap stock | minheap pristine | same (±resolution)? |", "|---:|---:|---:|---|"]
    ok = True
    for t in cfg["threads"]:
        a, b = mh.get(("stock-ms", t)), mh.get(("pristine-ms", t))
        if not a or not b or a["status"] != "ok" or b["status"] != "ok":
            L.append(f"| {t} | {a and a['minheap_mib']} | {b and b['minheap_mib']} | not measured |"); ok = False
            continue
        same = abs(float(a["minheap_mib"]) - float(b["minheap_mib"])) <= res + 1e-9
        ok &= same
        L.append(f"| {t} | {a['minheap_mib']} | {b['minheap_mib']} | {'yes' if same else 'NO'} |")
    L += ["", "| threads | heap (MiB) | GC count stock (median, all) | GC count pristine (median, all) | "
          "time stock / pristine (median ms) | same GC count (±10 % or ±1)? |", "|---:|---:|---:|---:|---:|---|"]
    keys = sorted({(t, f, h) for (bn, t, f, h) in gc}, key=lambda k: (k[0], float(k[1])))
    if not keys:
        ok = False
        L.append("| — | — | — | — | — | not measured |")
    for t, f, h in keys:
        a, b = gc.get(("stock-ms", t, f, h)), gc.get(("pristine-ms", t, f, h))
        if not a or not b:
            L.append(f"| {t} | {h} | {a} | {b} | | incomplete |"); ok = False
            continue
        ga, gb = med([x[0] for x in a]), med([x[0] for x in b])
        same = abs(ga - gb) <= max(1, 0.1 * max(ga, gb))
        ok &= same
        L.append(f"| {t} | {h} ({f}×) | {ga:.0f} ({', '.join(f'{x[0]:.0f}' for x in a)}) | {gb:.0f} "
                 f"({', '.join(f'{x[0]:.0f}' for x in b)}) | {med([x[1] for x in a]):.0f} / "
                 f"{med([x[1] for x in b]):.0f} | {'yes' if same else 'NO'} |")
    L.append(f"\n**Verdict:** {'the stock copy behaves as pristine mmtk 0.33.0 (same minimum heaps and GC counts)' if ok else 'DIFFERENCE or incomplete data: see the tables'}.\n")
    L.append(binaries_section({"builds": []}, Store(out / "probes.csv").rows + runs))
    (out / "VERDICT.md").write_text("\n".join(L) + "\n")
    print("\n".join(L))
    return 0 if ok else 1
