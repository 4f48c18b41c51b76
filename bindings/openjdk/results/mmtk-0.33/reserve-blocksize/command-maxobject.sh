#!/bin/bash
# The same footprint runs as command.sh, for 64 KiB blocks that serve objects of at most 512 B
# (the rest to the large-object space, as the 4K build does: then both builds fill the heap alike
# and their first GCs come at the same point), beside the 4K build. IMAGES: l64m512
# (libmmtk_openjdk.so of this repository at e17fc46, SHARDSWEEP_BLOCK_KIB=64 and the build-time
# SHARDSWEEP_MAX_OBJECT_BYTES=512) and l4c (as command.sh).
set -uo pipefail
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK images l64m512, l4c}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
D=$ROOT/bindings/openjdk/results/mmtk-0.33/reserve-blocksize
X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
for r in ${ROUNDS:-3 4}; do
  for run in "l64m512 48 31" "l4c 48 31" "l64m512 24 23" "l4c 24 23"; do
    set -- $run; image=$1 t=$2
    heap=$(python3 -c "print(int($3*1024))")k
    SHARDSWEEP_REPORT_FOOTPRINT=1 MMTK_PLAN=MarkSweep MMTK_THREADS=2 timeout 600 \
      "$I/$image/bin/java" -XX:+UseThirdPartyHeap -Xms$heap -Xmx$heap -jar "$J" --index "$X" -t $t -n 2 2>&1 \
      | gzip -9 > "$D/$image-t$t-r$r.out.gz"
    echo "$image t$t heap=$heap round $r rc=${PIPESTATUS[0]}" >> "$D/runs.txt"
  done
done
