#!/bin/bash
# Issue 20's control "a cell-reuse order that fills the fullest pages first so that sparse pages
# drain": the lusearch stand-in's minimum heap (1/24/48 threads, 0.5 MiB resolution) under
# shardsweep 64K with SHARDSWEEP_REUSE=address (the default) and =densest, beside the 4K build
# and MarkCompact, interleaved by thread count. IMAGES: MMTk OpenJDK images r64 (this repository
# at 47c52fa, SHARDSWEEP_BLOCK_KIB=64), h4 (b966330, SHARDSWEEP_BLOCK_KIB=4) and hstock (stock
# mmtk 0.33.0), built as bindings/openjdk/README.md says.
set -u
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK images r64, h4, hstock}
D=$ROOT/bindings/openjdk/results/mmtk-0.33/reuse
J=$ROOT/experiments/workloads/lusearch-standin/target/lusearch-standin.jar
M=$ROOT/experiments/workloads/lusearch-standin/minheap.py
for t in ${THREADS:-1 24 48}; do
  for cfg in "ss64-address r64 MarkSweep SHARDSWEEP_REUSE=address" "ss64-densest r64 MarkSweep SHARDSWEEP_REUSE=densest" \
             "ss4 h4 MarkSweep" "markcompact hstock MarkCompact"; do
    set -- $cfg; label=$1; image=$2; plan=$3; shift 3
    env MMTK_PLAN=$plan "$@" python3 "$M" "$I/$image/bin/java" --workload lusearch --jar "$J" --size default \
      --guess $((12 + t / 3)) --threads "$t" --resolution 0.5 --timeout 180 --label "$label" --out "$D/$label" \
      -- -XX:+UseThirdPartyHeap
  done
done
