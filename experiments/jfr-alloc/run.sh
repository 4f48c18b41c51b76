#!/usr/bin/env bash
# Per-thread allocation profile of the lusearch stand-in on the host JDK, with JFR (issue 11
# part 3). Writes experiments/jfr-alloc/results/<mode>-t<T>/{threads.csv,classes.csv,SUMMARY.md}.
#
#   experiments/jfr-alloc/run.sh exact 4 512   # mode, threads, queries per iteration (2 iterations)
#   experiments/jfr-alloc/run.sh tlab 4 4096
#
# exact: G1 without TLABs, so JFR records every object (ObjectAllocationOutsideTLAB);
# tlab:  the default JVM, one sampled object per TLAB refill (ObjectAllocationInNewTLAB).
# The recording and its text (~400 MB for exact 4 512) stay in $TMPDIR (default /tmp).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
MODE=$1 T=$2 Q=$3 N=2
JAR="$("$ROOT/scripts/openjdk-standin-build.sh")"
W="${TMPDIR:-/tmp}/shardsweep-jfr-alloc"
mkdir -p "$W"
[ -f "$W/index-default/lusearch-standin.corpus" ] || java -jar "$JAR" -s default --build-index "$W/index-default" >/dev/null
case "$MODE" in
    exact) JVM=(-XX:+UseG1GC -XX:-UseTLAB) ;;
    tlab)  JVM=() ;;
    *) echo "run.sh: mode exact or tlab" >&2; exit 2 ;;
esac
REC="$W/$MODE-t$T.jfr"
CMD1="java ${JVM[*]} -XX:StartFlightRecording=filename=$REC,settings=experiments/jfr-alloc/alloc.jfc -jar $JAR -s default --index INDEX -t $T -n $N --queries $Q"
java "${JVM[@]}" -XX:StartFlightRecording=filename="$REC",settings="$ROOT/experiments/jfr-alloc/alloc.jfc" \
    -jar "$JAR" -s default --index "$W/index-default" -t "$T" -n $N --queries "$Q" | grep -E 'PASSED|FAILED'
EV=jdk.ObjectAllocationOutsideTLAB,jdk.ObjectAllocationInNewTLAB,jdk.ThreadStart,jdk.ThreadEnd
jfr print --events "$EV" "$REC" >"$W/$MODE-t$T.txt"
python3 "$ROOT/experiments/jfr-alloc/analyze.py" "$W/$MODE-t$T.txt" --mode "$MODE" \
    --out "$ROOT/experiments/jfr-alloc/results/$MODE-t$T" --queries "$Q" --iterations $N \
    --command "$(java -version 2>&1 | head -1)
$CMD1
jfr print --events $EV REC > TXT
python3 experiments/jfr-alloc/analyze.py TXT --mode $MODE --queries $Q --iterations $N
(all by: experiments/jfr-alloc/run.sh $MODE $T $Q)"
