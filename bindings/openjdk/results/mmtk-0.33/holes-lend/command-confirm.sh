#!/bin/bash
# A second run of lending holes on lusearch, with the 4K build and MarkCompact beside it for the
# ratios (the minimum heap at 24 and 48 threads, 0.5 MiB resolution, interleaved by thread count;
# taken beside the test command on the same 2 cores: a minimum heap does not depend on speed).
# IMAGES: l64 (as command.sh), h4 (this repository at b966330, SHARDSWEEP_BLOCK_KIB=4), hstock
# (stock mmtk 0.33.0).
set -u
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK images l64, h4, hstock}
D=$ROOT/bindings/openjdk/results/mmtk-0.33/holes-lend/confirm
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
M=$ROOT/experiments/workloads/lusearch-standin/minheap.py
for t in 24 48; do
  for cfg in "ss64-holes0 l64 MarkSweep SHARDSWEEP_HOLES=0" "ss64-holes1024 l64 MarkSweep SHARDSWEEP_HOLES=1024" \
             "ss4 h4 MarkSweep" "markcompact hstock MarkCompact"; do
    set -- $cfg; label=$1; image=$2; plan=$3; shift 3
    env MMTK_PLAN=$plan "$@" python3 "$M" "$I/$image/bin/java" --workload lusearch --jar "$J" --size default \
      --guess $((12 + t / 3)) --threads "$t" --resolution 0.5 --timeout 300 --label "$label" --out "$D/$label" \
      -- -XX:+UseThirdPartyHeap
  done
done
