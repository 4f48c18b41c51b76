#!/usr/bin/env python3
"""Minimum heap of a JVM stand-in (lusearch, h2 or xalan) on a given JDK, over mutator threads.

    minheap.py JAVA [--workload lusearch|h2|xalan] [--threads "1 12 24 48"] [--size default]
               [--iterations 2] [--resolution 0.25] [--quorum 1/1] [--timeout 180] [--label NAME]
               [--out DIR] [-- JVM ARGS...]

The JVM runs with -Xms = -Xmx = the probed heap (a fixed MMTk heap under mmtk-openjdk), the
extra JVM arguments after `--` (e.g. -XX:+UseThirdPartyHeap, -XX:+UseSerialGC) and this
process's environment (e.g. MMTK_PLAN=MarkSweep, SHARDSWEEP_ACCOUNTING=block pass through).

A probe passes when java exits 0 and prints the stand-in's PASSED line; it is too small when the
output has OutOfMemoryError / "Out of memory" / "ran out of memory" (running-ng's rule) or
HotSpot's "Too small maximum heap", or when the run is still going at the timeout (killed);
anything else (crash, FAILED digest, no PASSED) is an error: retried once, then the thread
count is reported as ERROR with the output's last line.

Search per thread count: an exponential search outwards from a guess (--guess for the first
thread count; then the first minimum grown by --guess-growth per thread; then the line through
the last two minima), then bisection until the bracket is `--resolution` MiB wide; the minimum
is the smallest passing heap. With `--quorum K/N` a heap passes when K of N runs pass (they stop
as soon as the answer is known; the CSV's `run` column numbers them): for a build whose runs
near the minimum pass or fail by chance. Writes OUT/probes.csv (every run, with its command) and
OUT/minheap.csv (one row per thread count), appending; prints a table.
Only the Python standard library.
"""
import argparse
import csv
import datetime
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # experiments/: the search shared with exp.py
from studylib import heapsearch  # noqa: E402
sys.path.insert(0, str(HERE))
import workloads  # noqa: E402  (the stand-ins' jars and command lines)
# "Too small ... heap": HotSpot refuses heaps below its floor (~2 MiB) at start-up.
OOM = re.compile(rb"OutOfMemoryError|Out of memory|ran out of memory|Allocation Failed|Too small (?:maximum|initial) heap")
PASSED = workloads.PASSED  # any stand-in's "===== NAME-standin SIZE PASSED in N msec ====="
DIGEST = re.compile(rb"iteration \d+ digest ([0-9a-f]{16})")
ENV_KEYS = ("MMTK_", "SHARDSWEEP_")
# The space's own peak, printed at exit under SHARDSWEEP_REPORT_PEAK=1 (policy/report.rs).
PEAK_RESIDENT = re.compile(rb"shardsweep: peak resident pages \d+ \((\d+) KiB\)")
PROBE_FIELDS = ["workload", "label", "java", "jvm_args", "env", "size", "iterations", "threads", "heap_mib",
                "run", "attempt", "outcome", "exit_code", "wall_s", "last_iteration_ms", "digest",
                "timestamp", "command", "detail", "peak_rss_kib", "space_peak_resident_kib"]
MINHEAP_FIELDS = ["workload", "label", "java", "jvm_args", "env", "size", "iterations", "threads",
                  "minheap_mib", "status", "probes", "resolution_mib", "digest", "timestamp", "detail",
                  "peak_rss_kib", "space_peak_resident_kib"]


# A class whose static initialiser failed (on a too-small heap: an OutOfMemoryError inside
# `<clinit>`, e.g. Lucene's StandardTokenizerImpl tables) leaves every later use of the class with
# "NoClassDefFoundError: Could not initialize class"; JDK 11 does not chain the original error,
# so a run that shows this and no other failure ran out of memory in an initialiser.
NOCLASSDEF = re.compile(rb"NoClassDefFoundError: Could not initialize class (\S+)")


