#!/bin/bash
# The adoption unit under the JVM: the lusearch stand-in's minimum heap, 0.5 MiB resolution, at
# 48, 24 and 1 threads, for one shardsweep 64K library run with SHARDSWEEP_ADOPT=block (a mutator
# adopts a whole abandoned block) and SHARDSWEEP_ADOPT=lease (a page's worth of its free cells),
# beside the 4K build of the same commit and MarkCompact. Interleaved by thread count and round
# (ROUNDS, default 1 2); a minimum heap does not depend on speed, so it is taken beside other work.
# IMAGES: MMTk OpenJDK images (bindings/openjdk/README.md) a64 and a4 (libmmtk_openjdk.so of this
# repository at 1729a09, SHARDSWEEP_BLOCK_KIB=64 and 4) and hstock (stock mmtk 0.33.0); IMG64 names
# another 64K image (rounds 6 and later: IMG64=b64, this repository at 164ff71, after c0406e9), IMG4
# another 4K image, IMGMC the image MarkCompact runs on.
# ADOPTS: the 64K library's SHARDSWEEP_ADOPT values (default "lease block"; label ss64-<value>;
# ADOPTS="" none); ENV64: more VAR=value settings for the 64K runs, LABEL64 a suffix for their
# label (e.g. ENV64="SHARDSWEEP_COUNT=in-use SHARDSWEEP_IDLE_CAP=12" LABEL64=-inuse-cap12);
# CONTROLS=0 leaves out the 4K build and MarkCompact, CONTROLS=mc the 4K build; IMMIX=1 adds Immix (on
# IMGMC, label immix); OUTDIR: where the searches go (default here);
# QUORUM=K/N: a heap passes when K of N runs pass (minheap.py --quorum; default one run).
set -u
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK images a64, a4, hstock}
D=${OUTDIR:-$ROOT/bindings/openjdk/results/mmtk-0.33/lease}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
M=$ROOT/experiments/workloads/lusearch-standin/minheap.py
for r in ${ROUNDS:-1 2}; do
  for t in ${THREADS:-48 24 1}; do
    cfgs=(); for a in ${ADOPTS-lease block}; do cfgs+=("ss64-$a${LABEL64:-} ${IMG64:-a64} MarkSweep SHARDSWEEP_ADOPT=$a ${ENV64:-}"); done
    case "${CONTROLS:-1}" in
      0) ;;
      mc) cfgs+=("markcompact ${IMGMC:-hstock} MarkCompact") ;;
      *) cfgs+=("ss4 ${IMG4:-a4} MarkSweep" "markcompact ${IMGMC:-hstock} MarkCompact") ;;
    esac
    [ "${IMMIX:-0}" = 1 ] && cfgs+=("immix ${IMGMC:-hstock} Immix")
    for cfg in "${cfgs[@]}"; do
      set -- $cfg; label=$1; image=$2; plan=$3; shift 3
      env MMTK_PLAN=$plan "$@" python3 "$M" "$I/$image/bin/java" --workload lusearch --jar "$J" --size default \
        --guess $((10 + t / 3)) --threads "$t" --resolution 0.5 --timeout 300 --label "$label-r$r" --out "$D/$label" ${QUORUM:+--quorum "$QUORUM"} \
        -- -XX:+UseThirdPartyHeap
    done
  done
done
