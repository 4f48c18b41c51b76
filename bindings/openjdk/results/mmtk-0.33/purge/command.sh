#!/bin/bash
# Page faults of given-back pages (the profile's kernel share): the lusearch stand-in, 8 threads,
# 64 MiB, 5 iterations (last timed, index built beforehand), shardsweep 64K with the binding's
# zeroing under SHARDSWEEP_PURGE=gc (default) and pressure, and Immix; rounds interleaved.
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images m64 and stock}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
OUT=${1:-$ROOT/bindings/openjdk/results/mmtk-0.33/purge/runs.csv}; echo "round,config,last_iteration_ms,peak_rss_kib" > $OUT
for r in 1 2 3 4 5 6; do
  for cfg in "m64 MarkSweep gc" "m64 MarkSweep pressure" "stock Immix gc"; do set -- $cfg
    out=$( { /usr/bin/time -f "maxrss=%M" env SHARDSWEEP_ZERO=binding SHARDSWEEP_PURGE=$3 MMTK_PLAN=$2 MMTK_THREADS=2 timeout 300 \
      $I/$1/bin/java -XX:+UseThirdPartyHeap -Xms64m -Xmx64m -jar $J --index $X -t 8 -n 5; } 2>&1 )
    echo "$r,$1-$2-$3,$(echo "$out" | sed -n 's/.*PASSED in \([0-9]*\) msec.*/\1/p'),$(echo "$out" | sed -n 's/^maxrss=//p')" >> $OUT
  done
done
