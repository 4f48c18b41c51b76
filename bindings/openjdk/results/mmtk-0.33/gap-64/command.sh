#!/bin/bash
# Where the time at 64 MiB goes (issue 38's 64 MiB goal): `perf record -e cpu-clock -F 999` of the
# lusearch stand-in, 5 iterations, at MIB MiB (default 64) with THREADS threads (default "8 24"), under each of
# CONFIGS (image:plan, default: ss64k and Immix), one run each. Per run: the mutators' breakdown
# (../profile/breakdown.py) and the GC workers' top symbols (top.py).
#   IMAGES=<dir> command.sh OUT_DIR
set -euo pipefail
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images}
D=$(cd "$(dirname "$0")" && pwd); OUT=${1:?OUT_DIR}; mkdir -p "$OUT"
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
for t in ${THREADS:-8 24}; do
  for cfg in ${CONFIGS:-ss64k:MarkSweep stock:Immix}; do
    img=${cfg%%:*}; plan=${cfg#*:}; label=$img-$plan-t$t; [ "${MIB:-64}" = 64 ] || label=$label-${MIB}m; data=$(mktemp)
    MMTK_PLAN=$plan MMTK_THREADS=2 perf record -q -F 999 -e cpu-clock -o "$data" -- \
      "$I/$img/bin/java" -XX:+UseThirdPartyHeap -XX:+PreserveFramePointer -Xms${MIB:-64}m -Xmx${MIB:-64}m -jar "$J" --index "$X" -t "$t" -n 5 \
      > "$OUT/$label.run" 2>&1
    perf script -i "$data" -F comm,tid,ip,sym,dso 2>/dev/null > "$OUT/$label.samples"
    { echo "$label"; python3 "$D/../profile/breakdown.py" "$OUT/$label.samples" lusearch
      python3 "$D/top.py" "$OUT/$label.samples" "MMTk Collector" 25; } >> "$OUT/breakdown.txt"
    gzip -f "$OUT/$label.samples"; rm -f "$data"
  done
done
