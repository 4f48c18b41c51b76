#!/usr/bin/env bash
# Builds the patched mmtk copy, synthvm against it (stock baseline + shardsweep variants), and
# runs the policy tests with --verify at small size. This script builds; the checks are
# scripts/policy_checks.py (it runs the binaries, parses synthvm's JSON and the space's check
# lines, and asserts). Every shardsweep run also has the space's end-of-GC self-checks on
# (SHARDSWEEP_CHECK_ACCOUNTING=1, SHARDSWEEP_CHECK_RECLAIM=1; see policy/check.rs): a run passes
# only if synthvm says PASSED and every GC printed an "ok" line for each check (the count of
# lines must equal synthvm's gc_count).
#
#   scripts/test-policy.sh            # the test command's default tier (below), ~5 min on 2 idle cores from cold
#   scripts/test-policy.sh --full     # + blocks 16 and 256 KiB, threads 48, the 4 KiB build with
#                                     # mmtk/sanity (a sanity GC after every GC) and a vo_bit build
#   scripts/test-policy.sh --no-build # reuse existing builds
#
# Default tier: stock t8; blocks 4 and 64 KiB x page,block x threads 1,8 x lusearch,gcbench,
# fragger, eager; 64 KiB lazy sweeping x page,block x t1,t8 x the three workloads; 4 KiB lazy
# and eager lusearch t8 under a 2 MB stress factor; the large-object space's free pages given
# back at every GC's end; SHARDSWEEP_ABANDON_ALL=0 (idle classes only), with ABANDON_IDLE=0
# (none), lazy with ABANDON_ALL=1; mutators destroyed after a GC that did not see them (synthvm
# --late-exit: eager, lazy, stock); the post-GC footprint test (fragger t8: page vs whole-block
# charging vs stock MarkSweep); the final-GC test (synthvm --final-gc on workloads/mostly-dead.wl
# t8: used - live after a full GC of a mostly dead heap, page vs whole-block charging vs stock);
# out of memory reported promptly; a request that can never be met ends in out of memory, not in
# endless GCs (synthvm hog, issue 11); the low-heap sweep (every block size built x t1,24,48
# small from 0.5 MiB, each up to two passes in a row: pass or out of memory, a timeout fails);
# invalid settings refused, build-time settings at run time among them. With --full the 4 KiB
# runs use the sanity build, the low-heap sweep adds t24 default from 8 MiB (every block size
# but 4 KiB), and a vo_bit build runs
# lusearch t8 (page and block; lazy refused); VO bits are covered in the default tier by mmtk's
# mock-VM suite (scripts/test-mmtk-mock.sh).
#
# Builds whose settings the experiments share (stock, and shardsweep at every block size but the
# sanity one) go through scripts/build-variants.sh: its target dirs (.build/target-*), so CI
# never builds the same thing twice, and its progress lines every 30 s; their binaries are
# copied to .build/pol-bin. The two builds only the tests need (the sanity build and the vo_bit
# build) use their own copy (.build/pol-copy) and target dirs (.build/pol-*).
# synthvm's files are not edited: the build passes [patch.crates-io] on the command line and
# restores synthvm's Cargo.lock afterwards (cargo rewrites it for the patched source).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VM="$ROOT/bindings/synthvm"
COPY="$ROOT/.build/pol-copy"
FULL=0; BUILD=1
for a in "$@"; do
    case "$a" in
        --full) FULL=1 ;;
        --no-build) BUILD=0 ;;
        *) echo "usage: $0 [--full] [--no-build]" >&2; exit 2 ;;
    esac
done
if [ $FULL = 1 ]; then BLOCKS="4 16 32 64 256"; else BLOCKS="4 64"; fi   # (threads: 1 8 48, or 1 8)
# Read by scripts/policy_checks.py from the environment:
#   WORKLOADS (default "lusearch gcbench fragger");
#   HEAP (MiB; default: 16 up to 8 threads (several GCs per run), 48 above; doubled for 256 KiB
#   blocks (whole-block charging of 63 blocks fills 16 MiB: a true OOM)).
T0=$(date +%s)

