#!/bin/bash
# SHARDSWEEP_SPILL=defer against charge (issue 20): the footprint report of the lusearch stand-in
# at a fixed heap, 24 and 48 threads (1 MiB above the 64K build's minimum there), 2 iterations,
# the index built beforehand, ROUNDS interleaved repeats.
# IMAGES: an MMTk OpenJDK image l64d = libmmtk_openjdk.so of this repository at e17fc46,
# SHARDSWEEP_BLOCK_KIB=64 (bindings/openjdk/README.md). Then: python3 summarize.py *.out.gz > summary.md
set -uo pipefail
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK image l64d}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
D=$ROOT/bindings/openjdk/results/mmtk-0.33/spill
X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
for r in ${ROUNDS:-1 2}; do
  for run in "charge 48 31" "defer 48 31" "charge 24 23" "defer 24 23"; do
    set -- $run; spill=$1 t=$2
    heap=$(python3 -c "print(int($3*1024))")k
    SHARDSWEEP_SPILL=$spill SHARDSWEEP_REPORT_FOOTPRINT=1 MMTK_PLAN=MarkSweep MMTK_THREADS=2 timeout 600 \
      "$I/l64d/bin/java" -XX:+UseThirdPartyHeap -Xms$heap -Xmx$heap -jar "$J" --index "$X" -t $t -n 2 2>&1 \
      | gzip -9 > "$D/$spill-t$t-r$r.out.gz"
    echo "spill=$spill t$t heap=$heap round $r rc=${PIPESTATUS[0]}" >> "$D/runs.txt"
  done
done
