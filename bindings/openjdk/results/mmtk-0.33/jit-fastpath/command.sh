#!/bin/bash
# The free-list JIT fast path, prototyped locally (issue 22 part 3): the lusearch stand-in at 64 MiB,
# 8 and 24 threads, 5 iterations, the last one timed; minor page faults and the CPU time (user +
# system, all threads) of the whole JVM (GNU time %R, %U, %S); six rounds (ROUNDS), the
# configurations (CONFIGS) interleaved. Every shardsweep run with
# SHARDSWEEP_ZERO=binding.
#   IMAGES=<dir of JDK images> bindings/openjdk/results/mmtk-0.33/jit-fastpath/command.sh [OUT.csv]
# IMAGES/h64: shardsweep 64K built at 34a60a9; IMAGES/hstock: stock mmtk 0.33.0 (same mmtk copy
# without our feature). IMAGES/j64: h64 with a libjvm.so rebuilt with the local prototype
# (bindings/openjdk/RESULTS-history.md, "A free-list JIT fast path, prototyped"), which pops the
# allocator's free list inline only when SHARDSWEEP_JIT_FASTPATH=1: so j64 with 0 and 1 differ in
# nothing but the JIT's allocation sequence. Summary: summarize.py OUT.csv
# Superseded by ../jit/ (the pop as built by scripts/jvm.sh): today's space refuses the
# prototype's SHARDSWEEP_JIT_FASTPATH; MMTK_FREE_LIST_FASTPATH=false is its off switch.
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
OUT=${1:-$ROOT/bindings/openjdk/results/mmtk-0.33/jit-fastpath/runs.csv}
echo "round,threads,config,rc,last_iteration_ms,minor_faults,cpu_s" > $OUT
# CONFIGS: image:plan:count:jit, space-separated; ROUNDS: the round numbers.
CONFIGS=${CONFIGS:-"j64:MarkSweep:resident:1 j64:MarkSweep:resident:0 j64:MarkSweep:in-use:1 hstock:MarkSweep:resident:0 hstock:Immix:resident:0"}
for r in ${ROUNDS:-1 2 3 4 5 6}; do
  for t in 8 24; do
    for cfg in $CONFIGS; do IFS=: read -r img plan count jit <<< "$cfg"
      # (the stock library has no shardsweep space and its libjvm.so no prototype: it reads no
      # SHARDSWEEP_* variable)
      out=$(SHARDSWEEP_JIT_FASTPATH=$jit SHARDSWEEP_ZERO=binding SHARDSWEEP_COUNT=$count MMTK_PLAN=$plan MMTK_THREADS=2 \
        timeout 300 /usr/bin/time -f "faults=%R cpu=%U+%S" $I/$img/bin/java -XX:+UseThirdPartyHeap -Xms64m -Xmx64m -jar $J -t $t -n 5 2>&1); rc=$?
      ms=$(echo "$out" | sed -n 's/.*PASSED in \([0-9]*\) msec.*/\1/p' | tail -1)
      f=$(echo "$out" | sed -n 's/^faults=\([0-9]*\) .*$/\1/p')
      cpu=$(echo "$out" | sed -n 's/^faults=[0-9]* cpu=\([0-9.]*\)+\([0-9.]*\)$/\1 \2/p' | awk '{printf "%.2f", $1 + $2}')
      label=$img-$plan-$count; [ "$jit" = 1 ] && label=$label-jit
      echo "$r,$t,$label,$rc,$ms,$f,$cpu" >> $OUT
    done
  done
done
