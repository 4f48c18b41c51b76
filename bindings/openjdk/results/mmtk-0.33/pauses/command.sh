#!/bin/bash
# Where the wall time goes: the GC pauses against the rest. The lusearch stand-in, 5 iterations,
# under `perf record` of two uprobes in HotSpot's libjvm.so: mmtk_stop_all_mutators (a GC's
# start: MMTk asks the VM to stop its threads) and mmtk_resume_mutators (its end). A pause is a
# stop to the next resume (the time to reach the safepoint included). Per run: the last
# iteration's wall time, every iteration's (;-separated), the whole run's wall time (GNU time),
# the GCs, and the pauses' sum, median and largest, in ms; then the pauses' sum in three parts,
# from two more probes (SafepointSynchronize::begin, VM_MMTkSTWOperation::doit): handoff_ms (the
# stop's call to the VM thread's safepoint: mmtk-openjdk's companion thread and the VM thread
# being woken, while the mutators not yet blocked run on), sync_ms (the safepoint reached: every
# Java thread stopped) and work_ms (the world stopped to the resume: the GC's own work). ROUNDS
# rounds (default 1 2 3), configurations rotated within a round (../lib/rotate.sh). Needs root
# (uprobes) and perf.
# CONFIGS: image:plan:env triples, env a comma-separated list of VAR=value or "-".
#   IMAGES=<dir> CELLS="8:64 ..." CONFIGS="..." command.sh OUT.csv; summaries: command.txt
set -u
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
OUT=${1:?OUT.csv}
CONFIGS=(${CONFIGS:?CONFIGS: image:plan:env triples})
# probe IMAGE: the two uprobe events of IMAGE's libjvm.so, made again at the first run of each
# image (a probe is bound to the inode it was made on).
declare -A PROBED
probe() {
  local lib=$I/$1/lib/server/libjvm.so fn ev addr
  if [ -z "${PROBED[$1]:-}" ]; then
    for fn in mmtk_stop_all_mutators mmtk_resume_mutators _ZN20SafepointSynchronize5beginEv _ZN19VM_MMTkSTWOperation4doitEv; do
      case $fn in *stop*) ev=stop_$1 ;; *resume*) ev=resume_$1 ;; *begin*) ev=begin_$1 ;; *) ev=doit_$1 ;; esac
      perf probe -q -d "probe_libjvm:$ev" >/dev/null 2>&1 || true
      addr=$(nm "$lib" | awk -v f="$fn" '$3 ~ f {print $1; exit}')
      [ -n "$addr" ] || { echo "no $fn in $lib" >&2; exit 1; }
      perf probe -q -x "$lib" -a "$ev=0x$addr" >/dev/null || exit 1
    done
    PROBED[$1]=1
  fi
}
echo "round,threads,heap_mib,config,rc,last_iteration_ms,iterations_ms,run_s,gcs,pause_sum_ms,pause_median_ms,pause_max_ms,handoff_ms,sync_ms,work_ms" > "$OUT"
data=$(mktemp)
run() { # run ROUND THREADS HEAP IMAGE PLAN ENVS
  local r=$1 t=$2 heap=$3 img=$4 plan=$5 envs=$6 vars out rc ms parts name wall
  probe "$img" || exit 1
  vars=(); [ "$envs" = - ] || IFS=, read -r -a vars <<< "$envs"
  out=$(env "${vars[@]}" MMTK_PLAN=$plan MMTK_THREADS=2 timeout 600 /usr/bin/time -f "wall=%e" perf record -q \
    -e "probe_libjvm:stop_$img" -e "probe_libjvm:resume_$img" -e "probe_libjvm:begin_$img" -e "probe_libjvm:doit_$img" \
    -o "$data" -- "$I/$img/bin/java" -XX:+UseThirdPartyHeap -Xms${heap}m -Xmx${heap}m -jar "$J" --index "$X" -t $t -n 5 2>&1); rc=$?
  ms=$(echo "$out" | sed -n 's/.*PASSED in \([0-9]*\) msec.*/\1/p' | tail -1)
  wall=$(echo "$out" | sed -n 's/^wall=//p')
  its=$(echo "$out" | sed -n 's/.* in \([0-9]*\) msec =====$/\1/p' | paste -sd';')
  # Images hard-linked to one libjvm.so share its inode: every image's probes fire; a pause is
  # taken from the first stop after a resume (or the start) to the next resume.
  parts=$(perf script -i "$data" -F time,event 2>/dev/null | awk '
    { t = $1 + 0 }
    /probe_libjvm:stop_/ { if (!open) { s = t; b = 0; d = 0; open = 1 }; next }
    /probe_libjvm:begin_/ { if (open && !d) b = t; next }
    /probe_libjvm:doit_/ { if (open && b && !d) d = t; next }
    /probe_libjvm:resume_/ { if (open) { p[n++] = (t - s) * 1000; open = 0
        if (b && d) { ho += (b - s) * 1000; sy += (d - b) * 1000; wk += (t - d) * 1000 } } }
    END { for (i = 0; i < n; i++) sum += p[i]
          for (i = 1; i < n; i++) { v = p[i]; for (j = i - 1; j >= 0 && p[j] > v; j--) p[j + 1] = p[j]; p[j + 1] = v }
          med = n ? (n % 2 ? p[(n - 1) / 2] : (p[n / 2 - 1] + p[n / 2]) / 2) : 0
          printf "%d,%.1f,%.2f,%.2f,%.1f,%.1f,%.1f", n, sum, med, n ? p[n - 1] : 0, ho, sy, wk }')
  name=$img-$plan; [ "$envs" = - ] || name=$name-$(echo "$envs" | sed 's/SHARDSWEEP_//g; s/=/-/g; s/,/-/g' | tr 'A-Z' 'a-z')
  echo "$r,$t,$heap,$name,$rc,$ms,$its,$wall,$parts" >> "$OUT"
}
. "$(dirname "$0")/../lib/rotate.sh"
for_each_run run
rm -f "$data"
