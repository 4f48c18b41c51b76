#!/bin/bash
# rounds of the lusearch stand-in, 8 threads, 64 MiB, 5 iterations, last timed; configs interleaved
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images m64 (shardsweep 64K), m4 (4K), stock, built as bindings/openjdk/README.md says}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
OUT=${1:-$ROOT/bindings/openjdk/results/mmtk-0.33/zeroing/runs.csv}; echo "round,config,rc,last_iteration_ms" > $OUT
for r in 1 2 3 4 5 6; do
  for cfg in "m64 MarkSweep space" "m64 MarkSweep binding" "stock MarkSweep -" "stock Immix -"; do set -- $cfg
    ms=$(SHARDSWEEP_ZERO=${3/-/space} MMTK_PLAN=$2 MMTK_THREADS=2 timeout 300 $I/$1/bin/java -XX:+UseThirdPartyHeap -Xms64m -Xmx64m -jar $J -t 8 -n 5 2>&1 | sed -n 's/.*PASSED in \([0-9]*\) msec.*/\1/p')
    echo "$r,$1-$2-$3,$?,$ms" >> $OUT
  done
done
