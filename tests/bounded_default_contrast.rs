//! The contrast of `tests/bounded.rs`: the same adversarial workload in *default* mode makes
//! system calls while it runs (thread heaps and large objects mapped, heap memory unmapped,
//! emptied blocks purged with `madvise`), so the system-call assertion of `tests/bounded.rs`
//! can fail: it holds because of bounded mode. Requires `--features step-count`.

#[path = "common/adversarial.rs"]
mod adversarial;

use shardsweep::{os_calls, Standalone};

#[test]
fn default_mode_makes_system_calls_under_the_same_workload() {
    assert!(!Standalone::is_bounded());
    let before = os_calls();
    let seen = adversarial::run();
    let after = os_calls();
    eprintln!(
        "default: max work units: allocation {}, free {}, large {}; system calls during the run: \
         mmap {}, munmap {}, madvise {}, yields {}",
        seen.max_alloc_steps,
        seen.max_free_steps,
        seen.max_large_steps,
        after.mmap - before.mmap,
        after.munmap - before.munmap,
        after.madvise - before.madvise,
        after.yields - before.yields
    );
    assert_eq!(seen.nulls, 0);
    assert!(
        after.mmap + after.munmap + after.madvise > before.mmap + before.munmap + before.madvise,
        "default mode made no system call: the bounded test's check would be vacuous"
    );
}
