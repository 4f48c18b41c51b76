#!/usr/bin/env bash
# Tests of the VM-agnostic core (src/): unit, model-based, stress and GlobalAlloc tests in
# release and debug (debug assertions check the block invariants), the bounded (real-time)
# mode's step-bound and system-call tests (feature step-count), the size-class tests for
# every supported block size, the build failure on an invalid block size, the C ABI under real
# programs (LD_PRELOAD: scripts/test-capi.sh), loom, and miri when
# the toolchain has it (set SHARDSWEEP_MIRI=0 to skip, =1 to require).
set -euo pipefail
cd "$(dirname "$0")/.."
T=.build/target-core
step() { printf '\n== %s\n' "$*"; }

step "core: release"
cargo test --release --target-dir "$T"
step "core: debug (invariant checks on)"
cargo test --target-dir "$T"

step "core: bounded mode (step-count feature): per-operation work bounds, no system call after init, the default-mode contrast"
# tests/bounded*.rs need the step counter (Cargo.toml's `step-count`); each runs in its own
# process (bounded mode is per process). ~2 s in release.
cargo test --release --target-dir "$T" --features step-count \
  --test bounded --test bounded_default_contrast --test bounded_search --test bounded_exhaustion \
  --test bounded_profile

for kib in 4 8 16 32 128 256; do
  step "core: block size ${kib} KiB (lib + model)"
  SHARDSWEEP_BLOCK_KIB=$kib cargo test --release --target-dir "$T-$kib" --lib --test model
done

step "core: an invalid block size fails the build, naming the valid values"
if out=$(SHARDSWEEP_BLOCK_KIB=48 cargo build --target-dir "$T-bad" 2>&1); then
  echo "FAILED: SHARDSWEEP_BLOCK_KIB=48 built"; exit 1
fi
if ! grep -q "valid values (KiB).*4, 8, 16, 32, 64, 128, 256" <<<"$out"; then
  echo "FAILED: the build error does not name the valid values:"; echo "$out" | tail -20; exit 1
fi
echo "1 passed, 0 failed"

step "core: C ABI (bindings/capi) under real programs"
scripts/test-capi.sh

step "core: loom (thread-free protocol)"
RUSTFLAGS="--cfg loom" cargo test --release --target-dir "$T-loom" --test loom

if [ "${SHARDSWEEP_MIRI:-auto}" != 0 ]; then
  # miri and rust-src are installed (and miri's sysroot built) by scripts/setup.sh --test, not
  # here: a test must not download or prompt.
  if cargo +nightly miri --version >/dev/null 2>&1 \
     && rustup +nightly component list --installed 2>/dev/null | grep -q '^rust-src'; then
    step "core: miri (single-threaded tests)"
    # Leaks are by design: block memory stays mapped for the life of its source (a lock-free
    # popper may still read a popped block's link), and the fixtures leak their `Shared`.
    MIRIFLAGS="-Zmiri-disable-isolation -Zmiri-permissive-provenance -Zmiri-ignore-leaks" \
      cargo +nightly miri test --target-dir "$T-miri" --lib --test model
  elif [ "${SHARDSWEEP_MIRI:-auto}" = 1 ]; then
    echo "FAILED: miri requested but not available"; exit 1
  else
    echo "miri not available (scripts/setup.sh --test installs it on a nightly toolchain): skipped (SHARDSWEEP_MIRI=1 makes it required)"
  fi
fi
