"""The time study: time over heap size, the heap a factor of a reference build's minimum heap."""
import csv
import time

from .binaries import binary_sha
from .config import ROOT, fmt_dur, fmt_heap, rel
from .minheap import find_minheap
from .runner import Missing, Runner, Store


def reference_minheaps(cfg, out, log, replay=False):
    """The reference build's (MarkCompact's) minimum heap per thread count: from a minheap
    study's summary (`minheap.csv`, listed in reference.minheap_csv) if it has the point with the
    same workload settings, else measured now into this study's probes.csv (same search rules)."""
    ref = cfg["reference"]
    ref_build = dict(ref["build"])
    ref_build.setdefault("env", {})
    ref_build.setdefault("plan", "MarkCompact")
    ref_build.setdefault("label", ref_build["name"])
    mcfg = dict(cfg)
    mcfg["iterations"] = ref.get("minheap_iterations", 1)
    found = {}
    for src in ref.get("minheap_csv", []):
        p = ROOT / src
        if not p.exists():
            continue
        with open(p, newline="") as f:
            for r in csv.DictReader(f):
                if (r["build"] == ref_build["name"] and r["status"] == "ok"
                        and r["workload"] == cfg["workload"] and r["size"] == cfg["size"]
                        and r["seed"] == str(cfg["seed"]) and r["binary_sha"] == binary_sha(ref_build)):
                    t = int(r["threads"])
                    if t in cfg["threads"] and t not in found:
                        found[t] = (float(r["minheap_mib"]), rel(p))
    runner = Runner(mcfg, Store(out / "probes.csv"), "minheap", replay=replay)
    for t in cfg["threads"]:
        if t in found:
            continue
        if not replay:
            log(f"time: measuring the reference minimum heap ({ref_build['name']}, t={t})")
        try:
            r = find_minheap(runner, ref_build, t, mcfg["search"]["start_mib"], mcfg["search"],
                             int(mcfg["search"]["confirm"]))
        except Missing:
            continue
        if r.status != "ok":
            raise SystemExit(f"cannot find the reference minimum heap at t={t}: {r.status} {r.detail}")
        found[t] = (r.minheap, rel(out / "probes.csv"))
    return found


def time_study(cfg, out, replay=False, log=print):
    ref_file = out / "reference.tsv"
    if replay and ref_file.exists():
        refs = {}
        for line in ref_file.read_text().splitlines()[1:]:
            t, m, src = line.split("\t")
            refs[int(t)] = (float(m), src)
    else:
        refs = reference_minheaps(cfg, out, log, replay=replay)
        if not replay:
            ref_file.write_text("threads\tminheap_mib\tsource\n" + "".join(
                f"{t}\t{fmt_heap(m)}\t{src}\n" for t, (m, src) in sorted(refs.items())))
    store = Store(out / "runs.csv")
    builds, factors, inv = cfg["builds"], cfg["factors"], int(cfg["invocations"])
    plan = [(i, t, fac, b) for i in range(inv) for t in cfg["threads"] for fac in factors for b in builds]
    t_start = time.monotonic()
    state = {"i": 0, "new": 0}

    def progress(row):
        state["new"] += 1
        el = time.monotonic() - t_start
        eta = el / state["new"] * (len(plan) - state["i"] - 1)
        log(f"  [{state['i'] + 1}/{len(plan)} runs, {fmt_dur(el)}, ETA ~{fmt_dur(eta)}] inv {row['attempt']} "
            f"{row['build']} t={row['threads']} {row['heap_factor']}x={row['heap_mib']} MiB: {row['outcome']} "
            f"{row.get('last_iteration_ms', '')} ms, {row.get('last_iteration_gc_count', '')} GCs")

    runner = Runner(cfg, store, "time", replay=replay, progress=None if replay else progress)
    timeout = cfg.get("timeout_s", 300)
    for state["i"], (i, t, fac, b) in enumerate(plan):
        if t not in refs:
            continue
        heap = round(refs[t][0] * float(fac) * 1024) / 1024
        try:
            runner.run(b, t, heap, "time", i, factor=fac, timeout=timeout)
        except Missing:
            pass
    return refs, store, runner
