#!/bin/bash
# 16 KiB blocks beside the non-moving study (../nonmoving: 64K, 4K, MarkCompact, Immix, Immix
# that never moves): the lusearch stand-in's minimum heap, 0.5 MiB resolution, at 48, 24 and 1
# threads, two rounds, taken beside that study on the same 2 cores (a minimum heap does not depend
# on speed). 16 KiB blocks were the fastest of our builds at every heap factor from 2x in the
# time study (RESULTS-history.md, "The thesis' third experiment").
# IMAGES: an MMTk OpenJDK image l16c (libmmtk_openjdk.so of this repository at e17fc46,
# SHARDSWEEP_BLOCK_KIB=16; its defaults behave as 95bfd5f's).
set -u
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK image l16c}
D=$ROOT/bindings/openjdk/results/mmtk-0.33/block16
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
M=$ROOT/experiments/workloads/lusearch-standin/minheap.py
for r in ${ROUNDS:-1 2}; do
  for t in ${THREADS:-48 24 1}; do
    MMTK_PLAN=MarkSweep python3 "$M" "$I/l16c/bin/java" --workload lusearch --jar "$J" --size default \
      --guess $((10 + t / 3)) --threads "$t" --resolution 0.5 --timeout 300 --label "ss16-r$r" --out "$D/ss16" \
      -- -XX:+UseThirdPartyHeap
  done
done
