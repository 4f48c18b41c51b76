//! The standalone mode's purge delay (mimalloc's `purge_delay`): an empty block given back is
//! kept with its pages resident, for the next block a heap needs, and its pages are dropped from
//! the RSS (`OsMemory::drop_pages`) only once it has stayed unused for a while. Without a delay
//! every emptied block costs a `madvise` at once, and its pages fault in again when the next
//! block is taken: the cost of a program that frees and reallocates a block's worth of cells in
//! a loop (`larson`, `xmalloc-test`).
//!
//! Two generations, rotated every `delay` milliseconds by whichever thread next takes a block
//! after the delay has passed: the old generation is dropped, the young one becomes old. A kept
//! block is dropped between one and two delays after it was kept, unless a heap takes it first
//! (the youngest first: its pages are the warmest). Lock-free (two [`BlockStack`]s and a time
//! stamp); a rotation is bounded by the blocks kept, and only one thread rotates at a time.
//!
//! `SHARDSWEEP_PURGE_DELAY_MS` sets the delay: `0` drops at once (the behaviour before the
//! delay existed), default 10 as mimalloc's. It is read once, with `getenv` (no allocation: this
//! runs inside the allocator); an invalid value ends the process with one line on stderr naming
//! the valid values and exit status 2, as the space's settings do. There is no separate decay
//! setting: the generations are the decay (a block lives between one and two delays).

use crate::block::Block;
use crate::block_stack::BlockStack;
use crate::budget::PageBudget;
use crate::os::OsMemory;
use crate::sync::{AtomicUsize, Ordering};

/// Largest delay accepted (one minute).
pub const MAX_PURGE_DELAY_MS: usize = 60_000;
/// mimalloc's default `purge_delay`.
pub const DEFAULT_PURGE_DELAY_MS: usize = 10;
/// `xrotated_ms` before the first rotation time is set.
const UNSET: usize = usize::MAX;

/// Parses a delay in milliseconds: decimal digits, `0..=MAX_PURGE_DELAY_MS`.
pub fn parse_delay_ms(s: &[u8]) -> Result<usize, &'static str> {
    const WHY: &str = "valid values are 0 (drop at once) to 60000 milliseconds";
    let s = s.trim_ascii();
    if s.is_empty() || s.len() > 5 || !s.iter().all(u8::is_ascii_digit) {
        return Err(WHY);
    }
    let v = s.iter().fold(0usize, |v, d| v * 10 + (d - b'0') as usize);
    if v > MAX_PURGE_DELAY_MS {
        return Err(WHY);
    }
    Ok(v)
}

/// Milliseconds of the monotonic clock (coarse: a few ms of resolution, no system call).
pub fn now_ms() -> usize {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC_COARSE exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut ts) };
    ts.tv_sec as usize * 1000 + ts.tv_nsec as usize / 1_000_000
}

/// Empty blocks kept resident until reused or purged.
pub(crate) struct RetiredBlocks {
    young: BlockStack,
    old: BlockStack,
    /// Time (ms, [`now_ms`]) of the last rotation, or `UNSET`.
    xrotated_ms: AtomicUsize,
    /// Blocks kept, for reports and tests (not exact under concurrency: a hint).
    xkept: AtomicUsize,
}

impl RetiredBlocks {
    pub(crate) const fn new() -> RetiredBlocks {
        RetiredBlocks {
            young: BlockStack::new(),
            old: BlockStack::new(),
            xrotated_ms: AtomicUsize::new(UNSET),
            xkept: AtomicUsize::new(0),
        }
    }

    /// Keeps a retired block whose pages are still resident and counted.
    ///
    /// # Safety
    /// `block` is a retired block the caller owns and gives up.
    pub(crate) unsafe fn keep(&self, block: *mut Block) {
        // Relaxed: a statistic.
        self.xkept.fetch_add(1, Ordering::Relaxed);
        // SAFETY: per the contract.
        unsafe { self.young.push(block) };
    }

