#!/bin/bash
# Is xalan's 64K minimum at 48 threads (41 MiB under l64, 37 under h64 in the one-image-set study)
# a regression between b966330 and eabf638, or the spread? The three candidates interleaved, three
# rounds, 0.5 MiB resolution: l64 (this repository at eabf638; zeroing default `binding` under
# mmtk-openjdk since c73f51b), l64 with SHARDSWEEP_ZERO=space (the space zeroes, b966330's default),
# h64 (b966330). A minimum heap does not depend on speed; taken beside other work on 2 cores.
# IMAGES: a directory with the MMTk OpenJDK images l64 and h64.
set -u
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK images l64, h64}
D=$ROOT/bindings/openjdk/results/mmtk-0.33/xalan-zero
J=$("$ROOT/scripts/openjdk-standin-build.sh" xalan)
M=$ROOT/experiments/workloads/lusearch-standin/minheap.py
t=${THREADS:-48}
for r in ${ROUNDS:-1 2 3}; do
  for cfg in "l64 l64" "l64-zero-space l64 SHARDSWEEP_ZERO=space" "h64 h64"; do
    set -- $cfg; label=$1; image=$2; shift 2
    env MMTK_PLAN=MarkSweep "$@" python3 "$M" "$I/$image/bin/java" --workload xalan --jar "$J" --size default \
      --guess 39 --threads "$t" --resolution 0.5 --timeout 300 --label "$label-r$r" --out "$D/$label" \
      -- -XX:+UseThirdPartyHeap
  done
done
