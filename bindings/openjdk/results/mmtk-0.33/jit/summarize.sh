#!/bin/bash
# Per case (workload-heap, threads): ../jit-fastpath/summarize.py on that case's rows of runs.csv
# (medians, and ratios paired by round to the first configuration and to Immix).
#   bindings/openjdk/results/mmtk-0.33/jit/summarize.sh [runs.csv]
D=$(cd "$(dirname "$0")" && pwd); IN=${1:-$D/runs.csv}; T=$(mktemp)
for c in $(tail -n +2 "$IN" | cut -d, -f2 | awk '!s[$0]++'); do
  echo; echo "### $c"
  { echo "round,threads,config,rc,last_iteration_ms,minor_faults,cpu_s"
    awk -F, -v c="$c" 'NR > 1 && $2 == c && $5 == 0 {print $1","$3","$4","$5","$6","$7","$8}' "$IN"; } > "$T"
  python3 "$D/../jit-fastpath/summarize.py" "$T"
done
rm -f "$T"
