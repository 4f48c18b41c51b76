#!/bin/bash
# The share of the CPU in the allocation call, with and without the JIT's inline pop: perf record
# (cpu-clock, 999 Hz, every thread of the JVM) of the lusearch stand-in, 8 threads, 64 MiB,
# 5 iterations, on the ss64k image of `scripts/jvm.sh build`; the share by
# ../jit-fastpath/alloc_share.py (HotSpot's runtime entries, MemAllocator, MMTk's alloc and
# post_alloc, the space's allocator; the core's slow path apart).
#   bindings/openjdk/results/mmtk-0.33/jit/profile.sh
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:-$ROOT/.build/jvm/images}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
IDX=$ROOT/.build/lusearch-standin-index-default
[ -f $IDX/.done ] || { $I/stock/bin/java -jar $J -s default --build-index $IDX >/dev/null && touch $IDX/.done; }
D=$(mktemp -d)
for fp in true false; do
  MMTK_FREE_LIST_FASTPATH=$fp MMTK_PLAN=MarkSweep MMTK_THREADS=2 \
    perf record -q -e cpu-clock -F 999 -o $D/fp-$fp.data $I/ss64k/bin/java -XX:+UseThirdPartyHeap \
    -Xms64m -Xmx64m -jar $J -t 8 -n 5 --index $IDX lusearch >/dev/null 2>&1
  perf report -i $D/fp-$fp.data --sort dso,sym --stdio 2>/dev/null > $D/fp-$fp.txt
  echo "MMTK_FREE_LIST_FASTPATH=$fp: $(python3 "$(dirname "$0")/../jit-fastpath/alloc_share.py" $D/fp-$fp.txt)"
done
rm -rf "$D"
