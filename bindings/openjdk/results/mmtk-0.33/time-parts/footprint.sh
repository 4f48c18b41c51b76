#!/bin/bash
# What the space and the large-object space hold when a GC comes, counting resident pages (the
# default) against pages in use: the lusearch stand-in at 19 MiB, 8 threads, 2 iterations, under
# SHARDSWEEP_REPORT_FOOTPRINT=1 (a line per GC, after marking, before the sweep); the means over the
# GCs but the first, MiB. IMAGES: f64 (this repository at 96e4c99).
#   IMAGES=<dir> bindings/openjdk/results/mmtk-0.33/time-parts/footprint.sh > footprint.txt
set -u
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
X=$ROOT/.build/lusearch-standin-index-default
for c in resident in-use; do
  SHARDSWEEP_COUNT=$c SHARDSWEEP_REPORT_FOOTPRINT=1 MMTK_PLAN=MarkSweep MMTK_THREADS=2 "$I/f64/bin/java" \
    -XX:+UseThirdPartyHeap -Xms19m -Xmx19m -jar "$J" --index "$X" -t 8 -n 2 2>&1 >/dev/null |
    grep '^shardsweep-footprint gc=' | python3 -c '
import statistics, sys
rows = [dict(kv.split("=", 1) for kv in l.split()[1:] if "=" in kv) for l in sys.stdin][1:]
mib = lambda k, unit: statistics.mean(float(r[k]) for r in rows) * unit / 2**20
sp, los = mib("reported_pages", 4096), mib("los_pages", 4096)
live, free, dead, idle = (mib(k, 1) for k in ("live", "free", "dead", "idle"))
print(f"{sys.argv[1]}: {len(rows) + 1} GCs; space {sp:.2f} + large objects {los:.2f} = {sp + los:.2f} MiB of the heap of 19;"
      f" live {live:.2f}, free cells {free:.2f}, dead {dead:.2f}, idle {idle:.2f}")' "$c"
done
