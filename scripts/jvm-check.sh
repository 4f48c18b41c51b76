#!/usr/bin/env bash
# Checks the MMTk OpenJDK images that `scripts/jvm.sh build` made (.build/jvm/images/): run it
# before resolving anything that touches the binding; its summary goes to RESULTS with the date
# and commit. Each line says ok or FAIL and what ran; exit 1 when any check fails.
#
#   scripts/jvm.sh check [--quick]     # --quick: lusearch only, fewer thread counts
#
#  1. every plan starts (java -version) on every image;
#  2. the three stand-ins (size small) give their digest on the shardsweep images with the
#     free-list fast path under the interpreter only (-Xint), C1 only, C2 only and the default
#     tiers, and with the fast path off (MMTK_FREE_LIST_FASTPATH=false): the same digest;
#  3. the space's accounting check at every GC (SHARDSWEEP_CHECK_ACCOUNTING=1) at 1, 8 and 24
#     threads near the minimum heap (lusearch, default size);
#  4. MMTk's stress GC (MMTK_STRESS_FACTOR) with the accounting check;
#  5. the space's zeroing (SHARDSWEEP_ZERO=space) and poison (a binding that reads memory it did
#     not write fails), besides the default (binding: HotSpot zeroes).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
IMAGES="$ROOT/.build/jvm/images"
QUICK=0
SS="ss64k ss32k ss4k" # the shardsweep images of the default build (scripts/jvm.sh build)
for a in "$@"; do
    case "$a" in
        --quick) QUICK=1 ;;
        *) echo "jvm-check: unknown option '$a'; valid: --quick" >&2; exit 2 ;;
    esac
done
for i in stock $SS; do
    [ -x "$IMAGES/$i/bin/java" ] || { echo "jvm-check: no image $IMAGES/$i; run scripts/jvm.sh build first" >&2; exit 2; }
done
for v in $(env | sed -n 's/^\(MMTK_[A-Z_]*\|SHARDSWEEP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
OUT="$ROOT/.build/jvm/check"
rm -rf "$OUT"; mkdir -p "$OUT"
PASS=0; FAIL=0; T0=$SECONDS
ok() { PASS=$((PASS + 1)); echo "ok   $*" | tee -a "$OUT/summary.txt"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $*" | tee -a "$OUT/summary.txt"; }

# run NAME IMAGE ENV... -- JAVA_ARGS...: one JVM run, output in $OUT/NAME.out, sets RC.
run() {
    local name="$1" image="$2"; shift 2
    local env=()
    while [ "$1" != -- ]; do env+=("$1"); shift; done; shift
    env "${env[@]}" timeout 600 "$IMAGES/$image/bin/java" -XX:+UseThirdPartyHeap "$@" >"$OUT/$name.out" 2>&1
    RC=$?
}
digest() { grep -o 'iteration [0-9]* digest [0-9a-f]*' "$1" | awk '{print $4}' | sort -u | tr '\n' ' '; }
passed() { [ "$RC" = 0 ] && grep -q 'standin [a-z]* PASSED' "$OUT/$1.out"; }
# The space's accounting check: one "ok" line per GC, no failed one.
checks() { grep -c '^shardsweep-check accounting .* ok' "$OUT/$1.out"; }

declare -A JAR
for w in lusearch h2 xalan; do
    JAR[$w]="$("$ROOT/scripts/openjdk-standin-build.sh" "$w")" || { echo "jvm-check: cannot build the $w stand-in" >&2; exit 1; }
done
IDX="$ROOT/.build/lusearch-standin-index"
for s in small default; do
    [ -f "$IDX-$s/.done" ] || { "$IMAGES/stock/bin/java" -jar "${JAR[lusearch]}" -s $s --build-index "$IDX-$s" >/dev/null && touch "$IDX-$s/.done"; }
done
args() { # WORKLOAD SIZE THREADS ITERATIONS
    local a=(-jar "${JAR[$1]}" -s "$2" -t "$3" -n "$4")
    [ "$1" = lusearch ] && a+=(--index "$IDX-$2")
    echo "${a[@]}"
}

echo "== 1. every plan starts"
for image in stock $SS; do
    for plan in NoGC SemiSpace GenCopy Immix GenImmix StickyImmix MarkSweep MarkCompact PageProtect; do
        run "start-$image-$plan" "$image" MMTK_PLAN=$plan -- -Xms64m -Xmx64m -version
        [ "$RC" = 0 ] && ok "$image $plan starts" || bad "$image $plan: java -version exited $RC ($OUT/start-$image-$plan.out)"
    done
done

echo "== 2. the stand-ins' digests with the fast path in each tier, and without it"
WORKLOADS="lusearch h2 xalan"; [ $QUICK = 1 ] && WORKLOADS=lusearch
for image in $SS; do
    for w in $WORKLOADS; do
        want=""
        for mode in default int c1 c2 off; do
            case $mode in
                default) j=(); e=() ;;
                int) j=(-Xint); e=() ;;
                c1) j=(-XX:TieredStopAtLevel=1); e=() ;;
                c2) j=(-XX:-TieredCompilation); e=() ;;
                off) j=(); e=(MMTK_FREE_LIST_FASTPATH=false) ;;
            esac
            n=2; [ $mode = int ] && n=1
            name="digest-$image-$w-$mode"
            # shellcheck disable=SC2046
            run "$name" "$image" MMTK_PLAN=MarkSweep "${e[@]}" -- -Xms256m -Xmx256m "${j[@]}" $(args $w small 2 $n) $w
            d="$(digest "$OUT/$name.out")"
            if passed "$name" && [ -n "$d" ] && { [ -z "$want" ] || [ "$d" = "$want" ]; }; then
                want="$d"; ok "$image $w $mode: digest $d"
            else
                bad "$image $w $mode: rc $RC, digest '$d' (want '$want'; $OUT/$name.out)"
            fi
        done
    done
