#!/bin/bash
# Lending holes on synthvm: lusearch-jvm's minimum heap (0.25 MiB resolution, by
# bisection between 1 and 200 MiB; a run passes if synthvm exits 0) under shardsweep 64K with
# SHARDSWEEP_HOLES=0 and 1024, 1/24/48 threads, 2 iterations. Needs
# `scripts/build-variants.sh ss64k` first. Output: one line per run (synthvm.txt here).
set -u
ROOT=$(git rev-parse --show-toplevel); BIN=$ROOT/.build/bin/synthvm-ss64k
ok() {  # $1 = heap in quarter MiB
  env MMTK_PLAN=MarkSweep SHARDSWEEP_HOLES=$2 timeout 120 "$BIN" -t "$3" -n 2 --heap $(($1 * 256))K lusearch-jvm >/dev/null 2>&1
}
for t in 1 24 48; do
  for reuse in 0 1024; do
    lo=4; hi=800
    while [ $((hi - lo)) -gt 1 ]; do mid=$(((lo + hi) / 2)); if ok $mid $reuse $t; then hi=$mid; else lo=$mid; fi; done
    echo "lusearch-jvm threads=$t holes=$reuse minheap_mib=$(python3 -c "print($hi / 4)")"
  done
done
