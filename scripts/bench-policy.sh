#!/usr/bin/env bash
# Benchmark (not a timed test): shardsweep (64 KiB blocks, page accounting) against stock
# MarkSweep on synthvm lusearch at 8 mutator threads, at 2x stock's minimum heap. Invocations
# are interleaved (stock, ss64, stock, ss64, ...); the medians of total, mutator and GC time and
# of the GC count (from synthvm's JSON line) are printed as a markdown table, with every raw
# invocation after it.
#
#   scripts/bench-policy.sh                 # N=9 invocations each; bisects stock's min heap
#   N=5 HEAP=40 scripts/bench-policy.sh     # fixed heap (MiB), fewer invocations
#   THREADS=8 SIZE=default SWEEP=eager ADVICE=dontneed PURGE=gc ...  # defaults shown
#
# Binaries: STOCK_BIN and SS_BIN, by default the ones scripts/test-policy.sh builds
# (.build/pol-stock, .build/pol-ss64: the same mmtk copy with and without the feature).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STOCK_BIN="${STOCK_BIN:-$ROOT/.build/pol-stock/release/synthvm}"
SS_BIN="${SS_BIN:-$ROOT/.build/pol-ss64/release/synthvm}"
N="${N:-9}"; THREADS="${THREADS:-8}"; SIZE="${SIZE:-default}"; SWEEP="${SWEEP:-eager}"; ADVICE="${ADVICE:-dontneed}"; PURGE="${PURGE:-gc}"
WORKLOAD="${WORKLOAD:-lusearch}"
for b in "$STOCK_BIN" "$SS_BIN"; do
    [ -x "$b" ] || { echo "bench-policy: $b missing; run scripts/test-policy.sh (it builds both)" >&2; exit 1; }
done
# Private copies: a concurrent rebuild must not swap a binary mid-benchmark.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp "$STOCK_BIN" "$tmp/stock"; cp "$SS_BIN" "$tmp/ss64"

if [ -z "${HEAP:-}" ]; then
    minheap=$(SYNTHVM="$tmp/stock" LO=2 HI=512 sh "$ROOT/bindings/synthvm/scripts/minheap.sh" MarkSweep "$THREADS" --size "$SIZE" "$WORKLOAD") \
        || { echo "bench-policy: stock min heap bisect failed" >&2; exit 1; }
    HEAP=$((2 * minheap))
    echo "stock MarkSweep min heap ($WORKLOAD, -t $THREADS, --size $SIZE): $minheap MiB -> benchmark heap $HEAP MiB"
fi

one() { # one VARIANT -> "total mutator gc gcs peak_used_pages cpu_s"
    local v=$1 out cpu
    local TIMEFORMAT='%U %S'
    if [ "$v" = stock ]; then
        { time "$tmp/stock" --plan MarkSweep -t "$THREADS" --size "$SIZE" --heap "$HEAP" "$WORKLOAD" >"$tmp/out" 2>&1; } 2>"$tmp/time"
    else
        { time env SHARDSWEEP_ACCOUNTING=page SHARDSWEEP_SWEEP="$SWEEP" SHARDSWEEP_ADVICE="$ADVICE" SHARDSWEEP_PURGE="$PURGE" "$tmp/ss64" --plan MarkSweep -t "$THREADS" --size "$SIZE" --heap "$HEAP" "$WORKLOAD" >"$tmp/out" 2>&1; } 2>"$tmp/time"
    fi
    out=$(cat "$tmp/out")
    cpu=$(awk '{printf "%.2f", $1 + $2}' "$tmp/time")
    grep -q PASSED <<<"$out" || { echo "FAILED"; return; }
    local j; j=$(grep '^{"synthvm"' <<<"$out")
    for k in total_ms mutator_ms gc_ms gc_count peak_used_pages; do
        grep -o "\"$k\":[0-9.]*" <<<"$j" | head -1 | cut -d: -f2
    done | tr '\n' ' '
    echo "$cpu"
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }

declare -A raw
for i in $(seq 1 "$N"); do
    for v in stock ss64; do
        r=$(one $v)
        raw[$v]+="$r"$'\n'
        echo "run $i $v: $r" >&2
    done
done

echo
echo "lusearch-like synthvm workload \`$WORKLOAD\`, -t $THREADS, --size $SIZE, --heap $HEAP MiB, $N invocations each, interleaved; medians"
echo "(GC threads: ${MMTK_THREADS:-MMTk default}; machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| variant | total ms | mutator ms | GC ms | GCs | peak used pages | CPU s (user+sys) | failed |"
echo "|---|---|---|---|---|---|---|---|"
for v in stock ss64; do
    ok=$(grep -v FAILED <<<"${raw[$v]}" | grep -v '^$')
    nf=$(grep -c FAILED <<<"${raw[$v]}")
    row="| $( [ $v = stock ] && echo "stock MarkSweep" || echo "shardsweep 64 KiB page ($SWEEP, $ADVICE, purge $PURGE)" ) |"
    for c in 1 2 3 4 5 6; do row+=" $(awk -v c=$c '{print $c}' <<<"$ok" | median) |"; done
    echo "$row $nf |"
done
echo
echo "raw (total_ms mutator_ms gc_ms gc_count peak_used_pages cpu_s):"
for v in stock ss64; do grep -v '^$' <<<"${raw[$v]}" | sed "s/^/    $v: /"; done
