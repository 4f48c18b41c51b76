#!/bin/bash
# Time of SHARDSWEEP_ADOPT=headroom (a lease sized by the heap's room left) against =lease and
# =block, one 64K library, and Immix: the lusearch stand-in at 2x MarkCompact's minimum heap
# (19 MiB at 8 threads, 33 at 24) and at 2x the largest minimum (64 and 94 MiB), 5 iterations, the
# last one timed; ROUNDS rounds (default 1-5), configurations rotated, ratios paired per round.
# IMAGES: e64 (this repository at 34fe2bd, SHARDSWEEP_BLOCK_KIB=64; the room shared among the
# (mutator, class) pairs of the last GC interval), hstock (stock mmtk 0.33.0). IMG=d64: at ba72ad6,
# the room shared among registered mutators x 16 classes (time-d64.csv). IMG=f64: at 96e4c99 (the
# same rule as e64), CONFIGS="f64:MarkSweep:headroom f64:MarkSweep:block hstock:Immix:-",
# CELLS="24:33 8:19", ROUNDS="1 ... 8": more rounds of the cells at 2x MarkCompact's minimum (time-f64.csv).
#   IMAGES=<dir> command-time.sh [OUT.csv]; summary: ../time-2x/summarize.py OUT.csv [--pair A B]
D=$(cd "$(dirname "$0")" && pwd)
G=${IMG:-e64}
CONFIGS=${CONFIGS:-"$G:MarkSweep:headroom $G:MarkSweep:lease $G:MarkSweep:block hstock:Immix:-"} \
CELLS=${CELLS:-"8:19 24:33 8:64 24:94"} ROUNDS=${ROUNDS:-"1 2 3 4 5"} \
  exec "$D/../lease/command-time.sh" "${1:-$D/time-$G.csv}"
