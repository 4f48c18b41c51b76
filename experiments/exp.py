#!/usr/bin/env python3
"""shardsweep experiments on synthvm: minimum heap over mutator threads, and time over heap size.

    python3 experiments/exp.py minheap CONFIG.yaml [--out DIR] [--confirm N] [--resolution MiB]
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
import csv
import datetime as dt
import json
import math
import os
import platform
import re
import shlex
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
BIN_DIR = Path(os.environ.get("SHARDSWEEP_EXP_BIN_DIR", ROOT / ".build" / "bin"))

FIELDS = [
    "study", "config", "build", "variant", "plan", "env", "workload", "size", "iterations", "seed",
    "threads", "heap_mib", "heap_factor", "purpose", "attempt", "outcome", "exit_code", "wall_s",
    "total_ms", "mutator_ms", "gc_ms", "gc_count",
    "last_iteration_ms", "last_iteration_mutator_ms", "last_iteration_gc_ms", "last_iteration_gc_count",
    "peak_used_bytes", "peak_rss_kib", "gc_threads", "loadavg_1m", "binary_sha", "timestamp",
    "command", "detail", "space_peak_resident_kib",
]
# The space's own figure, printed at exit under SHARDSWEEP_REPORT_PEAK=1 (policy/report.rs).
PEAK_RESIDENT = re.compile(r"shardsweep: peak resident pages \d+ \((\d+) KiB\)")


# --------------------------------------------------------------------------------------------
# configuration

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
    s = cfg.setdefault("search", {})
    s.setdefault("lo_mib", 1)
    s.setdefault("hi_mib", 2048)
    s.setdefault("start_mib", 16)
    s.setdefault("resolution_mib", 1)
    s.setdefault("timeout_s", 120)
    s.setdefault("confirm", 0)
    for b in cfg["builds"]:
        b.setdefault("env", {})
        b.setdefault("plan", "MarkSweep")
        b.setdefault("label", b["name"])
    cfg["_path"] = str(path)
    return cfg


def rel(p):
    try:
        return str(Path(p).resolve().relative_to(ROOT))
    except ValueError:
        return str(p)


def binary_of(build):
    return BIN_DIR / f"synthvm-{build['variant']}"


_snap = {}


def snapshot_of(build):
    """The binary a study runs: a copy named by its sha256 (.build/bin/by-sha/), taken at first
    use, so a rebuild of .build/bin/synthvm-<variant> during a long study changes nothing."""
    b = binary_of(build)
    if b not in _snap:
        import shutil
        d = BIN_DIR / "by-sha"
        d.mkdir(parents=True, exist_ok=True)
        dst = d / f"{b.name}-{binary_sha(build)}"
        if not dst.exists():
            shutil.copy2(b, str(dst) + ".tmp")
            os.replace(str(dst) + ".tmp", dst)
        _snap[b] = dst
    return _snap[b]


_sha_cache = {}


def binary_sha(build):
    b = binary_of(build)
    if b not in _sha_cache:
        info = b.with_name(b.name + ".info")
        sha = None
        if info.exists():
            for line in info.read_text().splitlines():
                if line.startswith("sha256="):
                    sha = line.split("=", 1)[1].strip()
        if sha is None:
            import hashlib
            sha = hashlib.sha256(b.read_bytes()).hexdigest()[:16]
        _sha_cache[b] = sha
    return _sha_cache[b]


def fmt_heap(h):
    """Heap in MiB as a stable string key (0.5 MiB steps print as 12.5)."""
    return f"{h:.3f}".rstrip("0").rstrip(".")


def heap_arg(h):
    return str(int(h)) if float(h).is_integer() else f"{int(round(h * 1024))}K"


# --------------------------------------------------------------------------------------------
# the CSV of probes: append-only, keyed for reuse

class Store:
    def __init__(self, path):
        self.path = Path(path)
        self.rows = []
        self.index = {}
        if self.path.exists():
            with open(self.path, newline="") as f:
                reader = csv.DictReader(f)
                for r in reader:
                    self._add({k: r.get(k) or "" for k in FIELDS})
                self.header = reader.fieldnames

    @staticmethod
    def key(r):
        return (r["build"], r["binary_sha"], r["workload"], r["size"], str(r["iterations"]),
                str(r["seed"]), str(r["threads"]), r["heap_mib"], str(r["heap_factor"]),
                r["purpose"], str(r["attempt"]), r["env"])

    def _add(self, r):
        self.rows.append(r)
        self.index[self.key(r)] = r

    def get(self, r):
        return self.index.get(self.key(r))

    def append(self, r):
        new = not self.path.exists()
        if not new and getattr(self, "header", FIELDS) != FIELDS:
            # A CSV from before a column was added: rewritten with the current columns (missing
            # ones empty) before the first append, so that new rows line up with the header.
            with open(self.path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=FIELDS)
                w.writeheader()
                w.writerows(self.rows)
            self.header = FIELDS
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS)
            if new:
                w.writeheader()
            w.writerow({k: r.get(k, "") for k in FIELDS})
        self._add({k: str(r.get(k, "")) for k in FIELDS})


class Missing(Exception):
    """A probe the CSV does not have, in replay-only mode."""


class Runner:
    """Runs (or, in replay mode, looks up) one synthvm invocation."""

    def __init__(self, cfg, store, study, replay=False, progress=None):
        self.cfg, self.store, self.study, self.replay = cfg, store, study, replay
        self.progress = progress
        self.executed = 0
        self.reused = 0
        self.exec_seconds = 0.0

    def extra_stores(self):
        if not hasattr(self, "_extra"):
            self._extra = [Store(ROOT / p) for p in self.cfg.get("reuse_probes_from", [])
                           if (ROOT / p).exists() and (ROOT / p).resolve() != self.store.path.resolve()]
        return self._extra

    def env_of(self, build):
        env = {str(k): str(v) for k, v in self.cfg["env"].items()}
        env.update({str(k): str(v) for k, v in build["env"].items()})
        return env

    def sha_of(self, build):
        """The binary's sha256; when replaying (report), the one this study's CSV used last for
        the build, so a later rebuild does not hide the results."""
        if self.replay:
            if not hasattr(self, "_replay_sha"):
                self._replay_sha = {}
                for r in self.store.rows:
                    self._replay_sha[r["build"]] = r["binary_sha"]
            if build["name"] in self._replay_sha:
                return self._replay_sha[build["name"]]
        return binary_sha(build)

    def base_row(self, build, threads, heap, purpose, attempt, factor=""):
        env = self.env_of(build)
        return {
            "study": self.study, "config": self.cfg["name"], "build": build["name"],
            "variant": build["variant"], "plan": build["plan"],
            "env": " ".join(f"{k}={v}" for k, v in sorted(env.items())),
            "workload": self.cfg["workload"], "size": self.cfg["size"],
            "iterations": str(self.cfg["iterations"]), "seed": str(self.cfg["seed"]),
            "threads": str(threads), "heap_mib": fmt_heap(heap), "heap_factor": str(factor),
            "purpose": purpose, "attempt": str(attempt), "binary_sha": self.sha_of(build),
        }

    def run(self, build, threads, heap, purpose="search", attempt=0, factor="", timeout=None):
        row = self.base_row(build, threads, heap, purpose, attempt, factor)
        old = self.store.get(row)
        if old is not None:
            self.reused += 1
            return old
        for other in self.extra_stores():
            old = other.get(row)
            if old is not None:
                # the same experiment (same binary, settings, heap) done by another study:
                # copy it into this study's CSV, saying where it came from
                copy = dict(old)
                copy.update({k: row[k] for k in ("study", "config")})
                copy["detail"] = (f"reused from {rel(other.path)}; " + old.get("detail", "")).rstrip("; ")
                self.store.append(copy)
                self.reused += 1
                return self.store.get(row)
        if self.replay:
            raise Missing(row)
        env = self.env_of(build)
        argv = [str(snapshot_of(build)), "--plan", build["plan"], "-t", str(threads),
                "--size", self.cfg["size"], "-n", str(self.cfg["iterations"]),
                "--seed", str(self.cfg["seed"]), "--heap", heap_arg(heap), self.cfg["workload"]]
        shown = [rel(argv[0])] + argv[1:]
        command = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(env.items()))
        command = (command + " " if command else "") + shlex.join(shown)
        timeout = timeout or self.cfg["search"]["timeout_s"]
        full_env = dict(os.environ)
        full_env.update(env)
        t0 = time.monotonic()
        p = subprocess.Popen(argv, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
        timed_out = False
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
        wall = time.monotonic() - t0
        rc = p.returncode
        text = (out or "") + "\n" + (err or "")
        stats = {}
        for line in (out or "").splitlines():
            if line.startswith('{"synthvm":'):
                try:
                    stats = json.loads(line)["synthvm"]
                except ValueError:
                    pass
        if timed_out:
            outcome, detail = "timeout", f"killed after {timeout} s"
        elif rc == 0 and "PASSED" in (out or ""):
            outcome, detail = "pass", ""
        elif "out of memory" in text.lower():
            outcome = "oom"
            detail = next((l for l in text.splitlines() if "out of memory" in l.lower()), "")[:300]
        else:
            outcome = "error"
            tail = [l for l in text.splitlines() if l.strip()][-3:]
            detail = " | ".join(tail)[:400]
        row.update({
            "outcome": outcome, "exit_code": "timeout" if timed_out else str(rc),
            "wall_s": f"{wall:.3f}", "loadavg_1m": f"{os.getloadavg()[0]:.2f}",
            "timestamp": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": command, "detail": detail,
        })
        m = PEAK_RESIDENT.search(err or "")
        if m:
            row["space_peak_resident_kib"] = m.group(1)
        for k in ("total_ms", "mutator_ms", "gc_ms", "gc_count", "last_iteration_ms",
                  "last_iteration_mutator_ms", "last_iteration_gc_ms", "last_iteration_gc_count",
                  "peak_used_bytes", "peak_rss_kib", "gc_threads"):
            if k in stats:
                row[k] = stats[k]
        self.store.append(row)
        self.executed += 1
        self.exec_seconds += wall
        if self.progress:
            self.progress(row)
        return self.store.get(row)


# --------------------------------------------------------------------------------------------
# minimum heap search

TOO_SMALL = ("oom", "timeout")


class SearchResult:
    def __init__(self, status, minheap=None, probes=0, detail=""):
        self.status, self.minheap, self.probes, self.detail = status, minheap, probes, detail

    def cell(self):
        if self.status == "ok":
            return fmt_heap(self.minheap)
        if self.status == "below":
            return f"≤{fmt_heap(self.minheap)}"
        if self.status == "above":
            return f">{fmt_heap(self.minheap)}"
        if self.status == "error":
            return "ERROR"
        return "—"


def find_minheap(runner, build, threads, guess, search, confirm):
    """Bracket around `guess`, bisect to `resolution`, then confirm. Deterministic given the
    probe outcomes, so replaying the CSV reproduces the same sequence of probes."""
    res = float(search["resolution_mib"])
    lo_bound, hi_bound = float(search["lo_mib"]), float(search["hi_mib"])
    n = [0]

    def snap(h):
        return min(hi_bound, max(lo_bound, round(h / res) * res))

    def probe(h, purpose="search"):
        """True = passes, False = too small; raises on a repeated error."""
        attempt = 0
        while True:
            r = runner.run(build, threads, h, purpose, attempt)
            n[0] += 1
            if r["outcome"] == "pass":
                return True
            if r["outcome"] in TOO_SMALL:
                return False
            if attempt >= 1:
                raise RuntimeError(f"heap {fmt_heap(h)} MiB: {r['outcome']} rc={r['exit_code']}: {r['detail']}")
            attempt += 1

    try:
        g = snap(guess)
        if probe(g):
            hi, lo = g, None
            step = max(res, snap(g * 0.125))
            while lo is None:
                h = snap(hi - step)
                if h >= hi:
                    return SearchResult("below", hi, n[0], "passes at the lowest heap searched")
                if probe(h):
                    hi = h
                    step *= 2
                else:
                    lo = h
        else:
            lo, hi = g, None
            step = max(res, snap(g * 0.125))
            while hi is None:
                h = snap(lo + step)
                if h <= lo:
                    return SearchResult("above", lo, n[0], "fails at the highest heap searched")
                if probe(h):
                    hi = h
                else:
                    lo = h
                    step *= 2
        while True:
            while hi - lo > res + 1e-9:
                mid = snap((lo + hi) / 2)
                if mid <= lo or mid >= hi:
                    mid = lo + res
                if probe(mid):
                    hi = mid
                else:
                    lo = mid
            # confirm the minimum `confirm` more times; on a failure move up one step and retry
            ok = True
            for c in range(confirm):
                r = runner.run(build, threads, hi, "confirm", c)
                n[0] += 1
                if r["outcome"] == "pass":
                    continue
                if r["outcome"] not in TOO_SMALL:
                    raise RuntimeError(f"confirm at {fmt_heap(hi)} MiB: {r['outcome']}: {r['detail']}")
                ok = False
                break
            if ok:
                return SearchResult("ok", hi, n[0])
            lo, hi = hi, None
            h = lo
            while hi is None:
                h = snap(h + res)
                if h <= lo:
                    return SearchResult("above", lo, n[0], "confirmation failed up to the highest heap")
                if probe(h):
                    hi = h
                else:
                    lo = h
    except RuntimeError as e:
        return SearchResult("error", None, n[0], str(e))


def next_guess(search, prev_points, threads):
    """Linear extrapolation from this build's previous thread counts (fewer probes)."""
    pts = [(t, r.minheap) for t, r in prev_points if r.status == "ok"]
    if not pts:
        return float(search["start_mib"])
    if len(pts) == 1:
        return pts[-1][1] * 1.05
    (t1, m1), (t2, m2) = pts[-2], pts[-1]
    slope = max(0.0, (m2 - m1) / (t2 - t1))
    return m2 + slope * (threads - t2)


