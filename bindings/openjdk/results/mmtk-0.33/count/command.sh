#!/bin/bash
# SHARDSWEEP_COUNT=in-use against resident (issue 22): the lusearch stand-in, 8 and 24 threads,
# 64 MiB, 5 iterations, the last one timed; minor page faults of the whole JVM (GNU time %R);
# six rounds, the configurations interleaved. Both shardsweep runs with SHARDSWEEP_ZERO=binding.
#   IMAGES=<dir of JDK images> bindings/openjdk/results/mmtk-0.33/count/command.sh [OUT.csv]
# IMAGES/u64: shardsweep 64K (this repository at the commit that added SHARDSWEEP_COUNT);
# IMAGES/stock: stock mmtk 0.33.0. Summary: summarize.py OUT.csv
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
OUT=${1:-$ROOT/bindings/openjdk/results/mmtk-0.33/count/runs.csv}
echo "round,threads,config,rc,last_iteration_ms,minor_faults" > $OUT
for r in 1 2 3 4 5 6; do
  for t in 8 24; do
    for cfg in "u64 MarkSweep resident" "u64 MarkSweep in-use" "stock MarkSweep resident" "stock Immix resident"; do set -- $cfg
      # (the stock library has no shardsweep space: SHARDSWEEP_* are only noted as ignored)
      out=$(SHARDSWEEP_ZERO=binding SHARDSWEEP_COUNT=$3 MMTK_PLAN=$2 MMTK_THREADS=2 timeout 300 \
        /usr/bin/time -f "faults=%R" $I/$1/bin/java -XX:+UseThirdPartyHeap -Xms64m -Xmx64m -jar $J -t $t -n 5 2>&1); rc=$?
      ms=$(echo "$out" | sed -n 's/.*PASSED in \([0-9]*\) msec.*/\1/p' | tail -1)
      f=$(echo "$out" | sed -n 's/^faults=\([0-9]*\)$/\1/p')
      echo "$r,$t,$1-$2-$3,$rc,$ms,$f" >> $OUT
    done
  done
done
