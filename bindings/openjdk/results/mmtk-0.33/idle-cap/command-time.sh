#!/bin/bash
# The idle cap (SHARDSWEEP_IDLE_CAP) at 2x MarkCompact's minimum heap: time-parts/command.sh (the
# lusearch stand-in at 19 MiB with 8 threads and 33 MiB with 24, GCs and CPU by thread kind) for one
# library counting resident pages (the default), pages in use, and pages in use with idle pages
# capped at 12% of the heap, beside Immix. IMAGES: fcap (this repository at 688c41e), hstock (stock
# mmtk 0.33.0). Needs root and perf (as time-parts/command.sh). Summary: ../time-parts/summarize.py runs.csv
#   IMAGES=<dir> bindings/openjdk/results/mmtk-0.33/idle-cap/command-time.sh [OUT.csv]
D=$(cd "$(dirname "$0")" && pwd)
CONFIGS="fcap:MarkSweep:- fcap:MarkSweep:SHARDSWEEP_COUNT=in-use fcap:MarkSweep:SHARDSWEEP_COUNT=in-use,SHARDSWEEP_IDLE_CAP=12 hstock:Immix:-" \
  ROUNDS=${ROUNDS:-1 2 3 4} exec "$D/../time-parts/command.sh" "${1:-$D/runs.csv}"
