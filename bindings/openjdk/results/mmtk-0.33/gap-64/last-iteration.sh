#!/bin/bash
# command.sh's profile of the timed (last) iteration only: the same run and breakdown, but perf
# starts with its events off (`-D -1`) and a watcher enables them through a control FIFO when the
# stand-in reports its warm-up iterations done, so neither start-up nor a slow first iteration
# (the 24-thread runs' high-CPU mode) is in the samples. The events stay on to the JVM's exit (a
# few ms after the iteration). Per run: the timed iteration's ms, the samples per thread group,
# the mutators' breakdown (../profile/breakdown.py) and the GC workers' top symbols (top.py).
#   IMAGES=<dir> [THREADS="24"] [MIB=64] [CONFIGS="ss64k:MarkSweep stock:Immix"] last-iteration.sh OUT_DIR
set -euo pipefail
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images}
D=$(cd "$(dirname "$0")" && pwd); OUT=${1:?OUT_DIR}; mkdir -p "$OUT"
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
N=5
for t in ${THREADS:-24}; do
  for cfg in ${CONFIGS:-ss64k:MarkSweep stock:Immix}; do
    img=${cfg%%:*}; plan=${cfg#*:}; label=$img-$plan-t$t-${MIB:-64}m-last
    data=$(mktemp); fifo=$(mktemp -u); mkfifo "$fifo"; run=$OUT/$label.run; : > "$run"
    # The watcher: polls the run's output every 20 ms for the last warm-up's line, then enables
    # the events (so up to 20 ms of the timed iteration may be missed).
    ( until grep -q "completed warmup $((N - 1)) " "$run" 2>/dev/null; do sleep 0.02; done; echo enable > "$fifo" ) &
    watcher=$!
    MMTK_PLAN=$plan MMTK_THREADS=2 perf record -q -F 999 -e cpu-clock -D -1 --control "fifo:$fifo" -o "$data" -- \
      "$I/$img/bin/java" -XX:+UseThirdPartyHeap -XX:+PreserveFramePointer -Xms${MIB:-64}m -Xmx${MIB:-64}m -jar "$J" --index "$X" -t "$t" -n $N \
      > "$run" 2>&1 || true
    kill "$watcher" 2>/dev/null || true; wait "$watcher" 2>/dev/null || true; rm -f "$fifo"
    ms=$(sed -n 's/.*PASSED in \([0-9]*\) msec.*/\1/p' "$run" | tail -1)
    [ -n "$ms" ] || { echo "last-iteration.sh: $label did not pass (see $run)" >&2; exit 1; }
    perf script -i "$data" -F comm,tid,ip,sym,dso 2>/dev/null > "$OUT/$label.samples"
    { echo "$label: timed iteration $ms ms"; python3 "$D/../profile/breakdown.py" "$OUT/$label.samples" lusearch
      python3 "$D/top.py" "$OUT/$label.samples" "MMTk Collector" 15; } >> "$OUT/breakdown.txt"
    gzip -f "$OUT/$label.samples"; rm -f "$data"
  done
done
