//! Idle pages given back: dropping them under pressure (before the GC trigger is polled), after
//! a GC beyond what the mutators may reuse, and the kept empty blocks at the next GC
//! (`SHARDSWEEP_PURGE=gc`).

use super::ShardSweepSpace;
use crate::policy::marksweepspace::shardsweep::region::Block;
use crate::policy::space::Space;
use crate::util::linear_scan::Region;
use crate::util::Address;
use crate::vm::VMBinding;
use shardsweep::{Advice, DropBatch, Heap, PageBudget};
use std::sync::atomic::Ordering;

impl<VM: VMBinding> ShardSweepSpace<VM> {
    /// Drops the idle pages nobody is using, to make room in the heap before the GC trigger is
    /// polled: those of the kept empty blocks (which then become spares) and of the abandoned
    /// blocks. Mutator threads only, outside GC; one at a time (others go on to the poll).
    /// Returns the pages dropped.
    pub(super) fn drop_idle_under_pressure(&self) -> usize {
        if !self.idle_takes_room() {
            return 0; // dropping uncounted pages makes no room
        }
        let Ok(_one) = self.pressure_lock.try_lock() else { return 0 };
        let Some(shared) = self.shared_if_created() else { return 0 };
        // With an idle margin, only what is beyond it (it is what counts); else all.
        let limit = self.idle_beyond_margin().unwrap_or(usize::MAX);
        let mut dropped = 0;
        let kept = self.take_kept(limit);
        // One system call for the blocks (see `DropBatch`), made before they become spares:
        // nobody else can reach them until then.
        let batch = DropBatch::new(Advice::DontNeed);
        for &start in kept.iter() {
            self.forget_purge(start);
            // SAFETY: taken off the kept list under its lock: nobody else uses the block.
            dropped += unsafe { shardsweep::Block::drop_retired(start.to_mut_ptr(), self, &batch) };
        }
        batch.flush();
        self.spare.lock().unwrap().extend(kept);
        if dropped < limit {
            dropped += shared.drop_abandoned_idle(if limit == usize::MAX { limit } else { limit - dropped });
        }
        if dropped == 0 {
            // Relaxed: a hint; set again when a block is kept or a GC ends.
            self.xmay_drop.store(false, Ordering::Relaxed);
        }
        dropped
    }

    /// End of a GC (stop-the-world, one worker): the idle pages the sweeps left (and the kept
    /// empty blocks) stay resident for the mutators' reuse only up to a room; the rest is
    /// dropped now, the kept empty blocks first, then the idle pages of abandoned blocks, then
    /// those of the mutators' own blocks. Returns the pages dropped.
    ///
    /// Counting resident pages, the room is the heap's free room (heap size less the pages in
    /// use) less an eighth of the heap, none when less than a quarter of the heap is free (at a
    /// quarter free that is half the free room): the mutators start their phase with at least
    /// an eighth of the heap to charge, and a roomy heap keeps its idle pages for them, reused
    /// without a page fault. Without a trim, a tight heap would start its mutator phase full of
    /// idle pages that only a pressure drop (which cannot reach blocks other mutators hold) or
    /// the next GC would give back. Keeping only half the free room instead took 1.6x the
    /// page faults (465 against 289 thousand per run) and 1.02-1.04x the time at 64 MiB under the JVM
    /// (`bindings/openjdk/results/mmtk-0.33/idle-room/`). Counting pages
    /// in use (`SHARDSWEEP_COUNT=in-use`) idle pages take no room in the heap: the room is
    /// `SHARDSWEEP_IDLE_CAP` percent of the heap size (with `off`, all stay until the purge).
    /// With an idle margin (`SHARDSWEEP_IDLE_MARGIN`) the room is the margin plus the resident
    /// count's room: the idle pages the margin leaves uncounted stay, and the rule above holds
    /// for those it counts. Either way none after a user-requested or emergency collection.
    pub(super) fn trim_idle_after_gc(&self) -> usize {
        if self.idle_room(0).is_none() {
            return 0;
        }
        let counts_idle = self.counts_idle();
        let Some(shared) = self.shared_if_created() else { return 0 };
        let heaps: Vec<usize> = self.heaps.lock().unwrap().clone();
        let (mut resident, mut in_use) = (0usize, 0usize);
        let mut count = |b: &shardsweep::Block| {
            resident += b.resident().count();
            in_use += b.charged().count();
        };
        for &h in heaps.iter() {
            // SAFETY: registered heaps are alive; the world is stopped.
            for b in unsafe { (*(h as *const Heap)).blocks() } {
                // SAFETY: a block of a live heap; the world is stopped.
                count(unsafe { &*b });
            }
        }
        shared.for_each_abandoned(&mut count);
        let idle = resident - in_use + self.kept_pages();
        let Some(room) = self.idle_room(in_use) else { return 0 };
        if idle <= room {
            return 0;
        }
        let mut excess = idle - room;
        let mut dropped = 0;
        // The world is stopped: the ranges go to the OS together at the end (`DropBatch`).
        let batch = DropBatch::new(Advice::DontNeed);
        {
            let mut kept = self.kept.lock().unwrap();
            while excess > 0 {
                let Some(start) = kept.pop() else { break };
                self.forget_purge(start);
                // SAFETY: stop-the-world, and the block is off the kept list.
                let n = unsafe { shardsweep::Block::drop_retired(start.to_mut_ptr(), self, &batch) };
                self.pr.release_block(Block::from_aligned_address(start));
                excess = excess.saturating_sub(n);
                dropped += n;
            }
        }
        // Counting resident pages, the abandoned blocks' idle pages and a heap's go all at once
        // once any must (the default's measured behaviour); under a cap, block by block, so that
        // the cap's worth stays.
        let whole = counts_idle;
        if excess > 0 {
            let n = shared.drop_abandoned_idle(if whole { usize::MAX } else { excess });
            excess = excess.saturating_sub(n);
            dropped += n;
        }
        for &h in heaps.iter() {
            if excess == 0 {
                break;
            }
            // SAFETY: as above; a GC worker holds every block while the world is stopped.
            for b in unsafe { (*(h as *const Heap)).blocks() } {
                if excess == 0 && !whole {
                    break;
                }
                // SAFETY: as above.
                let n = unsafe { (*b).drop_idle(self, &batch) };
                excess = excess.saturating_sub(n);
                dropped += n;
            }
        }
        batch.flush();
        dropped
    }

