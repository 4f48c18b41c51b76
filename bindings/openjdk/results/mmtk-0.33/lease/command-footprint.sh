#!/bin/bash
# What the mutators hold at each GC with SHARDSWEEP_ADOPT=block and =lease: the footprint report
# (SHARDSWEEP_REPORT_FOOTPRINT=1) of the lusearch stand-in at one heap per thread count (48
# threads at 31 MiB, 24 at 23, as ../reserve-blocksize), one 64K library, rounds ROUNDS (default
# 1 2); summary: summarize.py *.out.gz. IMAGES: a64 (this repository at 1729a09, 64 KiB blocks).
set -uo pipefail
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK image a64}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
D=$ROOT/bindings/openjdk/results/mmtk-0.33/lease
X=$ROOT/.build/lusearch-standin-index-default
for r in ${ROUNDS:-1 2}; do
  for run in "lease 48 31" "block 48 31" "lease 24 23" "block 24 23"; do
    set -- $run; adopt=$1 t=$2 heap=$3
    SHARDSWEEP_ADOPT=$adopt SHARDSWEEP_REPORT_FOOTPRINT=1 MMTK_PLAN=MarkSweep MMTK_THREADS=2 timeout 600 \
      "$I/a64/bin/java" -XX:+UseThirdPartyHeap -Xms${heap}m -Xmx${heap}m -jar "$J" --index "$X" -t $t -n 2 2>&1 \
      | gzip -9 > "$D/$adopt-t$t-r$r.out.gz"
    echo "$adopt t$t heap=${heap}m round $r rc=${PIPESTATUS[0]}" >> "$D/runs.txt"
  done
done
