#!/usr/bin/env bash
# Time vs heap size (the thesis' Section 6): total, mutator and GC time and GC count of the timed
# (last) iteration at 1.5x, 2x, 3x and 6x MarkCompact's minimum heap, several invocations each;
# median [min-max] and relative to stock MarkSweep.
#
#   scripts/time-study.sh                 # experiments/configs/time-default.yaml (4 builds)
#   scripts/time-study.sh --full          # experiments/configs/time-full.yaml (every build)
#   scripts/time-study.sh --config FILE
# options: --out DIR, --no-build, --report (regenerate README.md and plots from runs.csv)
#
# MarkCompact's minimum heap comes from the minheap study's minheap.csv (same binary and
# workload settings) when it has the thread count, else it is measured first (same rules).
# Resumable: runs already in experiments/results/<name>/runs.csv are reused.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CONFIG=experiments/configs/time-default.yaml
BUILD=1; STUDY=time; ARGS=()
ORIG="scripts/time-study.sh${*:+ $*}"
while [ $# -gt 0 ]; do
    case "$1" in
        --full) CONFIG=experiments/configs/time-full.yaml ;;
        --config) CONFIG=$2; shift ;;
        --out) ARGS+=("$1" "$2"); shift ;;
        --no-build) BUILD=0 ;;
        --report) STUDY=report ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
python3 -c 'import yaml, matplotlib' 2>/dev/null || scripts/setup.sh
if [ $BUILD = 1 ] && [ $STUDY = time ]; then
    # shellcheck disable=SC2046
    scripts/build-variants.sh $(python3 -c '
import sys, yaml
c = yaml.safe_load(open(sys.argv[1])); vs = []
for b in c["builds"] + [c["reference"]["build"]]:
    vs += [b["variant"]] if b["variant"] not in vs else []
print(" ".join(vs))' "$CONFIG")
fi
exec python3 experiments/exp.py "$STUDY" "$CONFIG" --command "$ORIG" "${ARGS[@]}"
