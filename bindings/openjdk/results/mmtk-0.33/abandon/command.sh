#!/bin/bash
# Issue 20's control "keep swept blocks with their mutator against abandoning them": the lusearch
# stand-in's minimum heap (1/24/48 threads, 0.5 MiB resolution) under shardsweep 64K with the
# default (eager sweep, every partly used block abandoned to the global pools at a sweep),
# SHARDSWEEP_ABANDON_ALL=0 (only idle size classes abandoned: a mutator keeps its swept blocks),
# and SHARDSWEEP_SWEEP=lazy (the owner sweeps its own blocks; nothing abandoned but idle classes),
# interleaved by thread count. IMAGES: an MMTk OpenJDK image h64 = libmmtk_openjdk.so of this
# repository at b966330, SHARDSWEEP_BLOCK_KIB=64 (bindings/openjdk/README.md).
set -u
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK image h64}
D=$ROOT/bindings/openjdk/results/mmtk-0.33/abandon
J=$ROOT/experiments/workloads/lusearch-standin/target/lusearch-standin.jar
M=$ROOT/experiments/workloads/lusearch-standin/minheap.py
for t in 1 24 48; do
  for cfg in "default" "abandon-all-0 SHARDSWEEP_ABANDON_ALL=0" "lazy SHARDSWEEP_SWEEP=lazy"; do
    set -- $cfg; label=$1; shift
    env MMTK_PLAN=MarkSweep "$@" python3 "$M" "$I/h64/bin/java" --workload lusearch --jar "$J" --size default \
      --guess $((12 + t / 3)) --threads "$t" --resolution 0.5 --timeout 180 --label "$label" --out "$D/$label" \
      -- -XX:+UseThirdPartyHeap
  done
done
