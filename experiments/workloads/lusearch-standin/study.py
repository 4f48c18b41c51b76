#!/usr/bin/env python3
"""The lusearch stand-in under mmtk-openjdk, every plan and control in one session.

    study.py --stock JDK --ss64 JDK --ss4 JDK --out DIR
             [--threads "1 12 24 36 48"] [--time-threads "8 24"] [--invocations 5]
             [--iterations 3] [--timeout 90] [--resolution 0.5] [--configs a,b,...]
             [--phase all|minheap|baseline|time|gccount|report] [--gc-count off|perf]

JDK = a JDK image (the directory holding bin/java). The three images are meant to differ only in
`lib/server/libmmtk_openjdk.so`: stock = the patched mmtk copy without our feature (stock mmtk),
ss64 / ss4 = with feature `shardsweep`, SHARDSWEEP_BLOCK_KIB=64 / 4 at build time.

Configurations (label: image, environment):

    stock-ms     stock  MMTK_PLAN=MarkSweep             (mmtk's native_ms, 64 KiB blocks)
    markcompact  stock  MMTK_PLAN=MarkCompact
    immix        stock  MMTK_PLAN=Immix
    semispace    stock  MMTK_PLAN=SemiSpace
    ss64-page    ss64   MMTK_PLAN=MarkSweep             (shardsweep, page charging: default)
    ss64-block   ss64   MMTK_PLAN=MarkSweep SHARDSWEEP_ACCOUNTING=block  (the control)
    ss4-page     ss4    MMTK_PLAN=MarkSweep

Phase minheap: `minheap.py` for each configuration over --threads (MarkCompact also over
--time-threads), -Xms = -Xmx, into OUT/minheap/LABEL/{minheap,probes}.csv. A probe still running
at --timeout counts as too small in the search and as a *hang* in the report.

Phase time: at each of --time-threads, the heap is 2x MarkCompact's minimum at that thread
count; --invocations rounds, each running every configuration once (interleaved, in a rotated
order), the stand-in with -n --iterations. Records wall time (JVM start to exit), the stand-in's
last-iteration time and peak RSS (wait4's ru_maxrss of the JVM), and with --gc-count perf the
`sdt_mmtk:gc_start` USDT events counted by `perf stat` (where `perf probe` can add the event
and uprobes fire; on the machine of the committed results they counted nothing, so the GC
counts come from the gccount phase). Into OUT/time/runs.csv.

Phase gccount (after time): one more run of each time cell under gdb, counting mmtk-core's
`probe!(mmtk, gc_start)` with a breakpoint (mmtk 0.33.0 compiles its logs out of release
builds), into OUT/time/gcs.csv; the report's GC column comes from it.

Phase baseline (also after minheap): the peak RSS of `java -version` under MMTk on each image,
what every run pays before the heap holds anything, into OUT/baseline.csv; the report shows
each peak RSS also above it.

Phase report: OUT/README.md (tables, least-squares slopes, goals), OUT/minheap.png, OUT/rss.png.
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
]
sys.path.insert(0, str(HERE))
from minheap import PASSED, OneLineParser, classify, run_jvm  # noqa: E402  (one classification for every phase)
RUN_FIELDS = ["basis", "round", "label", "threads", "heap_mib", "outcome", "exit_code", "wall_s",
              "last_iteration_ms", "peak_rss_kib", "gcs", "timestamp", "env", "command", "detail"]


def clean_env(extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MMTK_", "SHARDSWEEP_"))}
    env.update(extra)
    return env


def java_of(images, cfg):
    return str(Path(images[cfg[1]]) / "bin" / "java")


def index_dir(size):
    return ROOT / ".build" / f"lusearch-standin-index-{size}"


# ---------------------------------------------------------------- minimum heap
def phase_minheap(a, images, configs):
    for cfg in configs:
        label, _, extra = cfg
        threads = a.threads
        if label == "markcompact":
            threads = sorted(set(a.threads) | set(a.time_threads))
        cmd = [sys.executable, str(HERE / "minheap.py"), java_of(images, cfg), "--jar", a.jar,
               "--threads", " ".join(map(str, threads)), "--resolution", str(a.resolution),
               "--timeout", str(a.timeout), "--label", label, "--out", str(a.out / "minheap" / label),
               "--", "-XX:+UseThirdPartyHeap"]
        print("+", " ".join(f"{k}={v}" for k, v in extra.items()), " ".join(map(shlex.quote, cmd)), flush=True)
        rc = subprocess.call(cmd, env=clean_env(extra))
        if rc != 0:
            print(f"study: minheap for {label} reported an error (exit {rc}); going on", flush=True)


def read_minheap(out, label):
    """threads -> (minheap MiB, peak RSS KiB), the last row per thread count."""
    path = out / "minheap" / label / "minheap.csv"
    res = {}
    if path.exists():
        for r in csv.DictReader(path.open()):
            if r["status"] == "ok" and r["minheap_mib"]:
                res[int(r["threads"])] = (float(r["minheap_mib"]),
                                          int(r["peak_rss_kib"]) if r.get("peak_rss_kib") else None)
    return res


def read_probes(out, label):
    path = out / "minheap" / label / "probes.csv"
    return list(csv.DictReader(path.open())) if path.exists() else []


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
    mins = [read_minheap(a.out, c[0]).get(counts[0]) for c in CONFIGS]
    if any(m is None for m in mins):
        sys.exit(f"study: --time-heap largest needs every configuration's minimum at {counts[0]} threads")
    return 2 * max(m[0] for m in mins)


def run_once(a, images, cfg, threads, heap_mib, rnd, use_perf, writer):
    label, _, extra = cfg
    kib = int(round(heap_mib * 1024))
    java_cmd = [java_of(images, cfg), "-XX:+UseThirdPartyHeap", f"-Xms{kib}k", f"-Xmx{kib}k", "-jar", a.jar,
                "-s", a.size, "-n", str(a.iterations), "-t", str(threads), "--index", str(index_dir(a.size)),
                "lusearch"]
    perf_out = a.out / "time" / "perf.tmp"
    cmd = (["perf", "stat", "-x", ",", "-o", str(perf_out), "-e", "sdt_mmtk:gc_start", "--"] + java_cmd
           if use_perf else java_cmd)
    t0 = time.time()
    r = run_jvm(cmd, clean_env(extra), a.out / "time", a.timeout)  # ru_maxrss: the JVM's, also under perf
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
    writer({"basis": a.time_heap, "round": rnd, "label": label, "threads": threads, "heap_mib": f"{heap_mib:g}",
            "outcome": outcome, "exit_code": "" if r.timed_out else code, "wall_s": f"{wall:.3f}",
            "last_iteration_ms": m.group(1).decode() if m else "", "peak_rss_kib": usage.ru_maxrss,
            "gcs": gcs, "timestamp": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "env": " ".join(f"{k}={v}" for k, v in sorted(extra.items())),
            "command": " ".join(map(shlex.quote, java_cmd)), "detail": detail})
    print(f" {label}:{outcome[0]}{wall:.1f}s/{gcs or '?'}gc", end="", flush=True)


def phase_time(a, images, configs):
    mc = read_minheap(a.out, "markcompact")
    missing = [t for t in a.time_threads if t not in mc]
    if missing:
        sys.exit(f"study: no MarkCompact minimum heap at {missing} threads: run the minheap phase first")
    if not index_dir(a.size).exists():  # minheap.py builds it; the same corpus for every run
        subprocess.run([java_of(images, configs[0]), "-jar", a.jar, "-s", a.size, "--build-index",
                        str(index_dir(a.size))], check=True, stdout=subprocess.DEVNULL)
    use_perf = False
    if a.gc_count == "perf":
        use_perf = perf_add(images) and perf_ready()
        if not use_perf:
            sys.exit("study: perf cannot count sdt_mmtk:gc_start here (perf probe failed)")
    (a.out / "time").mkdir(parents=True, exist_ok=True)
    path = a.out / "time" / "runs.csv"
    new = not path.exists()
    f = path.open("a", newline="")
    w = csv.DictWriter(f, fieldnames=RUN_FIELDS)
    if new:
        w.writeheader()

    def writer(row):
        w.writerow(row)
        f.flush()
    for t in a.time_threads:
        heap = time_heap(a, t, mc)
        for rnd in range(a.invocations):
            print(f"time ({a.time_heap}) -t {t} heap {heap:g} MiB round {rnd}:", end="", flush=True)
            order = configs[rnd % len(configs):] + configs[:rnd % len(configs)]  # rotated
            for cfg in order:
                run_once(a, images, cfg, t, heap, rnd, use_perf, writer)
            print(flush=True)
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


def phase_gccount(a, images, configs):
    """One extra run per (basis, threads, configuration) of the time phase, under gdb with a
    breakpoint at mmtk-core's `probe!(mmtk, gc_start)` (once per GC): mmtk 0.33.0 compiles its
    logs out of release builds, and perf's uprobes count nothing on this machine. Not timed: the
    time phase's runs stay unperturbed. Into OUT/time/gcs.csv."""
    runs_path = a.out / "time" / "runs.csv"
    if not runs_path.exists():
        sys.exit("study: run the time phase first")
    cells = sorted({(r["basis"], int(r["threads"]), float(r["heap_mib"])) for r in csv.DictReader(runs_path.open())})
    path = a.out / "time" / "gcs.csv"
    f = path.open("w", newline="")
    w = csv.DictWriter(f, fieldnames=["basis", "label", "threads", "heap_mib", "outcome", "gcs", "command"])
    w.writeheader()
    for basis, t, heap in cells:
        print(f"gc count ({basis}) -t {t} heap {heap:g} MiB:", end="", flush=True)
        for cfg in configs:
            label, image, extra = cfg
            lib = Path(images[image]) / "lib" / "server" / "libmmtk_openjdk.so"
            bind, probe = gc_probe_offsets(lib)
            script = a.out / "time" / f"gccount-{image}.gdb"
            script.write_text(GDB_SCRIPT.format(bind=bind, probe=probe))
            kib = int(round(heap * 1024))
            java_cmd = [java_of(images, cfg), "-XX:+UseThirdPartyHeap", f"-Xms{kib}k", f"-Xmx{kib}k", "-jar", a.jar,
                        "-s", a.size, "-n", str(a.iterations), "-t", str(t), "--index", str(index_dir(a.size)), "lusearch"]
            cmd = ["gdb", "-q", "-batch", "-x", str(script), "--args"] + java_cmd
            try:
                out = subprocess.run(cmd, capture_output=True, env=clean_env(extra), timeout=a.timeout * 3,
                                     cwd=a.out / "time").stdout
            except subprocess.TimeoutExpired:
                out = b""
            hits = re.search(rb"^2\s+breakpoint.*\n(?:.*\n)*?\s+breakpoint already hit (\d+) time", out, re.M)
            outcome = "pass" if PASSED.search(out) else "oom" if b"OutOfMemoryError" in out else "error"
            gcs = hits.group(1).decode() if hits else ("0" if re.search(rb"^2\s+breakpoint", out, re.M) else "")
            w.writerow({"basis": basis, "label": label, "threads": t, "heap_mib": f"{heap:g}", "outcome": outcome,
                        "gcs": gcs, "command": " ".join(f"{k}={v}" for k, v in sorted(extra.items())) + " "
                        + " ".join(map(shlex.quote, cmd))})
            f.flush()
            print(f" {label}:{outcome[0]}/{gcs or '?'}gc", end="", flush=True)
        print(flush=True)
    f.close()


