#!/bin/bash
# Immix beside command-slope-quorum.sh: the lusearch stand-in's minimum heap at 48, 24 and 1 threads,
# 0.5 MiB resolution, a heap passing when 2 of its 3 runs pass, ROUNDS rounds (default 1).
# IMAGES: hstock (stock mmtk 0.33.0). Output: slope-quorum/immix/
#   IMAGES=<dir of MMTk OpenJDK images> bindings/openjdk/results/mmtk-0.33/headroom-4k/command-slope-quorum-immix.sh
set -u
D=$(cd "$(dirname "$0")" && pwd); ROOT=$(git -C "$D" rev-parse --show-toplevel)
I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK image hstock}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
for r in ${ROUNDS:-1}; do
  for t in 48 24 1; do
    MMTK_PLAN=Immix python3 "$ROOT/experiments/workloads/lusearch-standin/minheap.py" "$I/hstock/bin/java" \
      --workload lusearch --jar "$J" --size default --guess $((10 + t / 3)) --threads "$t" --resolution 0.5 \
      --timeout 300 --quorum 2/3 --label "immix-r$r" --out "$D/slope-quorum/immix" -- -XX:+UseThirdPartyHeap
  done
done
