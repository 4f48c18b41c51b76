#!/bin/bash
# The minimum heap of SHARDSWEEP_ADOPT=headroom against =lease (one 64K library, e64: this
# repository at 34fe2bd): the lusearch stand-in, 0.5 MiB resolution, at 48, 24 and 1 threads,
# ROUNDS rounds (default 1 2), interleaved; the 4K build and MarkCompact with CONTROLS=1 (their
# seven rounds are in ../lease). Summary: ../lease/summarize-minheap.py THIS_DIR
#   IMAGES=<dir of MMTk OpenJDK images> bindings/openjdk/results/mmtk-0.33/headroom/command.sh
D=$(cd "$(dirname "$0")" && pwd)
OUTDIR=$D IMG64=${IMG64:-e64} ADOPTS="headroom lease" CONTROLS=${CONTROLS:-0} exec "$D/../lease/command.sh"