def linfit(xs, ys):
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    slope = sxy / sxx
    icpt = my - slope * mx
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - (icpt + slope * x)) ** 2 for x, y in zip(xs, ys))
    r2 = 1 - ss_res / ss_tot if ss_tot > 0 else float("nan")
    return slope, icpt, r2


def minheap_study(cfg, out, replay=False, log=print):
    store = Store(out / "probes.csv")
    search = cfg["search"]
    confirm = int(search["confirm"])
    builds, threads = cfg["builds"], cfg["threads"]
    total_points = len(builds) * len(threads)
    t_start = time.monotonic()
    state = {"done": 0, "new_points": 0, "new_secs": 0.0}

    def progress(row):
        el = time.monotonic() - t_start
        remaining = total_points - state["done"]
        if state["new_points"]:
            eta = el / state["new_points"] * remaining
            eta_s = f"ETA ~{fmt_dur(eta)}"
        else:
            eta_s = "ETA: after the first point"
        log(f"  [{state['done']}/{total_points} points, {fmt_dur(el)}, {eta_s}] {row['build']} "
            f"t={row['threads']} heap={row['heap_mib']} MiB: {row['outcome']} ({float(row['wall_s']):.1f} s)")

    runner = Runner(cfg, store, "minheap", replay=replay, progress=None if replay else progress)
    results = {}
    for b in builds:
        prev = []
        for t in threads:
            before = runner.executed
            try:
                r = find_minheap(runner, b, t, next_guess(search, prev, t), search, confirm)
            except Missing:
                r = SearchResult("missing")
            results[(b["name"], t)] = r
            prev.append((t, r))
            state["done"] += 1
            if runner.executed > before:
                state["new_points"] += 1
            if not replay:
                extra = f" ({r.detail})" if r.detail else ""
                log(f"minheap {b['name']:>14} t={t:<3} -> {r.cell():>6} MiB  [{r.probes} probes, "
                    f"{runner.executed - before} new]{extra}")
    return results, runner


