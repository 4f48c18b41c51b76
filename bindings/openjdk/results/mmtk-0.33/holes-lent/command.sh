#!/bin/bash
# How much of the small classes' holes lending reaches (issue 20): the footprint report's `lent`
# (bytes of lent runs), `lent_unused` (not yet used by a larger request) and the pages charged
# between GCs, with SHARDSWEEP_HOLES=1024 against 0, the lusearch stand-in at 24 and 48 threads,
# each at a fixed heap 1 MiB above the 64K build's minimum there, 2 iterations, the index built
# beforehand; ROUNDS repeats (interleaved) for the spread of the means.
# IMAGES: an MMTk OpenJDK image l64c = libmmtk_openjdk.so of this repository at 95bfd5f,
# SHARDSWEEP_BLOCK_KIB=64 (bindings/openjdk/README.md). Then: python3 summarize.py *.out.gz > summary.md
set -uo pipefail
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK image l64c}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
D=$ROOT/bindings/openjdk/results/mmtk-0.33/holes-lent
X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
for r in ${ROUNDS:-1 2 3}; do
  for run in "0 48 31" "1024 48 31" "0 24 23" "1024 24 23"; do
    set -- $run; holes=$1 t=$2
    heap=$(python3 -c "print(int($3*1024))")k
    SHARDSWEEP_HOLES=$holes SHARDSWEEP_REPORT_FOOTPRINT=1 MMTK_PLAN=MarkSweep MMTK_THREADS=2 timeout 600 \
      "$I/l64c/bin/java" -XX:+UseThirdPartyHeap -Xms$heap -Xmx$heap -jar "$J" --index "$X" -t $t -n 2 2>&1 \
      | gzip -9 > "$D/holes$holes-t$t-r$r.out.gz"
    echo "holes=$holes t$t heap=$heap round $r rc=${PIPESTATUS[0]}" >> "$D/runs.txt"
  done
done
