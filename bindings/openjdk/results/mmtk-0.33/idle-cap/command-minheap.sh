#!/bin/bash
# The idle cap's minimum heap and peak RSS: the lusearch stand-in at 48, 24 and 1 threads, 0.5 MiB
# resolution, a heap passing when 2 of its 3 runs pass (lease/command.sh, QUORUM=2/3), for one 64K
# library with the default (resident pages counted; label ss64-headroom) and with pages in use
# counted and idle pages capped at 12% of the heap (ss64-headroom-inuse-cap12), beside MarkCompact;
# interleaved by round (ROUNDS, default 1) and thread count. IMAGES: fcap (this repository at
# 688c41e), hstock (stock mmtk 0.33.0). Output: minheap/<build>/; table:
# ../lease/summarize-minheap.py minheap
#   IMAGES=<dir> bindings/openjdk/results/mmtk-0.33/idle-cap/command-minheap.sh
D=$(cd "$(dirname "$0")" && pwd)
for r in ${ROUNDS:-1}; do
  for t in 48 24 1; do
    ROUNDS=$r THREADS=$t ADOPTS=headroom IMG64=fcap IMGMC=hstock CONTROLS=mc QUORUM=2/3 OUTDIR=$D/minheap \
      "$D/../lease/command.sh"
    ROUNDS=$r THREADS=$t ADOPTS=headroom IMG64=fcap LABEL64=-inuse-cap12 ENV64="SHARDSWEEP_COUNT=in-use SHARDSWEEP_IDLE_CAP=12" \
      CONTROLS=0 QUORUM=2/3 OUTDIR=$D/minheap "$D/../lease/command.sh"
  done
done
