#!/usr/bin/env python3
"""A JVM stand-in (lusearch, h2 or xalan) under mmtk-openjdk, every plan and control in one session.

    study.py [--workload lusearch|h2|xalan|all|w1,w2] --jdk stock=JDK --jdk ss64=JDK --jdk ss4=JDK
             [--jdk ss16=JDK --jdk ss256=JDK] --out DIR
             [--threads "1 12 24 36 48"] [--time-threads "8 24"] [--invocations 5]
             [--factor-threads 8] [--factors "1.5 2 3 4 6"] [--normalise stock-ms]
             [--iterations 3] [--timeout S] [--resolution 0.5] [--configs a,b,...]
             [--factor-configs a,b,...] [--jvm-args "-XX:+UseThirdPartyHeap"] [--plan-only]
             [--phase all|minheap|baseline|time|factors|gccount|report] [--gc-count off|perf]

JDK = a JDK image (the directory holding bin/java), one per library build, given as
`--jdk NAME=PATH` (`--stock PATH`, `--ss64 PATH`, ... are the same). The images are meant to
differ only in `lib/server/libmmtk_openjdk.so`: stock = the patched mmtk copy without our
feature (stock mmtk), ssN = with feature `shardsweep`, SHARDSWEEP_BLOCK_KIB=N at build time.
Only the images that the chosen phases' configurations use are needed.

--workload: lusearch (the default), h2 or xalan (`workloads.py`: the jars that
`scripts/openjdk-standin-build.sh NAME` builds, their command lines); several (`all`, or a comma
list) run one after the other, each into OUT/NAME/.

Configurations (label: image, environment):

    stock-ms     stock  MMTK_PLAN=MarkSweep             (mmtk's native_ms, 64 KiB blocks)
    markcompact  stock  MMTK_PLAN=MarkCompact
    immix        stock  MMTK_PLAN=Immix
    semispace    stock  MMTK_PLAN=SemiSpace
    ss64-page    ss64   MMTK_PLAN=MarkSweep             (shardsweep, page charging: default)
    ss64-block   ss64   MMTK_PLAN=MarkSweep SHARDSWEEP_ACCOUNTING=block  (the control)
    ss4-page     ss4    MMTK_PLAN=MarkSweep
    ss16-page    ss16   MMTK_PLAN=MarkSweep             (factors phase only, by default)
    ss256-page   ss256  MMTK_PLAN=MarkSweep             (factors phase only, by default)

The minheap and time phases run the first seven (or --configs); the factors phase runs
ss4-page, ss16-page, ss64-page, ss256-page, ss64-block, stock-ms and immix (or --factor-configs).

Phase minheap: `minheap.py` for each configuration over --threads (MarkCompact also over
--time-threads), -Xms = -Xmx, into OUT/minheap/LABEL/{minheap,probes}.csv. A probe still running
at --timeout counts as too small in the search and as a *hang* in the report.

Phase minheap measures MarkCompact also at --time-threads and --factor-threads.

Phase time: at each of --time-threads, the heap is 2x MarkCompact's minimum at that thread
count; --invocations rounds, each running every configuration once (interleaved, in a rotated
order), the stand-in with -n --iterations. Records wall time (JVM start to exit), the stand-in's
last-iteration time and peak RSS (wait4's ru_maxrss of the JVM), and with --gc-count perf the
`sdt_mmtk:gc_start` USDT events counted by `perf stat` (where `perf probe` can add the event
and uprobes fire; on the machine of the committed results they counted nothing, so the GC
counts come from the gccount phase). Into OUT/time/runs.csv.

Phase factors (the thesis' third experiment): at --factor-threads, the heap is each of --factors
times MarkCompact's minimum there; --invocations rounds, each running every (configuration,
factor) cell once, interleaved (`interleaved_plan`: within a round the factors' blocks and the
configurations inside each block in an order rotated per round). Into OUT/factors/runs.csv; the
report's OUT/factors.png plots time against heap factor, normalised to --normalise's median at
the largest factor, one line per configuration, error bars min/max.

Phase gccount (after time and factors): one more run of each time and factors cell under gdb, counting mmtk-core's
`probe!(mmtk, gc_start)` with a breakpoint (mmtk 0.33.0 compiles its logs out of release
builds), into OUT/time/gcs.csv; the report's GC column comes from it.

Phase baseline (also after minheap): the peak RSS of `java -version` under MMTk on each image,
what every run pays before the heap holds anything, into OUT/baseline.csv; the report shows
each peak RSS also above it.

Phase report (`study_report.py`): OUT/README.md (tables, least-squares slopes, goals),
OUT/minheap.png, OUT/rss.png, OUT/factors.png; over several workloads also OUT/factors.png with
one panel per workload.

--plan-only prints what the phases would run (every command with its environment; the factors
phase's heaps from MarkCompact's minimum in OUT when measured, else from --assume-mc-minheap) and
runs nothing. --jvm-args replaces -XX:+UseThirdPartyHeap (e.g. -XX:+UseSerialGC with the stock
JDK as every image: a check of the plumbing end to end, nothing measured).
Only the standard library, plus matplotlib for the plots (skipped when missing).
"""
import argparse
import csv
import datetime
import os
import re
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
CONFIGS = [
    ("stock-ms", "stock", {"MMTK_PLAN": "MarkSweep"}),
    ("markcompact", "stock", {"MMTK_PLAN": "MarkCompact"}),
    ("immix", "stock", {"MMTK_PLAN": "Immix"}),
    ("semispace", "stock", {"MMTK_PLAN": "SemiSpace"}),
    ("ss64-page", "ss64", {"MMTK_PLAN": "MarkSweep"}),
    ("ss64-block", "ss64", {"MMTK_PLAN": "MarkSweep", "SHARDSWEEP_ACCOUNTING": "block"}),
    ("ss4-page", "ss4", {"MMTK_PLAN": "MarkSweep"}),
    ("ss16-page", "ss16", {"MMTK_PLAN": "MarkSweep"}),
    ("ss256-page", "ss256", {"MMTK_PLAN": "MarkSweep"}),
]
IMAGES = ("stock", "ss4", "ss16", "ss64", "ss256")
# The minimum-heap (and 2x time) phases' configurations, and the factors phase's.
MINHEAP_LABELS = ["stock-ms", "markcompact", "immix", "semispace", "ss64-page", "ss64-block", "ss4-page"]
FACTOR_LABELS = ["ss4-page", "ss16-page", "ss64-page", "ss256-page", "ss64-block", "stock-ms", "immix"]
sys.path.insert(0, str(HERE))
from minheap import PASSED, OneLineParser, classify, run_jvm  # noqa: E402  (one classification for every phase)
import workloads  # noqa: E402  (the stand-ins' jars and command lines)
from study_report import basis_of_factor, phase_report, plot_factors_all, read_minheap  # noqa: E402  (the report phase)
RUN_FIELDS = ["basis", "round", "label", "threads", "heap_mib", "outcome", "exit_code", "wall_s",
              "last_iteration_ms", "peak_rss_kib", "gcs", "timestamp", "env", "command", "detail",
              "workload", "factor"]


