#!/usr/bin/env bash
# Builds the patched mmtk copy, synthvm against it (stock baseline + shardsweep at several block
# sizes), and runs the policy test matrix with --verify at small size.
#
#   scripts/test-policy.sh            # CI subset: blocks 4,64 KiB x accounting page,block x threads 1,8
#   scripts/test-policy.sh --full     # blocks 4,16,64,256 x page,block x threads 1,8,48
#   scripts/test-policy.sh --no-build # reuse existing builds
#
# synthvm's files are not edited: the build passes [patch.crates-io] on the command line and
# restores synthvm's Cargo.lock afterwards (cargo rewrites it for the patched source).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VM="$ROOT/bindings/synthvm"
COPY="$ROOT/.build/mmtk-0.31.0-shardsweep"
FULL=0; BUILD=1
for a in "$@"; do
    case "$a" in
        --full) FULL=1 ;;
        --no-build) BUILD=0 ;;
        *) echo "usage: $0 [--full] [--no-build]" >&2; exit 2 ;;
    esac
done
if [ $FULL = 1 ]; then BLOCKS="4 16 64 256"; THREADS="1 8 48"; else BLOCKS="4 64"; THREADS="1 8"; fi
ACCOUNTING="page block"
WORKLOADS="${WORKLOADS:-lusearch gcbench fragger}"
HEAP="${HEAP:-64}"

build() { # build TARGET_DIR [cargo args...]
    local dir=$1; shift
    cp "$VM/Cargo.lock" "$ROOT/.build/synthvm.Cargo.lock.orig"
    (cd "$VM" && cargo build --release --quiet \
        --config "patch.crates-io.mmtk.path=\"$COPY\"" --target-dir "$dir" "$@")
    local rc=$?
    cp "$ROOT/.build/synthvm.Cargo.lock.orig" "$VM/Cargo.lock"
    return $rc
}

fail=0; pass=0
run() { # run NAME BIN [args...]
    local name=$1; shift
    local out; out=$(timeout 300 "$@" 2>&1); local rc=$?
    if [ $rc = 0 ] && grep -q PASSED <<<"$out"; then
        pass=$((pass + 1)); echo "ok   $name"
    else
        fail=$((fail + 1)); echo "FAIL $name (rc=$rc)"; tail -5 <<<"$out" | sed 's/^/     /'
    fi
}

mkdir -p "$ROOT/.build"
if [ $BUILD = 1 ]; then
    "$ROOT/scripts/overlay.sh" || exit 1
    echo "== build stock baseline (copy without the feature)"
    build "$ROOT/.build/target-stock" || exit 1
    for kib in $BLOCKS; do
        echo "== build shardsweep, $kib KiB blocks"
        SHARDSWEEP_BLOCK_KIB=$kib build "$ROOT/.build/target-ss$kib" --features mmtk/shardsweep || exit 1
    done
fi

echo "== stock MarkSweep baseline"
run "stock t8" "$ROOT/.build/target-stock/release/synthvm" --plan MarkSweep -t 8 --size small --verify --heap "$HEAP" lusearch

for kib in $BLOCKS; do
    bin="$ROOT/.build/target-ss$kib/release/synthvm"
    for acc in $ACCOUNTING; do
        for t in $THREADS; do
            for w in $WORKLOADS; do
                SHARDSWEEP_ACCOUNTING=$acc run "ss${kib}k $acc t$t $w" \
                    "$bin" --plan MarkSweep -t "$t" --size small --verify --heap "$HEAP" "$w"
            done
        done
    done
done

echo "== out of memory is reported, promptly"
bin="$ROOT/.build/target-ss64/release/synthvm"
out=$(timeout 60 "$bin" --plan MarkSweep -t 8 --heap 2 lusearch 2>&1); rc=$?
if [ $rc = 3 ] && grep -qi "out of memory" <<<"$out"; then pass=$((pass + 1)); echo "ok   OOM at 2 MiB (rc=3)";
else fail=$((fail + 1)); echo "FAIL OOM at 2 MiB (rc=$rc)"; tail -3 <<<"$out"; fi

echo "== invalid setting is refused clearly"
out=$(SHARDSWEEP_ACCOUNTING=bogus timeout 60 "$bin" --plan MarkSweep lusearch 2>&1)
if grep -q "valid values are page, block" <<<"$out"; then pass=$((pass + 1)); echo "ok   invalid SHARDSWEEP_ACCOUNTING";
else fail=$((fail + 1)); echo "FAIL invalid SHARDSWEEP_ACCOUNTING"; fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