done

echo "== 3. the accounting check at every GC near the minimum heap (lusearch, default size)"
THREADS="1:14 8:18 24:28"; [ $QUICK = 1 ] && THREADS="8:18"
for image in $SS; do
    for tm in $THREADS; do
        t=${tm%%:*}; mib=${tm##*:}
        name="acct-$image-t$t"
        # shellcheck disable=SC2046
        run "$name" "$image" MMTK_PLAN=MarkSweep SHARDSWEEP_CHECK_ACCOUNTING=1 -- -Xms${mib}m -Xmx${mib}m $(args lusearch default $t 2) lusearch
        c=$(checks "$name")
        if passed "$name" && [ "$c" -gt 0 ] && ! grep -q 'shardsweep-check accounting .* FAIL' "$OUT/$name.out"; then
            ok "$image lusearch t$t at $mib MiB: $c GCs checked"
        else
            bad "$image lusearch t$t at $mib MiB: rc $RC, $c checks ($OUT/$name.out)"
        fi
    done
done

echo "== 4. MMTk's stress GC"
for image in $SS; do
    name="stress-$image"
    # shellcheck disable=SC2046
    run "$name" "$image" MMTK_PLAN=MarkSweep MMTK_STRESS_FACTOR=4194304 SHARDSWEEP_CHECK_ACCOUNTING=1 -- -Xms64m -Xmx64m $(args lusearch small 4 1) lusearch
    c=$(checks "$name")
    passed "$name" && [ "$c" -gt 0 ] && ok "$image stress t4: $c GCs checked" || bad "$image stress: rc $RC, $c checks ($OUT/$name.out)"
done

echo "== 5. who zeroes: the space, or poison (HotSpot writes what it allocates)"
for image in $SS; do
    for z in space poison; do
        name="zero-$image-$z"
        # shellcheck disable=SC2046
        run "$name" "$image" MMTK_PLAN=MarkSweep SHARDSWEEP_ZERO=$z -- -Xms32m -Xmx32m $(args lusearch small 4 2) lusearch
        passed "$name" && ok "$image SHARDSWEEP_ZERO=$z: digest $(digest "$OUT/$name.out")" || bad "$image SHARDSWEEP_ZERO=$z: rc $RC ($OUT/$name.out)"
    done
done

echo "jvm-check: $PASS passed, $FAIL failed in $((SECONDS - T0)) s (outputs: $OUT)" | tee -a "$OUT/summary.txt"
[ $FAIL = 0 ]
