#!/usr/bin/env bash
# Every test of the project, from a fresh clone: the core, the synthvm binding, the MMTk space
# (through a patched copy of mmtk 0.33.0 that scripts/overlay.sh makes), mmtk's own mock-VM
# suite on it, the OpenJDK contract, the JVM stand-ins and the CI-sized experiment. This is the
# README's test command and what .ci/run runs. Each suite's wall time is printed after it, and
# a summary at the end.
#
#   scripts/test.sh          # the default tier: one test per concern (~12 min on 2 idle cores)
#   scripts/test.sh --full   # everything: every block size, miri over the unit tests, the
#                            # policy's whole matrix, mmtk's mock-VM suite against stock too.
#                            # Run it before resolving an issue that touches src/ or policy/.
set -euo pipefail
cd "$(dirname "$0")/.."
FULL=()
for a in "$@"; do
  case "$a" in
    --full) FULL=(--full) ;;
    *) echo "usage: scripts/test.sh [--full] (unknown option: $a)" >&2; exit 2 ;;
  esac
done
TIER=default; [ ${#FULL[@]} = 1 ] && TIER=full
T_ALL=$SECONDS
TIMES=()
suite() { # suite NAME COMMAND...: runs it, prints and records its wall time
    local name=$1 t0=$SECONDS; shift
    "$@"
    local dt=$((SECONDS - t0))
    printf '== %s: passed in %dm%02ds\n' "$name" $((dt / 60)) $((dt % 60))
    TIMES+=("$(printf '%-12s %3dm%02ds' "$name" $((dt / 60)) $((dt % 60)))")
}
suite setup scripts/setup.sh --test
printf '\n== house rules (SAFETY comments, SeqCst reasons, file sizes, no diary in the docs)\n'
suite house scripts/check-house.sh
suite core scripts/test-core.sh "${FULL[@]}"
scripts/overlay.sh   # the patched mmtk copy every binding builds against (unchanged files kept)
if [ -f bindings/synthvm/Cargo.toml ]; then
  printf '\n== synthvm (stock mmtk 0.33.0 behaviour: the copy without the feature)\n'
  # Same target dir as the stock build of the experiments (build-variants.sh stock).
  suite synthvm bash -c 'cd bindings/synthvm && cargo test --release --target-dir ../../.build/target-stock'
fi
if [ -x scripts/test-policy.sh ]; then
  printf '\n== policy (shardsweep space inside mmtk 0.33.0)\n'
  # --full: the whole matrix (blocks 4/16/64/256 KiB x page/block x 1/8/48 threads).
  suite policy scripts/test-policy.sh "${FULL[@]}"
fi
printf '\n== mmtk 0.33.0 mock-VM suite with MarkSweep on our space (mmtk-core CI'"'"'s way)\n'
suite mmtk-mock scripts/test-mmtk-mock.sh "${FULL[@]}"
if [ -x scripts/openjdk-test.sh ]; then
  printf '\n== bindings/openjdk (layout contract with mmtk-openjdk 0.33.0; MSRV 1.84 when installed)\n'
  suite openjdk scripts/openjdk-test.sh
fi
if [ -x scripts/openjdk-standin-test.sh ]; then
  printf '\n== lusearch stand-in (Lucene, stock JDK)\n'
  suite standin scripts/openjdk-standin-test.sh
fi
if [ -x scripts/test-experiments.sh ]; then
  printf '\n== experiments (CI size)\n'
  suite experiments scripts/test-experiments.sh
fi
printf '\nwall time per suite (%s tier, 2 cores):\n' "$TIER"
printf '  %s\n' "${TIMES[@]}"
dt=$((SECONDS - T_ALL))
printf '  %-12s %3dm%02ds\n' total $((dt / 60)) $((dt % 60))
printf 'all test suites passed\n'
