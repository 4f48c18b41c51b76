#!/usr/bin/env bash
# Minimum heap vs mutator threads (the thesis' Sections 4-5 tables, on synthvm lusearch).
#
#   scripts/minheap-study.sh                  # the main job: experiments/configs/minheap-default.yaml
#                                             # (stock MarkSweep vs shardsweep 64K page accounting,
#                                             #  + MarkCompact and two shardsweep variants; threads 1,12,24,48)
#   scripts/minheap-study.sh --full           # experiments/configs/minheap-full.yaml (threads 1,6,...,48, 11 builds)
#   scripts/minheap-study.sh --config FILE    # any minheap config, e.g. experiments/configs/minheap-fine.yaml
#                                             # (the headline builds at 0.25 MiB resolution)
#   scripts/minheap-study.sh --pristine-check # overlay copy without the feature vs pristine mmtk 0.33.0
# options: --confirm N (the minimum must pass N more times), --quorum K/N (a heap passes when K of
#          N runs pass: for a workload whose runs pass or fail by chance near the minimum),
#          --resolution MiB (e.g. 0.5),
#          --out DIR, --no-build (use the binaries in .build/bin as they are), --report (no runs),
#          --update-results (maintainers: write the committed experiments/results/<name>/)
#
# Builds the variants the config needs (scripts/build-variants.sh; cargo rebuilds only what
# changed), runs the search (resumable: probes already in the CSV are reused, and probes of the
# committed results made by the same binaries are copied), prints the table, slopes and headline
# goals, and writes {README.md,probes.csv,minheap.csv,minheap.png} to the git-ignored
# experiments/results/local/<name>/, or with --update-results to experiments/results/<name>/.
# Usage errors (unknown option, missing value or config file) exit with status 2.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CONFIG=experiments/configs/minheap-default.yaml
BUILD=1; PRISTINE=0; STUDY=minheap; ARGS=(); OUT=""; UPDATE=0
ORIG="scripts/minheap-study.sh${*:+ $*}"
usage() { echo "minheap-study: $* (see --help)" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --full) CONFIG=experiments/configs/minheap-full.yaml ;;
        --config|--confirm|--quorum|--resolution|--out)
            [ $# -ge 2 ] && [ -n "$2" ] && [ "${2#--}" = "$2" ] || usage "$1 needs a value"
            case "$1" in
                --config) CONFIG=$2 ;;
                --out) OUT=$2 ;;
                *) ARGS+=("$1" "$2") ;;
            esac
            shift ;;
        --pristine-check) PRISTINE=1 ;;
        --no-build) BUILD=0 ;;
        --report) STUDY=report ;;
        --update-results) UPDATE=1 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) usage "unknown option $1" ;;
    esac
    shift
done
[ -f "$CONFIG" ] || usage "no such config file: $CONFIG"
python3 -c 'import yaml, matplotlib' 2>/dev/null || scripts/setup.sh
# Where a config's results go: --out, else the committed folder with --update-results, else
# the git-ignored experiments/results/local/<name>/ (a user's run leaves the tree clean).
out_for() { # CONFIG
    if [ -n "$OUT" ]; then echo "$OUT"; return; fi
    local name
    name=$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["name"])' "$1") \
        || usage "cannot read the study name from $1"
    if [ $UPDATE = 1 ]; then echo "experiments/results/$name"; else echo "experiments/results/local/$name"; fi
}

variants() { python3 - "$@" <<'PY'
import sys, yaml
vs = []
for p in sys.argv[1:]:
    c = yaml.safe_load(open(p))
    # a reference is a build of this repository, or figures measured elsewhere (no build)
    for b in c["builds"] + ([c["reference"]["build"]] if "build" in c.get("reference", {}) else []):
        if b["variant"] not in vs:
            vs.append(b["variant"])
print(" ".join(vs))
PY
}

if [ $PRISTINE = 1 ]; then
    [ $BUILD = 1 ] && scripts/build-variants.sh stock pristine
    P=experiments/configs/pristine-check.yaml; G=experiments/configs/pristine-check-gc.yaml
    # the summary reads the GC-count study beside the minheap one (<out>/../pristine-check-gc)
    if [ -n "$OUT" ]; then PO="$OUT/pristine-check"; GO="$OUT/pristine-check-gc"; else PO=$(out_for $P); GO=$(out_for $G); fi
    python3 experiments/exp.py minheap $P --out "$PO" --command "$ORIG" "${ARGS[@]}"
    python3 experiments/exp.py time $G --out "$GO" --command "$ORIG"
    exec python3 experiments/exp.py pristine-summary $P --out "$PO" --command "$ORIG"
fi
if [ $BUILD = 1 ] && [ $STUDY = minheap ]; then
    # shellcheck disable=SC2046
    scripts/build-variants.sh $(variants "$CONFIG")
fi
exec python3 experiments/exp.py "$STUDY" "$CONFIG" --out "$(out_for "$CONFIG")" --command "$ORIG" "${ARGS[@]}"