def classify(out, returncode, timed_out):
    """(outcome, detail) of one JVM run: pass / oom / timeout / error, and what the log says."""
    lines = [l for l in out.decode(errors="replace").splitlines() if l.strip() and l.strip() != "#"]
    last = lines[-1][:300] if lines else ""
    if timed_out:
        return "timeout", last
    if OOM.search(out):
        return "oom", last
    if returncode == 0 and PASSED.search(out):
        return "pass", ""
    m = NOCLASSDEF.search(out)
    if m:
        return "oom", ("out of memory in a class initialiser: NoClassDefFoundError: Could not "
                       f"initialize class {m.group(1).decode(errors='replace')} (counted as out of memory)")
    return "error", last


class JvmRun:
    """What one JVM run left: its output, pid, exit code, whether the timeout killed it, and
    the `wait4` resource usage (ru_maxrss: the JVM's own peak RSS, or that of a waited-for
    child such as the JVM under `perf stat`)."""

    def __init__(self, out, pid, returncode, timed_out, usage):
        self.out, self.pid, self.returncode, self.timed_out, self.usage = out, pid, returncode, timed_out, usage


def run_jvm(cmd, env, cwd, timeout):
    """Runs `cmd` (stdout and stderr together) in its own session and reaps it with `wait4`;
    after `timeout` seconds a timer kills its process group."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                         cwd=cwd, env=env)
    killed = threading.Event()

    def kill():
        killed.set()
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    chunks = []
    reader = threading.Thread(target=lambda: chunks.append(p.stdout.read()))
    reader.start()
    timer = threading.Timer(timeout, kill)
    timer.start()
    _, status, usage = os.wait4(p.pid, 0)
    timer.cancel()
    reader.join()
    p.stdout.close()
    return JvmRun(chunks[0] if chunks else b"", p.pid, os.waitstatus_to_exitcode(status), killed.is_set(), usage)


class OneLineParser(argparse.ArgumentParser):
    """A usage error is one line on stderr and exit 2 (`--help` still prints the whole usage)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (--help lists the options)\n")


def log(msg):
    print(msg, flush=True)


