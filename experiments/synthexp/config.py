"""Paths, the study's YAML configuration, and how heaps and durations are written."""
import os
import sys
from pathlib import Path

import yaml
from studylib.heapsearch import parse_quorum

ROOT = Path(__file__).resolve().parents[2]
BIN_DIR = Path(os.environ.get("SHARDSWEEP_EXP_BIN_DIR", ROOT / ".build" / "bin"))


FIELDS = [
    "study", "config", "build", "variant", "plan", "env", "workload", "size", "iterations", "seed",
    "threads", "heap_mib", "heap_factor", "purpose", "attempt", "outcome", "exit_code", "wall_s",
    "total_ms", "mutator_ms", "gc_ms", "gc_count",
    "last_iteration_ms", "last_iteration_mutator_ms", "last_iteration_gc_ms", "last_iteration_gc_count",
    "peak_used_bytes", "peak_rss_kib", "gc_threads", "loadavg_1m", "binary_sha", "timestamp",
    "command", "detail", "space_peak_resident_kib", "vm_args",
]


def load_config(path):
    path = Path(path)
    if not path.is_file():  # a usage error: one line and exit 2, as the scripts' own checks
        print(f"exp.py: no such config file: {path}", file=sys.stderr)
        sys.exit(2)
    with open(path) as f:
        cfg = yaml.safe_load(f)
    cfg.setdefault("name", path.stem)
    cfg.setdefault("workload", "lusearch")
    cfg.setdefault("size", "default")
    cfg.setdefault("iterations", 1)
    cfg.setdefault("seed", 1)
    cfg.setdefault("env", {})
    # Extra synthvm options for every probe, before the workload (e.g. ["--compressed-layout"]).
    cfg["vm_args"] = [str(a) for a in cfg.get("vm_args") or []]
    s = cfg.setdefault("search", {})
    s.setdefault("lo_mib", 1)
    s.setdefault("hi_mib", 2048)
    s.setdefault("start_mib", 16)
    s.setdefault("resolution_mib", 1)
    s.setdefault("timeout_s", 120)
    s.setdefault("confirm", 0)
    # A heap passes when k of n runs pass ("k/n"; studylib.heapsearch.quorum_probe).
    s["quorum"] = check_quorum(s.get("quorum", "1/1"), path)
    for b in cfg["builds"]:
        b.setdefault("env", {})
        b.setdefault("plan", "MarkSweep")
        b.setdefault("label", b["name"])
    cfg["_path"] = str(path)
    return cfg


def check_quorum(text, where):
    """The search's quorum as (k, n), or one line naming the valid values and exit 2."""
    try:
        return parse_quorum(text)
    except ValueError as e:
        print(f"exp.py: {where}: search.quorum: {e}", file=sys.stderr)
        sys.exit(2)


def rel(p):
    try:
        return str(Path(p).resolve().relative_to(ROOT))
    except ValueError:
        return str(p)


def fmt_heap(h):
    """Heap in MiB as a stable string key (0.5 MiB steps print as 12.5)."""
    return f"{h:.3f}".rstrip("0").rstrip(".")


def heap_arg(h):
    return str(int(h)) if float(h).is_integer() else f"{int(round(h * 1024))}K"


def fmt_dur(s):
    s = int(s)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"