def fmt_dur(s):
    s = int(s)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


# --------------------------------------------------------------------------------------------
# time study

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


# --------------------------------------------------------------------------------------------
# reports

def git_rev():
    try:
        rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip()
        return rev or "unknown"
    except OSError:
        return "unknown"


def binaries_section(cfg, rows=None):
    """One line per binary (variant, sha256) the study's CSV used, from its archived .info."""
    pairs = sorted({(r["variant"], r["binary_sha"]) for r in rows or [] if r.get("binary_sha")})
    if not pairs:
        pairs = sorted({(b["variant"], binary_sha(b)) for b in cfg["builds"] if binary_of(b).exists()})
    lines = ["| variant | sha256 | settings |", "|---|---|---|"]
    for v, sha in pairs:
        info = BIN_DIR / "info-archive" / f"synthvm-{v}-{sha}.info"
        if not info.exists():
            cur = BIN_DIR / f"synthvm-{v}.info"
            info = cur if cur.exists() and f"sha256={sha}" in cur.read_text() else None
        if info:
            kv = dict(l.split("=", 1) for l in info.read_text().splitlines() if "=" in l)
            s = (f"features `{kv.get('features')}`, block {kv.get('block_kib')} KiB, "
                 f"mmtk from `{rel(kv.get('mmtk_source', ''))}`, git {kv.get('git_rev')} "
                 f"(+{kv.get('dirty_files_in_src_policy_synthvm')} uncommitted files in src/policy/synthvm), "
                 f"built {kv.get('built')}")
        else:
            s = "(no .info archived for this sha256)"
        lines.append(f"| `{v}` | `{sha}` | {s} |")
    return "\n".join(lines)


