#!/bin/bash
# Where the small classes' free memory lies (issue 20 part 2, "why 4K > MarkCompact"): the
# footprint report's `holes_small` (SHARDSWEEP_REPORT_FOOTPRINT=1): the free cells of classes under
# 1 KiB that the coming sweep leaves on kept pages, by the size of the contiguous hole they lie in.
# The lusearch stand-in under MMTk OpenJDK, shardsweep 64K at its minimum heap + 0.5 MiB (the
# reuse-order study beside this one), 1/24/48 threads, 2 iterations, the index built beforehand;
# at 48 threads also with SHARDSWEEP_REUSE=densest. IMAGES: an MMTk OpenJDK image r64b =
# libmmtk_openjdk.so of this repository at dca51e5, SHARDSWEEP_BLOCK_KIB=64 (bindings/openjdk/README.md).
# Then: python3 summarize.py *.out.gz > summary.md (in this directory).
set -uo pipefail
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK image r64b}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
D=$ROOT/bindings/openjdk/results/mmtk-0.33/holes
X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
: > "$D/runs.txt"
for run in "address 1 12" "address 24 22" "address 48 32.5" "densest 48 32.5"; do
  set -- $run; reuse=$1 t=$2
  heap=$(python3 -c "print(int($3*1024))")k
  SHARDSWEEP_REUSE=$reuse SHARDSWEEP_REPORT_FOOTPRINT=1 MMTK_PLAN=MarkSweep MMTK_THREADS=2 timeout 600 \
    "$I/r64b/bin/java" -XX:+UseThirdPartyHeap -Xms$heap -Xmx$heap -jar "$J" --index "$X" -t $t -n 2 2>&1 | gzip -9 > "$D/$reuse-t$t.out.gz"
  echo "$reuse t$t heap=$heap rc=${PIPESTATUS[0]}" >> "$D/runs.txt"
done
