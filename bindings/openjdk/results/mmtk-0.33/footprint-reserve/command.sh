#!/bin/bash
# Where the 64K build's extra pages over the 4K build's go, by size class (issue 20 part 2): the
# footprint report (SHARDSWEEP_REPORT_FOOTPRINT=1, with filling_by_class and unlisted_by_class) of
# the lusearch stand-in under MMTk OpenJDK at each build's own minimum heap (+0.5 MiB, the
# 2026-11-25 study), 1/24/48 threads, 2 iterations, the index built beforehand as the study does.
# IMAGES: MMTk OpenJDK images f64 / f4 = libmmtk_openjdk.so of this repository at 0330e1f with
# SHARDSWEEP_BLOCK_KIB=64 / 4 (bindings/openjdk/README.md says how such a library is made).
# Then: python3 summarize.py ss64-page-t*.out.gz ss4-page-t*.out.gz > summary.md (in this directory).
set -uo pipefail
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images f64 and f4}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
D=$ROOT/bindings/openjdk/results/mmtk-0.33/footprint-reserve
X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
: > "$D/runs.txt"
for cfg in "ss64-page f64 12 22 32.5" "ss4-page f4 12.5 21.5 30"; do
  set -- $cfg; label=$1 img=$2
  for tm in "1 $3" "24 $4" "48 $5"; do set -- $tm
    heap=$(python3 -c "print(int($2*1024))")k
    SHARDSWEEP_REPORT_FOOTPRINT=1 MMTK_PLAN=MarkSweep MMTK_THREADS=2 timeout 600 \
      "$I/$img/bin/java" -XX:+UseThirdPartyHeap -Xms$heap -Xmx$heap -jar "$J" --index "$X" -t $1 -n 2 2>&1 | gzip -9 > "$D/$label-t$1.out.gz"
    echo "$label t$1 heap=$heap rc=$?" >> "$D/runs.txt"
  done
done
