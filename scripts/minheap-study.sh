#!/usr/bin/env bash
# Minimum heap vs mutator threads (the thesis' Sections 4-5 tables, on synthvm lusearch).
#
#   scripts/minheap-study.sh                  # the main job: experiments/configs/minheap-default.yaml
#                                             # (stock MarkSweep vs shardsweep 64K page accounting,
#                                             #  + MarkCompact and two shardsweep variants; threads 1,12,24,48)
#   scripts/minheap-study.sh --full           # experiments/configs/minheap-full.yaml (threads 1,6,...,48, 11 builds)
#   scripts/minheap-study.sh --config FILE    # any minheap config, e.g. experiments/configs/minheap-fine.yaml
#                                             # (the headline builds at 0.25 MiB resolution)
#   scripts/minheap-study.sh --pristine-check # overlay copy without the feature vs pristine mmtk 0.31.0
# options: --confirm N (the minimum must pass N more times), --resolution MiB (e.g. 0.5),
#          --out DIR, --no-build (use the binaries in .build/bin as they are), --report (no runs)
#
# Builds the variants the config needs (scripts/build-variants.sh; cargo rebuilds only what
# changed), runs the search (resumable: probes already in the CSV are reused), prints the table,
# slopes and headline goals, and writes experiments/results/<name>/{README.md,probes.csv,
# minheap.csv,minheap.png}.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CONFIG=experiments/configs/minheap-default.yaml
BUILD=1; PRISTINE=0; STUDY=minheap; ARGS=()
ORIG="scripts/minheap-study.sh${*:+ $*}"
while [ $# -gt 0 ]; do
    case "$1" in
        --full) CONFIG=experiments/configs/minheap-full.yaml ;;
        --config) CONFIG=$2; shift ;;
        --pristine-check) PRISTINE=1 ;;
        --confirm|--resolution|--out) ARGS+=("$1" "$2"); shift ;;
        --no-build) BUILD=0 ;;
        --report) STUDY=report ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
python3 -c 'import yaml, matplotlib' 2>/dev/null || scripts/setup.sh

variants() { python3 - "$@" <<'PY'
import sys, yaml
vs = []
for p in sys.argv[1:]:
    c = yaml.safe_load(open(p))
    for b in c["builds"] + ([c["reference"]["build"]] if "reference" in c else []):
        if b["variant"] not in vs:
            vs.append(b["variant"])
print(" ".join(vs))
PY
}

if [ $PRISTINE = 1 ]; then
    [ $BUILD = 1 ] && scripts/build-variants.sh stock pristine
    python3 experiments/exp.py minheap experiments/configs/pristine-check.yaml --command "$ORIG" "${ARGS[@]}"
    python3 experiments/exp.py time experiments/configs/pristine-check-gc.yaml --command "$ORIG"
    exec python3 experiments/exp.py pristine-summary experiments/configs/pristine-check.yaml --command "$ORIG"
fi
if [ $BUILD = 1 ] && [ $STUDY = minheap ]; then
    # shellcheck disable=SC2046
    scripts/build-variants.sh $(variants "$CONFIG")
fi
exec python3 experiments/exp.py "$STUDY" "$CONFIG" --command "$ORIG" "${ARGS[@]}"
