#!/bin/bash
# Issue 20's time goal: the lusearch stand-in at 2x MarkCompact's minimum heap, 8 and 24 threads
# (MarkCompact's minimum: 9.5 MiB at 8 threads in the factors study, 16.5 at 24 in the
# non-moving study: heaps 19 and 33 MiB), 5 iterations, the last one timed (its wall time), the
# JVM's CPU time (user + system) is recorded; ROUNDS rounds, the configurations
# interleaved in a rotated order so that each sees every position. Ratios are taken within a round.
# IMAGES: MMTk OpenJDK images l64c, l4c (this repository at 95bfd5f, 64 and 4 KiB blocks), l16c
# (e17fc46, 16 KiB blocks, defaults as 95bfd5f's), hstock (stock mmtk 0.33.0: Immix, MarkCompact).
#   IMAGES=<dir> command.sh [OUT.csv]; summary: summarize.py OUT.csv
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
OUT=${1:-$ROOT/bindings/openjdk/results/mmtk-0.33/time-2x/runs.csv}
echo "round,threads,heap_mib,config,rc,last_iteration_ms,cpu_s" > "$OUT"
CONFIGS=(l64c:MarkSweep l16c:MarkSweep l4c:MarkSweep hstock:Immix hstock:MarkCompact)
for r in ${ROUNDS:-1 2 3 4 5}; do
  for th in "8 19" "24 33"; do
    set -- $th; t=$1; heap=$2
    n=${#CONFIGS[@]}
    for k in $(seq 0 $((n - 1))); do
      cfg=${CONFIGS[$(( (k + r) % n ))]}; img=${cfg%%:*}; plan=${cfg#*:}
      out=$(MMTK_PLAN=$plan MMTK_THREADS=2 timeout 600 /usr/bin/time -f "cpu=%U+%S" "$I/$img/bin/java" \
        -XX:+UseThirdPartyHeap -Xms${heap}m -Xmx${heap}m -jar "$J" --index "$X" -t $t -n 5 2>&1); rc=$?
      ms=$(echo "$out" | sed -n 's/.*PASSED in \([0-9]*\) msec.*/\1/p' | tail -1)
      cpu=$(echo "$out" | sed -n 's/^cpu=\([0-9.]*\)+\([0-9.]*\)$/\1 \2/p' | awk '{printf "%.2f", $1 + $2}')
      echo "$r,$t,$heap,$img-$plan,$rc,$ms,$cpu" >> "$OUT"
    done
  done
done
