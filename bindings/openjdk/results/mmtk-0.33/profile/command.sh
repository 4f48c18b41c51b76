#!/bin/bash
# The mutator profile (issue 22): `perf record -e cpu-clock` of the lusearch stand-in, 8 threads,
# 64 MiB, 5 iterations, under shardsweep 64K (space and binding zeroing), stock MarkSweep and
# Immix, one run each, `breakdown.py` on each. Needs perf, and MMTk OpenJDK images in $IMAGES.
set -euo pipefail
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images m64 and stock}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
D=$ROOT/bindings/openjdk/results/mmtk-0.33/profile
for cfg in "m64 MarkSweep space" "m64 MarkSweep binding" "stock MarkSweep space" "stock Immix space"; do set -- $cfg
  label=$1-$2-$3; data=$(mktemp)
  SHARDSWEEP_ZERO=$3 MMTK_PLAN=$2 MMTK_THREADS=2 perf record -q -F 499 -e cpu-clock -o "$data" -- \
    "$I/$1/bin/java" -XX:+UseThirdPartyHeap -XX:+PreserveFramePointer -Xms64m -Xmx64m -jar "$J" --index "$X" -t 8 -n 5 \
    > "$D/$label.run" 2>&1
  perf script -i "$data" -F comm,tid,ip,sym,dso 2>/dev/null > "$D/$label.samples"
  { echo "$label"; python3 "$D/breakdown.py" "$D/$label.samples" lusearch; } >> "$D/breakdown.txt"
  gzip -f "$D/$label.samples"; rm -f "$data"
done
