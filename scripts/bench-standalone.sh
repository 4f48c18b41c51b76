#!/usr/bin/env bash
# mimalloc-bench's workloads (ported in Rust: benches/src/msbench.rs) on shardsweep's standalone
# mode, the `mimalloc` crate and the system allocator, each run in its own process
# (benches/src/bin/msbench.rs) so peak RSS is the allocator's. Runs are interleaved (every
# repetition runs every workload x threads x allocator, the allocator order rotating), the
# median of REPS is kept, and the table goes into benches/RESULTS.md between the markers
# `<!-- standalone:begin -->` and `<!-- standalone:end -->`.
# Usage: scripts/bench-standalone.sh [REPS=5] [THREADS="1 2 4"]
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-5}
THREADS=${2:-1 2 4}
cargo build --release -q -p shardsweep-bench --bin msbench
# mimalloc v2 cannot be linked next to v3 (the crate's default): a second binary.
cargo build --release -q -p shardsweep-bench --bin msbench --features mimalloc-v2 --target-dir .build/target-mi2
python3 - "$REPS" "$THREADS" <<'PY'
import subprocess, statistics, sys, math, time, re, os
reps, threads = int(sys.argv[1]), [int(t) for t in sys.argv[2].split()]
# Scale factors: mimalloc-bench's parameters, repetitions scaled to ~0.1-1 s a run here.
scale = {"larson": 20, "xmalloc-test": 10, "cache-scratch": 200, "cache-thrash": 200,
         "mstress": 40, "alloc-test": 15, "glibc-simple": 10, "cfrac": 10}
allocs = ["shardsweep", "mimalloc", "mimalloc-v2", "system"]
# (binary, allocator argument) of each contender
bins = {a: ("target/release/msbench", a) for a in allocs}
bins["mimalloc-v2"] = (".build/target-mi2/release/msbench", "mimalloc")
res = {}
load0 = open("/proc/loadavg").read().split()[:3]
t0 = time.time()
for r in range(reps):
    for w in scale:
        for t in threads:
            order = allocs[r % 4:] + allocs[:r % 4]
            for a in order:
                out = subprocess.run([bins[a][0], bins[a][1], w, str(t), str(scale[w])],
                                     check=True, capture_output=True, text=True).stdout.split()
                res.setdefault((w, t, a), []).append((float(out[3]), int(out[4])))
load1 = open("/proc/loadavg").read().split()[:3]
lines = []
lines.append("<!-- standalone:begin -->")
lines.append("## 4. mimalloc-bench workloads (ported), time and peak RSS: shardsweep, mimalloc v3 and v2, system")
lines.append("")
lines.append(f"Command: `scripts/bench-standalone.sh {reps} \"{' '.join(map(str, threads))}\"` "
             f"({time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, {os.cpu_count()} cores, "
             f"load average {' '.join(load0)} at start, {' '.join(load1)} at the end: "
             f"**a loaded machine**; {time.time() - t0:.0f} s). Median of {reps} interleaved runs, "
             "each in its own process; ratios are shardsweep / mimalloc (time: < 1 is faster; "
             "throughput ratio = 1 / time ratio). Workloads: `benches/src/msbench.rs` "
             "(mimalloc-bench's parameters, repetitions scaled by the `scale` column). `mimalloc` is the "
             "crate's default build (mimalloc v3), `mi-v2` its `v2` feature (a second binary).")
lines.append("")
lines.append("| workload | threads | scale | shardsweep s | mimalloc s | mi-v2 s | system s | time ss/mi | time ss/mi-v2 | RSS ss MiB | RSS mi MiB | RSS mi-v2 MiB | RSS sys MiB | RSS ss/mi |")
lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
tr, rr, t2 = {}, {}, {}
for w in scale:
    for t in threads:
        med = {a: (statistics.median(x[0] for x in res[(w, t, a)]),
                   statistics.median(x[1] for x in res[(w, t, a)]) / 1024) for a in allocs}
        s, m, v, y = med["shardsweep"], med["mimalloc"], med["mimalloc-v2"], med["system"]
        t2[(w, t)] = s[0] / v[0]
        tr[(w, t)] = s[0] / m[0]; rr[(w, t)] = s[1] / m[1]
        lines.append(f"| {w} | {t} | {scale[w]} | {s[0]:.3f} | {m[0]:.3f} | {v[0]:.3f} | {y[0]:.3f} | "
                     f"{tr[(w, t)]:.2f} | {t2[(w, t)]:.2f} | {s[1]:.1f} | {m[1]:.1f} | {v[1]:.1f} | {y[1]:.1f} | {rr[(w, t)]:.2f} |")
g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
lines.append("")
for t in threads:
    v = [tr[(w, t)] for w in scale]
    lines.append(f"- {t} thread(s): time ratio geomean {g(v):.2f} (throughput {1/g(v):.2f}x mimalloc's), "
                 f"best {min(v):.2f}, worst {max(v):.2f} ({max(scale, key=lambda w: tr[(w, t)])}); "
                 f"RSS ratio geomean {g([rr[(w, t)] for w in scale]):.2f}, worst {max(rr[(w, t)] for w in scale):.2f}")
allv = list(tr.values())
lines.append(f"- against mimalloc v2: time ratio geomean {g(list(t2.values())):.2f}, best {min(t2.values()):.2f}, worst {max(t2.values()):.2f}")
lines.append(f"- all: time ratio geomean {g(allv):.2f}, best {min(allv):.2f}, worst {max(allv):.2f}; "
             f"RSS ratio geomean {g(list(rr.values())):.2f}, worst {max(rr.values()):.2f}")
lines.append("<!-- standalone:end -->")
section = "\n".join(lines) + "\n"
print(section)
path = "benches/RESULTS.md"
text = open(path).read()
if "<!-- standalone:begin -->" in text:
    text = re.sub(r"<!-- standalone:begin -->.*?<!-- standalone:end -->\n", lambda _: section, text, flags=re.S)
else:
    text = text.rstrip("\n") + "\n\n" + section
open(path, "w").write(text)
PY
