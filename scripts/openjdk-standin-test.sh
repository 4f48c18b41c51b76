#!/usr/bin/env bash
# Quick tests of the lusearch stand-in (experiments/workloads/lusearch-standin) on the stock JDK
# (or $JAVA): builds the jar with Maven (offline when the local repository already has
# everything, online the first time), builds a small index once, then checks that
#   * -t 1 and -t 4 (two iterations each) print PASSED and the same digest, equal to the
#     digest recorded for size small;
#   * a per-thread-reader run and a --shared-reader run agree;
#   * a wrong --expect digest makes it print FAILED and exit 1;
#   * a heap too small exits 3 after printing OutOfMemoryError;
#   * an unknown option exits 2;
#   * the minimum-heap search records the peak RSS at the minimum;
#   * (test_minheap.py, no JVM) the search finds the exact minimum from any guess, and a run
#     that ends in "NoClassDefFoundError: Could not initialize class" counts as out of memory.
#
#   scripts/openjdk-standin-test.sh          # ~15 s on 2 idle cores once the jar is built
#   JAVA=/path/to/bin/java scripts/openjdk-standin-test.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/experiments/workloads/lusearch-standin"
JAVA="${JAVA:-java}"
T0=$(date +%s)

# The minimum-heap search and the run classification, without a JVM.
(cd "$DIR" && python3 -m unittest -q test_minheap 2>&1 | tail -1 | grep -qx OK) \
    || { (cd "$DIR" && python3 -m unittest test_minheap); echo "openjdk-standin-test: FAIL: test_minheap" >&2; exit 1; }

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
echo "openjdk-standin-test: PASSED in $(( $(date +%s) - T0 )) s ($("$JAVA" -version 2>&1 | head -1))"
