#!/bin/bash
# The JIT's inline free-list pop (bindings/openjdk/patches/mmtk-openjdk-2-jit-free-list.patch) on
# the images `scripts/jvm.sh build` makes: ss64k with the pop (the default), ss64k without it
# (MMTK_FREE_LIST_FASTPATH=false: every allocation calls the runtime, nothing else differs),
# stock MarkSweep and stock Immix. Each case WORKLOAD:THREADS:HEAP_MIB runs 5 iterations (h2: 3),
# the last one timed, with the whole JVM's CPU time and peak RSS (GNU time %U+%S, %M; the RSS column
# only in files begun with it); the configurations are
# rotated within each round. Files begun with it also hold the warm-up iterations' times
# (`warmup_ms`), from which `pool.py --column last3_ms` takes the mean of the last three iterations. Summary: ../jit-fastpath/summarize.py prints per threads; this
# folder's summarize.sh splits by case.
#   bindings/openjdk/results/mmtk-0.33/jit/command.sh [OUT.csv]
#   CASES="lusearch:8:64 ..." ROUNDS="1 2 3" CONFIGS="ss64k:MarkSweep:1 ..." command.sh
# A configuration may name settings after a fourth colon, joined by "+" (ss64k:MarkSweep:1:
# SHARDSWEEP_EXTENSION_PAGES=1+SHARDSWEEP_LISTING_PAGES=1); its label then ends with them.
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:-$ROOT/.build/jvm/images}
OUT=${1:-$ROOT/bindings/openjdk/results/mmtk-0.33/jit/runs.csv}
# lusearch: 64 MiB (every plan has room), 19 and 33 MiB (2x MarkCompact's minimum at 8 and 24
# threads); xalan: 20 and 34 MiB (2x MarkCompact's minimum, 7 + 0.44 MiB per thread beyond one);
# h2: 104 MiB (2x MarkCompact's 48-thread minimum).
CASES=${CASES:-"lusearch:8:64 lusearch:24:64 lusearch:8:19 lusearch:24:33 xalan:8:20 xalan:24:34 h2:8:104"}
CONFIGS=${CONFIGS:-"ss64k:MarkSweep:1 ss64k:MarkSweep:0 stock:MarkSweep:0 stock:Immix:0"}
declare -A JAR
for w in lusearch xalan h2; do JAR[$w]=$("$ROOT/scripts/openjdk-standin-build.sh" $w); done
IDX=$ROOT/.build/lusearch-standin-index-default
[ -f $IDX/.done ] || { $I/stock/bin/java -jar ${JAR[lusearch]} -s default --build-index $IDX >/dev/null && touch $IDX/.done; }
[ -f "$OUT" ] || echo "round,case,threads,config,rc,last_iteration_ms,minor_faults,cpu_s,max_rss_kib,warmup_ms" > "$OUT"
# Files begun before the JVM's peak RSS was recorded keep their eight columns, those begun before
# the warm-up iterations' times (warmup_ms, ";"-separated, in order) their nine.
RSS=0; head -1 "$OUT" | grep -q max_rss_kib && RSS=1
WU=0; head -1 "$OUT" | grep -q warmup_ms && WU=1
for r in ${ROUNDS:-1 2 3 4}; do
  for c in $CASES; do IFS=: read -r w t mib <<< "$c"
    n=5; [ $w = h2 ] && n=3
    extra=(); [ $w = lusearch ] && extra=(--index $IDX)
    set -- $CONFIGS; k=$(( (r - 1) % $# )); cfgs=("${@:k+1}" "${@:1:k}")   # rotated per round
    for cfg in "${cfgs[@]}"; do IFS=: read -r img plan jit envs <<< "$cfg"
      fp=true; [ "$jit" = 0 ] && fp=false
      settings=(); [ -n "$envs" ] && IFS=+ read -r -a settings <<< "$envs"
      out=$(env "${settings[@]}" MMTK_FREE_LIST_FASTPATH=$fp MMTK_PLAN=$plan MMTK_THREADS=2 timeout 600 /usr/bin/time -f "faults=%R cpu=%U+%S rss=%M" \
        $I/$img/bin/java -XX:+UseThirdPartyHeap -Xms${mib}m -Xmx${mib}m -jar ${JAR[$w]} -t $t -n $n "${extra[@]}" $w 2>&1); rc=$?
      ms=$(echo "$out" | sed -n 's/.*PASSED in \([0-9]*\) msec.*/\1/p' | tail -1)
      f=$(echo "$out" | sed -n 's/^faults=\([0-9]*\) .*$/\1/p')
      cpu=$(echo "$out" | sed -n 's/^faults=[0-9]* cpu=\([0-9.]*\)+\([0-9.]*\) rss=[0-9]*$/\1 \2/p' | awk '{printf "%.2f", $1 + $2}')
      rss=$(echo "$out" | sed -n 's/^faults=[0-9]* cpu=[0-9.+]* rss=\([0-9]*\)$/\1/p')
      wu=$(echo "$out" | sed -n 's/.*completed warmup [0-9]* in \([0-9]*\) msec.*/\1/p' | paste -sd';')
      label=$img-$plan; [ "$img" != stock ] && { [ "$jit" = 1 ] && label=$label-jit || label=$label-call; }
      [ -n "$envs" ] && label=$label-$envs
      row="$r,$w-$mib,$t,$label,$rc,$ms,$f,$cpu"; [ $RSS = 1 ] && row="$row,$rss"; [ $WU = 1 ] && row="$row,$wu"
      echo "$row" >> "$OUT"
    done
  done
done
