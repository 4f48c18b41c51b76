//! Deferred purging (`SHARDSWEEP_PURGE=gc`, the default): pages the core gives back are
//! uncharged at once (the GC trigger and MMTk's used pages see them go immediately), but handed
//! to the OS (`madvise` with `SHARDSWEEP_ADVICE`) only at the next GC's prepare phase, and only
//! if they are still unused then. Pages that the mutators reuse in between (most of them, in a
//! steady state) cost neither a system call nor a page fault plus kernel zeroing; the core
//! zeroes them itself when it re-lists their cells (they are reported as not zero). mimalloc
//! does the same with its `purge_delay`. `SHARDSWEEP_PURGE=now` madvises at every release.
//!
//! Decay (`SHARDSWEEP_DECAY`, GCs; with `SHARDSWEEP_ADVICE=free`, the default): a page given to
//! the OS with MADV_FREE stays in the RSS until the kernel needs memory. jemalloc's
//! dirty → muzzy → clean decay bounds that: a page still unused `decay` GCs after its MADV_FREE
//! is given back again with MADV_DONTNEED, which drops it from the RSS at once. Reuse within the
//! decay window costs nothing; reuse after it costs a fault and kernel zeroing, as with
//! `dontneed`. `0` keeps MADV_FREE pages until the kernel reclaims them.

use shardsweep::{Advice, Block, Madvise, OsMemory, BLOCK_BYTES, PAGE_BYTES};
use std::sync::Mutex;

/// The core's OS interface with a purge queue.
pub(super) struct DeferredPurge {
    os: Madvise,
    /// Ranges given back since the last purge: (address, bytes).
    pending: Mutex<Vec<(usize, usize)>>,
    /// Decay: GCs after which a page still unused since its MADV_FREE gets MADV_DONTNEED (0: off).
    decay: usize,
    /// Purges done (the clock of the decay).
    purges: Mutex<usize>,
    /// Ranges purged with MADV_FREE: (address, bytes, purge number), oldest first.
    lazy: Mutex<std::collections::VecDeque<(usize, usize, usize)>>,
}

impl DeferredPurge {
    pub(super) fn new(os: Madvise, decay: usize) -> DeferredPurge {
        let decay = if os.advice == Advice::Free { decay } else { 0 };
        DeferredPurge {
            os,
            pending: Mutex::new(Vec::new()),
            decay,
            purges: Mutex::new(0),
            lazy: Mutex::new(std::collections::VecDeque::new()),
        }
    }

    /// Gives the still-unused pages of the range `[addr, addr + len)` to `os`; returns how many.
    /// A page is unused if its block's header is dead (the block is back in the page resource or
    /// a spare) or if the live header does not charge it.
    ///
    /// # Safety
    /// Stop-the-world (mutators stopped, no GC packet allocating or sweeping); the range lies in
    /// one block of the space.
    unsafe fn release_unused(os: &Madvise, addr: usize, len: usize) -> usize {
        let block = Block::of(addr as *const u8);
        // SAFETY: block memory stays mapped for the life of the space; mutators are stopped.
        let header = unsafe { &*block };
        if !header.is_live_header() {
            // A free block: nothing lives in it. (Its header page may be in the range: the
            // whole block was retired.)
            // SAFETY: no live data in a free block.
            unsafe { os.release_pages(addr as *mut u8, len) };
            return len / PAGE_BYTES;
        }
        let charged = header.charged();
        let first = (addr - block as usize) / PAGE_BYTES;
        let n = len / PAGE_BYTES;
        debug_assert!(addr - block as usize + len <= BLOCK_BYTES);
        let mut released = 0;
        let mut p = first;
        while p < first + n {
            if charged.contains(p) {
                p += 1;
                continue;
            }
            let start = p;
            while p < first + n && !charged.contains(p) {
                p += 1;
            }
            // SAFETY: uncharged pages of a live block hold no cell in use (the core charges a
            // page before it lists a cell overlapping it) and no header (page 0 is charged while
            // the header is live).
            unsafe { os.release_pages((block as usize + start * PAGE_BYTES) as *mut u8, (p - start) * PAGE_BYTES) };
            released += p - start;
        }
        released
    }

    /// Madvises every pending page that is still unused (stop-the-world: mutators are stopped,
    /// and no GC worker allocates or sweeps during the prepare phase's packet that calls this),
    /// and, with decay, gives MADV_DONTNEED to the pages still unused `decay` purges after their
    /// MADV_FREE. Returns the pages given to the OS (both kinds).
    pub(super) fn purge(&self) -> usize {
        let now = {
            let mut n = self.purges.lock().unwrap();
            *n += 1;
            *n
        };
        let mut purged = 0;
        if self.decay > 0 {
            let dontneed = Madvise { advice: Advice::DontNeed };
            let mut lazy = self.lazy.lock().unwrap();
            while let Some(&(addr, len, at)) = lazy.front() {
                if now - at < self.decay {
                    break;
                }
                lazy.pop_front();
                // SAFETY: stop-the-world (see above); the range was given back inside one block.
                purged += unsafe { Self::release_unused(&dontneed, addr, len) };
            }
        }
        let pending = std::mem::take(&mut *self.pending.lock().unwrap());
        for &(addr, len) in pending.iter() {
            // SAFETY: stop-the-world (see above); the core gives back ranges inside one block.
            purged += unsafe { Self::release_unused(&self.os, addr, len) };
        }
        if self.decay > 0 {
            // Pages of these ranges that were reused are skipped again at decay time.
            self.lazy.lock().unwrap().extend(pending.into_iter().map(|(a, l)| (a, l, now)));
        }
        purged
    }
}

impl OsMemory for DeferredPurge {
    unsafe fn release_pages(&self, addr: *mut u8, len: usize) {
        self.pending.lock().unwrap().push((addr as usize, len));
    }

    fn released_pages_are_zero(&self) -> bool {
        // Not until purged (and a reused page never is).
        false
    }
}
