#!/bin/bash
# Correctness of SHARDSWEEP_HOLES=1024 on the JVM (lusearch stand-in, image l64 as command.sh):
# the space's accounting checker at every GC near the minimum heap at 1/24/48 threads, and a
# stress run (MMTK_STRESS_FACTOR: a GC every 1 MiB allocated), each ending with the digest.
# Output: one line per run (checks.txt here).
set -u
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK image l64}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch); X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
O=$(mktemp -d)
line() {  # label, output file, rc
  echo "$1 rc=$3 gcs_checked=$(grep -c 'shardsweep-check accounting gc=[0-9]* ok' "$2") bad=$(grep 'shardsweep-check' "$2" | grep -vc ' ok') $(grep -o 'PASSED\|FAILED' "$2" | tail -1) $(grep -o 'digest [0-9a-f]*' "$2" | sort -u | tr '\n' ' ')"
}
for th in "1 12" "24 22" "48 32"; do set -- $th
  SHARDSWEEP_HOLES=1024 SHARDSWEEP_CHECK_ACCOUNTING=1 MMTK_PLAN=MarkSweep "$I/l64/bin/java" -XX:+UseThirdPartyHeap -Xms$2m -Xmx$2m -jar "$J" --index "$X" -t $1 -n 2 > "$O/t$1" 2>&1
  line "accounting t$1 heap=$2m" "$O/t$1" $?
done
SHARDSWEEP_CHECK_ACCOUNTING=1 SHARDSWEEP_HOLES=1024 MMTK_STRESS_FACTOR=1048576 MMTK_PLAN=MarkSweep "$I/l64/bin/java" -XX:+UseThirdPartyHeap -Xms64m -Xmx64m -jar "$J" --index "$X" -t 8 -n 2 > "$O/stress" 2>&1
line "stress t8 64m MMTK_STRESS_FACTOR=1048576" "$O/stress" $?
