#!/usr/bin/env bash
# mmtk 0.33.0's own mock-VM test suite, run on our patched copy of the crate with the MarkSweep
# plan, the way mmtk-core's CI runs it (.github/scripts/ci-test.sh there): every file named
# mock_test_* alone, `cargo test --features mock_test,<its GITHUB-CI: FEATURES> -- <file>`, with
# MMTK_GC_TRIGGER=FixedHeapSize:1000000000 and MMTK_PLAN=MarkSweep, from the crate's own sources
# (cargo's registry copy, through scripts/overlay.sh; nothing of mmtk's is in this repository).
# Our space's own mock-VM tests (policy/mock_tests/, the same form) run beside them.
#
#   scripts/test-mmtk-mock.sh          # the files mmtk's CI runs with MarkSweep (GITHUB-CI:
#                                      # MMTK_PLAN= all, or a list naming MarkSweep) and ours, on
#                                      # the shardsweep feature
#   scripts/test-mmtk-mock.sh --full   # + stock mmtk (the copy without the feature) on the same
#                                      # files, and every other mock file with MarkSweep on both:
#                                      # each file stock MarkSweep passes must pass on ours
#
# Ends with "N passed, N failed"; exit 1 if one failed. Logs: .build/mock-logs/.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FULL=0
for a in "$@"; do
    case "$a" in
        --full) FULL=1 ;;
        *) echo "usage: $0 [--full] (unknown option: $a)" >&2; exit 2 ;;
    esac
done
COPY="$ROOT/.build/mock-copy"
LOGS="$ROOT/.build/mock-logs"
OVERLAY_DEST="$COPY" OVERLAY_STANDALONE=1 "$ROOT/scripts/overlay.sh" || exit 1
mkdir -p "$LOGS"
export MMTK_GC_TRIGGER=FixedHeapSize:1000000000 MMTK_PLAN=MarkSweep RUST_BACKTRACE=1
# The space's settings come from the environment: a study's leftovers must not change the run.
for v in $(env | sed -n 's/^\(SHARDSWEEP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done

# The mock files, each as "file|plans|features|ours" (plans as its header says, NoGC when it says
# none; ours=1 for the space's own, compiled with the feature only).
files() {
    find "$COPY/src" "$COPY/tests" -type f -name 'mock_test_*.rs' 2>/dev/null | sort | while read -r f; do
        local plans features
        plans=$(sed -n 's/^\/\/ *GITHUB-CI: *MMTK_PLAN=//p' "$f" | tr -d ' ')
        features=$(sed -n 's/^\/\/ *GITHUB-CI: *FEATURES=//p' "$f" | tr -d ' ')
        local ours=0
        case "$f" in */marksweepspace/shardsweep/*) ours=1 ;; esac
        echo "$(basename -s .rs "$f")|${plans:-NoGC}|$features|$ours"
    done
}
runs_marksweep() { # the plans mmtk's CI gives a file include MarkSweep
    [ "$1" = all ] || tr ',' '\n' <<<"$1" | grep -qx MarkSweep
}

pass=0 fail=0 failed=()
declare -A STOCK_OK=()
run() { # run VARIANT(shardsweep|stock) TEST FEATURES: one process, its log kept
    local variant=$1 t=$2 feats=$3 target features t0=$SECONDS
    if [ "$variant" = shardsweep ]; then
        target="$ROOT/.build/target-mock"; features="mock_test,shardsweep"
    else
        target="$ROOT/.build/target-mock-stock"; features="mock_test"
    fi
    [ -n "$feats" ] && features="$features,$feats"
    local log="$LOGS/$variant-$t.log"
    if (cd "$COPY" && cargo test -q --lib --features "$features" --target-dir "$target" -- "$t") >"$log" 2>&1 \
       && grep -q "test result: ok. [1-9]" "$log"; then
        printf 'ok   %-10s %-62s %s (%ds)\n' "$variant" "$t" "${feats:--}" $((SECONDS - t0))
        return 0
    fi
    printf 'FAIL %-10s %-62s %s: %s\n' "$variant" "$t" "${feats:--}" "$log"
    return 1
}
count() { # count RESULT NAME
    if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); failed+=("$2"); fi
}

mapfile -t ALL < <(files)
[ ${#ALL[@]} -gt 40 ] || { echo "FAILED: found ${#ALL[@]} mock test files in $COPY (mmtk 0.33.0 has 43, and ours)"; exit 1; }
SELECTED=() OTHERS=()
for row in "${ALL[@]}"; do
    IFS='|' read -r t plans feats ours <<<"$row"
    if runs_marksweep "$plans"; then SELECTED+=("$row"); else OTHERS+=("$row"); fi
done
echo "== mmtk 0.33.0 mock-VM suite, MMTK_PLAN=MarkSweep: ${#SELECTED[@]} files name MarkSweep (or all), ${#OTHERS[@]} others"
echo "== building the test binaries (mock_test, mock_test + each file's features) once"

for row in "${SELECTED[@]}"; do
    IFS='|' read -r t plans feats ours <<<"$row"
    run shardsweep "$t" "$feats"; count $? "shardsweep $t"
    if [ $FULL = 1 ] && [ "$ours" = 0 ]; then run stock "$t" "$feats"; count $? "stock $t"; fi
done
if [ $FULL = 1 ]; then
    # The files whose header names other plans only, with MarkSweep too: a contract that stock
    # MarkSweep keeps, ours must keep; one that stock fails is not MarkSweep's (shown, not counted).
    echo "== the other mock files with MarkSweep: stock first, ours where stock passes"
    for row in "${OTHERS[@]}"; do
        IFS='|' read -r t plans feats ours <<<"$row"
        if run stock "$t" "$feats" >/dev/null; then
            run shardsweep "$t" "$feats"; count $? "shardsweep $t (stock MarkSweep passes it)"
        else
            printf 'n/a  %-10s %-62s stock MarkSweep fails it too (its plans: %s)\n' both "$t" "$plans"
        fi
    done
fi
echo "== mmtk mock-VM suite: ${#failed[@]} failed"
for f in "${failed[@]}"; do echo "   FAILED $f"; done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
