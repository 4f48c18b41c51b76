//! The atomics every concurrent protocol of the core goes through, so that `loom` can
//! model-check them (`RUSTFLAGS="--cfg loom" cargo test --release --test loom`), as crossbeam
//! routes its atomics through a `primitive` shim.

// Under loom only the thread-free protocol is compiled (`lib.rs`): it needs `AtomicUsize` alone.
#[cfg(loom)]
pub(crate) use loom::sync::atomic::AtomicUsize;
#[cfg(loom)]
pub(crate) use loom::thread::yield_now;

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicPtr, AtomicUsize};
/// Yields counted by [`yield_now`] (reported by `os::os_calls`). Relaxed: a statistic.
#[cfg(not(loom))]
static XYIELDS: AtomicUsize = AtomicUsize::new(0);

/// `std::thread::yield_now`, counted (`os::os_calls().yields`).
#[cfg(not(loom))]
pub(crate) fn yield_now() {
    // Relaxed: a statistic.
    XYIELDS.fetch_add(1, Ordering::Relaxed);
    std::thread::yield_now()
}

/// The yields so far (a snapshot of a Relaxed counter).
#[cfg(not(loom))]
pub(crate) fn yields() -> usize {
    XYIELDS.load(Ordering::Relaxed)
}

pub(crate) use std::sync::atomic::Ordering;
