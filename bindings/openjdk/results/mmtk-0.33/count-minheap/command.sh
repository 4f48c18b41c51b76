#!/usr/bin/env bash
# SHARDSWEEP_COUNT=resident against in-use (issues 20 and 22): the lusearch stand-in's minimum
# heap at 1, 24 and 48 threads, shardsweep 64K, in one run.
#   IMAGES=<dir of JDK images> bindings/openjdk/results/mmtk-0.33/count-minheap/command.sh
# IMAGES/u64: shardsweep 64K at the commit that added SHARDSWEEP_COUNT. Writes <label>/*.csv here.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../../.." && pwd)"
: "${IMAGES:?set IMAGES to the directory of JDK images}"
mh="$root/experiments/workloads/lusearch-standin/minheap.py"
for count in resident in-use; do
    SHARDSWEEP_COUNT=$count MMTK_PLAN=MarkSweep MMTK_THREADS=2 python3 "$mh" "$IMAGES/u64/bin/java" --workload lusearch \
        --threads "${THREADS:-1 24 48}" --resolution 0.5 --timeout 90 --label "ss64-$count" --out "$here/ss64-$count" \
        -- -XX:+UseThirdPartyHeap
done
