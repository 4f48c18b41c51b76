#!/usr/bin/env bash
# Every test of the project, from a fresh clone: the core, the synthvm binding, the MMTk space
# (through a patched copy of mmtk 0.31.0 that scripts/overlay.sh makes), and the CI-sized
# experiment. This is the README's test command and what .ci/run runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/test-core.sh
scripts/overlay.sh   # the patched mmtk copy every binding builds against
if [ -f bindings/synthvm/Cargo.toml ]; then
  printf '\n== synthvm (stock mmtk 0.31.0 behaviour: the copy without the feature)\n'
  # Same target dir as the stock build of the policy tests: one build of the stock copy, not two.
  (cd bindings/synthvm && cargo test --release --target-dir ../../.build/target-stock)
fi
if [ -x scripts/test-policy.sh ]; then
  printf '\n== policy (shardsweep space inside mmtk 0.31.0)\n'
  # --full: the issue's whole matrix (blocks 4/16/64/256 KiB x page/block x 1/8/48 threads),
  # ~3 minutes more than the subset on 2 idle cores.
  scripts/test-policy.sh --full
fi
if [ -x scripts/openjdk-test.sh ]; then
  printf '\n== bindings/openjdk (layout contract with mmtk-openjdk 0.31.0; MSRV 1.83 when installed)\n'
  scripts/openjdk-test.sh
fi
if [ -x scripts/openjdk-standin-test.sh ]; then
  printf '\n== lusearch stand-in (Lucene, stock JDK)\n'
  scripts/openjdk-standin-test.sh
fi
if [ -x scripts/test-experiments.sh ]; then
  printf '\n== experiments (CI size)\n'
  scripts/test-experiments.sh
fi
printf '\nall test suites passed\n'
