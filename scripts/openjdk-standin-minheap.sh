#!/usr/bin/env bash
# Minimum heap of the lusearch stand-in on any JDK image, over mutator threads, with our own
# binary search over -Xms=-Xmx (experiments/workloads/lusearch-standin/minheap.py: success =
# exit 0 + PASSED; too small = OutOfMemoryError / "Out of memory" or the timeout). Builds the
# jar if needed. Arguments after `--` are JVM arguments; the environment passes through.
#
#   scripts/openjdk-standin-minheap.sh JAVA [--threads "1 12 24 48"] [--size default]
#       [--iterations 2] [--resolution 0.25] [--timeout 180] [--label NAME] [--out DIR] [-- JVM ARGS]
#
# Examples:
#   scripts/openjdk-standin-minheap.sh java --threads "1 4" --label host-serial -- -XX:+UseSerialGC
#   MMTK_PLAN=MarkSweep scripts/openjdk-standin-minheap.sh /path/to/images/jdk/bin/java \
#       --label ss64 -- -XX:+UseThirdPartyHeap
# Writes .build/openjdk-standin-minheap/LABEL/{minheap,probes}.csv (appending) unless --out.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -ge 1 ] || { sed -n '2,16p' "$0" >&2; exit 2; }
JAR="$("$ROOT/scripts/openjdk-standin-build.sh")"
exec python3 "$ROOT/experiments/workloads/lusearch-standin/minheap.py" --jar "$JAR" "$@"
