#!/usr/bin/env bash
# The lusearch stand-in under mmtk-openjdk, every plan and control in one session (issue 11
# part 2): minimum heap with peak RSS over threads for stock MarkSweep, MarkCompact, Immix,
# SemiSpace, shardsweep 64K (page and whole-block accounting) and 4K; then time at 2x
# MarkCompact's minimum heap, interleaved; then the report (README.md, minheap.png, rss.png).
# Builds the jar if needed; arguments go to experiments/workloads/lusearch-standin/study.py.
#
#   scripts/openjdk-standin-study.sh --stock JDK --ss64 JDK --ss4 JDK --out DIR [study.py options]
#
# JDK = a JDK image (the directory holding bin/java) built as bindings/openjdk/README.md says:
# the three differ only in lib/server/libmmtk_openjdk.so (stock mmtk; feature shardsweep with
# SHARDSWEEP_BLOCK_KIB=64; with 4). `--help` lists the options.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -ge 1 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
JAR="$("$ROOT/scripts/openjdk-standin-build.sh")"
exec python3 "$ROOT/experiments/workloads/lusearch-standin/study.py" --jar "$JAR" "$@"
