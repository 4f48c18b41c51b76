#!/bin/bash
# `holes_small` (as command.sh here) on synthvm's JVM-fitted lusearch model (issue 20 part 4: does
# the fast loop show the JVM's large holes?): shardsweep 64K, 1 and 48 threads, each at the model's
# minimum heap + 1 MiB (experiments/results/minheap-jvm-fit/), --compressed-layout as that study.
# Needs `scripts/build-variants.sh ss64k`. Then: python3 summarize.py synthvm-t1.out.gz synthvm-t48.out.gz
set -uo pipefail
ROOT=$(git rev-parse --show-toplevel)
D=$ROOT/bindings/openjdk/results/mmtk-0.33/holes
for run in "1 10" "48 24.5"; do
  set -- $run
  SHARDSWEEP_REPORT_FOOTPRINT=1 MMTK_PLAN=MarkSweep MMTK_THREADS=2 "$ROOT/.build/bin/synthvm-ss64k" --compressed-layout \
    -t $1 --heap $(python3 -c "print(int($2*1024))")K --seed 1 "$ROOT/bindings/synthvm/workloads/lusearch-jvm-fit.wl" 2>&1 | gzip -9 > "$D/synthvm-t$1.out.gz"
done