def clean_env(extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MMTK_", "SHARDSWEEP_"))}
    env.update(extra)
    return env


def java_of(images, cfg):
    return str(Path(images[cfg[1]]) / "bin" / "java")


def java_cmd(a, java, threads, heap_mib):
    """The stand-in's command line at a fixed heap (-Xms = -Xmx)."""
    kib = int(round(heap_mib * 1024))
    return ([java] + a.jvm_args + [f"-Xms{kib}k", f"-Xmx{kib}k", "-jar", a.jar]
            + workloads.program_args(a.workload, a.size, a.iterations, threads))


def show(extra, cmd):
    return " ".join(f"{k}={v}" for k, v in sorted(extra.items())) + " " + " ".join(map(shlex.quote, cmd))


def csv_appender(path, fields):
    """(file, writer) appending to `path`, keeping an existing file's own columns (an older
    runs.csv without the newer columns gets rows without them)."""
    new = not path.exists() or path.stat().st_size == 0
    if not new:
        with path.open(newline="") as f:
            fields = next(csv.reader(f), fields)
    f = path.open("a", newline="")
    w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
    if new:
        w.writeheader()
    return f, w


# ---------------------------------------------------------------- minimum heap
def minheap_threads(a, label):
    """The thread counts of a configuration's minimum heaps: MarkCompact's also at the time and
    factors phases' thread counts (their heaps are multiples of its minimum there)."""
    if label == "markcompact":
        return sorted(set(a.threads) | set(a.time_threads) | {a.factor_threads})
    return a.threads


def phase_minheap(a, images, configs):
    for cfg in configs:
        label, _, extra = cfg
        threads = minheap_threads(a, label)
        cmd = [sys.executable, str(HERE / "minheap.py"), java_of(images, cfg), "--workload", a.workload,
               "--jar", a.jar, "--size", a.size, "--guess", f"{workloads.GUESS_MIB[a.workload]:g}",
               "--threads", " ".join(map(str, threads)), "--resolution", str(a.resolution),
               "--timeout", str(a.timeout), "--label", label, "--out", str(a.out / "minheap" / label),
               "--"] + a.jvm_args
        print("+", show(extra, cmd), flush=True)
        if a.plan_only:
            continue
        rc = subprocess.call(cmd, env=clean_env(extra))
        if rc != 0:
            print(f"study: minheap for {label} reported an error (exit {rc}); going on", flush=True)


# ---------------------------------------------------------------- time
def perf_ready():
    """True if perf can count sdt_mmtk:gc_start (the event is added on first use)."""
    try:
        listed = subprocess.run(["perf", "list", "sdt"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "sdt_mmtk:gc_start" in listed


def perf_add(images):
    for img in set(images.values()):
        so = Path(img) / "lib" / "server" / "libmmtk_openjdk.so"
        subprocess.run(["perf", "buildid-cache", "--add", str(so)], capture_output=True)
    subprocess.run(["perf", "probe", "-d", "sdt_mmtk:gc_start"], capture_output=True)
    r = subprocess.run(["perf", "probe", "-a", "sdt_mmtk:gc_start"], capture_output=True, text=True)
    return r.returncode == 0


def time_heap(a, t, mc):
    """The heap of the time phase at t threads, by --time-heap: 2x MarkCompact's minimum (the
    issue's definition), or 2x the largest minimum of any configuration at the smallest measured
    thread count >= t (every configuration can run there)."""
    if a.time_heap == "markcompact":
        return 2 * mc[t][0]
    counts = sorted(x for x in a.threads if x >= t)
    if not counts:
        sys.exit(f"study: --time-heap largest needs a measured thread count >= {t}")
    mins = [read_minheap(a.out, c[0]).get(counts[0]) for c in a.minheap_configs]
    if any(m is None for m in mins):
        sys.exit(f"study: --time-heap largest needs every configuration's minimum at {counts[0]} threads")
    return 2 * max(m[0] for m in mins)


def run_once(a, images, cfg, threads, heap_mib, rnd, use_perf, writer, basis=None, factor="", sub="time"):
    label, _, extra = cfg
    jcmd = java_cmd(a, java_of(images, cfg), threads, heap_mib)
    if a.plan_only:
        print(f"  round {rnd} {label}: {show(extra, jcmd)}")
        return
    perf_out = a.out / sub / "perf.tmp"
    cmd = (["perf", "stat", "-x", ",", "-o", str(perf_out), "-e", "sdt_mmtk:gc_start", "--"] + jcmd
           if use_perf else jcmd)
    t0 = time.time()
    r = run_jvm(cmd, clean_env(extra), a.out / sub, a.timeout)  # ru_maxrss: the JVM's, also under perf
    wall = time.time() - t0
    out, code, usage = r.out, r.returncode, r.usage
    m = PASSED.search(out)
    outcome, detail = classify(out, code, r.timed_out)
    gcs = ""  # counted by perf here, or by the gccount phase (gdb) in separate runs
    if use_perf and perf_out.exists():
        for line in perf_out.read_text().splitlines():
            f = line.split(",")
            if len(f) > 2 and "gc_start" in f[2] and f[0].strip().isdigit():
                gcs = f[0].strip()
    writer({"basis": basis or a.time_heap, "workload": a.workload, "factor": factor, "round": rnd, "label": label, "threads": threads, "heap_mib": f"{heap_mib:g}",
            "outcome": outcome, "exit_code": "" if r.timed_out else code, "wall_s": f"{wall:.3f}",
            "last_iteration_ms": m.group(1).decode() if m else "", "peak_rss_kib": usage.ru_maxrss,
            "gcs": gcs, "timestamp": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "env": " ".join(f"{k}={v}" for k, v in sorted(extra.items())),
            "command": " ".join(map(shlex.quote, jcmd)), "detail": detail})
    print(f" {label}:{outcome[0]}{wall:.1f}s/{gcs or '?'}gc", end="", flush=True)


def markcompact_minima(a, threads):
    """MarkCompact's minimum heap (MiB) at each of `threads`, from OUT/minheap; under
    --plan-only a missing one is --assume-mc-minheap."""
    mc = {t: v[0] for t, v in read_minheap(a.out, "markcompact").items()}
    missing = [t for t in threads if t not in mc]
    if missing and a.plan_only:
        print(f"(plan: no MarkCompact minimum at {missing} threads in {a.out}/minheap; "
              f"heaps below assume {a.assume_mc_minheap:g} MiB)")
        mc.update({t: a.assume_mc_minheap for t in missing})
    elif missing:
        sys.exit(f"study: no MarkCompact minimum heap at {missing} threads: run the minheap phase first")
    return mc


def prepare_runs(a, images, configs, sub):
    """The workload's one-time preparation (lusearch's index; minheap.py builds it too), perf if
    asked for, and OUT/SUB/. Returns whether perf counts GCs."""
    if a.plan_only:
        pc = workloads.prepare_command(a.workload, java_of(images, configs[0]), a.jar, a.size)
        if pc:
            print("+", " ".join(map(shlex.quote, pc)))
        return False
    workloads.prepare(a.workload, java_of(images, configs[0]), a.jar, a.size)
    use_perf = False
    if a.gc_count == "perf":
        use_perf = perf_add(images) and perf_ready()
        if not use_perf:
            sys.exit("study: perf cannot count sdt_mmtk:gc_start here (perf probe failed)")
    (a.out / sub).mkdir(parents=True, exist_ok=True)
    return use_perf


def phase_time(a, images, configs):
    mc = {t: (m,) for t, m in markcompact_minima(a, a.time_threads).items()}
    use_perf = prepare_runs(a, images, configs, "time")
    if a.plan_only:
        f, w = None, None
    else:
        f, w = csv_appender(a.out / "time" / "runs.csv", RUN_FIELDS)

    def writer(row):
        w.writerow(row)
        f.flush()
    for t in a.time_threads:
        heap = time_heap(a, t, mc)
        for rnd in range(a.invocations):
            print(f"time ({a.time_heap}) -t {t} heap {heap:g} MiB round {rnd}:", end="\n" if a.plan_only else "", flush=True)
            order = configs[rnd % len(configs):] + configs[:rnd % len(configs)]  # rotated
            for cfg in order:
                run_once(a, images, cfg, t, heap, rnd, use_perf, writer)
            print(flush=True)
    if f:
        f.close()


# ---------------------------------------------------------------- time over heap factors
def interleaved_plan(labels, factors, invocations):
    """[(round, label, factor)]: every round runs every (label, factor) cell once. Round r takes
    the factors in an order rotated by r, and within each factor the labels rotated by r, so
    consecutive runs alternate configurations, every configuration takes every place within a
    factor's block once in len(labels) rounds, and no cell always runs first or last."""
    plan = []
    for r in range(invocations):
        fs = factors[r % len(factors):] + factors[:r % len(factors)]
        ls = labels[r % len(labels):] + labels[:r % len(labels)]
        plan += [(r, l, f) for f in fs for l in ls]
    return plan


def factor_heaps(mc_minheap, factors):
    """factor -> heap (MiB) = factor x MarkCompact's minimum, rounded to whole KiB."""
    return {f: round(f * mc_minheap * 1024) / 1024 for f in factors}


def phase_factors(a, images, configs):
    """Time at each of --factors x MarkCompact's minimum heap at --factor-threads, interleaved
    over --invocations rounds (the thesis' third experiment). Into OUT/factors/runs.csv."""
    t = a.factor_threads
    heaps = factor_heaps(markcompact_minima(a, [t])[t], a.factors)
    use_perf = prepare_runs(a, images, configs, "factors")
    f, w = (None, None) if a.plan_only else csv_appender(a.out / "factors" / "runs.csv", RUN_FIELDS)
    by_label = {c[0]: c for c in configs}
    plan = interleaved_plan([c[0] for c in configs], a.factors, a.invocations)
    print(f"factors -t {t}: " + ", ".join(f"{x:g}x = {heaps[x]:g} MiB" for x in a.factors)
          + f"; {len(plan)} runs in {a.invocations} rounds", flush=True)
    last = None
    for rnd, label, factor in plan:
        if (rnd, factor) != last:
            print(("\n" if last and not a.plan_only else "") + f"round {rnd} factor {factor:g}:",
                  end="\n" if a.plan_only else "", flush=True)
            last = (rnd, factor)
        run_once(a, images, by_label[label], t, heaps[factor], rnd, use_perf,
                 (lambda row: (w.writerow(row), f.flush())) if w else None,
                 basis=basis_of_factor(factor), factor=f"{factor:g}", sub="factors")
    print(flush=True)
    if f:
        f.close()


# ---------------------------------------------------------------- GC count (gdb)
GDB_SCRIPT = """set pagination off
set confirm off
handle SIGSEGV nostop noprint pass
handle SIGILL nostop noprint pass
handle SIGUSR2 nostop noprint pass
handle SIGQUIT nostop noprint pass
catch load libmmtk_openjdk
run
break *((char*)&bind_mutator - {bind:#x} + {probe:#x})
commands
silent
continue
end
delete 1
continue
info breakpoints
"""


def gc_probe_offsets(lib):
    """(bind_mutator, mmtk:gc_start) addresses in `lib`: the USDT note's location (its base is 0,
    so tools that relocate by .stapsdt.base do not find it) and an exported function to find
    where the library was loaded."""
    nm = subprocess.run(["nm", "-D", str(lib)], capture_output=True, text=True, check=True).stdout
    bind = next(int(l.split()[0], 16) for l in nm.splitlines() if l.endswith(" T bind_mutator"))
    notes = subprocess.run(["readelf", "-n", str(lib)], capture_output=True, text=True, check=True).stdout
    m = re.search(r"Name: gc_start\n\s+Location: (0x[0-9a-f]+)", notes)
    return bind, int(m.group(1), 16)


def gdb_outcome(out):
    """(outcome, GCs) of one JVM run under gdb (`--phase gccount`), from gdb's and the JVM's merged
    output: the outcome as every phase classifies it (pass / oom / error; MMTk reports out of
    memory on stderr), the GCs from `info breakpoints` ("" when gdb printed no count)."""
    outcome, _ = classify(out, 0, False)
    hits = re.search(rb"^2\s+breakpoint.*\n(?:.*\n)*?\s+breakpoint already hit (\d+) time", out, re.M)
    gcs = hits.group(1).decode() if hits else ("0" if re.search(rb"^2\s+breakpoint", out, re.M) else "")
    return outcome, gcs


def phase_gccount(a, images, configs, sub="time"):
    """One extra run per (basis, threads, configuration) of the time (or factors) phase, under
    gdb with a breakpoint at mmtk-core's `probe!(mmtk, gc_start)` (once per GC): mmtk 0.33.0
    compiles its logs out of release builds, and perf's uprobes count nothing on this machine.
    Not timed: the timed runs stay unperturbed. Into OUT/SUB/gcs.csv. An image without
    libmmtk_openjdk.so (a plumbing check on a stock JDK) gets no count."""
    runs_path = a.out / sub / "runs.csv"
    if not runs_path.exists():
        if a.plan_only:
            print(f"(plan: gccount {sub}: one run under gdb per cell of {runs_path}, once the {sub} phase has run)")
            return
        sys.exit(f"study: run the {sub} phase first")
    rows = list(csv.DictReader(runs_path.open()))
    cells = sorted({(r["basis"], int(r["threads"]), float(r["heap_mib"])) for r in rows})
    labels_run = {r["label"] for r in rows}
    path = a.out / sub / "gcs.csv"
    f = None if a.plan_only else path.open("w", newline="")
    w = None
    if f:
        w = csv.DictWriter(f, fieldnames=["basis", "label", "threads", "heap_mib", "outcome", "gcs", "command"])
        w.writeheader()
    for basis, t, heap in cells:
        print(f"gc count ({basis}) -t {t} heap {heap:g} MiB:", end="\n" if a.plan_only else "", flush=True)
        for cfg in configs:
            label, image, extra = cfg
            if label not in labels_run:
                continue
            if not images.get(image):
                sys.exit(f"study: gccount of {label} ({runs_path}) needs --jdk {image}=PATH")
            lib = Path(images[image]) / "lib" / "server" / "libmmtk_openjdk.so"
            script = a.out / sub / f"gccount-{image}.gdb"
            jcmd = java_cmd(a, java_of(images, cfg), t, heap)
            cmd = ["gdb", "-q", "-batch", "-x", str(script), "--args"] + jcmd
            if a.plan_only:
                print(f"  {show(extra, cmd)}")
                continue
            if not lib.exists():
                outcome, gcs = "no-mmtk-library", ""
            else:
                bind, probe = gc_probe_offsets(lib)
                script.write_text(GDB_SCRIPT.format(bind=bind, probe=probe))
                try:
                    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=clean_env(extra),
                                         timeout=a.timeout * 3, cwd=a.out / sub).stdout
                except subprocess.TimeoutExpired:
                    out = b""
                outcome, gcs = gdb_outcome(out)
            w.writerow({"basis": basis, "label": label, "threads": t, "heap_mib": f"{heap:g}", "outcome": outcome,
                        "gcs": gcs, "command": show(extra, cmd)})
            f.flush()
            print(f" {label}:{outcome[0]}/{gcs or '?'}gc", end="", flush=True)
        print(flush=True)
    if f:
        f.close()


# ---------------------------------------------------------------- start-up RSS
def phase_baseline(a, images):
    """Peak RSS of `java -version` on each image under MMTk (median of 3): what every run pays
    before the heap holds anything (with compressed oops, mostly mmtk-core's SFT map: ~512 MiB,
    bindings/openjdk/README.md). Into OUT/baseline.csv."""
    rows = []
    for name, img in sorted(images.items()):
        if not img:
            continue
        cmd = [str(Path(img) / "bin" / "java")] + a.jvm_args + ["-Xms16m", "-Xmx16m", "-version"]
        if a.plan_only:
            print("+ (3x, peak RSS) MMTK_PLAN=MarkSweep " + " ".join(map(shlex.quote, cmd)))
            continue
        rss = []
        for _ in range(3):
            p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 env=clean_env({"MMTK_PLAN": "MarkSweep"}))
            _, status, usage = os.wait4(p.pid, 0)
            if os.waitstatus_to_exitcode(status) == 0:
                rss.append(usage.ru_maxrss)
        if rss:
            rows.append({"image": name, "java": cmd[0], "peak_rss_kib": int(statistics.median(rss)),
                         "command": "MMTK_PLAN=MarkSweep " + " ".join(map(shlex.quote, cmd))})
    if a.plan_only:
        return
    with (a.out / "baseline.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["image", "java", "peak_rss_kib", "command"])
        w.writeheader()
        w.writerows(rows)


def parse_jdks(a, p):
    """Image name -> JDK path from --jdk NAME=PATH and the aliases --stock, --ss64, ..."""
    images = {b: getattr(a, b) for b in IMAGES}
    for spec in a.jdk or []:
        name, sep, path = spec.partition("=")
        if not sep or not path:
            p.error(f"--jdk takes NAME=PATH, not {spec!r}")
        if name not in IMAGES:
            p.error(f"--jdk {name}=...: unknown image name {name!r} (one of {', '.join(IMAGES)})")
        images[name] = path
    return images


def select(p, spec, default, option):
    if not spec:
        return [c for l in default for c in CONFIGS if c[0] == l]
    known = {c[0] for c in CONFIGS}
    wanted = spec.split(",")
    bad = [x for x in wanted if x not in known]
    if bad:
        p.error(f"{option}: unknown config {bad[0]!r}: valid ones are {', '.join(c[0] for c in CONFIGS)}")
    return [c for l in wanted for c in CONFIGS if c[0] == l]


def parser():
    p = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workload", default="lusearch",
                   help="lusearch (default), h2, xalan, all, or a comma list (each into OUT/NAME)")
    p.add_argument("--jdk", action="append", metavar="NAME=PATH",
                   help=f"JDK image of a library build; NAME one of {', '.join(IMAGES)} (repeat)")
    for b in IMAGES:
        p.add_argument(f"--{b}", help=f"JDK image for the {b} library (= --jdk {b}=PATH)")
    p.add_argument("--out", required=True)
    p.add_argument("--jar", help="the stand-in's jar (default: the workload's target/NAME-standin.jar)")
    p.add_argument("--size", default="default", choices=list(workloads.SIZES))
    p.add_argument("--threads", default="1 12 24 36 48")
    p.add_argument("--time-threads", default="8 24")
    p.add_argument("--factor-threads", type=int, default=8)
    p.add_argument("--factors", default="1.5 2 3 4 6", help="heap factors x MarkCompact's minimum")
    p.add_argument("--normalise", default="stock-ms", help="the factors plot's reference configuration")
    p.add_argument("--invocations", type=int, default=5)
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--timeout", type=float,
                   help="seconds per run (default per workload: lusearch 90, h2 240, xalan 120)")
    p.add_argument("--resolution", type=float, default=0.5)
    p.add_argument("--configs", help="comma-separated labels of the minheap and time phases (default: the seven of issue 11)")
    p.add_argument("--factor-configs", help="comma-separated labels of the factors phase (default: "
                   + ",".join(FACTOR_LABELS) + ")")
    p.add_argument("--jvm-args", default="-XX:+UseThirdPartyHeap", help="JVM arguments of every run (default: %(default)s)")
    p.add_argument("--phase", default="all", choices=["all", "minheap", "baseline", "time", "factors", "gccount", "report"])
    p.add_argument("--plan-only", action="store_true", help="print what would run, run nothing")
    p.add_argument("--assume-mc-minheap", type=float, default=64.0,
                   help="--plan-only: MarkCompact's minimum heap (MiB) where none is measured yet")
    p.add_argument("--gc-count", default="off", choices=["off", "perf"])
    p.add_argument("--time-heap", default="markcompact", choices=["markcompact", "largest"],
                   help="time phase heap: 2x MarkCompact's minimum, or 2x the largest minimum of any configuration")
    return p


