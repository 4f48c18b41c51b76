//! Bounded mode (`src/malloc/bounded.rs`) under the adversarial multi-threaded workload of
//! `common/adversarial.rs`: every allocation and free stays within the documented work bound
//! (counted by the `step-count` feature), no allocation fails, and after the initialisation the
//! core makes no `mmap`, `munmap` or `madvise` (counted in `src/os.rs`). Runs in its own process:
//! bounded mode is per process. Requires `--features step-count` (Cargo.toml).

#[path = "common/adversarial.rs"]
mod adversarial;

use shardsweep::bounds::{ALLOC_STEP_BOUND, FREE_STEP_BOUND};
use shardsweep::malloc::bounded::LARGE_STEP_BOUND;
use shardsweep::{os_calls, BoundedSettings, Standalone};

#[test]
fn every_operation_is_bounded_and_no_system_call_follows_init() {
    let before_init = os_calls();
    Standalone::init_bounded(BoundedSettings::mib(256, 16)).expect("bounded init");
    assert!(Standalone::is_bounded());
    assert_eq!(
        Standalone::init_bounded(BoundedSettings::mib(1, 1)),
        Err("shardsweep: bounded mode is already on")
    );
    let after_init = os_calls();
    assert!(
        after_init.mmap > before_init.mmap,
        "the initialisation maps its pools"
    );

    let seen = adversarial::run();
    let after = os_calls();
    eprintln!(
        "bounded: {} allocations ({} slow), {} frees, {} large operations; max work units: \
         allocation {} (bound {ALLOC_STEP_BOUND}), free {} (bound {FREE_STEP_BOUND}), large {} \
         (bound {LARGE_STEP_BOUND}); max CAS retries per operation {}; system calls after init: \
         {:?} (yields come from thread exits only)",
        seen.allocs,
        seen.slow_allocs,
        seen.frees,
        seen.large_ops,
        seen.max_alloc_steps,
        seen.max_free_steps,
        seen.max_large_steps,
        seen.max_retries,
        shardsweep::OsCalls {
            mmap: after.mmap - after_init.mmap,
            munmap: after.munmap - after_init.munmap,
            madvise: after.madvise - after_init.madvise,
            yields: after.yields - after_init.yields,
        }
    );
    let [collect, drain, search, adopt] = shardsweep::steps::limited_counts();
    eprintln!(
        "bounded steps that stopped at their limit: collect {collect}, drain {drain}, search \
         {search}, adopt {adopt}"
    );
    assert_eq!(
        seen.nulls, 0,
        "an allocation failed within the declared memory"
    );
    // The workload reaches the limits of the bounded steps it drives (the search and adoption
    // limits are driven deterministically by tests/bounded_search.rs).
    assert!(
        collect > 0 && drain > 0,
        "the workload does not reach MAX_COLLECT / MAX_DRAIN"
    );
    assert!(
        seen.slow_allocs > 1000,
        "the workload must exercise the slow path"
    );
    assert!(seen.max_alloc_steps <= ALLOC_STEP_BOUND as u64);
    assert!(seen.max_free_steps <= FREE_STEP_BOUND as u64);
    assert!(seen.max_large_steps <= LARGE_STEP_BOUND as u64);
    assert_eq!(
        (after.mmap, after.munmap, after.madvise),
        (after_init.mmap, after_init.munmap, after_init.madvise),
        "a system call after the bounded initialisation"
    );
}
