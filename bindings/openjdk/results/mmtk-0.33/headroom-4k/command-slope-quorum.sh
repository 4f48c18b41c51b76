#!/bin/bash
# The slope with a quorum: the lusearch stand-in's minimum heap at 48, 24 and 1 threads, 0.5 MiB
# resolution, a heap passing when 2 of its 3 runs pass (minheap.py --quorum 2/3), for the 64K build
# (SHARDSWEEP_ADOPT=headroom, the default), the 4K build and MarkCompact, interleaved by thread count
# and round (ROUNDS, default 1 2). IMAGES: f64, f4 (this repository at 96e4c99), hstock (stock
# mmtk 0.33.0). Output: slope-quorum/<build>/; table: ../lease/summarize-minheap.py slope-quorum
#   IMAGES=<dir of MMTk OpenJDK images> bindings/openjdk/results/mmtk-0.33/headroom-4k/command-slope-quorum.sh
D=$(cd "$(dirname "$0")" && pwd)
ADOPTS=headroom IMG64=f64 IMG4=f4 IMGMC=hstock QUORUM=2/3 ROUNDS=${ROUNDS:-1 2} OUTDIR=$D/slope-quorum \
  exec "$D/../lease/command.sh"
