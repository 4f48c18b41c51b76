#!/bin/bash
# Who calls HotSpot's out-of-line ThreadStateTransition in jit/profile.sh's case (lusearch
# stand-in, 8 threads, 64 MiB; 3 iterations here): one `perf record --call-graph dwarf` run per
# image and plan named, and the callers of the samples that land in it, counted. The allocation
# call's measure (../jit-fastpath/alloc_share.py) counts it only if they are allocation entries.
#   IMAGES=<dir> CONFIGS="ss64k:MarkSweep stock:Immix" refill/transitions.sh
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:-$ROOT/.build/jvm/images}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
IDX=$ROOT/.build/lusearch-standin-index-default
[ -f $IDX/.done ] || { $I/stock/bin/java -jar $J -s default --build-index $IDX >/dev/null && touch $IDX/.done; }
D=$(mktemp -d)
for cfg in ${CONFIGS:-ss64k:MarkSweep stock:Immix}; do IFS=: read -r img plan <<< "$cfg"
  MMTK_FREE_LIST_FASTPATH=true MMTK_PLAN=$plan MMTK_THREADS=2 perf record -q -e cpu-clock -F 499 \
    --call-graph dwarf,2048 -o $D/cg.data $I/$img/bin/java -XX:+UseThirdPartyHeap -Xms64m -Xmx64m \
    -jar $J -t 8 -n 3 --index $IDX lusearch >/dev/null 2>&1
  echo "$img $plan: the callers of ThreadStateTransition's samples"
  # perf script prints a sample's header, then its frames innermost first: the frame after the
  # transition's is its caller.
  perf script -i $D/cg.data 2>/dev/null | awk '/^[^ \t]/ { getline f1; getline f2
      if (f1 ~ /ThreadStateTransition/) { sub(/\(.*$/, "", f2); sub(/^[ \t]*[0-9a-f]+ /, "", f2); sub(/\+0x.*$/, "", f2); print f2 } }' \
    | sort | uniq -c | sort -rn
done
rm -rf "$D"
