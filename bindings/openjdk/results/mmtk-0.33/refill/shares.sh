#!/bin/bash
# The allocation call's share of the CPU (../jit-fastpath/alloc_share.py on one perf run each), as
# jit/profile.sh measures it (lusearch stand-in, 8 threads, 64 MiB, 5 iterations, the pop on),
# for several images and plans, alternated round by round. IMAGES=<dir> holds the images named; a
# configuration may name settings after a third colon, joined by "+" (as jit/command.sh).
#   IMAGES=<dir> ROUNDS=3 CONFIGS="ss64k:MarkSweep head:MarkSweep stock:Immix" refill/shares.sh
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:-$ROOT/.build/jvm/images}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
IDX=$ROOT/.build/lusearch-standin-index-default
[ -f $IDX/.done ] || { $I/stock/bin/java -jar $J -s default --build-index $IDX >/dev/null && touch $IDX/.done; }
D=$(mktemp -d)
for r in $(seq 1 "${ROUNDS:-3}"); do
  for cfg in ${CONFIGS:-ss64k:MarkSweep stock:Immix}; do IFS=: read -r img plan envs <<< "$cfg"
    settings=(); [ -n "$envs" ] && IFS=+ read -r -a settings <<< "$envs"
    env "${settings[@]}" MMTK_FREE_LIST_FASTPATH=true MMTK_PLAN=$plan MMTK_THREADS=2 \
      perf record -q -e cpu-clock -F 999 -o $D/p.data $I/$img/bin/java -XX:+UseThirdPartyHeap \
      -Xms64m -Xmx64m -jar $J -t 8 -n 5 --index $IDX lusearch >/dev/null 2>&1
    perf report -i $D/p.data --sort dso,sym --stdio 2>/dev/null > $D/p.txt
    echo "round $r, $img $plan${envs:+ $envs}: $(python3 "$(dirname "$0")/../jit-fastpath/alloc_share.py" $D/p.txt)"
  done
done
rm -rf "$D"
