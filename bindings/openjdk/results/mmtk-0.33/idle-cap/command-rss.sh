#!/bin/bash
# The idle cap's memory at the time study's heaps: time-parts/rss.sh (peak RSS of the JVM, peak
# counted pages of the space; 19 MiB with 8 threads, 33 MiB with 24) for one library counting
# resident pages, pages in use, and pages in use with idle pages capped at 12% of the heap.
# IMAGES: fcap (this repository at 688c41e).
#   IMAGES=<dir> bindings/openjdk/results/mmtk-0.33/idle-cap/command-rss.sh > rss.txt
D=$(cd "$(dirname "$0")" && pwd)
IMG=fcap COUNTS="SHARDSWEEP_COUNT=resident SHARDSWEEP_COUNT=in-use SHARDSWEEP_COUNT=in-use,SHARDSWEEP_IDLE_CAP=12" \
  exec "$D/../time-parts/rss.sh"
