//! Purging: when pages the core gives back leave the RSS, and so the heap count.
//!
//! The space reports to MMTk every page that may be resident (`reserved_pages`): pages in use
//! plus *idle* pages, which a sweep uncharged but nobody has dropped from memory yet, less up to
//! a margin of idle ones (`SHARDSWEEP_IDLE_MARGIN` percent of the heap, or
//! `SHARDSWEEP_IDLE_MARGIN_ROOM` percent of the room the last GC left free if more). So the
//! heap limit plus the margin bounds the resident memory of the space, not only the pages in
//! use. Idle pages are worth keeping for a while: a mutator that lists cells on an idle page
//! (the core's slow path takes idle pages before fresh ones) pays neither a page fault nor
//! kernel zeroing.
//!
//! `SHARDSWEEP_PURGE` decides how long they are kept:
//! * `gc` (default): until the next GC's prepare phase; those still idle then are purged (with
//!   an idle margin, `SHARDSWEEP_IDLE_MARGIN`, only as many as lie beyond it: the rest stay
//!   queued). Empty blocks are kept, retired, for the slow path's reuse until then too.
//! * `pressure`: until the heap would be full (see `glue.rs`: before the GC trigger is polled,
//!   the idle pages of abandoned blocks and of kept empty blocks are dropped), and otherwise for
//!   ever. The most reuse; the RSS sits at the heap limit.
//! * `now`: at the sweep (`madvise` at once; empty blocks dropped at once).
//!
//! Purging a page applies `SHARDSWEEP_ADVICE`: `dontneed` (default) drops it (the count falls);
//! `free` gives it MADV_FREE (the kernel takes it only under memory pressure, so it is still
//! counted, until `SHARDSWEEP_DECAY` GCs later it gets MADV_DONTNEED, or the budget presses);
//! `keep` leaves it resident and counted. Whatever the advice, dropping a page for the budget's
//! sake (pressure) or an empty block uses MADV_DONTNEED.

use shardsweep::{Advice, Block, DropBatch, Madvise, OsMemory, PageBudget, PageMask, PAGE_BYTES};
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// The purge policy (`SHARDSWEEP_PURGE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purge {
    /// At the sweep.
    Now,
    /// At the next GC's prepare phase (default).
    Gc,
    /// Only when the budget needs room.
    Pressure,
}

impl Purge {
    /// Parses `now`, `gc` or `pressure`.
    pub fn parse(s: &str) -> Result<Purge, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "now" => Ok(Purge::Now),
            "gc" => Ok(Purge::Gc),
            "pressure" => Ok(Purge::Pressure),
            other => Err(format!("invalid purge mode {other:?}: valid values are gc, now, pressure")),
        }
    }
}

/// The core's OS interface with a purge queue.
pub(super) struct DeferredPurge {
    os: Madvise,
    policy: Purge,
    /// Pages given back since the last purge, per block.
    pending: Mutex<HashMap<usize, PageMask>>,
    /// Decay: GCs after which a page still idle since its MADV_FREE gets MADV_DONTNEED (0: off).
    decay: usize,
    /// Purges done (the clock of the decay).
    purges: Mutex<usize>,
    /// Pages purged with MADV_FREE: (block, pages, purge number), oldest first.
    lazy: Mutex<VecDeque<(usize, PageMask, usize)>>,
}

impl DeferredPurge {
    pub(super) fn new(os: Madvise, policy: Purge, decay: usize) -> DeferredPurge {
        let decay = if os.advice == Advice::Free { decay } else { 0 };
        DeferredPurge {
            os,
            policy,
            pending: Mutex::new(HashMap::new()),
            decay,
            purges: Mutex::new(0),
            lazy: Mutex::new(VecDeque::new()),
        }
    }

    /// Forgets the pages of `block` given back so far: the space drops the block (a kept empty
    /// block), after which its header page is not resident and must not be read.
    pub(super) fn forget(&self, block: usize) {
        self.pending.lock().unwrap().remove(&block);
        if self.decay > 0 {
            self.lazy.lock().unwrap().retain(|&(b, _, _)| b != block);
        }
    }

    /// The idle pages among `pages` of `block`, if its block is live.
    ///
    /// # Safety
    /// Stop-the-world; `block` is a block of the space with pages given back and not forgotten
    /// since (so its header page is resident: a given-back page belongs to a block that was live
    /// then, and the block's header has not been dropped since).
    unsafe fn idle_in(block: usize, pages: PageMask) -> Option<(*mut Block, PageMask)> {
        let block = block as *mut Block;
        // SAFETY: block memory stays mapped for the life of the space; mutators are stopped.
        let header = unsafe { &*block };
        if !header.is_live_header() {
            // Retired since: the space's kept empty blocks are purged on their own.
            return None;
        }
        Some((block, header.idle().intersect(pages)))
    }

