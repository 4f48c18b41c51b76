//! The space as the core's page budget: the core's resident pages counted, and MMTk's GC trigger
//! polled as pages are charged; a page refused when the trigger requests a GC (the core's slow
//! path then returns `NoCell::Refused` and the allocator waits for the GC outside the core).
//!
//! A poll per page charged cost ~1% of lusearch's mutator time at 24 threads
//! (`bindings/openjdk/RESULTS.md`); Immix polls per 32 KiB block, stock MarkSweep per 64 KiB
//! block. So after a poll that requests no GC, the charges that follow skip the poll up to
//! `SHARDSWEEP_POLL_PAGES` - 1 pages, and up to half the heap's room at that poll. With the
//! pages of every charge that may poll as a clock (`xcharges`, never decreased), the skip is
//! bounded by an equation:
//!
//! ```text
//! xpoll_due <= xcharges at the last poll + min(poll_pages - 1, room at that poll / 2)
//! room      =  the trigger's heap size - the plan's reserved pages (MMTk's heap-full test)
//! ```
//!
//! Charges skip while their clock reading is at most `xpoll_due`, so the pages charged without a
//! poll since any poll are at most half the room that poll saw: a heap that was not full stays
//! not full through them (the other spaces poll their own acquisitions), and near a full heap
//! (room below 2 pages) every charge polls, exactly as with `SHARDSWEEP_POLL_PAGES=1`. A racing
//! older poll's store keeps its own bound. Every GC sets `xpoll_due` to 0 (heap size and room
//! change there). MMTk's stress GCs (`stress_factor`) poll every charge. An
//! allocation that allows overcommitting (`AllocationOptions::allow_overcommit`) keeps its page
//! when the trigger requests a GC, as `Space::acquire` gets pages for it past the heap size.

use super::ShardSweepSpace;
use crate::policy::marksweepspace::shardsweep::settings::Count;
use crate::policy::space::Space;
use crate::vm::VMBinding;
use shardsweep::{Headroom, Heap, PageBudget, LEASE_SHARE_BINS};
use std::cell::Cell;
use std::sync::atomic::Ordering;

