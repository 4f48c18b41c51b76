#!/usr/bin/env bash
# Installs what the project needs on a fresh machine of its kind (Debian with Rust, Python,
# a JDK). Idempotent, quiet and offline when everything is present.
#
#   scripts/setup.sh          # the main job's needs: Python packages for the experiments
#   scripts/setup.sh --test   # + the test-only tools: nightly miri with rust-src, and miri's
#                             #   sysroot built once (`cargo miri setup`), so that no test prompts
#                             #   (skipped with SHARDSWEEP_MIRI=0, or when there is no nightly)
#
# What a first run downloads (later runs are offline): PyYAML and matplotlib (pip) if missing;
# crates.io crates for the core, synthvm and mmtk 0.33.0 (cargo, on the first build); with
# --test also the miri and rust-src components (rustup), mmtk-openjdk's crates, and the lusearch
# stand-in's Maven dependencies (Lucene).
set -euo pipefail
cd "$(dirname "$0")/.."
TEST=0
case "${1:-}" in
  --test) TEST=1 ;;
  "") ;;
  *) echo "setup: unknown option $1 (usage: scripts/setup.sh [--test])" >&2; exit 2 ;;
esac
command -v cargo >/dev/null || { echo "setup: cargo is required (https://rustup.rs)" >&2; exit 1; }
if [ -f experiments/requirements.txt ] && ! python3 -c 'import yaml, matplotlib' 2>/dev/null; then
  echo "setup: installing the experiments' Python packages (experiments/requirements.txt)"
  # Root in a container is the usual case here: no "running pip as root" warning, no version nag.
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --disable-pip-version-check \
    -r experiments/requirements.txt
fi
if [ $TEST = 1 ] && command -v rustup >/dev/null && ! rustup toolchain list 2>/dev/null | grep '^1\.84\.0' >/dev/null; then
  # mmtk 0.33.0's rust-version: scripts/openjdk-test.sh checks the contract crate with it.
  echo "setup: installing Rust 1.84.0 (minimal profile) for the MSRV check"
  rustup toolchain install 1.84.0 --profile minimal >/dev/null 2>&1 \
    || echo "setup: could not install Rust 1.84.0 (offline?): the MSRV check will be skipped"
fi
if [ $TEST = 1 ] && [ "${SHARDSWEEP_MIRI:-auto}" != 0 ] && rustup toolchain list 2>/dev/null | grep '^nightly' >/dev/null; then
  have=$(rustup +nightly component list --installed 2>/dev/null || true)
  if ! grep -q '^miri' <<<"$have" || ! grep -q '^rust-src' <<<"$have"; then
    echo "setup: installing nightly's miri and rust-src (for the core's miri tests)"
    rustup +nightly component add miri rust-src >/dev/null 2>&1 \
      || echo "setup: could not install miri (offline?): the miri tests will be skipped"
  fi
  if cargo +nightly miri --version >/dev/null 2>&1; then
    # Builds miri's sysroot once (cached under ~/.cache/miri); never prompts after this.
    cargo +nightly miri setup >/dev/null 2>&1 || echo "setup: cargo miri setup failed"
  fi
fi
