#!/bin/bash
# Correctness of SHARDSWEEP_ADOPT=headroom under the JVM, as ../lease/command-checks.sh does for the
# lease: the lusearch stand-in near its minimum heap at 1, 24 and 48 threads with the space's
# accounting check after every GC, on a library with mmtk's `sanity` feature (se64) and on the
# plain one (e64), then a stress run; lines appended to checks.txt here.
# IMAGES: se64, e64 (this repository at 34fe2bd, SHARDSWEEP_BLOCK_KIB=64; se64 with
# `--features mmtk/sanity`).
D=$(cd "$(dirname "$0")" && pwd)
ADOPT=headroom SANITY=se64 PLAIN=e64 OUT=$D/checks.txt exec "$D/../lease/command-checks.sh"
