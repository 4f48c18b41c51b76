//! The debug step counter (cargo feature `step-count`): every allocation and free adds the work
//! units it does to a per-thread count, so that a test can check the bounded mode's
//! per-operation bound ([`crate::bounds::ALLOC_STEP_BOUND`], [`crate::bounds::FREE_STEP_BOUND`])
//! over an adversarial workload instead of trusting the argument in a comment.
//!
//! A *work unit* is one of: a slow-path entry, a block examined (queue search, adoption), a
//! list link walked (collecting remote frees, draining delayed frees), a cell linked by an
//! extension, a page tested for extension, a direct-table slot written, a block taken from or
//! given back to the block source. Failed compare-exchanges are counted apart ([`retries`]):
//! they depend on the other threads (lock-free, not wait-free; see `bounded.rs`).
//!
//! Without the feature `add` and `retry` are empty `#[inline(always)]` functions: zero cost.

#[cfg(feature = "step-count")]
use std::cell::Cell as StdCell;

#[cfg(feature = "step-count")]
thread_local! {
    // No destructor: reading them never registers anything, so the allocator may use them.
    static STEPS: StdCell<u64> = const { StdCell::new(0) };
    static RETRIES: StdCell<u64> = const { StdCell::new(0) };
}

/// Which bounded step stopped at its limit (work left for a later operation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// A collect left remote frees on `pending` (`MAX_COLLECT`).
    Collect = 0,
    /// A drain left delayed frees on `delayed_rest` (`MAX_DRAIN`).
    Drain = 1,
    /// A queue search stopped after `MAX_SEARCH` blocks.
    Search = 2,
    /// An adoption stopped after `MAX_ADOPT` blocks.
    Adopt = 3,
}

#[cfg(feature = "step-count")]
static XLIMITED: [crate::sync::AtomicUsize; 4] = [const { crate::sync::AtomicUsize::new(0) }; 4];

/// Counts a bounded step that stopped at its limit (process-wide).
#[inline(always)]
// Under loom only the thread-free protocol is compiled, which counts retries alone.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) fn limited(which: Limit) {
    #[cfg(feature = "step-count")]
    // Relaxed: a statistic.
    XLIMITED[which as usize].fetch_add(1, crate::sync::Ordering::Relaxed);
    #[cfg(not(feature = "step-count"))]
    let _ = which;
}

#[cfg(feature = "step-count")]
static XEXTENSIONS: crate::sync::AtomicUsize = crate::sync::AtomicUsize::new(0);

/// Counts one page extension of a block (process-wide).
#[inline(always)]
#[cfg_attr(loom, allow(dead_code))]
pub(crate) fn extension() {
    #[cfg(feature = "step-count")]
    // Relaxed: a statistic.
    XEXTENSIONS.fetch_add(1, crate::sync::Ordering::Relaxed);
}

/// Page extensions so far, process-wide (0 without the feature): with a covering profile,
/// bounded mode extends no block after its initialisation.
pub fn extensions() -> usize {
    #[cfg(feature = "step-count")]
    {
        // Relaxed: a statistic, read after the threads that counted were joined.
        XEXTENSIONS.load(crate::sync::Ordering::Relaxed)
    }
    #[cfg(not(feature = "step-count"))]
    0
}

/// How often each bounded step stopped at its limit, process-wide (all 0 without the feature):
/// a workload that never reaches a limit does not test it.
pub fn limited_counts() -> [usize; 4] {
    #[cfg(feature = "step-count")]
    {
        // Relaxed: statistics, read after the threads that counted were joined.
        std::array::from_fn(|i| XLIMITED[i].load(crate::sync::Ordering::Relaxed))
    }
    #[cfg(not(feature = "step-count"))]
    [0; 4]
}

/// Whether the counter is compiled in.
pub const ENABLED: bool = cfg!(feature = "step-count");

/// Adds `n` work units to this thread's count.
#[inline(always)]
// Under loom only the thread-free protocol is compiled, which counts retries alone.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) fn add(n: usize) {
    #[cfg(feature = "step-count")]
    {
        let _ = STEPS.try_with(|s| s.set(s.get() + n as u64));
    }
    #[cfg(not(feature = "step-count"))]
    let _ = n;
}

/// Counts one failed compare-exchange (a retry caused by another thread).
#[inline(always)]
pub(crate) fn retry() {
    #[cfg(feature = "step-count")]
    {
        let _ = RETRIES.try_with(|s| s.set(s.get() + 1));
    }
}

/// This thread's work units since the last call, and resets them (0 without the feature).
pub fn take() -> u64 {
    #[cfg(feature = "step-count")]
    {
        STEPS.try_with(|s| s.replace(0)).unwrap_or(0)
    }
    #[cfg(not(feature = "step-count"))]
    0
}

/// This thread's failed compare-exchanges since the last call, and resets them.
pub fn retries() -> u64 {
    #[cfg(feature = "step-count")]
    {
        RETRIES.try_with(|s| s.replace(0)).unwrap_or(0)
    }
    #[cfg(not(feature = "step-count"))]
    0
}