    /// A kept block for reuse, the most recently kept first.
    pub(crate) fn take(&self) -> Option<*mut Block> {
        let b = self.young.pop().or_else(|| self.old.pop())?;
        // Relaxed: a statistic.
        self.xkept.fetch_sub(1, Ordering::Relaxed);
        Some(b)
    }

    /// Blocks kept now (a hint under concurrency).
    pub(crate) fn kept(&self) -> usize {
        // Relaxed: a statistic.
        self.xkept.load(Ordering::Relaxed)
    }

    /// If `delay_ms` has passed since the last rotation: drops the old generation's pages
    /// (uncharging them from `budget`) and hands each dropped block to `dropped`, then makes the
    /// young generation old. Returns the blocks dropped. One thread rotates at a time: the one
    /// whose compare-exchange moves the time stamp; the others return 0 at once.
    pub(crate) fn rotate_if_due(
        &self,
        now: usize,
        delay_ms: usize,
        budget: &dyn PageBudget,
        os: &dyn OsMemory,
        dropped: &mut dyn FnMut(*mut Block),
    ) -> usize {
        // Relaxed: the time stamp orders nothing; the blocks are published by the stacks.
        let last = self.xrotated_ms.load(Ordering::Relaxed);
        if last == UNSET {
            // The first kept block starts the clock.
            let _ =
                self.xrotated_ms
                    .compare_exchange(UNSET, now, Ordering::Relaxed, Ordering::Relaxed);
            return 0;
        }
        if now.wrapping_sub(last) < delay_ms
            || self
                .xrotated_ms
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return 0;
        }
        let mut n = 0;
        while let Some(b) = self.old.pop() {
            // Relaxed: a statistic.
            self.xkept.fetch_sub(1, Ordering::Relaxed);
            // SAFETY: popped: the block is ours alone, retired, and its memory is mapped.
            unsafe { Block::drop_retired(b, budget, os) };
            dropped(b);
            n += 1;
        }
        while let Some(b) = self.young.pop() {
            // SAFETY: popped: ours alone until pushed again.
            unsafe { self.old.push(b) };
        }
        n
    }
}

/// The delay (ms) from `SHARDSWEEP_PURGE_DELAY_MS`, read once.
pub fn purge_delay_ms() -> usize {
    static DELAY: AtomicUsize = AtomicUsize::new(UNSET);
    // Relaxed: every thread computes the same value from the same environment.
    let d = DELAY.load(Ordering::Relaxed);
    if d != UNSET {
        return d;
    }
    // SAFETY: a NUL-terminated name; getenv does not allocate, and the returned string is
    // only read before any other environment call of ours.
    let p = unsafe { libc::getenv(c"SHARDSWEEP_PURGE_DELAY_MS".as_ptr()) };
    let d = if p.is_null() {
        DEFAULT_PURGE_DELAY_MS
    } else {
        // SAFETY: getenv returned a NUL-terminated string.
        let s = unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes();
        if s.trim_ascii().is_empty() {
            DEFAULT_PURGE_DELAY_MS
        } else {
            match parse_delay_ms(s) {
                Ok(v) => v,
                Err(why) => super::usage::invalid_setting(
                    "SHARDSWEEP_PURGE_DELAY_MS",
                    s,
                    "invalid delay",
                    why,
                ),
            }
        }
    };
    // Relaxed: see the load.
    DELAY.store(d, Ordering::Relaxed);
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_parse_as_documented() {
        assert_eq!(parse_delay_ms(b"0"), Ok(0));
        assert_eq!(parse_delay_ms(b" 10 "), Ok(10));
        assert_eq!(parse_delay_ms(b"60000"), Ok(60_000));
        for bad in [&b"60001"[..], b"-1", b"10ms", b"", b"1e3", b"999999"] {
            assert!(parse_delay_ms(bad).is_err(), "{bad:?}");
        }
    }
}
