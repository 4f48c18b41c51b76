#!/bin/bash
# Time of SHARDSWEEP_ADOPT=lease against =block (one 64K library), the 4K build and Immix: the
# lusearch stand-in at 2x MarkCompact's minimum heap (19 MiB at 8 threads, 33 at 24, as
# ../time-2x), 5 iterations, the last one timed (wall), the JVM's CPU time (user + system);
# ROUNDS rounds (default 1 2 3), configurations in a rotated order; ratios paired within a round.
# IMAGES: a64, a4 (this repository at 1729a09, 64 and 4 KiB blocks), hstock (stock mmtk 0.33.0);
# IMG64 names another 64K image (IMG64=b64: this repository at 164ff71, after c0406e9; IMG64=c64:
# at 2819899, the lease the default). CELLS: threads:heap MiB pairs (default "8:19 24:33"; the
# issue's second time goal, 2x the largest minimum of any configuration: CELLS="8:64 24:94").
# CONFIGS: image:plan:adoption triples ("-": no SHARDSWEEP_ADOPT), default as below.
#   IMAGES=<dir> command-time.sh [OUT.csv]; summary: ../time-2x/summarize.py OUT.csv
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
X=$ROOT/.build/lusearch-standin-index-default
OUT=${1:-$ROOT/bindings/openjdk/results/mmtk-0.33/lease/time.csv}
echo "round,threads,heap_mib,config,rc,last_iteration_ms,cpu_s" > "$OUT"
G=${IMG64:-a64}
CONFIGS=(${CONFIGS:-$G:MarkSweep:lease $G:MarkSweep:block a4:MarkSweep:block hstock:Immix:-})
run() { # run ROUND THREADS HEAP IMAGE PLAN ADOPTION
  local r=$1 t=$2 heap=$3 img=$4 plan=$5 adopt=$6 out rc ms cpu name
  out=$(SHARDSWEEP_ADOPT=${adopt/-/block} MMTK_PLAN=$plan MMTK_THREADS=2 timeout 600 /usr/bin/time -f "cpu=%U+%S" \
    "$I/$img/bin/java" -XX:+UseThirdPartyHeap -Xms${heap}m -Xmx${heap}m -jar "$J" --index "$X" -t $t -n 5 2>&1); rc=$?
  ms=$(echo "$out" | sed -n 's/.*PASSED in \([0-9]*\) msec.*/\1/p' | tail -1)
  cpu=$(echo "$out" | sed -n 's/^cpu=\([0-9.]*\)+\([0-9.]*\)$/\1 \2/p' | awk '{printf "%.2f", $1 + $2}')
  name=$img-$plan; [ "$adopt" = - ] || name=$name-$adopt
  echo "$r,$t,$heap,$name,$rc,$ms,$cpu" >> "$OUT"
}
. "$(dirname "$0")/../lib/rotate.sh"
for_each_run run