    /// Purges every pending page that is still idle (stop-the-world: mutators are stopped, and
    /// no GC worker allocates or sweeps during the prepare phase's packet that calls this):
    /// dropped with `dontneed` (uncharged from `budget`), MADV_FREE'd with `free`, left with
    /// `keep`; with decay, drops the pages still idle `decay` purges after their MADV_FREE.
    /// Returns the pages dropped from the count. The ranges go to the OS together at the end
    /// (`DropBatch`: one `process_madvise` per 1024 ranges where the kernel allows it, instead
    /// of a `madvise`, and its TLB shootdown, per run of idle pages); until then nothing reads
    /// or reuses them (the world is stopped).
    /// `limit`: at most about that many pages are dropped (block by block; `usize::MAX`: all),
    /// the others stay queued for the next purge.
    pub(super) fn purge(&self, budget: &dyn PageBudget, limit: usize) -> usize {
        let batch = DropBatch::new(self.os.advice);
        let dropped = self.purge_into(budget, &batch, limit);
        batch.flush();
        dropped
    }

    fn purge_into(&self, budget: &dyn PageBudget, batch: &DropBatch, limit: usize) -> usize {
        let now = {
            let mut n = self.purges.lock().unwrap();
            *n += 1;
            *n
        };
        let mut dropped = 0;
        if self.decay > 0 {
            let mut lazy = self.lazy.lock().unwrap();
            while let Some(&(block, pages, at)) = lazy.front() {
                if now - at < self.decay {
                    break;
                }
                lazy.pop_front();
                // SAFETY: stop-the-world (see above); not forgotten since.
                if let Some((block, idle)) = unsafe { Self::idle_in(block, pages) } {
                    // SAFETY: stop-the-world: we hold every block exclusively.
                    dropped += unsafe { (*block).drop_idle_in(idle, budget, batch) };
                }
            }
        }
        if self.policy == Purge::Pressure {
            self.pending.lock().unwrap().clear();
            return dropped;
        }
        let mut pending = std::mem::take(&mut *self.pending.lock().unwrap());
        if limit < usize::MAX {
            // Only part goes, block by block; the rest stays queued (a block reused since is
            // skipped then, as now).
            let (mut now, mut later) = (HashMap::new(), HashMap::new());
            let mut planned = 0;
            for (block, pages) in pending.drain() {
                if planned >= limit {
                    later.insert(block, pages);
                    continue;
                }
                // SAFETY: stop-the-world (see above); not forgotten since.
                if let Some((_, idle)) = unsafe { Self::idle_in(block, pages) } {
                    planned += idle.count();
                }
                now.insert(block, pages);
            }
            self.pending.lock().unwrap().extend(later);
            pending = now;
        }
        for (&block, &pages) in pending.iter() {
            // SAFETY: stop-the-world (see above); not forgotten since.
            let Some((block, idle)) = (unsafe { Self::idle_in(block, pages) }) else { continue };
            match self.os.advice {
                // SAFETY: stop-the-world: we hold every block exclusively.
                Advice::DontNeed => dropped += unsafe { (*block).drop_idle_in(idle, budget, batch) },
                Advice::Free => {
                    for (first, n) in idle.runs() {
                        // SAFETY: idle pages hold no cell in use and not the header.
                        unsafe { batch.release_pages((block as usize + first * PAGE_BYTES) as *mut u8, n * PAGE_BYTES) };
                    }
                }
                Advice::Keep => {}
            }
        }
        if self.decay > 0 {
            // Pages of these ranges that were reused are skipped again at decay time.
            self.lazy.lock().unwrap().extend(pending.into_iter().map(|(b, p)| (b, p, now)));
        }
        dropped
    }
}

impl OsMemory for DeferredPurge {
    unsafe fn release_pages(&self, addr: *mut u8, len: usize) {
        if self.policy == Purge::Now {
            // SAFETY: per the contract.
            unsafe { self.os.release_pages(addr, len) };
        } else {
            let block = Block::of(addr) as usize;
            let off = addr as usize - block;
            let mut pending = self.pending.lock().unwrap();
            let pages = pending.entry(block).or_insert(PageMask::EMPTY);
            *pages = pages.union(PageMask::of_range(off, off + len));
        }
    }

    fn released_pages_are_zero(&self) -> bool {
        // Dropped (and uncounted) at once only by `now` with `dontneed`; otherwise idle.
        self.policy == Purge::Now && self.os.advice == Advice::DontNeed
    }

    fn keeps_retired_blocks(&self) -> bool {
        self.policy != Purge::Now
    }
}