def machine_line():
    return (f"{platform.node() or 'host'}: {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}")


def minheap_report(cfg, out, command, results, runner=None):
    builds, threads = cfg["builds"], cfg["threads"]
    rows = Store(out / "probes.csv").rows
    fits = {}
    L = []
    L.append(f"# Minimum heap vs mutator threads — `{cfg['name']}`\n")
    L.append("Generated by `experiments/exp.py` from `probes.csv` (every probe, with its exact command).\n")
    L.append(f"**Command:** `{command}`\n")
    L.append(f"Config: `{rel(cfg['_path'])}` · workload `{cfg['workload']}` · size `{cfg['size']}` · "
             f"iterations {cfg['iterations']} · seed {cfg['seed']} · env `{cfg['env']}` · "
             f"search {fmt_heap(cfg['search']['lo_mib'])}–{fmt_heap(cfg['search']['hi_mib'])} MiB at "
             f"{fmt_heap(cfg['search']['resolution_mib'])} MiB resolution, probe timeout "
             f"{cfg['search']['timeout_s']} s, {cfg['search']['confirm']} confirmation(s) of each minimum.\n")
    L.append(f"Generated {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M UTC}, repo at {git_rev()}; "
             f"{machine_line()}; {len(rows)} probes in the CSV.\n")
    complete = all(results[(b['name'], t)].status == "ok" for b in builds for t in threads)
    if not complete:
        L.append("**Incomplete:** cells marked — were not measured (study interrupted or still running); "
                 "ERROR cells are probes that neither passed nor ran out of memory (see `detail` in the CSV).\n")
    L.append("## Minimum heap (MiB)\n")
    L.append("| Mutator threads | " + " | ".join(b["label"] for b in builds) + " |")
    L.append("|---:|" + "---:|" * len(builds))
    for t in threads:
        L.append(f"| {t} | " + " | ".join(results[(b['name'], t)].cell() for b in builds) + " |")
    L.append("\n## Linear regression (least squares over the thread counts measured)\n")
    L.append("| | " + " | ".join(b["label"] for b in builds) + " |")
    L.append("|---|" + "---:|" * len(builds))
    for b in builds:
        pts = [(t, results[(b['name'], t)].minheap) for t in threads if results[(b['name'], t)].status == "ok"]
        fits[b["name"]] = (linfit([p[0] for p in pts], [p[1] for p in pts]), pts)
    def fcell(name, i, fmt):
        f = fits[name][0]
        return fmt.format(f[i]) if f else "—"
    L.append("| Gradient/Slope (MiB/thread) | " + " | ".join(fcell(b["name"], 0, "{:.4f}") for b in builds) + " |")
    L.append("| y-intercept (MiB) | " + " | ".join(fcell(b["name"], 1, "{:.3f}") for b in builds) + " |")
    L.append("| R² | " + " | ".join(fcell(b["name"], 2, "{:.4f}") for b in builds) + " |")
    L.append("| points in fit | " + " | ".join(str(len(fits[b['name']][1])) for b in builds) + " |")
    sha = runner.sha_of if runner else binary_sha
    rss = rss_at_minimum(cfg, rows, results, sha)
    L.append("\n## Peak RSS at each build's own minimum heap (MiB)\n")
    L.append("The process's peak resident set (synthvm's `peak_rss_kib`, from `getrusage`) in the passing "
             "probe at the build's minimum heap; in brackets the space's own peak resident pages "
             "(`SHARDSWEEP_REPORT_PEAK=1`, shardsweep builds only). Everything that is not heap "
             "(binary, stacks, MMTk's metadata and side tables, the VM's own data) is in the RSS too.\n")
    L.append("| Mutator threads | " + " | ".join(b["label"] for b in builds) + " |")
    L.append("|---:|" + "---:|" * len(builds))
    for t in threads:
        cells = []
        for b in builds:
            v = rss.get((b["name"], t))
            if not v or v[0] is None:
                cells.append("—")
                continue
            c = f"{v[0] / 1024:.1f}"
            if v[1] is not None:
                c += f" ({v[1] / 1024:.1f})"
            cells.append(c)
        L.append(f"| {t} | " + " | ".join(cells) + " |")
    errs = [(k, r) for k, r in results.items() if r.status == "error"]
    if errs:
        L.append("\n## Errors (not counted as results)\n")
        for (bn, t), r in errs:
            L.append(f"* {bn} t={t}: {r.detail}")
    L.append("\n" + goals_minheap(cfg, results, fits, rss))
    L.append("\n## Binaries\n")
    L.append(binaries_section(cfg, rows))
    L.append("\n## Builds\n")
    L.append("| name | label | variant | plan | env |")
    L.append("|---|---|---|---|---|")
    for b in builds:
        L.append(f"| `{b['name']}` | {b['label']} | `{b['variant']}` | {b['plan']} | `{b['env'] or ''}` |")
    L.append("\n![minimum heap vs mutator threads](minheap.png)\n")
    L.append("![peak RSS at each build's own minimum heap](rss.png)\n")
    (out / "README.md").write_text("\n".join(L) + "\n")
    with open(out / "minheap.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["build", "label", "variant", "plan", "env", "workload", "size", "iterations", "seed",
                    "threads", "minheap_mib", "status", "probes", "binary_sha", "detail"])
        for b in builds:
            env = " ".join(f"{k}={v}" for k, v in sorted({**cfg["env"], **b["env"]}.items()))
            for t in threads:
                r = results[(b["name"], t)]
                w.writerow([b["name"], b["label"], b["variant"], b["plan"], env, cfg["workload"],
                            cfg["size"], cfg["iterations"], cfg["seed"], t,
                            fmt_heap(r.minheap) if r.minheap is not None else "", r.status, r.probes,
                            runner.sha_of(b) if runner else binary_sha(b), r.detail])
    plot_minheap(cfg, out, results, fits)
    plot_rss(cfg, out, rss)
    return fits, rss


