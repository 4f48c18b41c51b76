//! The standalone allocator's block source: one lazily reserved, block-aligned range of address
//! space, handed out by bumping, with given-back blocks on lock-free stacks (dropped ones, and
//! empty ones kept resident for the purge delay, `purge_delay.rs`). In bounded mode its declared
//! prefix is pre-faulted and nothing is purged.

use super::purge_delay::{now_ms, purge_delay_ms, RetiredBlocks};
use crate::block::Block;
use crate::block_stack::BlockStack;
use crate::budget::PageBudget;
use crate::config::BLOCK_BYTES;
use crate::os::{map_aligned, prefault, BlockSource, OsMemory};
use crate::sync::{AtomicUsize, Ordering};
use std::ptr::NonNull;

/// `xbase` while the first caller is reserving the arena.
const RESERVING: usize = 1;
/// `xbase` once the reservation failed (no address space, even for 1 GiB): the arena hands out
/// no block, and allocations that need one return null. A real base is block-aligned.
const UNRESERVABLE: usize = 2;

/// Address space reserved for blocks (not committed: pages are touched on demand).
pub const ARENA_BYTES: usize = 64 << 30;

/// A block source over one lazily reserved, block-aligned range: fresh blocks by bumping, given
/// back blocks on a lock-free stack. Its memory stays mapped for the life of the process.
pub struct ArenaSource {
    xbase: AtomicUsize,
    xbump: AtomicUsize,
    bytes: usize,
    /// Bytes actually reserved (set once, with the base).
    xreserved: AtomicUsize,
    /// Bytes of the reservation the bump may hand out: the reservation, or in bounded mode the
    /// declared (pre-faulted) prefix.
    xlimit: AtomicUsize,
    /// 1 in bounded mode: kept blocks are never purged (no `madvise` after initialisation).
    xbounded: AtomicUsize,
    /// Blocks whose pages were dropped.
    released: BlockStack,
    /// Empty blocks kept resident until reused or purged (`purge_delay.rs`), when the arena
    /// keeps them: the budget and OS interface their pages are dropped with.
    retired: RetiredBlocks,
    keeper: Option<(&'static dyn PageBudget, &'static dyn OsMemory)>,
}

impl ArenaSource {
    /// An arena of `bytes` (reserved on first use) that takes back dropped blocks only.
    pub const fn new(bytes: usize) -> ArenaSource {
        ArenaSource {
            xbase: AtomicUsize::new(0),
            xbump: AtomicUsize::new(0),
            bytes,
            xreserved: AtomicUsize::new(0),
            xlimit: AtomicUsize::new(usize::MAX),
            xbounded: AtomicUsize::new(0),
            released: BlockStack::new(),
            retired: RetiredBlocks::new(),
            keeper: None,
        }
    }

    /// An arena that also keeps empty blocks resident (their pages counted by `budget`) for
    /// `SHARDSWEEP_PURGE_DELAY_MS` before dropping them with `os` (`purge_delay.rs`).
    pub const fn keeping(
        bytes: usize,
        budget: &'static dyn PageBudget,
        os: &'static dyn OsMemory,
    ) -> ArenaSource {
        let mut a = ArenaSource::new(bytes);
        a.keeper = Some((budget, os));
        a
    }

    /// Empty blocks kept resident now (a hint under concurrency).
    pub fn kept_blocks(&self) -> usize {
        self.retired.kept()
    }

    /// Drops the kept blocks that have waited out the delay (called on the slow path that takes
    /// a block). Work: a clock read, and after each delay the blocks kept.
    fn purge_if_due(&self) {
        // Relaxed: set once at the bounded initialisation, before the first allocation that
        // may see it (published with the mode, `bounded.rs`).
        if self.xbounded.load(Ordering::Relaxed) != 0 {
            return;
        }
        if let Some((budget, os)) = self.keeper {
            if self.retired.kept() == 0 {
                return;
            }
            self.retired
                .rotate_if_due(now_ms(), purge_delay_ms(), budget, os, &mut |b| {
                    // SAFETY: dropped (its header reads as zero now) and ours alone.
                    unsafe { self.released.push(b) }
                });
        }
    }

    fn base(&self) -> usize {
        // Acquire: pairs with the Release store that published the mapping and its size.
        let b = self.xbase.load(Ordering::Acquire);
        if b > UNRESERVABLE {
            return b;
        }
        self.reserve()
    }

