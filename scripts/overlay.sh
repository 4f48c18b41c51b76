#!/usr/bin/env bash
# Builds the patched mmtk copy: stock mmtk =0.31.0 (found through cargo) + our space's files from
# policy/ under src/policy/marksweepspace/shardsweep/ + the seam patch policy/seam.patch.
# Idempotent: every run rebuilds the copy from scratch (offline after the first fetch).
#
#   scripts/overlay.sh            # -> .build/mmtk-0.31.0-shardsweep/
#   OVERLAY_DEST=/path scripts/overlay.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="0.31.0"
DEST="${OVERLAY_DEST:-$ROOT/.build/mmtk-$VERSION-shardsweep}"
POLICY="$ROOT/policy"
SPACE_FILES=(mod.rs global.rs region.rs glue.rs allocator.rs sweep.rs settings.rs work.rs check.rs purge.rs report.rs)

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

# 2. Fresh copy.
rm -rf "$DEST"
mkdir -p "$(dirname "$DEST")"
cp -R "$SRC" "$DEST"
chmod -R u+w "$DEST"
rm -f "$DEST/.cargo-ok" "$DEST/.cargo_vcs_info.json"

# 3. Our space's files.
SPACE_DIR="$DEST/src/policy/marksweepspace/shardsweep"
mkdir -p "$SPACE_DIR"
for f in "${SPACE_FILES[@]}"; do
    cp "$POLICY/$f" "$SPACE_DIR/$f"
done

# 4. The seam.
patch -s -p1 -d "$DEST" --no-backup-if-mismatch <"$POLICY/seam.patch"

echo "overlay: $SRC -> $DEST"