def rss_at_minimum(cfg, rows, results, sha_of):
    """{(build, threads): (peak RSS KiB, space peak resident KiB or None)}: the median over the
    passing probes (search and confirmations) at the build's own minimum heap, current binary."""
    out = {}
    for b in cfg["builds"]:
        sha = sha_of(b)
        for t in cfg["threads"]:
            r = results.get((b["name"], t))
            if not r or r.status != "ok":
                continue
            hit = [x for x in rows if x["build"] == b["name"] and x["threads"] == str(t)
                   and x["binary_sha"] == sha and x["outcome"] == "pass"
                   and x["heap_mib"] and abs(float(x["heap_mib"]) - r.minheap) < 1e-6]
            rs = [float(x["peak_rss_kib"]) for x in hit if x.get("peak_rss_kib")]
            sp = [float(x["space_peak_resident_kib"]) for x in hit if x.get("space_peak_resident_kib")]
            out[(b["name"], t)] = (med(rs), med(sp))
    return out


def plot_rss(cfg, out, rss):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 5.5))
    drawn = False
    for b in cfg["builds"]:
        pts = [(t, rss[(b["name"], t)][0] / 1024) for t in cfg["threads"]
               if rss.get((b["name"], t)) and rss[(b["name"], t)][0] is not None]
        if pts:
            xs, ys = zip(*pts)
            ax.plot(xs, ys, marker="o", label=b["label"])
            drawn = True
    ax.set_xlabel("mutator threads")
    ax.set_ylabel("peak RSS at the build's own minimum heap (MiB)")
    ax.set_title(f"synthvm {cfg['workload']} ({cfg['size']}): peak RSS at the minimum heap")
    ax.set_xticks(cfg["threads"])
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    if drawn:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "rss.png", dpi=110)
    plt.close(fig)


