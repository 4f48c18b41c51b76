#!/bin/bash
# What the idle cap bounds: the space's own resident pages as the kernel counts them (mincore over
# its chunks) at the end of every GC, from the accounting check's lines (SHARDSWEEP_CHECK_ACCOUNTING=1:
# os_resident, in_use, idle), for one library counting resident pages, pages in use, and pages in
# use with idle pages capped at 12% of the heap. The lusearch stand-in at 19 MiB with 8 threads and
# 33 MiB with 24, 5 iterations, one run each per round (ROUNDS, default 1 2). Prints, per run, the
# GCs checked and the mean and largest os_resident and idle (MiB) after a GC. IMAGES: fcap (this
# repository at 688c41e).
#   IMAGES=<dir> bindings/openjdk/results/mmtk-0.33/idle-cap/command-resident.sh > resident.txt
set -u
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
X=$ROOT/.build/lusearch-standin-index-default
echo "round threads heap_mib count rc gcs os_resident_mean_mib os_resident_max_mib idle_mean_mib idle_max_mib"
for r in ${ROUNDS:-1 2}; do
  for th in 8:19 24:33; do
    t=${th%%:*}; heap=${th#*:}
    for cfg in SHARDSWEEP_COUNT=resident SHARDSWEEP_COUNT=in-use SHARDSWEEP_COUNT=in-use,SHARDSWEEP_IDLE_CAP=12; do
      IFS=, read -r -a vars <<< "$cfg"; c=$(echo "$cfg" | sed 's/SHARDSWEEP_COUNT=//; s/SHARDSWEEP_//g')
      out=$(env "${vars[@]}" SHARDSWEEP_CHECK_ACCOUNTING=1 MMTK_PLAN=MarkSweep MMTK_THREADS=2 timeout 600 \
        "$I/fcap/bin/java" -XX:+UseThirdPartyHeap -Xms${heap}m -Xmx${heap}m -jar "$J" --index "$X" -t $t -n 5 2>&1); rc=$?
      stats=$(grep '^shardsweep-check accounting gc=.* ok ' <<<"$out" | awk '
        { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "os_resident") o = kv[2]; if (kv[1] == "idle") d = kv[2] }
          n++; so += o; sd += d; if (o > mo) mo = o; if (d > md) md = d }
        END { m = 4096 / 1048576; printf "%d %.2f %.2f %.2f %.2f", n, so / n * m, mo * m, sd / n * m, md * m }')
      echo "$r $t $heap $c $rc $stats"
    done
  done
done
