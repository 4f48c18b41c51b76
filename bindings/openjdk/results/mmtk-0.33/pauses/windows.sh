#!/bin/bash
# What runs in a GC's hand-off: one run of the lusearch stand-in (5 iterations) under `perf record`
# of cpu-clock at 4,999 Hz and two uprobes, mmtk_stop_all_mutators (the stop's entry) and
# SafepointSynchronize::begin (the VM thread starting the safepoint). Prints the windows between
# them, their samples by thread name, and the mutators' samples by symbol. Needs root and perf.
#   IMAGES=<dir> windows.sh IMAGE PLAN [THREADS=24] [MIB=64]
set -euo pipefail
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images}
img=${1:?IMAGE}; plan=${2:?PLAN}; t=${3:-24}; mib=${4:-64}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
lib=$I/$img/lib/server/libjvm.so
addr() { nm "$lib" | awk -v f="$1" '$3 ~ f {print $1; exit}'; }
perf probe -q -d 'probe_libjvm:win_*' >/dev/null 2>&1 || true
perf probe -q -x "$lib" -a "win_stop=0x$(addr mmtk_stop_all_mutators)" >/dev/null
perf probe -q -x "$lib" -a "win_begin=0x$(addr _ZN20SafepointSynchronize5beginEv)" >/dev/null
data=$(mktemp)
MMTK_PLAN=$plan MMTK_THREADS=2 perf record -q -F 4999 -e cpu-clock -e 'probe_libjvm:win_*' -o "$data" -- \
  "$I/$img/bin/java" -XX:+UseThirdPartyHeap -Xms${mib}m -Xmx${mib}m -jar "$J" --index "$X" -t "$t" -n 5 | tail -1
perf script -i "$data" -F comm,tid,time,event,ip,sym,dso 2>/dev/null | awk '
  /probe_libjvm:win_stop/ { inw = 1; nw++; next }
  /probe_libjvm:win_begin/ { inw = 0; next }
  inw && /cpu-clock/ {
    n++; name = $0; sub(/^ +/, "", name); sub(/ +[0-9]+ +[0-9]+\.[0-9]+:.*/, "", name)
    if (name ~ /^lusearch/) { m++; s = $0; sub(/.*cpu-clock:[ ]*[0-9a-f]+ /, "", s); sym[s]++ } else other[name]++ }
  END {
    printf "%d windows, %d samples in them, %d of them mutators\n", nw, n, m
    for (k in other) printf "%7d  %s\n", other[k], k
    print "mutators by symbol:"
    for (k in sym) printf "%7d  %s\n", sym[k], k | "sort -rn | head -20" }'
rm -f "$data"
