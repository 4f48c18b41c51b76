#!/bin/bash
# Issue 20's reuse-order control, the other way round: SHARDSWEEP_REUSE=sparsest (a sweep lists
# the pages with the smallest share of live cells first, so that what a mutator allocates between
# GCs lies on few pages and the objects it still uses at the next GC pin few) against the default
# (address), with the 4K build and MarkCompact beside them, the lusearch stand-in's minimum heap at
# 1/24/48 threads, 0.5 MiB resolution, interleaved by thread count. IMAGES: MMTk OpenJDK images r64s
# (this repository at 6418b51, SHARDSWEEP_BLOCK_KIB=64), h4 (b966330, SHARDSWEEP_BLOCK_KIB=4) and
# hstock (stock mmtk 0.33.0), built as bindings/openjdk/README.md says.
set -u
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK images r64s, h4, hstock}
D=$ROOT/bindings/openjdk/results/mmtk-0.33/reuse-sparsest
J=$ROOT/experiments/workloads/lusearch-standin/target/lusearch-standin.jar
M=$ROOT/experiments/workloads/lusearch-standin/minheap.py
for t in ${THREADS:-1 24 48}; do
  for cfg in "ss64-address r64s MarkSweep SHARDSWEEP_REUSE=address" "ss64-sparsest r64s MarkSweep SHARDSWEEP_REUSE=sparsest" \
             "ss4 h4 MarkSweep" "markcompact hstock MarkCompact"; do
    set -- $cfg; label=$1; image=$2; plan=$3; shift 3
    env MMTK_PLAN=$plan "$@" python3 "$M" "$I/$image/bin/java" --workload lusearch --jar "$J" --size default \
      --guess $((12 + t / 3)) --threads "$t" --resolution 0.5 --timeout 300 --label "$label" --out "$D/$label" \
      -- -XX:+UseThirdPartyHeap
  done
done
