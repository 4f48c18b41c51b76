#!/bin/bash
# Does the gap to MarkCompact need moving? The lusearch stand-in's minimum heap, 0.5 MiB
# resolution, at 1, 24 and 48 threads, for shardsweep 64K and 4K (this repository at 95bfd5f),
# MarkCompact, Immix, and Immix built never to move (mmtk's `immix_non_moving` feature: no
# defragmentation, no opportunistic copying; lines of 256 B in 32 KiB blocks, objects of every
# size in the same blocks: the one non-moving design in mmtk whose free memory serves any size).
# Interleaved by thread count and round (ROUNDS, default 1 2); a minimum heap does not depend on
# speed, so it is taken beside other work on the same 2 cores.
# IMAGES: MMTk OpenJDK images (bindings/openjdk/README.md) l64c and l4c (libmmtk_openjdk.so of this
# repository at 95bfd5f, SHARDSWEEP_BLOCK_KIB=64 and 4), hstock (stock mmtk 0.33.0), hnm (stock
# mmtk 0.33.0 with its cargo feature immix_non_moving: the binding's library built with
# `--features mmtk/immix_non_moving`).
set -u
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK images l64c, l4c, hstock, hnm}
D=$ROOT/bindings/openjdk/results/mmtk-0.33/nonmoving
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
M=$ROOT/experiments/workloads/lusearch-standin/minheap.py
for r in ${ROUNDS:-1 2}; do
  for t in ${THREADS:-48 24 1}; do
    for cfg in "ss64 l64c MarkSweep" "ss4 l4c MarkSweep" "markcompact hstock MarkCompact" "immix hstock Immix" \
               "immix-nonmoving hnm Immix"; do
      set -- $cfg; label=$1; image=$2; plan=$3; shift 3
      env MMTK_PLAN=$plan "$@" python3 "$M" "$I/$image/bin/java" --workload lusearch --jar "$J" --size default \
        --guess $((10 + t / 3)) --threads "$t" --resolution 0.5 --timeout 300 --label "$label-r$r" --out "$D/$label" \
        -- -XX:+UseThirdPartyHeap
    done
  done
done
