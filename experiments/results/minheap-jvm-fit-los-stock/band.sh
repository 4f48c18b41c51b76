#!/bin/bash
# How wide is a build's pass/fail band at 48 threads on the refitted model? Runs synthvm at fixed
# heaps, REPS times each (default 6), seed 2, and prints each run's outcome and GC count.
#   BIN=stock HEAPS="42 46 50 54" experiments/results/minheap-jvm-fit-los-stock/band.sh > band-stock.txt
#   BIN=ss64k HEAPS="21 22 23 24" experiments/results/minheap-jvm-fit-los-stock/band.sh > band-ss64k.txt
# BIN names a binary of scripts/build-variants.sh (.build/bin/synthvm-BIN). The committed runs:
# stock sha256 a26b20720b6bf027, ss64k 6d39c33f2e704fd0 (the tree of 351c7ef: adoption headroom).
cd "$(git rev-parse --show-toplevel)" || exit 1
B=.build/bin/synthvm-${BIN:?BIN: stock, ss64k, ...}
for rep in $(seq 1 "${REPS:-6}"); do
  for h in ${HEAPS:?HEAPS: heap sizes in MiB}; do
    out=$(MMTK_THREADS=2 timeout 120 "$B" --plan MarkSweep -t 48 --size default -n 1 --seed 2 --heap "$h" \
          --compressed-layout bindings/synthvm/workloads/lusearch-jvm-fit-los.wl 2>&1); rc=$?
    echo "rep=$rep heap=$h rc=$rc $(grep -o '"gc_count":[0-9]*' <<<"$out" | head -1) $(grep -io 'out of memory' <<<"$out" | head -1)"
  done
done
