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
# The build's own checks, up to the checkouts, on a stand-in machine (no JDK, no network): a fake
# dpkg-query and boot JDK, a build folder of its own. Each: exit 2 and a line saying what to do.
FAKE="$(mktemp -d)"; trap 'rm -rf "$FAKE"' EXIT
mkdir -p "$FAKE/bin" "$FAKE/jdk/bin" "$FAKE/other"
cat > "$FAKE/bin/dpkg-query" <<'SH'
#!/bin/sh
# Every package installed but those named in FAKE_MISSING.
for p in $FAKE_MISSING; do [ "$p" = "$3" ] && exit 1; done
printf 'install ok installed'
SH
printf '#!/bin/sh\n' > "$FAKE/jdk/bin/javac"
printf '#!/bin/sh\necho "    java.specification.version = ${FAKE_JDK_VERSION:-17}" >&2\n' > "$FAKE/jdk/bin/java"
chmod +x "$FAKE/bin/dpkg-query" "$FAKE/jdk/bin/javac" "$FAKE/jdk/bin/java"
git -C "$FAKE/other" init -q && git -C "$FAKE/other" -c user.name=t -c user.email=t@t commit -q --allow-empty -m x
expect() { # expect 'TEXT' ENV... -- ARGS...: scripts/jvm.sh build ARGS exits 2 with one line holding TEXT
    local text="$1" envs=() rc=0 out; shift
    while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
    out="$(env PATH="$FAKE/bin:$PATH" JVM_BUILD_DIR="$FAKE/build" JVM_CLONE_BASE="file://$FAKE/none" "${envs[@]}" \
        scripts/jvm.sh build --boot-jdk "$FAKE/jdk" "$@" 2>&1 >/dev/null)" || rc=$?
    # Exit 2, the last line the error (a clone says first that it clones).
    [ $rc = 2 ] && [ "$(printf '%s\n' "$out" | grep -vc '^jvm: cloning ')" = 1 ] \
        && printf '%s\n' "$out" | tail -n 1 | grep -q '^jvm: ' && printf '%s' "$out" | tail -n 1 | grep -qF -- "$text" \
        || { echo "openjdk-test: FAIL: scripts/jvm.sh build $*: rc $rc, want 2 and '$text'; stderr: $out" >&2; exit 1; }
}
expect "run: apt-get install -y libx11-dev libfreetype-dev" FAKE_MISSING="libx11-dev libfreetype-dev libfreetype6-dev" --
expect "valid: 10, 11 or 17" FAKE_JDK_VERSION=21 --
expect "no boot JDK" -- --boot-jdk "$FAKE/none"
expect "not the pinned 28e56ee32525c32c5a88391d0b01f24e5cd16c0f; run: git -C $FAKE/other checkout" -- --openjdk "$FAKE/other"
expect "--openjdk $FAKE/none: no such directory" -- --openjdk "$FAKE/none"
expect "cannot clone file://$FAKE/none/openjdk.git (git's words: $FAKE/build/logs/clone-openjdk.log); pass a checkout at 28e56ee" --
git clone -q --bare "$FAKE/other" "$FAKE/mirror/openjdk.git"
expect "cannot check out 28e56ee32525c32c5a88391d0b01f24e5cd16c0f in $FAKE/build/checkouts/openjdk" JVM_CLONE_BASE="file://$FAKE/mirror" --
# From a local copy (a path) there is no checkout: the commit must be in it.
rm -rf "$FAKE/build/checkouts/openjdk"
expect "$FAKE/mirror/openjdk.git has no commit 28e56ee32525c32c5a88391d0b01f24e5cd16c0f; pass a checkout at it with --openjdk DIR" JVM_CLONE_BASE="$FAKE/mirror" --
for p in bindings/openjdk/patches/*.patch; do
    grep -q '^+++ b/' "$p" && ! grep -qE '^(\+\+\+|---) [ab]/(.*/)?(test|target)/' "$p" \
        || { echo "openjdk-test: FAIL: $p is not a unified patch of source files" >&2; exit 1; }
done
echo "openjdk-test: PASSED in $(( $(date +%s) - T0 )) s"
