#!/bin/bash
# Which size classes hold the free cells at a GC and which ones charge new pages between GCs
# (issue 20): SHARDSWEEP_REPORT_FOOTPRINT=1 (its free_abandoned and charged_by_class fields), the
# lusearch stand-in with its index built beforehand, 2 iterations, at 1 thread / 12 MiB and 48
# threads / 33 MiB (the 64K build's minimum heap + 0.5 MiB).
#   IMAGES=<dir of JDK images> bindings/openjdk/results/mmtk-0.33/footprint-classes/command.sh
# IMAGES/d64: shardsweep 64K at the commit that added those fields. Table: summarize.py *.out.gz
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory of MMTk OpenJDK images}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
D=$ROOT/bindings/openjdk/results/mmtk-0.33/footprint-classes
X=$ROOT/.build/lusearch-standin-index-default
[ -d "$X" ] || java -jar "$J" -s default --build-index "$X" >/dev/null
for tm in "1 12" "48 33"; do set -- $tm
  SHARDSWEEP_REPORT_FOOTPRINT=1 MMTK_PLAN=MarkSweep MMTK_THREADS=2 timeout 900 \
    $I/d64/bin/java -XX:+UseThirdPartyHeap -Xms$2m -Xmx$2m -jar $J --index $X -t $1 -n 2 2>&1 | gzip > $D/t$1.out.gz
done
