#!/bin/bash
# The madvise and process_madvise calls of one lusearch run (24 threads, 64 MiB), by thread
# (MMTk = GC workers, lusearch-standi = mutators) and range size (chunk 4 MiB, block 64 KiB,
# pages otherwise). Needs perf and root (syscall tracepoints).
#   IMAGE=<a JDK image> count-madvise.sh
set -eu
ROOT=$(git rev-parse --show-toplevel); I=${IMAGE:?IMAGE: a JDK image of scripts/jvm.sh build}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch); X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
D=$(mktemp)
MMTK_PLAN=MarkSweep MMTK_THREADS=2 perf record -q -e syscalls:sys_enter_madvise -e syscalls:sys_enter_process_madvise -o "$D" -- \
  "$I/bin/java" -XX:+UseThirdPartyHeap -Xms64m -Xmx64m -jar "$J" --index "$X" -t 24 -n 5 | tail -1
perf script -i "$D" -F comm,event,trace 2>/dev/null | python3 -c '
import sys, re, collections
n = collections.Counter()
for line in sys.stdin:
    comm = line.split()[0]
    if "process_madvise" in line:
        n[(comm, "process_madvise")] += 1; continue
    m = re.search(r"len_in: (0x[0-9a-f]+)", line)
    if not m: continue
    l = int(m.group(1), 16)
    n[(comm, "madvise " + ("chunk" if l == 0x400000 else "block" if l == 0x10000 else "pages"))] += 1
for k in sorted(n): print(*k, n[k])'
rm -f "$D"
