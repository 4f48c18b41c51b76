#!/usr/bin/env bash
# Live heap per query thread of the lusearch stand-in on the host JDK (issue 11 part 3): run it
# with Serial GC, force four full GCs mid-run with `jcmd GC.run` (0.5 s apart, from 4 s on), and
# print the heap used after each (young + old, KiB, from -Xlog:gc*=debug). The slope of that
# over the thread count is what each query thread keeps live (reader, searcher, parser, the
# query in flight): lusearch-jvm's SYNTHVM_JVM_THREAD_STATE_KIB is compared with it.
#
#   experiments/jfr-alloc/live-per-thread.sh "1 12 24"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
JAR="$("$ROOT/scripts/openjdk-standin-build.sh")"
W="${TMPDIR:-/tmp}/shardsweep-jfr-alloc"
mkdir -p "$W"
[ -f "$W/index-default/lusearch-standin.corpus" ] || java -jar "$JAR" -s default --build-index "$W/index-default" >/dev/null
echo "threads,gc,used_after_kib"
for t in ${1:-1 12 24}; do
    LOG="$W/live-t$t.log"
    java -XX:+UseSerialGC -Xmx256m -Xlog:gc*=debug:file="$LOG" -jar "$JAR" -s default \
        --index "$W/index-default" -t "$t" -n 4 >"$W/live-t$t.out" 2>&1 &
    P=$!
    sleep 4
    for k in 1 2 3 4; do jcmd $P GC.run >/dev/null 2>&1 || true; sleep 0.5; done
    wait $P
    grep -q PASSED "$W/live-t$t.out" || { echo "live-per-thread: -t $t did not pass" >&2; exit 1; }
    for id in $(grep "Pause Full (Diagnostic" "$LOG" | grep -o "GC([0-9]*)" | sort -u -t"(" -k2n); do
        awk -v id="$id" -v t="$t" 'index($0, id " Heap after GC") {f = 1}
            f && index($0, id) && /generation/ {match($0, /used [0-9]+K/); s += substr($0, RSTART + 5, RLENGTH - 6)}
            END {printf "%s,%s,%d\n", t, id, s}' "$LOG"
    done
done
