#!/bin/bash
# The small classes' free cells against the block size (issue 20: what makes the 64K build's
# small-class free memory 2 MiB larger than the 4K build's at 48 threads): the footprint report of
# the lusearch stand-in, 4, 16 and 64 KiB blocks at the same fixed heap (31 MiB, 48 threads; 23
# MiB, 24 threads), 2 iterations, the index built beforehand, ROUNDS interleaved repeats.
# IMAGES: MMTk OpenJDK images l4c, l64c (this repository at 95bfd5f) and l16c (e17fc46, whose
# defaults behave as 95bfd5f's), SHARDSWEEP_BLOCK_KIB=4, 64, 16. Then: python3 ../spill/summarize.py *.out.gz
set -uo pipefail
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK images l4c, l16c, l64c}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
D=$ROOT/bindings/openjdk/results/mmtk-0.33/reserve-blocksize
X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
for r in ${ROUNDS:-1 2}; do
  for run in "l64c 48 31" "l16c 48 31" "l4c 48 31" "l64c 24 23" "l16c 24 23" "l4c 24 23"; do
    set -- $run; image=$1 t=$2
    heap=$(python3 -c "print(int($3*1024))")k
    SHARDSWEEP_REPORT_FOOTPRINT=1 MMTK_PLAN=MarkSweep MMTK_THREADS=2 timeout 600 \
      "$I/$image/bin/java" -XX:+UseThirdPartyHeap -Xms$heap -Xmx$heap -jar "$J" --index "$X" -t $t -n 2 2>&1 \
      | gzip -9 > "$D/$image-t$t-r$r.out.gz"
    echo "$image t$t heap=$heap round $r rc=${PIPESTATUS[0]}" >> "$D/runs.txt"
  done
done