def goals_minheap(cfg, results, fits, rss=None):
    g = cfg.get("goals", {})
    ss, stock, mc = g.get("shardsweep"), g.get("stock"), g.get("markcompact")
    ss4 = g.get("small_blocks")
    rss = rss or {}
    names = {b["name"] for b in cfg["builds"]}
    L = ["## Headline goals"]
    if not ss or ss not in names:
        return "\n".join(L + ["(no goals configured)"])

    def slope(n):
        return fits.get(n, (None,))[0][0] if n in fits and fits[n][0] else None
    s_ss = slope(ss)
    rows = []
    if stock in names and s_ss is not None and slope(stock) is not None:
        ok = s_ss <= slope(stock) / 8
        rows.append(f"| slope({ss}) ≤ 1/8 × slope({stock}) | {s_ss:.4f} vs {slope(stock) / 8:.4f} | {'met' if ok else 'NOT met'} |")
    if mc in names and s_ss is not None and slope(mc) is not None:
        ok = s_ss <= 1.1 * slope(mc)
        rows.append(f"| slope({ss}) ≤ 1.1 × slope({mc}) | {s_ss:.4f} vs {1.1 * slope(mc):.4f} | {'met' if ok else 'NOT met'} |")
    tmax = max(cfg["threads"])
    a, b = results.get((ss, tmax)), results.get((mc, tmax))
    if a and b and a.status == "ok" and b.status == "ok":
        ok = a.minheap <= 1.25 * b.minheap
        rows.append(f"| minheap({ss}, t={tmax}) ≤ 1.25 × minheap({mc}, t={tmax}) | {fmt_heap(a.minheap)} vs "
                    f"{1.25 * b.minheap:.2f} | {'met' if ok else 'NOT met'} |")
    def rss_of(n):
        v = rss.get((n, tmax))
        return v[0] if v and v[0] is not None else None
    r_ss = rss_of(ss)
    if r_ss is not None and ss4 in names and rss_of(ss4) is not None:
        ok = r_ss <= rss_of(ss4)
        rows.append(f"| peak RSS({ss}, t={tmax}) ≤ peak RSS({ss4}, t={tmax}), each at its own minimum | "
                    f"{r_ss / 1024:.1f} vs {rss_of(ss4) / 1024:.1f} MiB | {'met' if ok else 'NOT met'} |")
    if r_ss is not None and stock in names and rss_of(stock) is not None:
        ok = r_ss <= 0.85 * rss_of(stock)
        rows.append(f"| peak RSS({ss}, t={tmax}) ≤ 0.85 × peak RSS({stock}, t={tmax}), each at its own minimum | "
                    f"{r_ss / 1024:.1f} vs {0.85 * rss_of(stock) / 1024:.1f} MiB ({r_ss / rss_of(stock):.2f}×) | "
                    f"{'met' if ok else 'NOT met'} |")
    if not rows:
        return "\n".join(L + ["(not enough results to evaluate the goals)"])
    return "\n".join(L + ["", "| goal | value vs bound | |", "|---|---|---|"] + rows)


def plot_minheap(cfg, out, results, fits):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for b in cfg["builds"]:
        pts = fits[b["name"]][1]
        if not pts:
            continue
        xs, ys = zip(*pts)
        f = fits[b["name"]][0]
        lab = b["label"] + (f"  ({f[0]:.3f} MiB/thread)" if f else "")
        line, = ax.plot(xs, ys, marker="o", label=lab)
        if f:
            ax.plot([min(xs), max(xs)], [f[1] + f[0] * min(xs), f[1] + f[0] * max(xs)],
                    ls=":", color=line.get_color(), lw=1)
    ax.set_xlabel("mutator threads")
    ax.set_ylabel("minimum heap (MiB)")
    ax.set_title(f"synthvm {cfg['workload']} ({cfg['size']}): minimum heap vs mutator threads")
    ax.set_xticks(cfg["threads"])
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "minheap.png", dpi=110)
    plt.close(fig)


METRICS = [("last_iteration_ms", "total time (ms)"), ("last_iteration_mutator_ms", "mutator time (ms)"),
           ("last_iteration_gc_ms", "GC time (ms)"), ("last_iteration_gc_count", "GC count"),
           ("peak_rss_kib", "peak RSS of the process (KiB)"),
           ("space_peak_resident_kib", "peak resident pages of the space (KiB; shardsweep builds)")]


