#!/usr/bin/env bash
# Time vs heap size (the thesis' Section 6): total, mutator and GC time and GC count of the timed
# (last) iteration at 1.5x, 2x, 3x and 6x MarkCompact's minimum heap, several invocations each;
# median [min-max] and relative to stock MarkSweep.
#
#   scripts/time-study.sh                 # experiments/configs/time-default.yaml (4 builds)
#   scripts/time-study.sh --full          # experiments/configs/time-full.yaml (every build)
#   scripts/time-study.sh --config FILE
# options: --out DIR, --no-build, --report (regenerate README.md and plots from runs.csv),
#          --update-results (maintainers: write the committed experiments/results/<name>/)
#
# MarkCompact's minimum heap comes from the minheap study's minheap.csv (same binary and
# workload settings) when it has the thread count, else it is measured first (same rules).
# Results go to the git-ignored experiments/results/local/<name>/ unless --update-results or
# --out. Resumable: runs already in that folder's runs.csv are reused. Usage errors exit 2.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CONFIG=experiments/configs/time-default.yaml
BUILD=1; STUDY=time; OUT=""; UPDATE=0
ORIG="scripts/time-study.sh${*:+ $*}"
usage() { echo "time-study: $* (see --help)" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --full) CONFIG=experiments/configs/time-full.yaml ;;
        --config|--out)
            [ $# -ge 2 ] && [ -n "$2" ] && [ "${2#--}" = "$2" ] || usage "$1 needs a value"
            if [ "$1" = --config ]; then CONFIG=$2; else OUT=$2; fi
            shift ;;
        --no-build) BUILD=0 ;;
        --report) STUDY=report ;;
        --update-results) UPDATE=1 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) usage "unknown option $1" ;;
    esac
    shift
done
[ -f "$CONFIG" ] || usage "no such config file: $CONFIG"
python3 -c 'import yaml, matplotlib' 2>/dev/null || scripts/setup.sh
if [ -z "$OUT" ]; then
    name=$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["name"])' "$CONFIG") \
        || usage "cannot read the study name from $CONFIG"
    if [ $UPDATE = 1 ]; then OUT="experiments/results/$name"; else OUT="experiments/results/local/$name"; fi
fi
if [ $BUILD = 1 ] && [ $STUDY = time ]; then
    # shellcheck disable=SC2046
    scripts/build-variants.sh $(python3 -c '
import sys, yaml
c = yaml.safe_load(open(sys.argv[1])); vs = []
for b in c["builds"] + [c["reference"]["build"]]:
    vs += [b["variant"]] if b["variant"] not in vs else []
print(" ".join(vs))' "$CONFIG")
fi
exec python3 experiments/exp.py "$STUDY" "$CONFIG" --out "$OUT" --command "$ORIG"