    /// One-shot reservation: the first caller claims it (base = RESERVING), maps, stores the
    /// size, then publishes the base; others wait for the base. 0 if there is no address space
    /// for it (then the arena stays empty: its size is 0).
    #[cold]
    fn reserve(&self) -> usize {
        // Acquire on failure: if someone else published, we read their base and size.
        if self
            .xbase
            .compare_exchange(0, RESERVING, Ordering::Relaxed, Ordering::Acquire)
            .is_ok()
        {
            // Reserve the configured size, halving on failure down to 1 GiB: constrained address
            // spaces (valgrind, ulimit -v) refuse very large reservations.
            let mut bytes = self.bytes;
            let mut p = map_aligned(bytes, BLOCK_BYTES) as usize;
            while p == 0 && bytes > 1 << 30 {
                bytes /= 2;
                p = map_aligned(bytes, BLOCK_BYTES) as usize;
            }
            if p == 0 {
                // Release: pairs with the waiters' Acquire (nothing else to publish).
                self.xbase.store(UNRESERVABLE, Ordering::Release);
                return 0;
            }
            // Relaxed: published by the Release store of the base just below.
            self.xreserved.store(bytes, Ordering::Relaxed);
            // Release: the size (and the mapping) happen-before any Acquire load of the base.
            self.xbase.store(p, Ordering::Release);
            return p;
        }
        let backoff = crossbeam_utils::Backoff::new();
        loop {
            // Acquire: as in `base`.
            let b = self.xbase.load(Ordering::Acquire);
            if b > UNRESERVABLE {
                return b;
            }
            if b == UNRESERVABLE {
                return 0;
            }
            backoff.snooze();
        }
    }

    /// Bounded mode: limits the blocks handed out from now on to `bytes` more (rounded up to
    /// whole blocks, and to the reservation), pre-faults every page up to that limit (blocks
    /// handed out before included, without changing their contents), and stops purging kept
    /// blocks. Returns the limit (bytes from the arena's base). At initialisation only.
    pub fn make_bounded(&self, bytes: usize) -> usize {
        let base = self.base();
        // Relaxed: `base()` acquired the reservation and its size.
        let reserved = self.xreserved.load(Ordering::Relaxed);
        let bump = self.xbump.load(Ordering::Relaxed).min(reserved);
        let limit = (bump + bytes.div_ceil(BLOCK_BYTES) * BLOCK_BYTES).min(reserved);
        if base != 0 {
            // SAFETY: `base .. base + limit` is part of our reservation; MADV_POPULATE_WRITE
            // keeps the contents of blocks in use (the touching fallback writes each byte back
            // as read).
            unsafe {
                crate::os::advise_huge(base as *mut u8, limit);
                prefault(base as *mut u8, limit)
            };
        }
        // Relaxed: published with the bounded mode (`bounded::finish`, Release).
        self.xlimit.store(limit, Ordering::Relaxed);
        self.xbounded.store(1, Ordering::Relaxed);
        limit
    }

    /// Blocks the arena may still hand out fresh (up to its limit), a hint.
    pub fn fresh_blocks_left(&self) -> usize {
        // Relaxed: statistics.
        let limit = self
            .xlimit
            .load(Ordering::Relaxed)
            .min(self.xreserved.load(Ordering::Relaxed));
        limit.saturating_sub(self.xbump.load(Ordering::Relaxed)) / BLOCK_BYTES
    }

    /// Whether `p` lies in the arena.
    pub fn contains(&self, p: *const u8) -> bool {
        // Acquire: pairs with the Release store of the base, after which the size is visible.
        let b = self.xbase.load(Ordering::Acquire);
        b > UNRESERVABLE && (p as usize).wrapping_sub(b) < self.xreserved.load(Ordering::Relaxed)
    }
}

// SAFETY: blocks are disjoint, block-aligned slices of one mapping that is never unmapped.
unsafe impl BlockSource for ArenaSource {
    fn acquire_resident_block(&self) -> Option<NonNull<u8>> {
        crate::steps::add(1);
        self.purge_if_due();
        self.retired.take().and_then(|b| NonNull::new(b as *mut u8))
    }
    fn acquire_block(&self, _thread: usize) -> Option<(NonNull<u8>, bool)> {
        crate::steps::add(1);
        if let Some(b) = self.released.pop() {
            // Its header page holds the stack link: not all zero.
            return NonNull::new(b as *mut u8).map(|p| (p, false));
        }
        let base = self.base();
        // Relaxed: the bump only hands out disjoint offsets; the mapping was acquired above.
        let off = self.xbump.fetch_add(BLOCK_BYTES, Ordering::Relaxed);
        // Relaxed: `base()` acquired the base, which was published after the size; the limit
        // was published with the bounded mode.
        if off + BLOCK_BYTES > self.xreserved.load(Ordering::Relaxed)
            || off + BLOCK_BYTES > self.xlimit.load(Ordering::Relaxed)
        {
            return None;
        }
        NonNull::new((base + off) as *mut u8).map(|p| (p, true))
    }
    unsafe fn release_block(&self, block: NonNull<u8>) {
        let b = block.as_ptr() as *mut Block;
        // SAFETY: the block came from this arena, retired (pages kept) or dropped; the stack
        // link is its own header word (`xstack_next`), apart from the retired fields.
        unsafe {
            if self.keeper.is_some() && !Block::retired_resident(b).is_empty() {
                self.retired.keep(b);
                self.purge_if_due();
            } else {
                self.released.push(b);
            }
        }
    }
}
