#!/usr/bin/env bash
# The layout contract with mmtk-openjdk 0.33.0 (bindings/openjdk): the shardsweep allocator and
# the Rust Mutator must match the C++ mirror in mmtk-openjdk's mmtkMutator.hpp (see
# bindings/openjdk/README.md). Runs
#   1. cargo test --release                      (patched mmtk, feature shardsweep: our allocator)
#   2. cargo test --release --no-default-features (same figures against stock mmtk 0.33.0)
#   3. cargo +1.84.0 check --all-targets         (mmtk 0.33.0's rust-version) when the
#      toolchain is installed; prints "MSRV check skipped" otherwise.
#
#   scripts/openjdk-test.sh            # ~4 min cold on 2 idle cores (+~2 min with 1.84.0), seconds warm
#   scripts/openjdk-test.sh --no-msrv
#
# It builds against its own overlay copy (.build/oj-copy, refreshed file by file from a fresh
# scripts/overlay.sh run, so unchanged files keep their mtimes and cargo rebuilds only what
# changed) and its own target dirs, so it never races with other scripts over
# .build/mmtk-0.33.0-shardsweep. bindings/openjdk/.cargo/config.toml points at that default copy
# for interactive use; here the path is overridden on the command line (the lock file does not
# record patch paths, so it is unchanged).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CRATE="$ROOT/bindings/openjdk"
STAGE="$ROOT/.build/oj-stage"
COPY="$ROOT/.build/oj-copy"
TARGET="$ROOT/.build/target-openjdk"
MSRV=1
for a in "$@"; do
    case "$a" in
        --no-msrv) MSRV=0 ;;
        *) echo "usage: $0 [--no-msrv]" >&2; exit 2 ;;
    esac
done
T0=$(date +%s)

# Overlay into a stage, then copy only what changed into our copy.
OVERLAY_DEST="$STAGE" "$ROOT/scripts/overlay.sh" >/dev/null
if [ ! -d "$COPY" ]; then
    mkdir -p "$COPY" && cp -R "$STAGE/." "$COPY/"
else
    n=0
    while IFS= read -r -d '' f; do
        if ! cmp -s "$STAGE/$f" "$COPY/$f"; then
            mkdir -p "$(dirname "$COPY/$f")"; cp "$STAGE/$f" "$COPY/$f"; n=$((n + 1))
        fi
    done < <(cd "$STAGE" && find . -type f -print0)
    while IFS= read -r -d '' f; do
        [ -e "$STAGE/$f" ] || { rm -f "$COPY/$f"; n=$((n + 1)); }
    done < <(cd "$COPY" && find . -type f -print0)
    [ $n -gt 0 ] && echo "openjdk-test: overlay copy refreshed ($n files changed)"
fi
PATCH=(--config "patch.crates-io.mmtk.path=\"$COPY\"")

cd "$CRATE"
echo "== openjdk-test: contract, shardsweep allocator (feature mmtk/shardsweep)"
cargo test --release --locked "${PATCH[@]}" --target-dir "$TARGET"
echo "== openjdk-test: contract, stock mmtk 0.33.0 (--no-default-features)"
cargo test --release --locked "${PATCH[@]}" --target-dir "$TARGET" --no-default-features

if [ $MSRV = 1 ]; then
    # grep without -q reads the whole list: with pipefail, -q's early exit can kill rustup (SIGPIPE)
    if rustup toolchain list 2>/dev/null | grep '^1\.84\.0' >/dev/null; then
        echo "== openjdk-test: MSRV, cargo +1.84.0 check --all-targets"
        cargo +1.84.0 check --all-targets --locked "${PATCH[@]}" --target-dir "$TARGET-msrv"
        echo "openjdk-test: MSRV 1.84.0 ok"
    else
        echo "openjdk-test: MSRV check skipped (toolchain 1.84.0 not installed: rustup toolchain install 1.84.0 --profile minimal)"
    fi
fi
# The JVM build and check commands without a JVM: each usage error is one line and exit 2, and
# the patches are our lines in unified form against the pinned trees (applied by scripts/jvm.sh).
echo "== openjdk-test: scripts/jvm.sh usage errors, the patch files"
cd "$ROOT"
for args in "bogus" "build --bogus" "build --blocks 5" "build --openjdk /nonexistent" "check --bogus"; do
    # shellcheck disable=SC2086
    rc=0; out="$(scripts/jvm.sh $args 2>&1 >/dev/null)" || rc=$?
    [ $rc = 2 ] && [ "$(printf '%s\n' "$out" | grep -c '^jvm')" = 1 ] \
        || { echo "openjdk-test: FAIL: scripts/jvm.sh $args: rc $rc, stderr: $out" >&2; exit 1; }
done
for p in bindings/openjdk/patches/*.patch; do
    grep -q '^+++ b/' "$p" && ! grep -qE '^(\+\+\+|---) [ab]/(.*/)?(test|target)/' "$p" \
        || { echo "openjdk-test: FAIL: $p is not a unified patch of source files" >&2; exit 1; }
done
echo "openjdk-test: PASSED in $(( $(date +%s) - T0 )) s"
