#!/usr/bin/env bash
# The standalone purge delay (src/malloc/purge_delay.rs) measured: mimalloc-bench's workloads (ported:
# benches/src/msbench.rs) on shardsweep with SHARDSWEEP_PURGE_DELAY_MS=0 (every emptied block
# dropped at once, the behaviour before the delay) and =10 (the default), beside mimalloc v3 and
# v2, each run in its own process, runs interleaved (the order rotating every repetition), the
# median of REPS kept. Prints a Markdown table (time ms and peak RSS KiB, ratios to mimalloc v3)
# with the command and the load average before and after.
# Usage: scripts/bench-purge-delay.sh [REPS=5] [THREADS="1 2"] [WORKLOADS="larson xmalloc-test mstress alloc-test"]
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-5}
THREADS=${2:-1 2}
WORKLOADS=${3:-larson xmalloc-test mstress alloc-test}
cargo build --release -q -p shardsweep-bench --bin msbench
cargo build --release -q -p shardsweep-bench --bin msbench --features mimalloc-v2 --target-dir .build/target-mi2
python3 - "$REPS" "$THREADS" "$WORKLOADS" <<'PY'
import subprocess, statistics, sys, os, time
reps = int(sys.argv[1]); threads = [int(t) for t in sys.argv[2].split()]; works = sys.argv[3].split()
# The scale factors of scripts/bench-standalone.sh.
scale = {"larson": 20, "xmalloc-test": 10, "cache-scratch": 200, "cache-thrash": 200,
         "mstress": 40, "alloc-test": 15, "glibc-simple": 10, "cfrac": 10}
# (label, binary, allocator argument, extra environment)
cont = [("shardsweep delay 0", "target/release/msbench", "shardsweep", {"SHARDSWEEP_PURGE_DELAY_MS": "0"}),
        ("shardsweep delay 10", "target/release/msbench", "shardsweep", {"SHARDSWEEP_PURGE_DELAY_MS": "10"}),
        ("mimalloc v3", "target/release/msbench", "mimalloc", {}),
        ("mimalloc v2", ".build/target-mi2/release/msbench", "mimalloc", {})]
res = {}
load0 = open("/proc/loadavg").read().split()[:3]
for r in range(reps):
    for w in works:
        for t in threads:
            order = cont[r % len(cont):] + cont[:r % len(cont)]
            for label, b, a, env in order:
                e = dict(os.environ); e.update(env)
                out = subprocess.run([b, a, w, str(t), str(scale[w])], check=True,
                                     capture_output=True, text=True, env=e).stdout.split()
                res.setdefault((w, t, label), []).append((float(out[3]) * 1000, int(out[4])))
load1 = open("/proc/loadavg").read().split()[:3]
print(f"Command: `scripts/bench-purge-delay.sh {reps} \"{' '.join(map(str, threads))}\" \"{' '.join(works)}\"`; "
      f"median of {reps} interleaved runs; load average before {' '.join(load0)}, after {' '.join(load1)}.\n")
print("| workload | threads | " + " | ".join(f"{c[0]} ms (× v3) / RSS KiB" for c in cont) + " |")
print("|---|---:|" + "---:|" * len(cont))
for w in works:
    for t in threads:
        med = {c[0]: (statistics.median(x[0] for x in res[(w, t, c[0])]),
                      statistics.median(x[1] for x in res[(w, t, c[0])])) for c in cont}
        v3 = med["mimalloc v3"][0]
        cells = [f"{med[c[0]][0]:.1f} ({med[c[0]][0] / v3:.2f}×) / {med[c[0]][1]:.0f}" for c in cont]
        print(f"| {w} | {t} | " + " | ".join(cells) + " |")
PY
