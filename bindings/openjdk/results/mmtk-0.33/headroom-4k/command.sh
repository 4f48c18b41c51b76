#!/bin/bash
# The default adoption (SHARDSWEEP_ADOPT=headroom) beside the 4K build of the same commit and
# MarkCompact, on one image set: the lusearch stand-in's minimum heap, 0.5 MiB resolution, at 48,
# 24 and 1 threads, ROUNDS rounds (default 1 2), interleaved by thread count and round (issue 20:
# the 64K build's slope against the 4K build's, its peak RSS at 48 threads against MarkCompact's).
# IMAGES: f64 and f4 (libmmtk_openjdk.so of this repository at 96e4c99, SHARDSWEEP_BLOCK_KIB=64
# and 4), hstock (stock mmtk 0.33.0: MarkCompact). Summary: ../lease/summarize-minheap.py THIS_DIR
#   IMAGES=<dir of MMTk OpenJDK images> bindings/openjdk/results/mmtk-0.33/headroom-4k/command.sh
D=$(cd "$(dirname "$0")" && pwd)
OUTDIR=$D IMG64=${IMG64:-f64} IMG4=${IMG4:-f4} ADOPTS=headroom CONTROLS=1 exec "$D/../lease/command.sh"
