#!/bin/bash
# Correctness of SHARDSWEEP_ADOPT=lease under the JVM: the lusearch stand-in near its minimum heap
# at 1, 24 and 48 threads with the space's accounting check after every GC, on a library built
# with mmtk's `sanity` feature (a sanity GC after every GC; image s64) and on the plain one (a64);
# then a stress run (MMTK_STRESS_FACTOR, a GC every 1 MiB allocated). Each run must pass with the
# stand-in's digest and every check `ok`. Lines appended to checks.txt.
# IMAGES: s64 and a64 (libmmtk_openjdk.so of this repository at 1729a09, SHARDSWEEP_BLOCK_KIB=64;
# s64 with `--features mmtk/sanity`). ADOPT: the SHARDSWEEP_ADOPT value (default lease); SANITY and
# PLAIN name other images; OUT another file for the lines; ENV more VAR=value settings for every
# run (e.g. ENV="SHARDSWEEP_COUNT=in-use SHARDSWEEP_IDLE_CAP=12").
set -u
ROOT=$(git rev-parse --show-toplevel); I=${IMAGES:?IMAGES: a directory with the MMTk OpenJDK images s64, a64}
D=$ROOT/bindings/openjdk/results/mmtk-0.33/lease
S=${SANITY:-s64}; P=${PLAIN:-a64}
J=$("$ROOT/scripts/openjdk-standin-build.sh" lusearch)
X=$ROOT/.build/lusearch-standin-index-default
for run in "$S 1 12" "$S 24 24" "$S 48 32" "$P 1 12" "$P 24 24" "$P 48 32" "$P 24 64 1048576"; do
  set -- $run; image=$1 t=$2 heap=$3 stress=${4:-}
  out=$(env ${stress:+MMTK_STRESS_FACTOR=$stress} SHARDSWEEP_ADOPT=${ADOPT:-lease} SHARDSWEEP_CHECK_ACCOUNTING=1 ${ENV:-} \
        MMTK_PLAN=MarkSweep MMTK_THREADS=2 timeout 1800 "$I/$image/bin/java" -XX:+UseThirdPartyHeap \
        -Xms${heap}m -Xmx${heap}m -jar "$J" --index "$X" -t $t -n 2 2>&1); rc=$?
  gcs=$(grep -c "^shardsweep-check accounting gc=.* ok" <<<"$out")
  bad=$(grep "^shardsweep-check" <<<"$out" | grep -vc " ok ")
  digest=$(sed -n 's/.*iteration 2 digest \([0-9a-f]*\).*/\1/p' <<<"$out" | tail -1)
  echo "$image t$t ${heap}m ${ENV:+$ENV }${stress:+stress=$stress }rc=$rc checks_ok=$gcs checks_failed=$bad digest=${digest:-none} $(grep -o 'PASSED\|OutOfMemoryError' <<<"$out" | head -1)" >> "${OUT:-$D/checks.txt}"
done
