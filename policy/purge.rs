//! Deferred purging (`SHARDSWEEP_PURGE=gc`, the default): pages the core gives back are
//! uncharged at once (the GC trigger and MMTk's used pages see them go immediately), but handed
//! to the OS (`madvise` with `SHARDSWEEP_ADVICE`) only at the next GC's prepare phase, and only
//! if they are still unused then. Pages that the mutators reuse in between (most of them, in a
//! steady state) cost neither a system call nor a page fault plus kernel zeroing; the core
//! zeroes them itself when it re-lists their cells (they are reported as not zero). mimalloc
//! does the same with its `purge_delay`. `SHARDSWEEP_PURGE=now` madvises at every release.

use shardsweep::{Block, Madvise, OsMemory, BLOCK_BYTES, PAGE_BYTES};
use std::sync::Mutex;

/// The core's OS interface with a purge queue.
pub(super) struct DeferredPurge {
    os: Madvise,
    /// Ranges given back since the last purge: (address, bytes).
    pending: Mutex<Vec<(usize, usize)>>,
}

impl DeferredPurge {
    pub(super) fn new(os: Madvise) -> DeferredPurge {
        DeferredPurge { os, pending: Mutex::new(Vec::new()) }
    }

    /// Madvises every pending page that is still unused (stop-the-world: mutators are stopped,
    /// and no GC worker allocates or sweeps during the prepare phase's packet that calls this).
    /// A page is unused if its block's header is dead (the block is back in the page resource or
    /// a spare) or if the live header does not charge it. Returns the pages given to the OS.
    pub(super) fn purge(&self) -> usize {
        let pending = std::mem::take(&mut *self.pending.lock().unwrap());
        let mut purged = 0;
        for (addr, len) in pending {
            let block = Block::of(addr as *const u8);
            // SAFETY: block memory stays mapped for the life of the space; mutators are stopped.
            let header = unsafe { &*block };
            if !header.is_live_header() {
                // A free block: nothing lives in it. (Its header page may be in the range: the
                // whole block was retired.)
                // SAFETY: no live data in a free block.
                unsafe { self.os.release_pages(addr as *mut u8, len) };
                purged += len / PAGE_BYTES;
                continue;
            }
            let charged = header.charged();
            let first = (addr - block as usize) / PAGE_BYTES;
            let n = len / PAGE_BYTES;
            debug_assert!(addr - block as usize + len <= BLOCK_BYTES);
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
                // SAFETY: uncharged pages of a live block hold no cell in use (the core charges
                // a page before it lists a cell overlapping it) and no header (page 0 is charged
                // while the header is live).
                unsafe { self.os.release_pages((block as usize + start * PAGE_BYTES) as *mut u8, (p - start) * PAGE_BYTES) };
                purged += p - start;
            }
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
