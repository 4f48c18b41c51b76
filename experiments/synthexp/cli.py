"""shardsweep experiments on synthvm: minimum heap over mutator threads, and time over heap size.

    python3 experiments/exp.py minheap CONFIG.yaml [--out DIR] [--confirm N] [--quorum K/N] [--resolution MiB]
    python3 experiments/exp.py time    CONFIG.yaml [--out DIR]
    python3 experiments/exp.py report  CONFIG.yaml [--out DIR]      # tables + plots from the CSV only

Every probe / run is one CSV row (with the exact command that produced it) in
<out>/probes.csv (minheap) or <out>/runs.csv (time). A rerun reuses every row already in the CSV
whose key matches (same build, threads, heap, purpose, attempt, workload settings and binary
sha256), so an interrupted study resumes where it stopped. README.md and PNG plots are
regenerated from the CSV at the end of every run (and by `report`).

Minimum-heap rules (running-ng's): a probe *passes* when synthvm exits 0 and prints PASSED; it is
*too small* when it prints the out-of-memory message or hits the probe timeout; anything else is
an *error*: retried once, then the point is reported as ERROR and never counted as a result.
"""
import argparse
import sys
import time
from pathlib import Path

from .binaries import binary_of
from .config import ROOT, check_quorum, fmt_dur, load_config, rel
from .minheap import minheap_study
from .pristine import pristine_summary
from .report_minheap import minheap_report, summary_minheap
from .report_time import time_report
from .timestudy import time_study


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("study", choices=["minheap", "time", "report", "pristine-summary"])
    ap.add_argument("config")
    ap.add_argument("--out", help="results directory (default experiments/results/<config name>)")
    ap.add_argument("--confirm", type=int, help="override search.confirm (extra passes of each minimum)")
    ap.add_argument("--quorum", help="override search.quorum: k/n, a heap passes when k of n runs pass")
    ap.add_argument("--resolution", type=float, help="override search.resolution_mib")
    ap.add_argument("--command", help="the command line to record in README.md")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    cfg = load_config(a.config)
    if a.confirm is not None:
        cfg["search"]["confirm"] = a.confirm
    if a.quorum is not None:
        cfg["search"]["quorum"] = check_quorum(a.quorum, "--quorum")
    if a.resolution is not None:
        cfg["search"]["resolution_mib"] = a.resolution
    out = Path(a.out) if a.out else ROOT / "experiments" / "results" / cfg["name"]
    out.mkdir(parents=True, exist_ok=True)
    command = a.command or " ".join([rel(sys.argv[0])] + sys.argv[1:])
    log = (lambda *x: None) if a.quiet else (lambda s: print(s, flush=True))
    kind = cfg.get("study", "minheap")
    if a.study == "pristine-summary":
        sys.exit(pristine_summary(cfg, out, command))
    if a.study != "report" and a.study != kind:
        raise SystemExit(f"{a.config} is a '{kind}' config")
    cmd_file = out / "command.txt"
    if a.study == "report":
        command = a.command or (cmd_file.read_text().strip() if cmd_file.exists() else command)
    else:
        cmd_file.write_text(command + "\n")
    for b in cfg["builds"]:
        if a.study != "report" and not binary_of(b).exists():
            raise SystemExit(f"missing {rel(binary_of(b))}: run scripts/build-variants.sh {b['variant']}")
    if kind == "minheap":
        t0 = time.monotonic()
        results, runner = minheap_study(cfg, out, replay=(a.study == "report"), log=log)
        fits, rss = minheap_report(cfg, out, command, results, runner)
        print(summary_minheap(cfg, results, fits, rss))
        if a.study != "report":
            print(f"\n{runner.executed} probes run ({fmt_dur(runner.exec_seconds)} of runs), "
                  f"{runner.reused} reused (from this CSV or reuse_probes_from); {fmt_dur(time.monotonic() - t0)} total")
        print(f"results: {rel(out)}/README.md, probes.csv, minheap.png")
        bad = [k for k, r in results.items() if r.status not in ("ok",)]
        sys.exit(1 if bad else 0)
    else:
        refs, store, runner = time_study(cfg, out, replay=(a.study == "report"), log=log)
        time_report(cfg, out, command, refs, store)
        print((out / "README.md").read_text())
        print(f"results: {rel(out)}/README.md, runs.csv, time-t*.png")
