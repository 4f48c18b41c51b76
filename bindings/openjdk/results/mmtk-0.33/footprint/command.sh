#!/bin/bash
# The footprint report (SHARDSWEEP_REPORT_FOOTPRINT=1) of the lusearch stand-in under MMTk
# OpenJDK at each build's own minimum heap (+0.5 MiB) from the 2026-11-25 study, 1/24/48 threads,
# the index built beforehand as the study does.
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images m64 (shardsweep 64K), m4 (4K), stock, built as bindings/openjdk/README.md says}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
D=$ROOT/bindings/openjdk/results/mmtk-0.33/footprint
# The index on disk, built once outside any heap limit (as the study does: workloads.py).
X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
for cfg in "ss64-page m64 page 12 22 32.5" "ss4-page m4 page 12.5 21.5 30" "ss64-block m64 block 15 47.5 76"; do
  set -- $cfg; label=$1 img=$2 acc=$3
  for tm in "1 $4" "24 $5" "48 $6"; do set -- $tm
    heap=$(python3 -c "print(int($2*1024))")k
    SHARDSWEEP_ACCOUNTING=$acc SHARDSWEEP_REPORT_FOOTPRINT=1 MMTK_PLAN=MarkSweep MMTK_THREADS=2 timeout 600 \
      $I/$img/bin/java -XX:+UseThirdPartyHeap -Xms$heap -Xmx$heap -jar $J --index $X -t $1 -n 2 > $D/$label-t$1.out 2>&1
    echo "$label t$1 heap=$heap rc=$?" >> $D/runs.txt
  done
done