def time_table(cfg, store, refs):
    """{(build, t, factor): {metric: [values], 'outcomes': [...]}}"""
    agg = {}
    names = {b["name"] for b in cfg["builds"]}
    last_sha = {r["build"]: r["binary_sha"] for r in store.rows if r["build"] in names}
    for r in store.rows:
        if r["purpose"] != "time":
            continue
        if r["build"] not in last_sha or r["binary_sha"] != last_sha[r["build"]]:
            continue
        k = (r["build"], int(r["threads"]), r["heap_factor"])
        a = agg.setdefault(k, {"outcomes": []})
        a["outcomes"].append(r["outcome"])
        if r["outcome"] == "pass":
            for m, _ in METRICS:
                if r.get(m, "") != "":
                    a.setdefault(m, []).append(float(r[m]))
    return agg


def time_report(cfg, out, command, refs, store):
    agg = time_table(cfg, store, refs)
    builds, factors = cfg["builds"], [str(f) for f in cfg["factors"]]
    base = cfg.get("baseline", builds[0]["name"])
    L = [f"# Time vs heap size — `{cfg['name']}`\n",
         "Generated by `experiments/exp.py` from `runs.csv` (every run, with its exact command).\n",
         f"**Command:** `{command}`\n",
         f"Config: `{rel(cfg['_path'])}` · workload `{cfg['workload']}` · size `{cfg['size']}` · "
         f"{cfg['iterations']} iterations per invocation, the **last one timed** (synthvm's `last_iteration_*` "
         f"fields) · {cfg['invocations']} invocations per cell, interleaved (invocation-major order) · "
         f"env `{cfg['env']}` · run timeout {cfg.get('timeout_s', 300)} s.\n",
         f"Heap = factor × {cfg['reference']['build']['name']}'s minimum heap at the same thread count: "
         + ", ".join(f"t={t}: {fmt_heap(m)} MiB (from `{src}`)" for t, (m, src) in sorted(refs.items())) + ".\n",
         f"Cells: median [min–max] over passing invocations; OOM = the build does not run in that heap; "
         f"relative = median / median of `{base}` at the same heap.\n",
         f"Generated {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M UTC}, repo at {git_rev()}; {machine_line()}. "
         "The machine is shared (other jobs ran concurrently: see `loadavg_1m` per run in the CSV), so "
         "differences below ~5–10 % are noise.\n"]
    expected = len(builds) * len(factors) * len(cfg["threads"]) * int(cfg["invocations"])
    have = sum(len(a["outcomes"]) for a in agg.values())
    if have < expected:
        L.append(f"**Incomplete:** {have} of {expected} runs done.\n")
    for t in cfg["threads"]:
        if t not in refs:
            continue
        for m, title in METRICS:
            if not any(a.get(m) for (bn, tt, _), a in agg.items() if tt == t):
                continue  # not recorded by these runs (e.g. the space's peak before it was parsed)
            L.append(f"## {title}, {t} mutator threads\n")
            L.append("| heap factor (MiB) | " + " | ".join(b["label"] for b in builds) + " |")
            L.append("|---|" + "---:|" * len(builds))
            for f in factors:
                heap = round(refs[t][0] * float(f) * 1024) / 1024
                cells = []
                bm = med(agg.get((base, t, f), {}).get(m))
                for b in builds:
                    a = agg.get((b["name"], t, f))
                    if not a:
                        cells.append("—")
                        continue
                    v = a.get(m)
                    if not v:
                        outs = set(a["outcomes"])
                        cells.append("n/a" if outs == {"pass"} else "/".join(sorted(outs)).upper())
                        continue
                    mv = med(v)
                    fmt = "{:.0f}" if m.endswith("count") else "{:.0f}"
                    s = f"{fmt.format(mv)} [{fmt.format(min(v))}–{fmt.format(max(v))}]"
                    if bm and b["name"] != base:
                        s += f" ({mv / bm:.2f}×)" if bm > 0 else ""
                    nfail = len(a["outcomes"]) - len(v)
                    if nfail:
                        s += f" +{nfail} failed"
                    cells.append(s)
                L.append(f"| {f}× ({fmt_heap(heap)}) | " + " | ".join(cells) + " |")
            L.append("")
    L.append(goals_time(cfg, agg, refs))
    L.append("\n## Binaries\n")
    L.append(binaries_section(cfg, store.rows))
    L.append("\n## Builds\n")
    L.append("| name | label | variant | plan | env |")
    L.append("|---|---|---|---|---|")
    for b in builds:
        L.append(f"| `{b['name']}` | {b['label']} | `{b['variant']}` | {b['plan']} | `{b['env'] or ''}` |")
    for t in cfg["threads"]:
        L.append(f"\n![time vs heap factor, {t} threads](time-t{t}.png)")
    (out / "README.md").write_text("\n".join(L) + "\n")
    plot_time(cfg, out, agg, refs)


def med(v):
    return statistics.median(v) if v else None