def main(argv):
    p = parser()
    a = p.parse_args(argv)
    try:
        a.threads = [int(x) for x in a.threads.split()]
        a.time_threads = [int(x) for x in a.time_threads.split()]
        a.factors = sorted(float(x) for x in a.factors.split())
    except ValueError:
        p.error("--threads and --time-threads take whole numbers, e.g. \"1 12 24\", --factors numbers, e.g. \"1.5 2\"")
    if not a.threads or not a.factors or a.invocations < 1:
        p.error("--threads and --factors need at least one value, --invocations >= 1")
    names = list(workloads.NAMES) if a.workload == "all" else a.workload.split(",")
    bad = [w for w in names if w not in workloads.NAMES]
    if bad:
        p.error(f"--workload: unknown workload {bad[0]!r} (lusearch, h2, xalan or all)")
    if a.jar and len(names) > 1:
        p.error("--jar needs a single --workload")
    a.jvm_args = shlex.split(a.jvm_args)
    a.minheap_configs = select(p, a.configs, MINHEAP_LABELS, "--configs")
    a.factor_configs = select(p, a.factor_configs, FACTOR_LABELS, "--factor-configs")
    if a.normalise not in {c[0] for c in CONFIGS}:
        p.error(f"--normalise: unknown config {a.normalise!r}")
    images = parse_jdks(a, p)
    needed = []
    if a.phase in ("all", "minheap", "time"):
        needed += a.minheap_configs
    if a.phase == "factors":
        needed += a.factor_configs
    # `--phase all` with only the images of the minheap phase (as before the factors phase
    # existed) runs everything else and says that it skipped the factors phase.
    a.skip_factors = [c[1] for c in a.factor_configs if not images[c[1]]] if a.phase == "all" else []
    for c in needed:
        if not images[c[1]]:
            p.error(f"config {c[0]} needs --jdk {c[1]}=PATH (or --configs / --factor-configs without it)")
        if not a.plan_only and not Path(java_of(images, c)).exists():
            p.error(f"no java launcher at {java_of(images, c)}")
    out = Path(a.out).resolve()
    rc = 0
    for w in names:
        wa = argparse.Namespace(**vars(a))
        wa.workload = w
        wa.timeout = a.timeout if a.timeout is not None else workloads.TIMEOUT_S[w]
        wa.jar = a.jar or str(workloads.jar(w))
        wa.out = out / w if len(names) > 1 else out
        if not a.plan_only:
            wa.out.mkdir(parents=True, exist_ok=True)
            if a.phase != "report" and not Path(wa.jar).exists():
                p.error(f"{wa.jar} not found (scripts/openjdk-standin-build.sh {w} builds it)")
        if len(names) > 1:
            print(f"===== study: workload {w} into {wa.out} =====", flush=True)
        rc |= study(wa, images)
    if len(names) > 1 and not a.plan_only:
        plot_factors_all(out, names, a.normalise)
    return rc


def study(a, images):
    """The chosen phases of one workload's study."""
    if a.plan_only:
        print(f"# plan: workload {a.workload}, jar {a.jar}, out {a.out}, phase {a.phase}")
    if a.phase in ("all", "minheap"):
        phase_minheap(a, images, a.minheap_configs)
    if a.phase in ("all", "minheap", "baseline"):
        phase_baseline(a, {k: v for k, v in images.items() if v})
    if a.phase in ("all", "time"):
        phase_time(a, images, a.minheap_configs)
    if a.phase == "all" and a.skip_factors:
        print(f"study: factors phase skipped: no --jdk for {', '.join(sorted(set(a.skip_factors)))}", flush=True)
    elif a.phase in ("all", "factors"):
        phase_factors(a, images, a.factor_configs)
    if a.phase in ("all", "gccount"):
        subs = [(sub, cfgs) for sub, cfgs in (("time", a.minheap_configs), ("factors", a.factor_configs))
                if a.plan_only or (a.out / sub / "runs.csv").exists()]
        if not subs:
            sys.exit("study: run the time or factors phase first")
        for sub, cfgs in subs:
            phase_gccount(a, images, cfgs, sub)
    if a.plan_only:
        return 0
    phase_report(a, a.minheap_configs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
