#!/usr/bin/env bash
# The thesis' third experiment (issue 21) on the lusearch and xalan stand-ins: MarkCompact's
# minimum heap at 8 threads, then time at 1.5, 2, 3, 4 and 6 times it for shardsweep 4/16/64/256 KiB
# blocks (page accounting), 64K whole-block, stock MarkSweep and Immix, 5 interleaved rounds,
# -n 3; GC counts from one more run of each cell under gdb; the report.
# Images (IMAGES=/work/jvm/images): h4, h16, h64, h256 = libmmtk_openjdk.so built at 34a60a9 with
# SHARDSWEEP_BLOCK_KIB=4/16/64/256; hstock = the same mmtk copy without feature shardsweep.
# Run from the repository root: bindings/openjdk/results/mmtk-0.33/factors/command.sh
set -euo pipefail
I="${IMAGES:-/work/jvm/images}"
OUT=bindings/openjdk/results/mmtk-0.33/factors
W="${WORKLOADS:-lusearch,xalan}"
S=experiments/workloads/lusearch-standin/study.py
JDKS=(--jdk stock=$I/hstock --jdk ss4=$I/h4 --jdk ss16=$I/h16 --jdk ss64=$I/h64 --jdk ss256=$I/h256)
for w in ${W//,/ }; do
    python3 $S --workload $w "${JDKS[@]}" --phase minheap --configs markcompact --threads 8 \
        --time-threads 8 --factor-threads 8 --out $OUT/$w
    python3 $S --workload $w "${JDKS[@]}" --phase factors --factor-threads 8 --invocations 5 --out $OUT/$w
done
for w in ${W//,/ }; do
    python3 $S --workload $w "${JDKS[@]}" --phase gccount --factor-threads 8 --out $OUT/$w
    python3 $S --workload $w "${JDKS[@]}" --phase report --factor-threads 8 --threads 8 --out $OUT/$w
done
