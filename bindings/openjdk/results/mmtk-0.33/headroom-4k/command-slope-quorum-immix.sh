#!/bin/bash
# Immix beside command-slope-quorum.sh: the lusearch stand-in's minimum heap at 48, 24 and 1 threads,
# 0.5 MiB resolution, a heap passing when 2 of its 3 runs pass, ROUNDS rounds (default 1).
# IMAGES: hstock (stock mmtk 0.33.0). Output: slope-quorum/immix/
#   IMAGES=<dir of MMTk OpenJDK images> bindings/openjdk/results/mmtk-0.33/headroom-4k/command-slope-quorum-immix.sh
D=$(cd "$(dirname "$0")" && pwd)
ADOPTS="" CONTROLS=0 IMMIX=1 IMGMC=hstock QUORUM=2/3 ROUNDS=${ROUNDS:-1} OUTDIR=$D/slope-quorum \
  exec "$D/../lease/command.sh"
