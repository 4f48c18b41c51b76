#!/bin/bash
# The 48-thread minimum heap of the 64K build (headroom) and the 4K build with a quorum: a heap
# passes when 2 of its 3 runs pass (minheap.py --quorum 2/3), so that one run's luck near the
# minimum does not decide it; 0.5 MiB resolution, the two builds alternating, ROUNDS rounds
# (default 1). IMAGES: f64, f4 (this repository at 96e4c99). Output: quorum-<build>/.
#   IMAGES=<dir of MMTk OpenJDK images> bindings/openjdk/results/mmtk-0.33/headroom-4k/command-quorum.sh
set -u
D=$(cd "$(dirname "$0")" && pwd); ROOT=$(git -C "$D" rev-parse --show-toplevel)
I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK images f64, f4}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
for r in ${ROUNDS:-1}; do
  for cfg in "ss64-headroom f64" "ss4 f4"; do
    set -- $cfg
    MMTK_PLAN=MarkSweep python3 "$ROOT/experiments/workloads/lusearch-standin/minheap.py" "$I/$2/bin/java" \
      --workload lusearch --jar "$J" --size default --guess 30 --threads 48 --resolution 0.5 --timeout 300 \
      --quorum 2/3 --label "$1-r$r" --out "$D/quorum-$1" -- -XX:+UseThirdPartyHeap
  done
done