def read_gcs(out):
    path = out / "time" / "gcs.csv"
    res = {}
    if path.exists():
        for r in csv.DictReader(path.open()):
            if r["outcome"] == "pass" and r["gcs"]:
                res[(r["basis"], r["label"], int(r["threads"]))] = int(r["gcs"])
    return res


# ---------------------------------------------------------------- start-up RSS
def phase_baseline(a, images):
    """Peak RSS of `java -version` on each image under MMTk (median of 3): what every run pays
    before the heap holds anything (with compressed oops, mostly mmtk-core's SFT map: ~512 MiB,
    bindings/openjdk/README.md). Into OUT/baseline.csv."""
    rows = []
    for name, img in sorted(images.items()):
        if not img:
            continue
        cmd = [str(Path(img) / "bin" / "java"), "-XX:+UseThirdPartyHeap", "-Xms16m", "-Xmx16m", "-version"]
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
    with (a.out / "baseline.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["image", "java", "peak_rss_kib", "command"])
        w.writeheader()
        w.writerows(rows)


def read_baseline(out):
    path = out / "baseline.csv"
    return {r["image"]: int(r["peak_rss_kib"]) for r in csv.DictReader(path.open())} if path.exists() else {}


# ---------------------------------------------------------------- report
sys.path.insert(0, str(HERE.parents[1]))  # experiments/: the fit shared with exp.py
from studylib.heapsearch import slope as lsq  # noqa: E402  lsq(points): least-squares slope or None


def phase_report(a, configs):
    labels = [c[0] for c in configs]
    mh = {l: read_minheap(a.out, l) for l in labels}
    lines = []
    P = lines.append
    P("# lusearch stand-in under mmtk-openjdk: every plan and control, one session\n")
    P(f"Generated by `experiments/workloads/lusearch-standin/study.py --phase report` from the CSVs in this "
      f"directory ({datetime.date.today().isoformat()}).\n")
    base = read_baseline(a.out)
    image = {c[0]: c[1] for c in CONFIGS}
    above = lambda l, rss: rss - base[image[l]] if image[l] in base else None
    P("## Minimum heap (MiB) and peak RSS at that heap (MiB)\n")
    P("| threads | " + " | ".join(labels) + " |")
    P("|---:|" + "---:|" * len(labels))
    for t in a.threads:
        cells = []
        for l in labels:
            v = mh[l].get(t)
            if v is None:
                cells.append("—")
            elif not v[1]:
                cells.append(f"{v[0]:g}")
            else:
                up = above(l, v[1])
                cells.append(f"{v[0]:g} ({v[1] / 1024:.0f}" + (f"; +{up / 1024:.0f}" if up is not None else "") + ")")
        P(f"| {t} | " + " | ".join(cells) + " |")
    slopes = {l: lsq([(t, mh[l][t][0]) for t in a.threads if t in mh[l]]) for l in labels}
    rss_slopes = {l: lsq([(t, mh[l][t][1] / 1024) for t in a.threads if t in mh[l] and mh[l][t][1]])
                  for l in labels}
    fmt = lambda x: "—" if x is None else f"{x:.3f}"
    P("| slope, least squares (MiB/thread) | " + " | ".join(fmt(slopes[l]) for l in labels) + " |")
    P("| peak-RSS slope (MiB/thread) | " + " | ".join(fmt(rss_slopes[l]) for l in labels) + " |")
    P("\nEach cell: the smallest passing `-Xms = -Xmx`, and in brackets the JVM's peak RSS "
      "(`wait4` `ru_maxrss`) in that passing run; after `+`, that peak RSS less the image's "
      "start-up RSS (`baseline.csv`: `java -version` under MMTk, "
      + ", ".join(f"{k} {v / 1024:.0f} MiB" for k, v in sorted(base.items())) +
      "; with compressed oops mostly mmtk-core's SFT map, the same in every plan).\n")
    P("| peak RSS above start-up at the largest thread count, ratio to | " + " | ".join(labels) + " |")
    P("|---|" + "---:|" * len(labels))
    top = max(a.threads)
    for ref in ("stock-ms", "markcompact"):
        r = mh[ref].get(top)
        cells = []
        for l in labels:
            v = mh[l].get(top)
            if v and v[1] and r and r[1] and above(l, v[1]) is not None and above(ref, r[1]):
                cells.append(f"{above(l, v[1]) / above(ref, r[1]):.2f}x")
            else:
                cells.append("—")
        P(f"| {ref} ({top} threads) | " + " | ".join(cells) + " |")
    P("")
    # hangs and crashes over every probe
    P("## Probes: hangs and crashes\n")
    P("| config | probes | pass | out of memory | timeout (hang) | error / crash |")
    P("|---|---:|---:|---:|---:|---:|")
    tot = {"pass": 0, "oom": 0, "timeout": 0, "error": 0}
    for l in labels:
        pr = read_probes(a.out, l)
        c = {k: sum(1 for r in pr if r["outcome"] == k) for k in tot}
        for k in tot:
            tot[k] += c[k]
        P(f"| {l} | {len(pr)} | {c['pass']} | {c['oom']} | {c['timeout']} | {c['error']} |")
    P(f"| all | {sum(tot.values())} | {tot['pass']} | {tot['oom']} | {tot['timeout']} | {tot['error']} |\n")
    # time
    runs_path = a.out / "time" / "runs.csv"
    med = {}
    all_runs = list(csv.DictReader(runs_path.open())) if runs_path.exists() else []
    bases = [b for b in ("markcompact", "largest") if any(r.get("basis", "markcompact") == b for r in all_runs)]
    basis_text = {"markcompact": "2x MarkCompact's minimum heap (the issue's definition)",
                  "largest": "2x the largest minimum heap of any configuration (at the smallest "
                             "measured thread count >= the time thread count): every configuration runs"}
    goal_med = {}
    gc_counts = read_gcs(a.out)
    for basis in bases:
        runs = [r for r in all_runs if r.get("basis", "markcompact") == basis]
        med = {}
        ok = lambda l, t: [r for r in runs if r["label"] == l and int(r["threads"]) == t and r["outcome"] == "pass"]
        for t in a.time_threads:
            for l in labels:
                if ok(l, t):
                    med[(l, t)] = statistics.median(float(r["wall_s"]) for r in ok(l, t))
        ratio = lambda l, ref, t: f"{med[(l, t)] / med[(ref, t)]:.2f}x" if (ref, t) in med else "—"
        P(f"## Time at {basis_text[basis]}\n")
        P("Median over the interleaved invocations of the JVM's wall time (start to exit, "
          f"`-n {a.iterations}`), with the median last-iteration time and peak RSS of the "
          "same passing runs. Ratios are of the medians. GCs: from one extra run of the same cell "
          "under gdb (`--phase gccount`, `time/gcs.csv`), counting mmtk-core's `gc_start` probe.\n")
        for t in a.time_threads:
            rs = [r for r in runs if int(r["threads"]) == t]
            if not rs:
                continue
            P(f"### {t} threads, heap {rs[0]['heap_mib']} MiB\n")
            P("| config | runs (pass) | wall s | last iteration ms | vs stock-ms | vs immix | GCs | peak RSS MiB |")
            P("|---|---:|---:|---:|---:|---:|---:|---:|")
            for l in labels:
                n = sum(1 for r in rs if r["label"] == l)
                good = ok(l, t)
                if not good:
                    why = sorted({r["outcome"] for r in rs if r["label"] == l})
                    P(f"| {l} | {n} (0: {', '.join(why)}) | — | — | — | — | — | — |")
                    continue
                it = statistics.median(float(r["last_iteration_ms"]) for r in good)
                gcs = [int(r["gcs"]) for r in good if r["gcs"] and r["gcs"] != "0"]
                if not gcs and (basis, l, t) in gc_counts:
                    gcs = [gc_counts[(basis, l, t)]]
                rss = statistics.median(int(r["peak_rss_kib"]) for r in good) / 1024
                P(f"| {l} | {n} ({len(good)}) | {med[(l, t)]:.2f} | {it:.0f} | {ratio(l, 'stock-ms', t)} | "
                  f"{ratio(l, 'immix', t)} | {statistics.median(gcs) if gcs else '—'} | {rss:.0f} |")
            P("")
        goal_med[basis] = med
    # goals
    P("## Goals (issue 11)\n")
    mcs = slopes.get("markcompact")
    for l in ("ss64-page", "ss64-block", "ss4-page"):
        s = slopes.get(l)
        if s is not None and mcs:
            P(f"- {l}: slope {s:.3f} = {s / mcs:.2f}x MarkCompact's {mcs:.3f} (goal <= 1.1x)")
        top = max(a.threads)
        if top in mh.get(l, {}) and top in mh.get("markcompact", {}):
            x, y = mh[l][top][0], mh["markcompact"][top][0]
            P(f"- {l}: at {top} threads {x:g} MiB = {x / y:.2f}x MarkCompact's {y:g} (goal <= 1.25x)")
    for basis, med in goal_med.items():
        for t in a.time_threads:
            l = "ss64-page"
            if (l, t) not in med:
                continue
            s, i = med.get(("stock-ms", t)), med.get(("immix", t))
            vs_s = f"{med[(l, t)] / s:.2f}x stock MarkSweep's" if s else "stock MarkSweep did not pass at this heap"
            vs_i = f"{med[(l, t)] / i:.2f}x Immix's" if i else "Immix did not pass at this heap"
            P(f"- {l} at {t} threads, heap {basis_text[basis].split(' (')[0].split(':')[0]}: total time {vs_s} "
              f"(goal <= 0.85x), {vs_i} (goal <= 1.1x)")
    P(f"- hangs (probes killed at the {a.timeout:g} s timeout): {tot['timeout']}; errors / crashes: {tot['error']} (goal 0 and 0)")
    (a.out / "README.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    plot(a, labels, mh)


def plot(a, labels, mh):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("study: matplotlib missing, no plots")
        return
    for what, idx, name, ylabel in (("minimum heap", 0, "minheap.png", "minimum heap (MiB)"),
                                    ("peak RSS at the minimum heap", 1, "rss.png", "peak RSS (MiB)")):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for l in labels:
            pts = [(t, v[idx] if idx == 0 else v[idx] / 1024) for t, v in sorted(mh[l].items())
                   if t in a.threads and v[idx]]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=l)
        ax.set_xlabel("stand-in query threads")
        ax.set_ylabel(ylabel)
        ax.set_title(f"lusearch stand-in under mmtk-openjdk: {what}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(a.out / name, dpi=110)
        plt.close(fig)


def main(argv):
    p = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for b in ("stock", "ss64", "ss4"):
        p.add_argument(f"--{b}", help=f"JDK image for the {b} library")
    p.add_argument("--out", required=True)
    p.add_argument("--jar", default=str(HERE / "target" / "lusearch-standin.jar"))
    p.add_argument("--size", default="default", choices=["small", "default", "large"])
    p.add_argument("--threads", default="1 12 24 36 48")
    p.add_argument("--time-threads", default="8 24")
    p.add_argument("--invocations", type=int, default=5)
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--timeout", type=float, default=90.0)
    p.add_argument("--resolution", type=float, default=0.5)
    p.add_argument("--configs", help="comma-separated labels (default: all)")
    p.add_argument("--phase", default="all", choices=["all", "minheap", "baseline", "time", "gccount", "report"])
    p.add_argument("--gc-count", default="off", choices=["off", "perf"])
    p.add_argument("--time-heap", default="markcompact", choices=["markcompact", "largest"],
                   help="time phase heap: 2x MarkCompact's minimum, or 2x the largest minimum of any configuration")
    a = p.parse_args(argv)
    try:
        a.threads = [int(x) for x in a.threads.split()]
        a.time_threads = [int(x) for x in a.time_threads.split()]
    except ValueError:
        p.error("--threads and --time-threads take whole numbers, e.g. \"1 12 24\"")
    a.out = Path(a.out).resolve()
    a.out.mkdir(parents=True, exist_ok=True)
    configs = CONFIGS
    if a.configs:
        known = {c[0] for c in CONFIGS}
        bad = [x for x in a.configs.split(",") if x not in known]
        if bad:
            p.error(f"unknown config {bad[0]!r}: valid ones are {', '.join(c[0] for c in CONFIGS)}")
        configs = [c for c in CONFIGS if c[0] in a.configs.split(",")]
    images = {b: getattr(a, b) for b in ("stock", "ss64", "ss4")}
    if a.phase in ("all", "minheap", "baseline", "time", "gccount"):
        for c in configs:
            if not images[c[1]]:
                p.error(f"config {c[0]} needs --{c[1]} JDK")
            if not Path(java_of(images, c)).exists():
                p.error(f"no java launcher at {java_of(images, c)}")
    if a.phase in ("all", "minheap"):
        phase_minheap(a, images, configs)
    if a.phase in ("all", "minheap", "baseline"):
        phase_baseline(a, images)
    if a.phase in ("all", "time"):
        phase_time(a, images, configs)
    if a.phase in ("all", "gccount"):
        phase_gccount(a, images, configs)
    phase_report(a, CONFIGS if a.configs is None else configs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
