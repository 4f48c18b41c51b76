#!/usr/bin/env bash
# A JVM stand-in (lusearch by default; h2, xalan, or all with --workload) under mmtk-openjdk,
# every plan and control in one session (issues 11 and 21): minimum heap with peak RSS over
# threads for stock MarkSweep, MarkCompact, Immix, SemiSpace, shardsweep 64K (page and
# whole-block accounting) and 4K; time at 2x MarkCompact's minimum heap, interleaved; time at
# 1.5-6x MarkCompact's minimum at 8 threads for shardsweep 4/16/64/256K, 64K whole-block, stock
# MarkSweep and Immix (the thesis' third experiment), interleaved, with GC counts; then the
# report (README.md, minheap.png, rss.png, factors.png). Builds the jars if needed; arguments go
# to experiments/workloads/lusearch-standin/study.py (`--help` lists them).
#
#   scripts/openjdk-standin-study.sh [--workload lusearch|h2|xalan|all] \
#       --jdk stock=JDK --jdk ss64=JDK --jdk ss4=JDK [--jdk ss16=JDK --jdk ss256=JDK] --out DIR [options]
#   scripts/openjdk-standin-study.sh ... --plan-only      # print every command, run nothing
#
# JDK = a JDK image (the directory holding bin/java) built as bindings/openjdk/README.md says:
# they differ only in lib/server/libmmtk_openjdk.so (stock mmtk; feature shardsweep with
# SHARDSWEEP_BLOCK_KIB=64, 4, 16, 256). `--stock JDK`, `--ss64 JDK`, ... are the same as --jdk.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -ge 1 ] || { sed -n '2,19p' "$0" >&2; exit 2; }
WORKLOAD=lusearch
prev=""
for arg in "$@"; do
    case "$prev" in --workload) WORKLOAD="$arg" ;; esac
    case "$arg" in --workload=*) WORKLOAD="${arg#--workload=}" ;; esac
    prev="$arg"
done
[ "$WORKLOAD" = all ] && WORKLOAD=lusearch,h2,xalan
for w in ${WORKLOAD//,/ }; do
    case "$w" in
        lusearch|h2|xalan) "$ROOT/scripts/openjdk-standin-build.sh" "$w" >/dev/null ;;
        *) ;; # study.py names the unknown workload
    esac
done
exec python3 "$ROOT/experiments/workloads/lusearch-standin/study.py" "$@"