# The overlay, refreshed file by file (cargo fingerprints path dependencies by mtime, and
# overlay.sh re-creates everything).
refresh_copy() {
    local stage="$ROOT/.build/pol-stage"
    OVERLAY_DEST="$stage" "$ROOT/scripts/overlay.sh" >/dev/null || return 1
    if [ ! -d "$COPY" ]; then cp -R "$stage" "$COPY"; return 0; fi
    local n=0 f
    while IFS= read -r f; do
        if ! cmp -s "$stage/$f" "$COPY/$f"; then
            mkdir -p "$(dirname "$COPY/$f")"; cp "$stage/$f" "$COPY/$f"; n=$((n + 1))
        fi
    done < <(cd "$stage" && find . -type f)
    while IFS= read -r f; do [ -e "$stage/$f" ] || rm -f "$COPY/$f"; done < <(cd "$COPY" && find . -type f)
    echo "== overlay copy: $n files changed"
}

build() { # build TARGET_DIR [cargo args...]
    local dir=$1; shift
    cp "$VM/Cargo.lock" "$ROOT/.build/pol-synthvm.Cargo.lock.orig"
    local log="$ROOT/.build/pol-build.log" t0=$SECONDS
    (cd "$VM" && cargo build --release \
        --config "patch.crates-io.mmtk.path=\"$COPY\"" --target-dir "$dir" "$@" >"$log" 2>&1) &
    local pid=$! next=$((SECONDS + 30))
    # A cold build takes minutes on 2 cores: say every 30 s how far it is.
    while kill -0 $pid 2>/dev/null; do
        sleep 1
        if [ $SECONDS -ge $next ]; then
            echo "   still building $(basename "$dir") ($((SECONDS - t0)) s, $(grep -c '^ *Compiling' "$log") crates compiled)"
            next=$((SECONDS + 30))
        fi
    done
    wait $pid
    local rc=$?
    grep -E '^(error|warning: unused)' -A8 "$log"
    cp "$ROOT/.build/pol-synthvm.Cargo.lock.orig" "$VM/Cargo.lock"
    [ -x "$dir/release/synthvm" ] || rc=1
    return $rc
}

mkdir -p "$ROOT/.build"
SANITY_KIB=4
if [ $BUILD = 1 ]; then
    # --full: the SANITY_KIB build has mmtk/sanity (built here); the default tier uses the plain
    # one of build-variants.sh, which the experiments share.
    vars="stock"
    for kib in $BLOCKS; do [ $FULL = 1 ] && [ "$kib" = "$SANITY_KIB" ] || vars="$vars ss${kib}k"; done
    echo "== build stock baseline and shardsweep ($vars) with scripts/build-variants.sh"
    SHARDSWEEP_EXP_BIN_DIR="$ROOT/.build/pol-bin" "$ROOT/scripts/build-variants.sh" $vars || exit 1
    # The tests' own copy: the builds below, and the refused feature combinations (cargo check).
    refresh_copy || exit 1
    if [ $FULL = 1 ]; then
        echo "== build shardsweep, $SANITY_KIB KiB blocks, sanity (mmtk/shardsweep,mmtk/sanity)"
        SHARDSWEEP_BLOCK_KIB=$SANITY_KIB build "$ROOT/.build/pol-ss$SANITY_KIB" --features mmtk/shardsweep,mmtk/sanity || exit 1
        echo "== build shardsweep, 64 KiB blocks, vo_bit"
        SHARDSWEEP_BLOCK_KIB=64 build "$ROOT/.build/pol-ss64-vobit" --features mmtk/shardsweep,mmtk/vo_bit || exit 1
    fi
    echo "== builds done in $(( $(date +%s) - T0 )) s"
fi
if [ $FULL = 1 ]; then set -- --full; else set --; fi
exec python3 "$ROOT/scripts/policy_checks.py" "$@"
