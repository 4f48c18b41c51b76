#!/bin/bash
# `holes_small` (as command.sh here) on the xalan and h2 stand-ins: shardsweep 64K at 1 and 48
# threads, each at its minimum heap of the 2026-11-26 studies (results/mmtk-0.33/minheap/) + 2 MiB (xalan at 48 threads + 5 MiB: at + 2 it ran out of memory under this image),
# 2 iterations. IMAGES: the MMTk OpenJDK image r64b (this repository at dca51e5, 64 KiB blocks).
# Then: python3 summarize.py xalan-t1.out.gz xalan-t48.out.gz h2-t1.out.gz h2-t48.out.gz
set -uo pipefail
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK image r64b}
D=$ROOT/bindings/openjdk/results/mmtk-0.33/holes
: > "$D/runs-xalan-h2.txt"
for run in "xalan 1 10" "xalan 48 42" "h2 1 54" "h2 48 66"; do
  set -- $run; w=$1 t=$2
  J=$("$ROOT/scripts/openjdk-standin-build.sh" "$w")
  SHARDSWEEP_REPORT_FOOTPRINT=1 MMTK_PLAN=MarkSweep MMTK_THREADS=2 timeout 900 \
    "$I/r64b/bin/java" -XX:+UseThirdPartyHeap -Xms$3m -Xmx$3m -jar "$J" -s default -n 2 -t $t $w 2>&1 | gzip -9 > "$D/$w-t$t.out.gz"
  echo "$w t$t heap=$3m rc=${PIPESTATUS[0]}" >> "$D/runs-xalan-h2.txt"
done
