#!/usr/bin/env bash
# Quick tests of the JVM stand-ins (experiments/workloads/{lusearch,h2,xalan}-standin) on the
# stock JDK (or $JAVA): builds the jars with Maven (offline when .build/m2 already has
# everything, online the first time), builds a small lusearch index once, then checks that
#   * -t 1 and -t 4 (two iterations each) print PASSED and the same digest, equal to the
#     digest recorded for size small (lusearch, h2, xalan);
#   * lusearch: a per-thread-reader run and a --shared-reader run agree;
#   * a wrong --expect digest makes it print FAILED and exit 1 (each stand-in);
#   * a heap too small exits 3 after printing OutOfMemoryError (and h2, xalan: a FAILED line);
#   * an unknown option exits 2 (h2, xalan: with exactly one line);
#   * the minimum-heap search records the peak RSS at the minimum;
#   * the study's factors phase and report run end to end (xalan small, Serial GC, the plumbing);
#   * (test_minheap.py, test_study.py, no JVM) the search finds the exact minimum from any
#     guess, a run that ends in "NoClassDefFoundError: Could not initialize class" counts as out
#     of memory; the study's workload table, --jdk parsing, heap-factor plan and interleaving.
#
#   scripts/openjdk-standin-test.sh          # ~1 min on 2 idle cores once the jars are built
#   JAVA=/path/to/bin/java scripts/openjdk-standin-test.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/experiments/workloads/lusearch-standin"
JAVA="${JAVA:-java}"
T0=$(date +%s)

# The minimum-heap search, the run classification and the study's plans, without a JVM.
for t in test_minheap $(cd "$DIR" && ls test_study.py 2>/dev/null | sed 's/\.py$//'); do
    (cd "$DIR" && python3 -m unittest -q "$t" 2>&1 | tail -1 | grep -qx OK) \
        || { (cd "$DIR" && python3 -m unittest "$t"); echo "openjdk-standin-test: FAIL: $t" >&2; exit 1; }
done

JAR="$("$ROOT/scripts/openjdk-standin-build.sh")"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fail() { echo "openjdk-standin-test: FAIL: $*" >&2; exit 1; }

"$JAVA" -jar "$JAR" -s small --build-index "$TMP/index" >/dev/null

run() { # name, args...: runs the stand-in, output in $TMP/name.out, sets RC
    local name="$1"; shift
    set +e
    "$JAVA" "$@" >"$TMP/$name.out" 2>&1
    RC=$?
    set -e
}
digest() { grep -o 'iteration [0-9]* digest [0-9a-f]*' "$1" | awk '{print $4}' | sort -u; }

run t1 -jar "$JAR" -s small --index "$TMP/index" -t 1 -n 2
[ $RC = 0 ] || { cat "$TMP/t1.out"; fail "-t 1 exited $RC"; }
grep -q '^===== lusearch-standin small PASSED in [0-9]* msec =====$' "$TMP/t1.out" || fail "-t 1: no PASSED line"
grep -q 'completed warmup 1' "$TMP/t1.out" || fail "-t 1: no warmup line"
run t4 -jar "$JAR" -s small --index "$TMP/index" -t 4 -n 2
[ $RC = 0 ] || { cat "$TMP/t4.out"; fail "-t 4 exited $RC"; }
grep -q 'PASSED' "$TMP/t4.out" || fail "-t 4: no PASSED line"
d1="$(digest "$TMP/t1.out")"; d4="$(digest "$TMP/t4.out")"
[ "$(echo "$d1" | wc -l)" = 1 ] || fail "-t 1: iterations disagree: $d1"
[ "$d1" = "$d4" ] || fail "digests differ: -t 1 $d1, -t 4 $d4"
run shared -jar "$JAR" -s small --index "$TMP/index" -t 3 --shared-reader
[ $RC = 0 ] && [ "$(digest "$TMP/shared.out")" = "$d1" ] || fail "--shared-reader: rc $RC, digest $(digest "$TMP/shared.out") vs $d1"
echo "openjdk-standin-test: -t 1, -t 4, -t 3 --shared-reader: PASSED, digest $d1"

run wrong -jar "$JAR" -s small --index "$TMP/index" -t 2 --expect 0123456789abcdef
[ $RC = 1 ] && grep -q 'small FAILED' "$TMP/wrong.out" || fail "a wrong --expect: rc $RC (want 1 and FAILED)"
run oom -Xmx2m -XX:+UseSerialGC -jar "$JAR" -s small --index "$TMP/index" -t 2
[ $RC = 3 ] && grep -q 'OutOfMemoryError' "$TMP/oom.out" || { cat "$TMP/oom.out"; fail "-Xmx2m: rc $RC (want 3 and OutOfMemoryError)"; }
run usage -jar "$JAR" --bogus
[ $RC = 2 ] || fail "--bogus: rc $RC (want 2)"
echo "openjdk-standin-test: wrong digest -> FAILED (1), -Xmx2m -> OutOfMemoryError (3), bad option (2): ok"
# The minimum-heap search records each probe's peak RSS (wait4's ru_maxrss of the JVM) and,
# for the minimum, copies it into minheap.csv.
set +e
mh=$(python3 "$ROOT/experiments/workloads/lusearch-standin/minheap.py" "$JAVA" --jar "$JAR" --index "$TMP/index" \
    --threads 1 --size small --iterations 1 --resolution 1 --guess 4 --timeout 60 --label test --out "$TMP/mh" \
    -- -XX:+UseSerialGC 2>&1); RC=$?