    /// The idle pages (kept empty blocks included) a GC's end leaves resident, given the pages
    /// in use (`trim_idle_after_gc`'s rule; the accounting check asserts it held), or `None`
    /// when nothing is trimmed (counting pages in use without a cap).
    pub(super) fn idle_room(&self, in_use: usize) -> Option<usize> {
        let margin = self.idle_margin_pages();
        let counts_idle = self.counts_idle() || margin.is_some();
        let cap = self.settings.idle_cap;
        if !counts_idle && cap.is_none() {
            return None;
        }
        let heap = self.get_gc_trigger().policy.get_current_heap_size_in_pages();
        let state = &self.common.global_state;
        // A collection the user asked for (System.gc()) gives every idle page back, and so
        // does an emergency collection (every page counts before out of memory).
        // A tight heap (less than a quarter free) keeps none when idle pages count: right after
        // the GC its free room is what decides whether the next allocations fit (and MMTk, and
        // a VM's GC-overhead limit, judge the GC by the pages used after it).
        let free = heap.saturating_sub(in_use);
        Some(if state.is_user_triggered_collection() || state.is_emergency_collection() {
            0
        } else if let (false, Some(percent)) = (counts_idle, cap) {
            heap * percent / 100
        } else if free < heap / 4 {
            margin.unwrap_or(0)
        } else {
            margin.unwrap_or(0) + free - heap / 8
        })
    }

    /// Takes kept empty blocks off the kept list, the newest first, until they hold `limit`
    /// resident pages or more (`usize::MAX`: all of them).
    fn take_kept(&self, limit: usize) -> Vec<Address> {
        let mut k = self.kept.lock().unwrap();
        if limit == usize::MAX {
            return std::mem::take(&mut *k);
        }
        let mut taken = Vec::new();
        let mut planned = 0;
        while planned < limit {
            let Some(start) = k.pop() else { break };
            // SAFETY: a kept block is retired and nobody else uses it while it is on the kept
            // list, whose lock we hold.
            planned += unsafe { shardsweep::Block::retired_resident(start.to_ptr()).count() };
            taken.push(start);
        }
        taken
    }

    /// The pages the kept empty blocks hold resident (stop-the-world).
    pub(super) fn kept_pages(&self) -> usize {
        let kept = self.kept.lock().unwrap();
        // SAFETY: kept blocks are retired blocks of the space, held under the kept list's lock;
        // the world is stopped.
        kept.iter().map(|a| unsafe { shardsweep::Block::retired_resident(a.to_ptr()).count() }).sum()
    }

    /// The purge queue forgets a block the space is about to drop.
    fn forget_purge(&self, start: Address) {
        if let Some(q) = self.purge.get() {
            q.forget(start.as_usize());
        }
    }

    /// At the GC's prepare phase with `SHARDSWEEP_PURGE=gc`: the kept empty blocks not reused
    /// since the last GC are dropped and go back to the page resource (a GC worker).
    /// `limit`: about that many pages at most (block by block; `usize::MAX`: all); the other
    /// blocks stay kept.
    pub(super) fn purge_kept(&self, limit: usize) -> usize {
        let kept = self.take_kept(limit);
        let mut dropped = 0;
        // Stop-the-world, and no GC worker takes a block before the GC ends: the blocks go to
        // the OS together at the end (`DropBatch`).
        let batch = DropBatch::new(Advice::DontNeed);
        for start in kept {
            self.forget_purge(start);
            // SAFETY: stop-the-world, and the block is off the kept list.
            dropped += unsafe { shardsweep::Block::drop_retired(start.to_mut_ptr(), self, &batch) };
            self.pr.release_block(Block::from_aligned_address(start));
        }
        batch.flush();
        dropped
    }
}
