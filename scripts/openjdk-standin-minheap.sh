#!/usr/bin/env bash
# Minimum heap of a JVM stand-in (lusearch by default; h2, xalan with --workload) on any JDK
# image, over mutator threads, with our own binary search over -Xms=-Xmx
# (experiments/workloads/lusearch-standin/minheap.py: success = exit 0 + PASSED; too small =
# OutOfMemoryError / "Out of memory" or the timeout). Builds the jar if needed. Arguments after
# `--` are JVM arguments; the environment passes through.
#
#   scripts/openjdk-standin-minheap.sh JAVA [--workload lusearch|h2|xalan] [--threads "1 12 24 48"]
#       [--size default] [--iterations 2] [--resolution 0.25] [--timeout 180] [--label NAME]
#       [--out DIR] [-- JVM ARGS]
#
# Examples:
#   scripts/openjdk-standin-minheap.sh java --threads "1 4" --label host-serial -- -XX:+UseSerialGC
#   scripts/openjdk-standin-minheap.sh java --workload h2 --threads "1 4" --label host-serial -- -XX:+UseSerialGC
#   MMTK_PLAN=MarkSweep scripts/openjdk-standin-minheap.sh /path/to/images/jdk/bin/java \
#       --label ss64 -- -XX:+UseThirdPartyHeap
# Writes .build/openjdk-standin-minheap/LABEL/{minheap,probes}.csv (h2, xalan:
# .build/openjdk-standin-minheap/WORKLOAD/LABEL/), appending, unless --out.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -ge 1 ] || { sed -n '2,20p' "$0" >&2; exit 2; }
WORKLOAD=lusearch
prev=""
for arg in "$@"; do
    [ "$arg" = -- ] && break
    case "$prev" in --workload) WORKLOAD="$arg" ;; esac
    case "$arg" in --workload=*) WORKLOAD="${arg#--workload=}" ;; esac
    prev="$arg"
done
JAR="$("$ROOT/scripts/openjdk-standin-build.sh" "$WORKLOAD")"
exec python3 "$ROOT/experiments/workloads/lusearch-standin/minheap.py" --jar "$JAR" "$@"
