#!/bin/bash
# SHARDSWEEP_ADOPT=headroom against =lease on the xalan stand-in: minimum heap at 48 and 24 threads,
# 0.5 MiB resolution, one 64K library (e64: this repository at 34fe2bd), interleaved, ROUNDS
# (default 1). CSVs in this directory.
#   IMAGES=<dir of MMTk OpenJDK images> bindings/openjdk/results/mmtk-0.33/headroom/xalan/command.sh
D=$(cd "$(dirname "$0")" && pwd)
OUTDIR=$D IMG64=${IMG64:-e64} ADOPTS="headroom lease" exec "$D/../../lease-xalan/command.sh"