def goals_time(cfg, agg, refs):
    g = cfg.get("goals", {})
    ss, stock, ss4 = g.get("shardsweep"), g.get("stock"), g.get("small_blocks")
    f = str(g.get("factor", 2))
    L = ["## Headline goals", "", "| goal | medians | |", "|---|---|---|"]
    for t in cfg["threads"]:
        def m(b, k):
            return med(agg.get((b, t, f), {}).get(k))
        a, b = m(ss, "last_iteration_ms"), m(stock, "last_iteration_ms")
        if a is not None and b is not None:
            L.append(f"| t={t}: total time({ss}) ≤ total time({stock}) at {f}× | {a:.0f} vs {b:.0f} ms | "
                     f"{'met' if a <= b else 'NOT met'} ({a / b:.2f}×) |")
        elif a is not None:
            L.append(f"| t={t}: total time({ss}) ≤ total time({stock}) at {f}× | {a:.0f} ms vs {stock} "
                     f"{'/'.join(sorted(set(agg.get((stock, t, f), {}).get('outcomes', ['not run'])))).upper()} | met (stock does not run) |")
        a, b = m(ss, "last_iteration_mutator_ms"), m(ss4, "last_iteration_mutator_ms")
        if a is not None and b is not None:
            L.append(f"| t={t}: mutator time({ss}) ≤ mutator time({ss4}) at {f}× | {a:.0f} vs {b:.0f} ms | "
                     f"{'met' if a <= b else 'NOT met'} ({a / b:.2f}×) |")
    return "\n".join(L)


def plot_time(cfg, out, agg, refs):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    base = cfg.get("baseline", cfg["builds"][0]["name"])
    factors = [str(f) for f in cfg["factors"]]
    for t in cfg["threads"]:
        if t not in refs:
            continue
        rows = (len(METRICS) + 1) // 2
        fig, axes = plt.subplots(rows, 2, figsize=(11, 4 * rows))
        for ax in axes.flat[len(METRICS):]:
            ax.set_visible(False)
        for ax, (m, title) in zip(axes.flat, METRICS):
            for b in cfg["builds"]:
                xs, ys, lo, hi = [], [], [], []
                for f in factors:
                    v = agg.get((b["name"], t, f), {}).get(m)
                    if v:
                        xs.append(float(f)); mv = med(v); ys.append(mv)
                        lo.append(mv - min(v)); hi.append(max(v) - mv)
                if xs:
                    ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=b["label"])
            ax.set_xscale("log")
            ax.minorticks_off()
            ax.set_xticks([float(f) for f in factors])
            ax.set_xticklabels([f"{f}×" for f in factors])
            ax.set_xlabel(f"heap (× {cfg['reference']['build']['name']} minimum heap = {fmt_heap(refs[t][0])} MiB)")
            ax.set_title(f"{title}, median [min–max]")
            ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
        axes.flat[0].legend(fontsize=7)
        fig.suptitle(f"synthvm {cfg['workload']} ({cfg['size']}), {t} mutator threads")
        fig.tight_layout()
        fig.savefig(out / f"time-t{t}.png", dpi=100)
        plt.close(fig)


# --------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("study", choices=["minheap", "time", "report", "pristine-summary"])
    ap.add_argument("config")
    ap.add_argument("--out", help="results directory (default experiments/results/<config name>)")
    ap.add_argument("--confirm", type=int, help="override search.confirm (extra passes of each minimum)")
    ap.add_argument("--resolution", type=float, help="override search.resolution_mib")
    ap.add_argument("--command", help="the command line to record in README.md")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    cfg = load_config(a.config)
    if a.confirm is not None:
        cfg["search"]["confirm"] = a.confirm
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


def summary_minheap(cfg, results, fits, rss=None):
    builds, threads = cfg["builds"], cfg["threads"]
    w = max(10, max(len(b["name"]) for b in builds))
    L = ["", "minimum heap (MiB) of synthvm " + f"{cfg['workload']} --size {cfg['size']}:",
         "threads " + " ".join(f"{b['name']:>{w}}" for b in builds)]
    for t in threads:
        L.append(f"{t:>7} " + " ".join(f"{results[(b['name'], t)].cell():>{w}}" for b in builds))
    for i, lab in enumerate(["slope", "intercept", "R^2"]):
        cells = []
        for b in builds:
            f = fits[b["name"]][0]
            cells.append(f"{f[i]:>{w}.4f}" if f else f"{'—':>{w}}")
        L.append(f"{lab:>7} " + " ".join(cells))
    if rss:
        L.append("peak RSS (MiB) at each build's own minimum heap:")
        for t in threads:
            L.append(f"{t:>7} " + " ".join(
                f"{rss[(b['name'], t)][0] / 1024:>{w}.1f}" if rss.get((b["name"], t)) and rss[(b["name"], t)][0]
                else f"{'—':>{w}}" for b in builds))
    L.append("")
    L.append(goals_minheap(cfg, results, fits, rss))
    return "\n".join(L)


if __name__ == "__main__":
    main()
