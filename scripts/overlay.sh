#!/usr/bin/env bash
# Builds the patched mmtk copy: stock mmtk =0.33.0 (found through cargo) + our space's files from
# policy/ under src/policy/marksweepspace/shardsweep/ + the seam patch policy/seam.patch.
# Idempotent and cache-friendly: the copy is made afresh in a staging dir, then only the files
# whose content changed are written to the destination (cargo fingerprints path dependencies by
# mtime, so an unchanged copy rebuilds nothing). Offline after the first fetch.
# The copy is its own (empty) git repository: mmtk's build script (the `built` crate) embeds the
# git commit and dirty flag of the repository enclosing the crate, which would otherwise be this
# project's, so a commit or an edited README would change every binary's sha256 (and the
# experiments' probe cache, keyed by it, would miss). In its own empty repository the crate
# reports "unknown-git-version", as the pristine crate in cargo's registry does.
#
#   scripts/overlay.sh            # -> .build/mmtk-0.33.0-shardsweep/
#   OVERLAY_DEST=/path scripts/overlay.sh
#   OVERLAY_DEST=/path OVERLAY_STANDALONE=1 scripts/overlay.sh   # to build and test the copy itself
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="0.33.0"
DEST="${OVERLAY_DEST:-$ROOT/.build/mmtk-$VERSION-shardsweep}"
POLICY="$ROOT/policy"
# Every Rust file of policy/ (the space, its mock-VM tests), at the same relative path.
mapfile -t SPACE_FILES < <(cd "$POLICY" && find . -name '*.rs' | sed 's|^\./||' | sort)

# 1. Locate the pristine crate through cargo itself: fetch a throw-away manifest that depends on it.
CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
probe="$(mktemp -d)"
trap 'rm -rf "$probe"' EXIT
mkdir -p "$probe/src"
cat >"$probe/Cargo.toml" <<TOML
[package]
name = "shardsweep-overlay-probe"
version = "0.0.0"
edition = "2021"
[dependencies]
mmtk = "=$VERSION"
[workspace]
TOML
echo "" >"$probe/src/lib.rs"
if ! cargo fetch --offline --manifest-path "$probe/Cargo.toml" >/dev/null 2>&1; then
    cargo fetch --manifest-path "$probe/Cargo.toml" >/dev/null
fi
SRC=""
for d in "$CARGO_HOME"/registry/src/*/mmtk-"$VERSION"; do
    [ -f "$d/Cargo.toml" ] && SRC="$d" && break
done
[ -n "$SRC" ] || { echo "overlay: mmtk-$VERSION not found under $CARGO_HOME/registry/src after cargo fetch" >&2; exit 1; }

# 2. Fresh copy, in a staging dir.
STAGE="$probe/copy"
cp -R "$SRC" "$STAGE"
chmod -R u+w "$STAGE"
rm -f "$STAGE/.cargo-ok" "$STAGE/.cargo_vcs_info.json"

# 3. Our space's files.
SPACE_DIR="$STAGE/src/policy/marksweepspace/shardsweep"
mkdir -p "$SPACE_DIR"
for f in "${SPACE_FILES[@]}"; do
    mkdir -p "$(dirname "$SPACE_DIR/$f")"
    cp "$POLICY/$f" "$SPACE_DIR/$f"
done

# 4. The seam.
patch -s -p1 -d "$STAGE" --no-backup-if-mismatch <"$POLICY/seam.patch"

# 4b. A copy built on its own (mmtk's mock-VM tests, scripts/test-mmtk-mock.sh), not through a
#     binding's [patch.crates-io]: a workspace of its own (it lies under this repository's), and
#     the default toolchain as every other build here (mmtk pins one in rust-toolchain).
if [ "${OVERLAY_STANDALONE:-0}" = 1 ]; then
    printf '\n[workspace]\n' >>"$STAGE/Cargo.toml"
    rm -f "$STAGE/rust-toolchain"
fi

# 5. Into the destination, file by file (unchanged files keep their mtime), and its own git
#    repository (see the header).
mkdir -p "$DEST"
n=0
while IFS= read -r -d '' f; do
    if ! cmp -s "$STAGE/$f" "$DEST/$f"; then
        mkdir -p "$(dirname "$DEST/$f")"; cp "$STAGE/$f" "$DEST/$f"; n=$((n + 1))
    fi
done < <(cd "$STAGE" && find . -type f -print0)
while IFS= read -r -d '' f; do
    [ -e "$STAGE/$f" ] || { rm -f "$DEST/$f"; n=$((n + 1)); }
done < <(cd "$DEST" && find . -path ./.git -prune -o -type f -print0)
[ -d "$DEST/.git" ] || git init -q "$DEST"

echo "overlay: $SRC -> $DEST ($n files changed)"
