#!/bin/bash
# What counting pages in use costs in memory at the time study's heaps: the lusearch stand-in at
# 19 MiB with 8 threads and 33 MiB with 24 (CELLS, threads:MiB, default "8:19 24:33"), 5 iterations, SHARDSWEEP_COUNT=resident (the default)
# and in-use, ROUNDS rounds (default 1 2 3): the JVM's peak RSS (GNU time %M) and the space's peak
# counted pages (SHARDSWEEP_REPORT_PEAK=1: resident pages, or pages in use under in-use), MiB. IMAGES: f64 (this repository at 96e4c99).
# IMG: the image (default f64); COUNTS: the configurations, each a comma-separated list of
# VAR=value (default "SHARDSWEEP_COUNT=resident SHARDSWEEP_COUNT=in-use"), named in the "count"
# column without the SHARDSWEEP_ prefixes (SHARDSWEEP_COUNT=in-use,SHARDSWEEP_IDLE_CAP=12: in-use,IDLE_CAP=12).
#   IMAGES=<dir> bindings/openjdk/results/mmtk-0.33/time-parts/rss.sh > rss.txt
set -u
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
X=$ROOT/.build/lusearch-standin-index-default
echo "round threads heap_mib count rc peak_rss_mib space_peak_counted_mib"
for r in ${ROUNDS:-1 2 3}; do
  for th in ${CELLS:-8:19 24:33}; do
    t=${th%%:*}; heap=${th#*:}
    for cfg in ${COUNTS:-SHARDSWEEP_COUNT=resident SHARDSWEEP_COUNT=in-use}; do
      IFS=, read -r -a vars <<< "$cfg"; c=$(echo "$cfg" | sed 's/SHARDSWEEP_COUNT=//; s/SHARDSWEEP_//g')
      out=$(env "${vars[@]}" SHARDSWEEP_REPORT_PEAK=1 MMTK_PLAN=MarkSweep MMTK_THREADS=2 timeout 600 /usr/bin/time -f "rss_kib=%M" \
        "$I/${IMG:-f64}/bin/java" -XX:+UseThirdPartyHeap -Xms${heap}m -Xmx${heap}m -jar "$J" --index "$X" -t $t -n 5 2>&1); rc=$?
      rss=$(echo "$out" | sed -n 's/^rss_kib=\([0-9]*\)$/\1/p' | awk '{printf "%.1f", $1 / 1024}')
      sp=$(echo "$out" | sed -n 's/.*peak resident pages [0-9]* (\([0-9]*\) KiB).*/\1/p' | awk '{printf "%.1f", $1 / 1024}')
      echo "$r $t $heap $c $rc $rss $sp"
    done
  done
done
