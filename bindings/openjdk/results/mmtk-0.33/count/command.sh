#!/bin/bash
# SHARDSWEEP_COUNT=in-use against resident (issue 22): the lusearch stand-in, 8 and 24 threads,
# 64 MiB, 5 iterations, the last one timed; minor page faults of the whole JVM (GNU time %R);
# six rounds (ROUNDS), the configurations (CONFIGS) interleaved. Every shardsweep run with
# SHARDSWEEP_ZERO=binding.
#   IMAGES=<dir of JDK images> bindings/openjdk/results/mmtk-0.33/count/command.sh [OUT.csv]
# IMAGES/u64: shardsweep 64K (this repository at the commit that added SHARDSWEEP_COUNT);
# IMAGES/stock: stock mmtk 0.33.0. Summary: summarize.py OUT.csv
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
OUT=${1:-$ROOT/bindings/openjdk/results/mmtk-0.33/count/runs.csv}
echo "round,threads,config,rc,last_iteration_ms,minor_faults" > $OUT
# CONFIGS: image:plan:count:advice, space-separated; ROUNDS: the round numbers.
CONFIGS=${CONFIGS:-"u64:MarkSweep:resident:dontneed u64:MarkSweep:in-use:dontneed stock:MarkSweep:resident:dontneed stock:Immix:resident:dontneed"}
for r in ${ROUNDS:-1 2 3 4 5 6}; do
  for t in 8 24; do
    for cfg in $CONFIGS; do IFS=: read -r img plan count advice <<< "$cfg"
      # (the stock library has no shardsweep space: it reads no SHARDSWEEP_* variable)
      out=$(SHARDSWEEP_ZERO=binding SHARDSWEEP_COUNT=$count SHARDSWEEP_ADVICE=$advice MMTK_PLAN=$plan MMTK_THREADS=2 \
        timeout 300 /usr/bin/time -f "faults=%R" $I/$img/bin/java -XX:+UseThirdPartyHeap -Xms64m -Xmx64m -jar $J -t $t -n 5 2>&1); rc=$?
      ms=$(echo "$out" | sed -n 's/.*PASSED in \([0-9]*\) msec.*/\1/p' | tail -1)
      f=$(echo "$out" | sed -n 's/^faults=\([0-9]*\)$/\1/p')
      label=$img-$plan-$count; [ "$advice" != dontneed ] && label=$label-$advice
      echo "$r,$t,$label,$rc,$ms,$f" >> $OUT
    done
  done
done
