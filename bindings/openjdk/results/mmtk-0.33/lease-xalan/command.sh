#!/bin/bash
# The adoption unit on a second workload: the xalan stand-in's minimum heap at 48 and 24 threads,
# 0.5 MiB resolution, one 64K library run with SHARDSWEEP_ADOPT=lease and =block, interleaved by
# thread count and round (ROUNDS, default 1). A minimum heap does not depend on speed; taken
# beside other work on 2 cores. IMAGES: a directory with the MMTk OpenJDK image b64 (this
# repository at 164ff71, SHARDSWEEP_BLOCK_KIB=64; IMG64 names another). ADOPTS: the
# SHARDSWEEP_ADOPT values (default "lease block"); OUTDIR: where the searches go (default here).
set -u
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK image b64}
D=${OUTDIR:-$ROOT/bindings/openjdk/results/mmtk-0.33/lease-xalan}
J=$("$ROOT/scripts/openjdk-standin-build.sh" xalan)
M=$ROOT/experiments/workloads/lusearch-standin/minheap.py
G=${IMG64:-b64}
for r in ${ROUNDS:-1}; do
  for t in ${THREADS:-48 24}; do
    for adopt in ${ADOPTS:-lease block}; do
      env MMTK_PLAN=MarkSweep SHARDSWEEP_ADOPT=$adopt python3 "$M" "$I/$G/bin/java" --workload xalan --jar "$J" \
        --size default --guess $((10 + 3 * t / 5)) --threads "$t" --resolution 0.5 --timeout 300 \
        --label "ss64-$adopt-r$r" --out "$D/ss64-$adopt" -- -XX:+UseThirdPartyHeap
    done
  done
done
