#!/usr/bin/env bash
# The largest object the space serves, as a control (issue 20): a stand-in's minimum heap at 1, 24
# and 48 threads for shardsweep 64 KiB blocks built with SHARDSWEEP_MAX_OBJECT_BYTES = 512, 1024,
# 2048, 4096 and the default 8192 (larger objects go to MMTk's large-object space, as the 4 KiB
# build's above 512 B), beside the 4 KiB build and MarkCompact, in one run.
#
#   IMAGES=<dir of JDK images> bindings/openjdk/results/mmtk-0.33/maxobject/command.sh
#
# IMAGES/cN: the MMTk OpenJDK image whose libmmtk_openjdk.so is shardsweep 64K built with
# SHARDSWEEP_MAX_OBJECT_BYTES=N (c8192: the variable unset); IMAGES/m4: the 4 KiB build;
# IMAGES/stock: stock mmtk (MarkCompact, Immix). Writes OUT/<label>/{minheap,probes}.csv (OUT:
# this folder). Other runs: WORKLOAD (lusearch), CAPS ("512 1024 2048 4096 8192"), PLANS (stock
# plans, "MarkCompact"), THREADS ("1 24 48"), TIMEOUT (90 s), OUT.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../../.." && pwd)"
: "${IMAGES:?set IMAGES to the directory of JDK images}"
mh="$root/experiments/workloads/lusearch-standin/minheap.py"
workload="${WORKLOAD:-lusearch}"
out="${OUT:-$here}"
run() { # label image plan
    MMTK_PLAN="$3" MMTK_THREADS=2 python3 "$mh" "$IMAGES/$2/bin/java" --workload "$workload" \
        --threads "${THREADS:-1 24 48}" --resolution 0.5 --timeout "${TIMEOUT:-90}" --label "$1" --out "$out/$1" -- -XX:+UseThirdPartyHeap
}
for p in ${PLANS:-MarkCompact}; do run "$(echo "$p" | tr A-Z a-z)" stock "$p"; done
for c in ${CAPS:-512 1024 2048 4096 8192}; do run "ss64-max$c" "c$c" MarkSweep; done
run ss4-page m4 MarkSweep
