#!/bin/bash
# Where the time at 2x MarkCompact's minimum heap goes (issue 20's time goal): the lusearch stand-in
# at 19 MiB with 8 threads and 33 MiB with 24, 5 iterations, the last one timed, under
# `perf record -e cpu-clock -c 1000000` (one sample per millisecond of CPU, every thread) and a
# uprobe on HotSpot's mmtk_stop_all_mutators (one hit per GC). Per run: the GCs, and the CPU
# seconds of MMTk's GC workers, of the mutators (the stand-in's threads and the main thread), of
# the JIT compilers and of the rest, and the minor page faults (GNU time over perf). ROUNDS rounds (default 1 2 3), configurations rotated within
# a round. Needs root (uprobes) and perf.
# IMAGES: f64, f4 (this repository at 96e4c99, 64 and 4 KiB blocks), hstock (stock mmtk 0.33.0).
# CONFIGS: image:plan:env triples, env a comma-separated list of VAR=value or "-" (default below).
#   IMAGES=<dir> command.sh [OUT.csv]; summary: summarize.py OUT.csv
set -u
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
OUT=${1:-$ROOT/bindings/openjdk/results/mmtk-0.33/time-parts/runs.csv}
CONFIGS=(${CONFIGS:-f64:MarkSweep:- f64:MarkSweep:SHARDSWEEP_COUNT=in-use,SHARDSWEEP_ADVICE=free f4:MarkSweep:- hstock:Immix:- hstock:MarkCompact:-})
# probe IMAGE: the uprobe event counting GCs in IMAGE's libjvm.so, made again at the first run of
# each image (a probe is bound to the inode it was made on: a rebuilt image needs a new one).
# Called in this shell (not in $(...)), so that PROBED persists.
declare -A PROBED
probe() {
  local lib=$I/$1/lib/server/libjvm.so ev=gcstop_${1//[^A-Za-z0-9_]/_}  # a C name: "-" and "." become "_"
  if [ -z "${PROBED[$1]:-}" ]; then
    perf probe -q -d "probe_libjvm:$ev" >/dev/null 2>&1 || true
    local addr; addr=$(nm "$lib" | awk '/mmtk_stop_all_mutators/ {print $1; exit}')
    [ -n "$addr" ] || { echo "no mmtk_stop_all_mutators in $lib" >&2; exit 1; }
    perf probe -q -x "$lib" -a "$ev=0x$addr" >/dev/null || exit 1
    PROBED[$1]=1
  fi
}
echo "round,threads,heap_mib,config,rc,last_iteration_ms,gcs,cpu_gc_s,cpu_mutator_s,cpu_compiler_s,cpu_other_s,faults" > "$OUT"
data=$(mktemp)
run() { # run ROUND THREADS HEAP IMAGE PLAN ENVS
  local r=$1 t=$2 heap=$3 img=$4 plan=$5 envs=$6 ev vars out rc ms parts name
  probe "$img" || exit 1
  vars=(); [ "$envs" = - ] || IFS=, read -r -a vars <<< "$envs"
  # Every gcstop probe: images hard-linked to one libjvm.so share its inode, so each of their
  # probes fires at every GC; the GCs are the hits of the probe that fired most.
  out=$(env "${vars[@]}" MMTK_PLAN=$plan MMTK_THREADS=2 timeout 600 /usr/bin/time -f "faults=%R" perf record -q -e cpu-clock -c 1000000 -e 'probe_libjvm:gcstop_*' \
    -o "$data" -- "$I/$img/bin/java" -XX:+UseThirdPartyHeap -Xms${heap}m -Xmx${heap}m -jar "$J" --index "$X" -t $t -n 5 2>&1); rc=$?
  ms=$(echo "$out" | sed -n 's/.*PASSED in \([0-9]*\) msec.*/\1/p' | tail -1)
  parts=$(perf script -i "$data" -F comm,tid,time,event 2>/dev/null | awk '
    match($0, /probe_libjvm:gcstop_[^ :]*/) { n = ++hits[substr($0, RSTART, RLENGTH)]; if (n > gcs) gcs = n; next }
    /cpu-clock/ { if ($0 ~ /^ *MMTk Collector/) gc++; else if ($0 ~ /^ *(lusearch-standi|java) /) mu++;
                  else if ($0 ~ /CompilerThre/) co++; else ot++ }
    END { printf "%d,%.3f,%.3f,%.3f,%.3f", gcs, gc / 1000, mu / 1000, co / 1000, ot / 1000 }')
  name=$img-$plan; [ "$envs" = - ] || name=$name-$(echo "$envs" | sed 's/SHARDSWEEP_//g; s/=/-/g; s/,/-/g' | tr 'A-Z' 'a-z')
  f=$(echo "$out" | sed -n "s/^faults=//p"); echo "$r,$t,$heap,$name,$rc,$ms,$parts,$f" >> "$OUT"
}
. "$(dirname "$0")/../lib/rotate.sh"
for_each_run run
rm -f "$data"