set -e
[ $RC = 0 ] || { echo "$mh"; fail "minheap.py: rc $RC"; }
rss=$(python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))[-1]; print(r["minheap_mib"], r["peak_rss_kib"])' "$TMP/mh/minheap.csv")
[ "${rss##* }" -gt 1024 ] 2>/dev/null || fail "minheap.csv: no peak RSS at the minimum ($rss)"
echo "openjdk-standin-test: minheap.py -t 1: minimum ${rss% *} MiB, peak RSS there ${rss##* } KiB: ok"

# h2 and xalan: the same contract (experiments/workloads/{h2,xalan}-standin/README.md).
workload() { # name, OOM JVM args..., --, OOM program args...
    local w="$1"; shift
    local oom_jvm=() oom_args=()
    while [ "$1" != -- ]; do oom_jvm+=("$1"); shift; done; shift
    oom_args=("$@")
    local jar; jar="$("$ROOT/scripts/openjdk-standin-build.sh" "$w")"
    run "$w-t1" -jar "$jar" -s small -t 1 -n 2 "$w"
    [ $RC = 0 ] || { cat "$TMP/$w-t1.out"; fail "$w -t 1 exited $RC"; }
    grep -q "^===== $w-standin small PASSED in [0-9]* msec =====\$" "$TMP/$w-t1.out" || fail "$w -t 1: no PASSED line"
    grep -q 'completed warmup 1' "$TMP/$w-t1.out" || fail "$w -t 1: no warmup line"
    run "$w-t4" -jar "$jar" -s small -t 4 -n 2
    [ $RC = 0 ] && grep -q "small PASSED" "$TMP/$w-t4.out" || { cat "$TMP/$w-t4.out"; fail "$w -t 4: rc $RC, no PASSED line"; }
    local d1 d4; d1="$(digest "$TMP/$w-t1.out")"; d4="$(digest "$TMP/$w-t4.out")"
    [ "$(echo "$d1" | wc -l)" = 1 ] || fail "$w -t 1: iterations disagree: $d1"
    [ "$d1" = "$d4" ] || fail "$w: digests differ: -t 1 $d1, -t 4 $d4"
    run "$w-wrong" -jar "$jar" -s small -t 2 --expect 0123456789abcdef
    [ $RC = 1 ] && grep -q 'small FAILED' "$TMP/$w-wrong.out" || { cat "$TMP/$w-wrong.out"; fail "$w: a wrong --expect: rc $RC (want 1 and FAILED)"; }
    run "$w-oom" "${oom_jvm[@]}" -jar "$jar" -s small -t 2 "${oom_args[@]}"
    [ $RC = 3 ] && grep -q 'OutOfMemoryError' "$TMP/$w-oom.out" && grep -q "^===== $w-standin small FAILED" "$TMP/$w-oom.out" \
        || { cat "$TMP/$w-oom.out"; fail "$w ${oom_jvm[*]}: rc $RC (want 3, OutOfMemoryError and FAILED)"; }
    run "$w-usage" -jar "$jar" --bogus
    [ $RC = 2 ] && [ "$(wc -l <"$TMP/$w-usage.out")" = 1 ] || { cat "$TMP/$w-usage.out"; fail "$w --bogus: rc $RC, $(wc -l <"$TMP/$w-usage.out") lines (want 2, one line)"; }
    run "$w-badvalue" -jar "$jar" -t many
    [ $RC = 2 ] && [ "$(wc -l <"$TMP/$w-badvalue.out")" = 1 ] || fail "$w -t many: rc $RC (want 2, one line)"
    echo "openjdk-standin-test: $w: -t 1, -t 4 PASSED, digest $d1; wrong digest -> FAILED (1), ${oom_jvm[*]} -> OutOfMemoryError (3), bad option/value (2): ok"
}
workload h2 -Xmx4m -XX:+UseSerialGC --
workload xalan -Xmx2m -XX:+UseSerialGC -- --books 400   # documents ~20x the usual: certain to run out
# The study's factors phase and report end to end on this JDK (the plumbing only: Serial GC
# instead of MMTk, every "image" this JDK, MarkCompact's minimum written here by hand).
JHOME="$(dirname "$(dirname "$(readlink -f "$(command -v "$JAVA")")")")"
mkdir -p "$TMP/study/minheap/markcompact"
printf 'workload,label,threads,minheap_mib,status,peak_rss_kib\nxalan,markcompact,2,4,ok,\n' \
    >"$TMP/study/minheap/markcompact/minheap.csv"
for phase in factors report; do
    python3 "$DIR/study.py" --workload xalan --jdk stock="$JHOME" --jdk ss64="$JHOME" --jvm-args=-XX:+UseSerialGC \
        --factor-configs stock-ms,ss64-page --factor-threads 2 --factors "2 4" --invocations 1 --iterations 1 \
        --size small --threads 2 --time-threads 2 --phase $phase --out "$TMP/study" >"$TMP/study-$phase.out" 2>&1 \
        || { cat "$TMP/study-$phase.out"; fail "study.py --phase $phase"; }
done
runs=$(grep -c ',pass,' "$TMP/study/factors/runs.csv" || true)
[ "$runs" = 4 ] || { cat "$TMP/study/factors/runs.csv"; fail "study factors: $runs passing runs of 4"; }
grep -q '^## Time against heap factor' "$TMP/study/README.md" || fail "study report: no heap-factor table"
python3 -c 'import matplotlib' 2>/dev/null && { [ -s "$TMP/study/factors.png" ] || fail "study report: no factors.png"; }
echo "openjdk-standin-test: study.py --workload xalan --phase factors, report (Serial GC, plumbing only): 4 runs, table, plot: ok"
echo "openjdk-standin-test: PASSED in $(( $(date +%s) - T0 )) s ($("$JAVA" -version 2>&1 | head -1))"
