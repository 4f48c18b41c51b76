#!/usr/bin/env bash
# Tests of the VM-agnostic core (src/): unit, model-based, stress and GlobalAlloc tests in
# release and debug (debug assertions check the block invariants), the bounded (real-time)
# mode's step-bound and system-call tests (feature step-count), the size-class tests for
# other block sizes, the build failure on an invalid block size, the C ABI under real
# programs (LD_PRELOAD: scripts/test-capi.sh), loom, and miri when the toolchain has it (set
# SHARDSWEEP_MIRI=0 to skip, =1 to require).
#
#   scripts/test-core.sh          # one test per concern: blocks of 4 and 32 KiB besides the
#                                 # default 64, miri over one short sequence of the page- and
#                                 # block-accounting models
#   scripts/test-core.sh --full   # + blocks of 8, 16, 128 and 256 KiB, every test at 32 KiB,
#                                 # miri over two longer sequences of each model test and the
#                                 # unit tests
# Each step's wall time is printed after it.
set -euo pipefail
cd "$(dirname "$0")/.."
FULL=0
for a in "$@"; do
  case "$a" in
    --full) FULL=1 ;;
    *) echo "usage: $0 [--full] (unknown option: $a)" >&2; exit 2 ;;
  esac
done
T=.build/target-core
STEP="" T_STEP=$SECONDS
step() { # step TITLE: closes the previous step (its wall time), opens this one
  [ -n "$STEP" ] && printf '   (%ds: %s)\n' $((SECONDS - T_STEP)) "$STEP"
  STEP="$*" T_STEP=$SECONDS
  [ -n "$STEP" ] && printf '\n== %s\n' "$*"
  return 0
}

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

# 32 KiB in the default tier: its largest cell is the 8 KiB floor (config.rs), not an eighth,
# and `scripts/jvm.sh build` ships it (ss32k): the lease tests run there too, and with --full
# every core test. (The other integration tests' fixtures are sized for 64 KiB blocks.)
if [ $FULL = 1 ]; then KIBS="4 8 16 32 128 256"; else KIBS="4 32"; fi
for kib in $KIBS; do
  tests=(--lib --test model --test mark_bitmap) what="lib + model + mark bitmap"
  if [ "$kib" = 32 ] && [ $FULL = 1 ]; then
    tests=() what="every test"
  elif [ "$kib" = 32 ]; then
    tests+=(--test lease --test lease_heads --test lease_headroom) what="$what + leases"
  fi
  step "core: block size ${kib} KiB ($what)"
  SHARDSWEEP_BLOCK_KIB=$kib cargo test --release --target-dir "$T-$kib" "${tests[@]}"
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
    # Leaks are by design: block memory stays mapped for the life of its source (a lock-free
    # popper may still read a popped block's link), and the fixtures leak their `Shared`.
    if [ $FULL = 1 ]; then
      step "core: miri (unit tests and the model tests' short sequences)"
      MIRIFLAGS="-Zmiri-disable-isolation -Zmiri-permissive-provenance -Zmiri-ignore-leaks" \
        cargo +nightly miri test --target-dir "$T-miri" --lib --test model
    else
      # Page and whole-block accounting: every list, page charge, sweep and lazy-sweep path;
      # the reuse orders and the deferred spill (the same paths, another order) in --full.
      step "core: miri (one short sequence of the page- and block-accounting models)"
      SHARDSWEEP_MIRI_MODEL=short MIRIFLAGS="-Zmiri-disable-isolation -Zmiri-permissive-provenance -Zmiri-ignore-leaks" \
        cargo +nightly miri test --target-dir "$T-miri" --test model -- --exact page_accounting_model block_accounting_model
    fi
  elif [ "${SHARDSWEEP_MIRI:-auto}" = 1 ]; then
    echo "FAILED: miri requested but not available"; exit 1
  else
    echo "miri not available (scripts/setup.sh --test installs it on a nightly toolchain): skipped (SHARDSWEEP_MIRI=1 makes it required)"
  fi
fi
step ""