class Study:
    def __init__(self, a):
        self.a = a
        self.java = a.java
        self.jar = a.jar
        self.env_desc = " ".join(f"{k}={v}" for k, v in sorted(os.environ.items())
                                 if k.startswith(ENV_KEYS))
        self.out = Path(a.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.nprobes = 0
        self.peaks = {}  # (threads, heap) -> (outcome, peak RSS KiB, space peak KiB) of the last probe

    def append(self, name, fields, row):
        path = self.out / name
        new = not path.exists()
        if not new:
            with path.open(newline="") as f:
                reader = csv.DictReader(f)
                old = list(reader)
            if reader.fieldnames != fields:
                # A CSV from before a column was added: rewrite it with the current columns.
                with path.open("w", newline="") as f:
                    w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
                    w.writeheader()
                    w.writerows({k: r.get(k) or "" for k in fields} for r in old)
        with path.open("a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            if new:
                w.writeheader()
            w.writerow(row)

    def command(self, threads, heap_mib):
        kib = int(round(heap_mib * 1024))
        return ([self.java] + self.a.jvm_args + [f"-Xms{kib}k", f"-Xmx{kib}k", "-jar", str(self.jar)]
                + workloads.program_args(self.a.workload, self.a.size, self.a.iterations, threads, self.a.index))

    def run(self, threads, heap_mib, attempt, rep=0):
        cmd = self.command(threads, heap_mib)
        t0 = time.time()
        work = self.out / "work"  # the JVM's cwd: where a crashing HotSpot writes hs_err_pid*.log
        work.mkdir(exist_ok=True)
        env = dict(os.environ)
        env.setdefault("SHARDSWEEP_REPORT_PEAK", "1")  # harmless for builds without the space
        r = run_jvm(cmd, env, work, self.a.timeout)
        out, timed_out, usage = r.out, r.timed_out, r.usage
        rss_kib = usage.ru_maxrss
        peak = PEAK_RESIDENT.search(out)
        wall = time.time() - t0
        m = PASSED.search(out)
        digests = sorted(set(DIGEST.findall(out)))
        outcome, detail = classify(out, r.returncode, timed_out)
        if outcome == "error":  # keep what the run printed, for the record (no JVM crash report)
            errors = self.out / "errors"
            errors.mkdir(exist_ok=True)
            kept_out = errors / f"t{threads}-{heap_mib:g}M-pid{r.pid}.out"
            kept_out.write_bytes(out)
            detail = f"{detail} ({kept_out})"
        crash = work / f"hs_err_pid{r.pid}.log"
        if crash.exists():  # keep the JVM's crash report, name it in the CSV
            crashes = self.out / "crashes"
            crashes.mkdir(exist_ok=True)
            kept = crashes / f"t{threads}-{heap_mib:g}M-{crash.name}"
            crash.rename(kept)
            text = kept.read_text(errors="replace")
            frame = re.search(r"^# (?:C|V|J|j)  \[?.*$", text, re.M)
            sig = re.search(r"^#\s+(SIG\w+.*?|Internal Error.*?)$", text, re.M)
            detail = f"JVM crash: {sig.group(1) if sig else ''} {frame.group(0)[2:200] if frame else ''} ({kept})"
        self.nprobes += 1
        self.append("probes.csv", PROBE_FIELDS, {
            "workload": self.a.workload, "label": self.a.label, "java": self.java, "jvm_args": " ".join(self.a.jvm_args),
            "env": self.env_desc, "size": self.a.size, "iterations": self.a.iterations,
            "threads": threads, "heap_mib": f"{heap_mib:g}", "run": rep, "attempt": attempt, "outcome": outcome,
            "exit_code": "" if timed_out else r.returncode, "wall_s": f"{wall:.2f}",
            "last_iteration_ms": m.group(1).decode() if m else "",
            "digest": " ".join(d.decode() for d in digests),
            "timestamp": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": " ".join(shlex.quote(c) for c in cmd), "detail": detail,
            "peak_rss_kib": rss_kib, "space_peak_resident_kib": peak.group(1).decode() if peak else ""})
        self.peaks[(threads, f"{heap_mib:g}")] = (outcome, rss_kib, peak.group(1).decode() if peak else "")
        sym = {"pass": "o", "oom": "x", "timeout": "t", "error": "."}[outcome]
        print(f" {heap_mib:g}M{sym}", end="", flush=True)
        return outcome, detail, digests

    def probe_run(self, threads, heap_mib, rep):
        """Run `rep` at heap_mib: True if it passes, False if too small; raises on repeated errors."""
        for attempt in range(2):
            outcome, detail, digests = self.run(threads, heap_mib, attempt, rep)
            if outcome == "pass":
                self.digests.update(digests)
                return True
            if outcome in ("oom", "timeout"):
                return False
        raise RuntimeError(detail)

    def probe(self, threads, heap_mib):
        """True if heap_mib is enough (K of N runs pass, --quorum), False if too small."""
        k, n = self.a.quorum
        return heapsearch.quorum_probe(lambda h, i: self.probe_run(threads, h, i), k, n)(heap_mib)

    def search(self, threads, guess):
        """Exponential search outwards from `guess` (first step 1/8 of it, doubling), then
        bisection until the bracket is `--resolution` wide: ~5 probes when the guess is within
        an eighth, a few more otherwise (experiments/studylib/heapsearch.py)."""
        res = self.a.resolution
        r = heapsearch.find_minimum(lambda h: self.probe(threads, h), guess, res, res, self.a.max_heap,
                                    above_hi="stop")
        if r.status == "above":
            raise RuntimeError(f"no pass up to {self.a.max_heap} MiB")
        return r.heap  # "ok", or "below": passes at the smallest heap, one resolution step

    def main(self):
        results = []
        found = []  # (threads, minimum) so far: the next guess extrapolates the last two
        for t in self.a.threads:
            self.digests = set()
            before = self.nprobes
            print(f"{self.a.label} -t {t}:", end="", flush=True)
            guess = heapsearch.extrapolate_guess(found, t, self.a.guess, self.a.guess_growth, per_thread=True)
            try:
                mh = self.search(t, guess)
                status, detail = "ok", ""
                found.append((t, mh))
            except RuntimeError as e:
                mh, status, detail = "", "ERROR", str(e)
            print(f"  -> {mh if mh != '' else 'ERROR'} MiB", flush=True)
            digest = " ".join(sorted(d.decode() for d in self.digests))
            if len(self.digests) > 1:
                status, detail = "ERROR", f"digests differ: {digest}"
            row = {"workload": self.a.workload, "label": self.a.label, "java": self.java, "jvm_args": " ".join(self.a.jvm_args),
                   "env": self.env_desc, "size": self.a.size, "iterations": self.a.iterations,
                   "threads": t, "minheap_mib": f"{mh:g}" if mh != "" else "", "status": status,
                   "probes": self.nprobes - before, "resolution_mib": f"{self.a.resolution:g}",
                   "digest": digest,
                   "peak_rss_kib": "", "space_peak_resident_kib": "",
                   "timestamp": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                   "detail": detail}
            if mh != "":
                o, rss, sp = self.peaks.get((t, f"{mh:g}"), ("", "", ""))
                if o == "pass":
                    row["peak_rss_kib"], row["space_peak_resident_kib"] = rss, sp
            self.append("minheap.csv", MINHEAP_FIELDS, row)
            results.append(row)
        log(f"\nminimum heap (MiB), {self.a.label}: {self.java} {' '.join(self.a.jvm_args)} {self.env_desc}".rstrip())
        log("threads  minheap_mib  peak_rss_mib  space_peak_mib  status  probes  digest")
        mib = lambda k: f"{int(k) / 1024:.1f}" if str(k) != "" else "—"
        for r in results:
            log(f"{r['threads']:>7}  {r['minheap_mib']:>11}  {mib(r['peak_rss_kib']):>12}  "
                f"{mib(r['space_peak_resident_kib']):>14}  {r['status']:>6}  {r['probes']:>6}  {r['digest']}")
        log(f"CSV: {self.out / 'minheap.csv'}, {self.out / 'probes.csv'}")
        return 0 if all(r["status"] == "ok" for r in results) else 1


def main(argv):
    jvm_args = []
    if "--" in argv:
        i = argv.index("--")
        argv, jvm_args = argv[:i], argv[i + 1:]
    p = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("java", help="path to the java launcher of the JDK image")
    p.add_argument("--workload", default="lusearch", choices=workloads.NAMES)
    p.add_argument("--jar", help="the stand-in's jar (default: the workload's target/NAME-standin.jar)")
    p.add_argument("--threads", default="1 12 24 48", help='e.g. "1 4"')
    p.add_argument("--size", default="default", choices=["small", "default", "large"])
    p.add_argument("--iterations", type=int, default=2)
    p.add_argument("--resolution", type=float, default=0.25, help="MiB (default 0.25)")
    p.add_argument("--quorum", default="1/1", help="K/N: a heap passes when K of N runs pass (default 1/1)")
    p.add_argument("--guess", type=float, default=16.0, help="first heap tried, MiB")
    p.add_argument("--guess-growth", type=float, default=0.05,
                   help="second thread count's guess: the first minimum grown by this fraction per thread")
    p.add_argument("--max-heap", type=float, default=4096.0, help="MiB")
    p.add_argument("--timeout", type=float, default=180.0, help="seconds; a probe still running is too small")
    p.add_argument("--index", help="lusearch's index directory (default: .build/lusearch-standin-index-SIZE under the repository)")
    p.add_argument("--label", default="run")
    p.add_argument("--out", help="output directory (default: .build/openjdk-standin-minheap/LABEL, "
                                 "for h2 and xalan .build/openjdk-standin-minheap/WORKLOAD/LABEL)")
    a = p.parse_args(argv)
    a.jvm_args = jvm_args
    try:
        a.quorum = heapsearch.parse_quorum(a.quorum)
    except ValueError as e:
        p.error(f"--quorum: {e}")
    a.threads = [int(x) for x in a.threads.replace(",", " ").split()]
    root = HERE.parents[2]
    a.jar = a.jar or str(workloads.jar(a.workload))
    a.index = Path(a.index) if a.index else workloads.index_dir(a.size)
    a.out = a.out or str(root / ".build" / "openjdk-standin-minheap"
                         / (a.label if a.workload == "lusearch" else f"{a.workload}/{a.label}"))
    if not Path(a.jar).exists():
        p.error(f"{a.jar} not found (scripts/openjdk-standin-build.sh {a.workload} builds it)")
    # lusearch's index, once, outside any heap limit (same corpus for every JDK: the stand-in checks it).
    workloads.prepare(a.workload, a.java, a.jar, a.size, a.index)
    return Study(a).main()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
