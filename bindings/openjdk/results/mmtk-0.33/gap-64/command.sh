#!/bin/bash
# Where the time at 64 MiB goes (issue 38's 64 MiB goal): `perf record -e cpu-clock -F 999` of the
# lusearch stand-in, 5 iterations, at MIB MiB (default 64) with THREADS threads (default "8 24"), under each of
# CONFIGS (image:plan, default: ss64k and Immix), one run each. Per run: the mutators' breakdown
# (../profile/breakdown.py) and the GC workers' top symbols (top.py).
# LAST=1 profiles the timed (last) iteration alone: perf starts with its events off (-D -1) and a
# watcher enables them through a control FIFO when the stand-in reports its last warm-up done
# (polling the run's output every 20 ms, so up to 20 ms of the iteration may be missed), so
# neither start-up nor a slow first iteration (the 24-thread runs' high-CPU mode) is in the
# samples; the events stay on to the JVM's exit. Labels end in -last, with the heap's MiB.
# PERFMAP=1 loads ../perfmap's JVMTI agent (built into .build/perfmap), so that samples in
# JIT-compiled code carry their method's name (../perfmap/methods.py compares runs by method).
#   IMAGES=<dir> [LAST=1] [PERFMAP=1] [MIB=64] [THREADS="8 24"] [CONFIGS="ss64k:MarkSweep stock:Immix"] command.sh OUT_DIR
set -euo pipefail
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images}
D=$(cd "$(dirname "$0")" && pwd); OUT=${1:?OUT_DIR}; mkdir -p "$OUT"
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
N=5
agent=()
if [ "${PERFMAP:-0}" = 1 ]; then
  img0=${CONFIGS:-ss64k}; img0=${img0%%:*}; mkdir -p "$ROOT/.build/perfmap"
  cc -shared -fPIC -O2 -I"$I/$img0/include" -I"$I/$img0/include/linux" "$D/../perfmap/perfmap.c" -o "$ROOT/.build/perfmap/libperfmap.so"
  agent=(-agentpath:"$ROOT/.build/perfmap/libperfmap.so")
fi
for t in ${THREADS:-8 24}; do
  for cfg in ${CONFIGS:-ss64k:MarkSweep stock:Immix}; do
    img=${cfg%%:*}; plan=${cfg#*:}; label=$img-$plan-t$t; [ "${MIB:-64}" = 64 ] || label=$label-${MIB}m; data=$(mktemp)
    opts=(); watcher=; maps_before=$(ls /tmp/perf-*.map 2>/dev/null || true)
    if [ "${LAST:-0}" = 1 ]; then
      label=$img-$plan-t$t-${MIB:-64}m-last; fifo=$(mktemp -u); mkfifo "$fifo"; : > "$OUT/$label.run"
      ( until grep -q "completed warmup $((N - 1)) " "$OUT/$label.run" 2>/dev/null; do sleep 0.02; done
        echo enable > "$fifo" ) &
      watcher=$!; opts=(-D -1 --control "fifo:$fifo")
    fi
    MMTK_PLAN=$plan MMTK_THREADS=2 perf record -q -F 999 -e cpu-clock "${opts[@]}" -o "$data" -- \
      "$I/$img/bin/java" -XX:+UseThirdPartyHeap -XX:+PreserveFramePointer "${agent[@]}" -Xms${MIB:-64}m -Xmx${MIB:-64}m -jar "$J" --index "$X" -t "$t" -n $N \
      > "$OUT/$label.run" 2>&1 || rc=$?
    [ -z "$watcher" ] || { kill "$watcher" 2>/dev/null || true; wait "$watcher" 2>/dev/null || true; rm -f "$fifo"; }
    [ "${rc:-0}" = 0 ] || { echo "command.sh: $label failed (see $OUT/$label.run)" >&2; exit 1; }
    ms=$(sed -n 's/.*PASSED in \([0-9]*\) msec.*/\1/p' "$OUT/$label.run" | tail -1)
    perf script -i "$data" -F comm,tid,ip,sym,dso 2>/dev/null > "$OUT/$label.samples"
    { echo "$label: timed iteration ${ms:-?} ms"; python3 "$D/../profile/breakdown.py" "$OUT/$label.samples" lusearch
      python3 "$D/top.py" "$OUT/$label.samples" "MMTk Collector" 25; } >> "$OUT/breakdown.txt"
    gzip -f "$OUT/$label.samples"; rm -f "$data"
    # The run's own map (the agent's), not another process's: the maps that were not there before.
    if [ "${#agent[@]}" != 0 ]; then
      for m in /tmp/perf-*.map; do
        if [ -e "$m" ] && ! grep -qxF "$m" <<< "$maps_before"; then rm -f "$m"; fi
      done
    fi
  done
done