thread_local! {
    /// Whether this thread's allocation in progress allows overcommitting ([`overcommitting`]).
    /// Per thread, because the budget is the space's and the option is the allocation's.
    static OVERCOMMIT: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` (a core slow path on this thread) with page charges that succeed past the heap
/// size: the trigger is still polled and may request a GC, but the page is kept and nobody
/// waits for the GC here (`AllocationOptions::allow_overcommit`, as `Space::acquire`).
pub(in crate::policy::marksweepspace::shardsweep) fn overcommitting<R>(f: impl FnOnce() -> R) -> R {
    /// Clears the flag however `f` ends.
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            OVERCOMMIT.with(|o| o.set(false));
        }
    }
    OVERCOMMIT.with(|o| o.set(true));
    let _reset = Reset;
    f()
}

impl<VM: VMBinding> PageBudget for ShardSweepSpace<VM> {
    fn try_charge(&self, pages: usize) -> bool {
        // The count (resident pages) is an unlimited `CountingBudget`; the limit is MMTk's GC
        // trigger.
        let counted = self.pages.try_charge(pages);
        debug_assert!(counted);
        // Relaxed: a statistic (peak resident pages, reported at exit).
        self.xpeak.fetch_max(self.charged_pages(), Ordering::Relaxed);
        if !may_poll(self) {
            return true;
        }
        // Relaxed (both): each value of `xpoll_due` bounds the unpolled charges by itself (the
        // module's equation); nothing else is published through either counter.
        let clock = self.xcharges.fetch_add(pages, Ordering::Relaxed) + pages;
        if clock <= self.xpoll_due.load(Ordering::Relaxed) {
            return true;
        }
        // Room first from idle pages nobody uses, then a GC. (Relaxed: a hint, see
        // `drop_idle_under_pressure`; the heap-full test is the trigger's own.)
        if self.xmay_drop.load(Ordering::Relaxed) && self.get_gc_trigger().is_heap_full() {
            let dropped = self.drop_idle_under_pressure();
            crate::policy::marksweepspace::shardsweep::report::note_drops(
                crate::policy::marksweepspace::shardsweep::report::DropPath::Pressure,
                dropped,
            );
        }
        if self.get_gc_trigger().poll(false, Some(self.as_space())) {
            if OVERCOMMIT.with(Cell::get) {
                // Requested, and not waited for: the page stays charged past the heap size.
                return true;
            }
            // A GC has been requested: undo the charge, tell the trigger what we wanted, and
            // let the allocator block for the GC outside the core.
            self.pages.uncharge(pages);
            let meta = self.estimate_side_meta_pages(pages);
            self.get_gc_trigger().policy.on_pending_allocation(pages + meta);
            return false;
        }
        self.skip_polls_after(clock);
        true
    }

    fn allocated_after_charge(&self, bin: usize, pages: usize) {
        note_allocation_success(self);
        super::footprint::note_charged(bin, pages);
    }

    fn uncharge(&self, pages: usize) {
        self.pages.uncharge(pages);
    }

    /// The core counts resident pages under `SHARDSWEEP_COUNT=resident` without an idle margin;
    /// with a margin it counts pages in use, and the space adds the idle pages beyond the
    /// margin (`charged_pages`) from the resident pages it notes.
    fn counts_idle(&self) -> bool {
        self.settings.count == Count::Resident && self.settings.idle_margin == 0
    }

    fn note_resident(&self, delta: isize) {
        // Relaxed: a count, read by the trigger as an estimate and checked with the world
        // stopped (the stop orders it).
        if delta >= 0 {
            self.xresident.fetch_add(delta as usize, Ordering::Relaxed);
        } else {
            let old = self.xresident.fetch_sub(delta.unsigned_abs(), Ordering::Relaxed);
            debug_assert!(old >= delta.unsigned_abs(), "{old} resident pages, {delta} noted");
        }
    }

    fn charged(&self) -> usize {
        self.pages.charged()
    }

    /// The heap's room left, for `SHARDSWEEP_ADOPT=headroom`: the trigger's heap size less the
    /// pages this space and the large-object space reserve (the plan's other spaces, immortal
    /// and the VM's, are left out: small and fixed under the JVMs we run, so the estimate errs
    /// by a constant), shared among the (mutator, size class) pairs that allocated in the last
    /// GC interval (before the first GC: every registered mutator with `LEASE_SHARE_BINS`).
    fn headroom(&self) -> Option<Headroom> {
        let heap = self.get_gc_trigger().policy.get_current_heap_size_in_pages();
        let los = self.large_object_space().map_or(0, |l| l.reserved_pages());
        let used = self.reserved_pages() + los;
        // Relaxed (both): hints, written at a GC's prepare and at mutator registration.
        let sharers = match self.xsharers.load(Ordering::Relaxed) {
            0 => self.xheap_count.load(Ordering::Relaxed).max(1) * LEASE_SHARE_BINS,
            n => n,
        };
        Some(Headroom { pages: heap.saturating_sub(used), sharers })
    }
}

impl<VM: VMBinding> ShardSweepSpace<VM> {
    /// A GC's prepare (mutators stopped, before any sweep resets the counts): the
    /// (mutator, size class) pairs whose slow path ran since the last GC, for `headroom`.
    pub(super) fn count_sharers(&self) {
        let heaps = self.heaps.lock().unwrap();
        // SAFETY: registered heaps are alive; mutators are stopped.
        let n: usize = heaps.iter().map(|&h| unsafe { (*(h as *const Heap)).busy_bins() }).sum();
        // Relaxed: see `headroom`; the GC's end orders it for the mutators.
        self.xsharers.store(n.max(1), Ordering::Relaxed);
    }

    /// After a poll that requested no GC at charge clock `clock`: the charges that follow skip
    /// the poll up to `SHARDSWEEP_POLL_PAGES` - 1 pages and half the heap's room (the module's
    /// equation).
    fn skip_polls_after(&self, clock: usize) {
        let trigger = self.get_gc_trigger();
        let unpolled = if self.settings.poll_pages <= 1 || self.common.options.is_stress_test_gc_enabled() {
            0
        } else {
            let room = trigger.policy.get_current_heap_size_in_pages().saturating_sub(trigger.plan_reserved_pages());
            (room / 2).min(self.settings.poll_pages - 1)
        };
        // Relaxed: see `try_charge`.
        self.xpoll_due.store(clock + unpolled, Ordering::Relaxed);
    }
}

/// Whether a charge may poll the GC trigger: a mutator allocating outside a GC, with
/// collection enabled and initialised (as `Space::acquire` decides).
fn may_poll<VM: VMBinding>(space: &ShardSweepSpace<VM>) -> bool {
    // Relaxed: set/cleared by the GC while mutators are stopped; the stop orders it.
    !space.xin_gc.load(Ordering::Relaxed)
        && space.get_gc_trigger().is_collection_enabled()
        && space.common.global_state.is_initialized()
}

/// Tells MMTk that an allocation needing new memory succeeded since the last GC, as the
/// stock allocators do after every successful slow path (`alloc_slow_inline`). Called when
/// a core slow path that charged pages handed out a cell (`allocated_after_charge`), never for a
/// charge alone: a fresh block whose header page was charged and whose cells' pages were
/// then vetoed is no success (that report made every GC a non-emergency one while the
/// request could never be met: the OpenJDK livelock, reproduced by `synthvm hog`). MMTk counts
/// a GC that follows another with no such success as an *emergency* collection, and an
/// allocation that fails after an emergency collection as out of memory; our mutators take
/// fresh pages in the core, never through MMTk's slow path, so without this report every
/// second GC would be an emergency one and a mutator descheduled across two GCs would see a
/// false out of memory.
fn note_allocation_success<VM: VMBinding>(space: &ShardSweepSpace<VM>) {
    let flag = &space.common.global_state.allocation_success;
    // Relaxed: a hint read by the GC trigger when the next GC is scheduled (the stop for
    // that GC orders it); the load first keeps the cache line shared when already set.
    if !flag.load(Ordering::Relaxed) {
        flag.store(true, Ordering::Relaxed);
    }
}
