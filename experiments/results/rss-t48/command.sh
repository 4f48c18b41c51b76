#!/usr/bin/env bash
# synthvm lusearch (default size), 48 mutator threads, MarkSweep at 20 and 26 MiB: the peak RSS
# of shardsweep 64K against stock mmtk 0.33.0's, paired (A B A B ..., scripts/paired-time.py:
# wait4's ru_maxrss, min/median/max and the ratio pair by pair), 2 GC threads. 20 MiB is about
# stock's own minimum heap there: a stock run that runs out of memory is reported and its pair
# left out. Binaries: scripts/build-variants.sh stock ss64k (.build/bin).
#   experiments/results/rss-t48/command.sh [RUNS]   (default 7; ~3 min on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/../../.."
N=${1:-7}
scripts/build-variants.sh stock ss64k >/dev/null
B=.build/bin
for heap in 20 26; do
  echo "== lusearch -t 48 --heap $heap: A = shardsweep 64K, B = stock MarkSweep"
  scripts/paired-time.py -n "$N" \
    --vs "env MMTK_THREADS=2 $B/synthvm-stock --plan MarkSweep -t 48 --heap $heap lusearch" \
    -- env MMTK_THREADS=2 "$B/synthvm-ss64k" --plan MarkSweep -t 48 --heap "$heap" lusearch
done
