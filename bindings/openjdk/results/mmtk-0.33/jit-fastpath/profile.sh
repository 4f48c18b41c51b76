#!/bin/bash
# Where the CPU goes with and without the JIT's inline free-list pop: perf record (cpu-clock,
# 999 Hz, every thread of the JVM) of the lusearch stand-in, 8 threads, 64 MiB, 5 iterations,
# SHARDSWEEP_ZERO=binding, on IMAGES/jk64 (the prototype libjvm.so with the libmmtk_openjdk.so of
# the commit that drops a new chunk); then the share of the samples in the allocation call.
#   IMAGES=<dir of JDK images> bindings/openjdk/results/mmtk-0.33/jit-fastpath/profile.sh
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
D=$(mktemp -d)
for v in 0 1; do
  SHARDSWEEP_JIT_FASTPATH=$v SHARDSWEEP_ZERO=binding MMTK_PLAN=MarkSweep MMTK_THREADS=2 \
    perf record -q -e cpu-clock -F 999 -o $D/jit$v.data $I/jk64/bin/java -XX:+UseThirdPartyHeap \
    -Xms64m -Xmx64m -jar $J -t 8 -n 5 >/dev/null 2>&1
  perf report -i $D/jit$v.data --sort dso,sym --stdio 2>/dev/null > $D/jit$v.txt
  echo "SHARDSWEEP_JIT_FASTPATH=$v: $(python3 "$(dirname "$0")/alloc_share.py" $D/jit$v.txt)"
done
