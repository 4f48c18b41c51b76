#!/usr/bin/env bash
# The main job: build the shardsweep space into MMTk and print the minheap-vs-mutator-threads
# comparison against stock MarkSweep (scripts/minheap-study.sh, experiments/configs/
# minheap-default.yaml). Options are minheap-study.sh's (--help).
#
# Results go to the git-ignored experiments/results/local/minheap-default/, so a run leaves the
# tree clean; maintainers update the committed experiments/results/minheap-default/ with
# `scripts/main.sh --update-results`. A second run reuses every probe (same binaries: cargo
# rebuilds nothing, see scripts/overlay.sh) and takes well under a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec scripts/minheap-study.sh "$@"
