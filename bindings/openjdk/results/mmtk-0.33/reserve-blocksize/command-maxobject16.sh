#!/bin/bash
# command-maxobject.sh for 16 KiB blocks serving at most 512 B (image l16m512: this repository at
# e17fc46, SHARDSWEEP_BLOCK_KIB=16, build-time SHARDSWEEP_MAX_OBJECT_BYTES=512): does the cost of
# the adoption unit scale with it (a block of 4 pages against 16)? 48 threads, 31 MiB, rounds 5, 6.
set -uo pipefail
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK image l16m512}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
D=$ROOT/bindings/openjdk/results/mmtk-0.33/reserve-blocksize
X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
for r in ${ROUNDS:-5 6}; do
  SHARDSWEEP_REPORT_FOOTPRINT=1 MMTK_PLAN=MarkSweep MMTK_THREADS=2 timeout 600 \
    "$I/l16m512/bin/java" -XX:+UseThirdPartyHeap -Xms31744k -Xmx31744k -jar "$J" --index "$X" -t 48 -n 2 2>&1 \
    | gzip -9 > "$D/l16m512-t48-r$r.out.gz"
  echo "l16m512 t48 heap=31744k round $r rc=${PIPESTATUS[0]}" >> "$D/runs.txt"
done
