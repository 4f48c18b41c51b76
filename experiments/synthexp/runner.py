"""Running one synthvm invocation (or finding it in the CSV of earlier ones): the append-only
CSV store keyed for reuse, and the runner that classifies each run."""
import csv
import datetime as dt
import json
import os
import re
import shlex
import signal
import subprocess
import time
from pathlib import Path

from .binaries import binary_sha, snapshot_of
from .config import FIELDS, ROOT, fmt_heap, heap_arg, rel


# The space's own figure, printed at exit under SHARDSWEEP_REPORT_PEAK=1 (policy/report.rs).
PEAK_RESIDENT = re.compile(r"shardsweep: peak resident pages \d+ \((\d+) KiB\)")


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
                r["purpose"], str(r["attempt"]), r["env"], r.get("vm_args", ""))

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
            "vm_args": " ".join(self.cfg.get("vm_args", [])),
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
                "--seed", str(self.cfg["seed"]), "--heap", heap_arg(heap), *self.cfg.get("vm_args", []), self.cfg["workload"]]
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
