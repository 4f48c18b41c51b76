#!/bin/bash
# The large-object space at each GC, on the JVM and on synthvm's JVM-fitted model (issue 20 part
# 4): the footprint report (SHARDSWEEP_REPORT_FOOTPRINT=1) with its large-object figures
# (los_pages before the sweeps, a shardsweep-footprint-los line of the survivors by size), for the
# shardsweep 4K and 64K builds of one commit, the lusearch stand-in at 1, 24 and 48 threads at
# 13, 23 and 32 MiB (just above the builds' minimum heaps), two iterations; then synthvm's
# lusearch-jvm-fit (--compressed-layout) with the same builds, threads and heaps.
# Summary: summarize.py *.out.gz > summary.md.
# IMAGES: MMTk OpenJDK images c64 and c4 (libmmtk_openjdk.so of this repository at 2819899,
# SHARDSWEEP_BLOCK_KIB=64 and 4; bindings/openjdk/README.md). synthvm: scripts/build-variants.sh
# ss64k ss4k at the same commit. WL: the synthvm workload file (default: lusearch-jvm-fit.wl, the
# first model); SYNTHVM_ONLY=1 skips the JVM, SUFFIX names the synthvm files: the refitted model's
# runs are `SYNTHVM_ONLY=1 SUFFIX=-fit-los WL=bindings/synthvm/workloads/lusearch-jvm-fit-los.wl`.
# ROUND=N (N > 1) names a further round's files `jvm-rN-…` and `synthvm<SUFFIX>-rN-…`.
set -uo pipefail
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK images c64, c4}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
D=$ROOT/bindings/openjdk/results/mmtk-0.33/large-objects
X=$ROOT/.build/lusearch-standin-index-default
WL=${WL:-$ROOT/bindings/synthvm/workloads/lusearch-jvm-fit.wl}
R=${ROUND:+-r$ROUND}
for run in "48 32" "24 23" "1 13"; do
  set -- $run; t=$1 heap=$2
  if [ -z "${SYNTHVM_ONLY:-}" ]; then
    for b in 64 4; do
      SHARDSWEEP_REPORT_FOOTPRINT=1 MMTK_PLAN=MarkSweep MMTK_THREADS=2 timeout 600 \
        "$I/c$b/bin/java" -XX:+UseThirdPartyHeap -Xms${heap}m -Xmx${heap}m -jar "$J" --index "$X" -t $t -n 2 2>&1 \
        | gzip -9 > "$D/jvm${R}-ss$b-t$t.out.gz"
      echo "jvm${R} ss$b t$t heap=${heap}m rc=${PIPESTATUS[0]}" >> "$D/runs.txt"
    done
  fi
  for b in 64 4; do
    SHARDSWEEP_REPORT_FOOTPRINT=1 MMTK_THREADS=2 timeout 600 \
      "$ROOT/.build/bin/synthvm-ss${b}k" --compressed-layout --plan MarkSweep -t $t --heap $heap "$WL" 2>&1 \
      | gzip -9 > "$D/synthvm${SUFFIX:-}${R}-ss$b-t$t.out.gz"
    echo "synthvm${SUFFIX:-}${R} ss$b t$t heap=${heap}m rc=${PIPESTATUS[0]}" >> "$D/runs.txt"
  done
done
