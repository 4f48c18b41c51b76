#!/bin/bash
# Lending holes (SHARDSWEEP_HOLES, issue 20's mechanism from `holes_small`): minimum heap (0.5 MiB
# resolution) of shardsweep 64K with SHARDSWEEP_HOLES=0 (off, the default) and =1024, interleaved
# by thread count: the lusearch stand-in at 48/24/1 threads, then xalan at 48/1. IMAGES: an MMTk
# OpenJDK image l64 = libmmtk_openjdk.so of this repository at eabf638, SHARDSWEEP_BLOCK_KIB=64
# (bindings/openjdk/README.md). Then the correctness runs of checks.txt: `checks.sh` here.
set -u
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK image l64}
D=$ROOT/bindings/openjdk/results/mmtk-0.33/holes-lend
M=$ROOT/experiments/workloads/lusearch-standin/minheap.py
for run in "lusearch 48" "lusearch 24" "lusearch 1" "xalan 48" "xalan 1"; do
  set -- $run; w=$1 t=$2
  J=$("$ROOT/scripts/openjdk-standin-build.sh" "$w")
  guess=$([ "$w" = lusearch ] && echo $((12 + t / 3)) || echo $((8 + t * 2 / 3)))
  for holes in 0 1024; do
    SHARDSWEEP_HOLES=$holes MMTK_PLAN=MarkSweep python3 "$M" "$I/l64/bin/java" --workload "$w" --jar "$J" --size default \
      --guess "$guess" --threads "$t" --resolution 0.5 --timeout 300 --label "holes$holes" --out "$D/$w-holes$holes" \
      -- -XX:+UseThirdPartyHeap
  done
done
