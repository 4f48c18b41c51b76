#!/bin/bash
# How many allocation calls reach the runtime, and how many of them the core's slow path
# serves: uprobes (perf probe, root) on mmtk's C entry `alloc` (its size argument recorded) and on
# the core's `Heap::alloc_generic` in the ss64k image's libmmtk_openjdk.so, over jit/profile.sh's
# case (lusearch stand-in, 8 threads, 64 MiB, 5 iterations). Prints the two counts and the calls
# by size: at most 1 KiB, up to 8 KiB (the space's largest object), larger (the large-object
# space), and the ten commonest sizes above 8 KiB. Settings for the run may be given as
# arguments (VAR=value ...); THREADS (default 8) sets the stand-in's threads.
#   [THREADS=24] bindings/openjdk/results/mmtk-0.33/refill/calls.sh [VAR=value ...]
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:-$ROOT/.build/jvm/images}
L=$(readlink -f "$I/ss64k/lib/server/libmmtk_openjdk.so")
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
IDX=$ROOT/.build/lusearch-standin-index-default
[ -f $IDX/.done ] || { $I/stock/bin/java -jar $J -s default --build-index $IDX >/dev/null && touch $IDX/.done; }
# perf probe takes a file offset: the symbol's address less the text segment's (0x1000 here).
base=$(readelf -lW "$L" | awk '$1 == "LOAD" && / R E / {print $3; exit}')
off=$(readelf -lW "$L" | awk '$1 == "LOAD" && / R E / {print $2; exit}')
sym=$(nm "$L" | grep -E ' t .*alloc_generic' | head -1 | cut -d' ' -f1)
[ -n "$sym" ] || { echo "calls.sh: no alloc_generic in $L" >&2; exit 2; }
perf probe -q -d 'probe_libmmtk_openjdk:*' 2>/dev/null
perf probe -q -x "$L" -a "ssgeneric=0x$(printf '%x' $(( 0x$sym - base + off )))" || exit 2
perf probe -q -x "$L" -a 'ssalloc=alloc size=%si:u64' || exit 2
D=$(mktemp -d)
env "$@" MMTK_FREE_LIST_FASTPATH=true MMTK_PLAN=MarkSweep MMTK_THREADS=2 perf record -q \
  -e probe_libmmtk_openjdk:ssalloc -e probe_libmmtk_openjdk:ssgeneric -o $D/calls.data \
  $I/ss64k/bin/java -XX:+UseThirdPartyHeap -Xms64m -Xmx64m -jar $J -t ${THREADS:-8} -n 5 --index $IDX lusearch >/dev/null 2>&1
perf probe -q -d 'probe_libmmtk_openjdk:*'
perf script -i $D/calls.data 2>/dev/null | python3 -c '
import re, sys
calls = generic = 0
large = {}
by = {"<= 1 KiB": 0, "<= 8 KiB": 0, "> 8 KiB": 0}
for line in sys.stdin:
    if "ssgeneric" in line:
        generic += 1
        continue
    m = re.search(r"size=(\d+)", line)
    if not m:
        continue
    calls += 1
    s = int(m.group(1))
    if s > 8192:
        large[s] = large.get(s, 0) + 1
    by["<= 1 KiB" if s <= 1024 else "<= 8 KiB" if s <= 8192 else "> 8 KiB"] += 1
print(f"calls {calls}, of them the core slow path {generic}; by size: " + ", ".join(f"{k} {v}" for k, v in by.items()))
top = sorted(large.items(), key=lambda kv: -kv[1])[:10]
print("above 8 KiB, commonest sizes: " + ", ".join(f"{s} B {n}" for s, n in top))'
rm -rf "$D"
