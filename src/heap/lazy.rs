//! Lazy sweeping: the owner sweeps its blocks when it next needs them, not the collector.
//!
//! Protocol (for a garbage-collecting embedder; cells are never freed explicitly):
//! 1. At a GC, after marking, the collector calls [`Heap::defer_sweep`] (stop-the-world) instead
//!    of [`Heap::sweep`]. Idle bins (see `Heap::sweep`) are swept at once and their partly used
//!    blocks abandoned, as in an eager sweep, so the abandoned stacks only ever hold swept
//!    blocks. Every other bin's blocks (queued and full) move to the bin's *unswept* list: off
//!    the queues and the direct table, so no allocation path can pop a cell from a block whose
//!    free list does not yet include the cells that died. Each such block is *accounted* at once
//!    (`Block::account`, with a mark-preserving oracle): the pages an eager sweep would give back
//!    are given back and blocks without a live cell are released, so the budget after a lazy GC
//!    equals the budget after an eager one; only building the lists is deferred.
//! 2. The owner's slow path for a bin with unswept blocks sweeps all of them first (with the
//!    oracle given to `defer_sweep`), then proceeds as usual. Cost: once per bin per GC,
//!    O(cells in the bin's blocks) — the price of lazy sweeping on the slow path's bound.
//! 3. Before the next GC marks anything, every unswept block must be swept
//!    ([`Heap::finish_sweep`]): the oracle reads (and clears) the previous GC's marks. A heap
//!    that is torn down finishes its sweep before abandoning its blocks; [`Heap::sweep`]
//!    refuses to run with unswept blocks.

use super::queue::Queue;
use super::{Heap, SweepStats};
use crate::block::{Block, BlockState};
use crate::size_class::BIN_COUNT;
use crate::thread_free::Delay;

impl Heap {
    /// Whether some blocks await a lazy sweep.
    pub fn has_unswept(&self) -> bool {
        self.unswept.iter().any(|q| !q.first.is_null())
    }

    /// Number of blocks awaiting a lazy sweep.
    pub fn unswept_blocks(&self) -> usize {
        self.unswept.iter().map(|q| q.len).sum()
    }

    /// The blocks awaiting a lazy sweep (a stop-the-world inspection).
    pub fn unswept_block_list(&self) -> Vec<*mut Block> {
        let mut v = Vec::new();
        for q in self.unswept.iter() {
            v.extend(q.blocks());
        }
        v
    }

    /// The lazy counterpart of [`Heap::sweep`] (stop-the-world, after marking): sweeps idle bins
    /// now (abandoning their partly used blocks when `abandon_idle_bins` is set) and leaves every
    /// other bin's blocks unswept, to be swept by the owner's slow path or by
    /// [`Heap::finish_sweep`] with `is_live`. Panics if a previous lazy sweep is unfinished.
    ///
    /// Deferred blocks are *accounted* now (`is_marked`, an oracle that answers as `is_live`
    /// will but leaves the marks alone): each gives back the pages an eager sweep would, and a
    /// block without a live cell is released at once, so the budget after a lazy GC is what it
    /// would be after an eager one. Only building the free lists waits for the owner.
    pub fn defer_sweep(
        &mut self,
        is_live: fn(*mut u8) -> bool,
        is_marked: &mut dyn FnMut(*mut u8) -> bool,
    ) -> SweepStats {
        assert!(
            !self.has_unswept(),
            "shardsweep: the previous lazy sweep was not finished before this GC"
        );
        self.drain_delayed_all();
        // The leases' cells are swept with their blocks (on the abandoned stacks).
        self.clear_leases();
        let idle = self.idle_bins();
        // Full blocks rejoin their bin: a bin's blocks are then all in one list.
        let mut full = std::mem::replace(&mut self.full, Queue::EMPTY);
        loop {
            let b = full.pop_front();
            if b.is_null() {
                break;
            }
            // SAFETY: owned blocks, now on no list.
            unsafe {
                (*b).xthread_free.set_delay(Delay::NoDelayed, false);
                (*b).state = BlockState::Queued;
                self.queues[(*b).bin()].push_front(b);
            }
        }
        let mut stats = SweepStats::default();
        let mut oracle = is_live;
        let shared = self.shared;
        for (bin, &idle) in idle.iter().enumerate().skip(1) {
            let mut q = std::mem::replace(&mut self.queues[bin], Queue::EMPTY);
            if !idle {
                let mut pending = Queue::EMPTY;
                loop {
                    let b = q.pop_front();
                    if b.is_null() {
                        break;
                    }
                    // SAFETY: exclusive access to the heap and its blocks (stop-the-world);
                    // `b` is on no list.
                    unsafe {
                        stats.accounted += 1;
                        if shared.account_block(b, is_marked) == 0 {
                            stats.released += 1;
                            (*b).state = BlockState::Queued;
                            shared.release_block(b);
                        } else {
                            pending.push_front(b);
                        }
                    }
                }
                self.unswept[bin] = pending;
                continue;
            }
            loop {
                let b = q.pop_front();
                if b.is_null() {
                    break;
                }
                // SAFETY: exclusive access to the heap and its blocks.
                unsafe { self.sweep_one(b, &mut oracle, true, &mut stats) };
            }
        }
        self.slow_bins = 0;
        for bin in 1..BIN_COUNT {
            self.set_direct(bin);
            self.note_sweep(bin);
        }
        self.lazy_is_live = Some(is_live);
        stats
    }

    /// Sweeps every block still awaiting a lazy sweep (before the next GC marks; before the
    /// heap is torn down). A no-op when nothing is pending.
    pub fn finish_sweep(&mut self) -> SweepStats {
        let mut stats = SweepStats::default();
        for bin in 1..BIN_COUNT {
            if !self.unswept[bin].first.is_null() {
                let s = self.sweep_unswept_bin(bin);
                stats.blocks += s.blocks;
                stats.released += s.released;
                stats.live_cells += s.live_cells;
            }
        }
        stats
    }

    /// Sweeps the unswept blocks of `bin` into the bin's queue / the full list (the owner's slow
    /// path, or `finish_sweep`).
    pub(super) fn sweep_unswept_bin(&mut self, bin: usize) -> SweepStats {
        let mut oracle = self
            .lazy_is_live
            .expect("shardsweep: unswept blocks without a lazy-sweep oracle");
        let mut q = std::mem::replace(&mut self.unswept[bin], Queue::EMPTY);
        let mut stats = SweepStats::default();
        loop {
            let b = q.pop_front();
            if b.is_null() {
                break;
            }
            // SAFETY: the owner (or the collector while the owner is stopped) owns the blocks.
            unsafe { self.sweep_one(b, &mut oracle, false, &mut stats) };
        }
        self.set_direct(bin);
        self.note_sweep(bin);
        stats
    }
}
