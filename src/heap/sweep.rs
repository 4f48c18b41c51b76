//! The eager sweep of a heap (stop-the-world, after marking) and its per-block step, which the
//! lazy sweep (`lazy.rs`) shares: each block is swept and filed as empty (given back), full
//! (the full list), partly used (its bin's queue) or abandoned (an idle bin's block).

use super::queue::Queue;
use super::{Heap, SweepStats};
use crate::block::{Block, BlockState, SweepResult};
use crate::size_class::BIN_COUNT;
use crate::thread_free::Delay;
use std::ptr;

impl Heap {
    /// Sweeps every block of this heap (stop-the-world: the owner is stopped, the caller has
    /// exclusive access). Empty blocks go back to the source; full ones to the full list;
    /// partly used ones to their bin's queue, unless the bin was idle since the previous sweep
    /// and `abandon_idle_bins` is set, in which case they are abandoned for other threads.
    pub fn sweep(&mut self, is_live: &mut dyn FnMut(*mut u8) -> bool) -> SweepStats {
        assert!(
            !self.has_unswept(),
            "shardsweep: a lazy sweep must be finished (Heap::finish_sweep) before the next GC marks"
        );
        self.drain_delayed_all();
        // The leases' cells are swept with their blocks (on the abandoned stacks).
        self.clear_leases();
        // The hole being filled is swept with its block: its rest may be lent again.
        self.hole = (0, 0);
        let mut stats = SweepStats::default();
        let idle = self.idle_bins();
        // Detach every list, then walk them (no allocation: this may run inside the global
        // allocator of a standalone build).
        let mut detached = [Queue::EMPTY; BIN_COUNT + 1];
        detached[..BIN_COUNT].copy_from_slice(&self.queues);
        detached[BIN_COUNT] = self.full;
        self.queues = [Queue::EMPTY; BIN_COUNT];
        self.full = Queue::EMPTY;
        for q in detached.iter_mut() {
            loop {
                let b = q.pop_front();
                if b.is_null() {
                    break;
                }
                // SAFETY: we have exclusive access to the heap and its blocks; `b` is on no list.
                unsafe { self.sweep_one(b, is_live, idle[(*b).bin()], &mut stats) };
            }
        }
        self.slow_bins = 0;
        for bin in 1..BIN_COUNT {
            self.set_direct(bin);
            let first = self.queues[bin].first;
            self.free_at_sweep[bin] = if first.is_null() {
                ptr::null_mut()
            } else {
                // SAFETY: queued blocks are live and owned.
                unsafe { (*first).free }
            };
        }
        stats
    }

    /// The bins to abandon at this sweep: every bin with `abandon_all_partial`; with
    /// `abandon_idle_bins`, those whose slow path did not run and whose current block's free
    /// list did not move since the previous sweep.
    pub(crate) fn idle_bins(&self) -> [bool; BIN_COUNT] {
        let mut idle = [false; BIN_COUNT];
        if self.shared.settings.abandon_all_partial {
            idle[1..].fill(true);
            return idle;
        }
        if !self.shared.settings.abandon_idle_bins {
            return idle;
        }
        for (bin, idle) in idle.iter_mut().enumerate().skip(1) {
            let first = self.queues[bin].first;
            let free_now = if first.is_null() {
                ptr::null_mut()
            } else {
                // SAFETY: queued blocks are live and owned.
                unsafe { (*first).free }
            };
            *idle = self.slow_bins & (1 << bin) == 0 && free_now == self.free_at_sweep[bin];
        }
        idle
    }

    /// Records the bin's first block's free list after a sweep (idle-bin detection).
    pub(super) fn note_sweep(&mut self, bin: usize) {
        let first = self.queues[bin].first;
        self.free_at_sweep[bin] = if first.is_null() {
            ptr::null_mut()
        } else {
            // SAFETY: queued blocks are live and owned.
            unsafe { (*first).free }
        };
    }

    /// Sweeps one block (owned, on no list) and files it: empty → source, full → full list,
    /// partly used → its bin's queue, or the abandoned stack if `abandon`.
    ///
    /// # Safety
    /// The caller owns `b`, which is on no list.
    pub(super) unsafe fn sweep_one(
        &mut self,
        b: *mut Block,
        is_live: &mut dyn FnMut(*mut u8) -> bool,
        abandon: bool,
        stats: &mut SweepStats,
    ) {
        let shared = self.shared;
        stats.blocks += 1;
        // SAFETY: per the contract.
        unsafe {
            let r = shared.sweep_block(b, is_live, false);
            stats.live_cells += (*b).used();
            let bin = (*b).bin();
            match r {
                SweepResult::Empty => {
                    stats.released += 1;
                    shared.release_block(b);
                }
                SweepResult::Full => {
                    (*b).xthread_free.set_delay(Delay::UseDelayed, false);
                    (*b).state = BlockState::Full;
                    self.full.push_front(b);
                }
                SweepResult::Partial if abandon => {
                    stats.abandoned += 1;
                    shared.abandon(b);
                }
                SweepResult::Partial => {
                    (*b).xthread_free.set_delay(Delay::NoDelayed, false);
                    (*b).state = BlockState::Queued;
                    self.queues[bin].push_front(b);
                }
            }
        }
    }
}
