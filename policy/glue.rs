//! The space seen from the core: a [`BlockSource`] over the space's block page resource and a
//! [`PageBudget`] over its GC trigger.
//!
//! Neither blocks nor polls for GC in a way the core could observe: `acquire_block` takes pages
//! without polling (the poll happens per 4 KiB page in `try_charge`), and `try_charge` only
//! *requests* a GC; the allocator blocks for it outside the core (GC workers sweep this
//! mutator's heap while it waits).

use super::global::ShardSweepSpace;
use super::region::Block;
use crate::mmtk::SFT_MAP;
use crate::policy::space::Space;
use crate::util::conversions;
use crate::util::heap::chunk_map::Chunk;
use crate::util::heap::PageResource;
use crate::util::linear_scan::Region;
use crate::util::os::{MmapAnnotation, OSMemory, OS};
use crate::util::{Address, OpaquePointer, VMThread};
use crate::vm::VMBinding;
use shardsweep::{Advice, BlockSource, Heap, Madvise, PageBudget};
use std::ptr::NonNull;
use std::sync::atomic::Ordering;

/// How idle pages and empty blocks are dropped for the budget's sake, whatever the purge advice.
static DROP: Madvise = Madvise { advice: Advice::DontNeed };

impl<VM: VMBinding> ShardSweepSpace<VM> {
    /// Whether a charge may poll the GC trigger: a mutator allocating outside a GC, with
    /// collection enabled and initialised (as `Space::acquire` decides).
    fn may_poll(&self) -> bool {
        // Relaxed: set/cleared by the GC while mutators are stopped; the stop orders it.
        !self.xin_gc.load(Ordering::Relaxed)
            && self.get_gc_trigger().is_collection_enabled()
            && self.common.global_state.is_initialized()
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
    fn note_allocation_success(&self) {
        let flag = &self.common.global_state.allocation_success;
        // Relaxed: a hint read by the GC trigger when the next GC is scheduled (the stop for
        // that GC orders it); the load first keeps the cache line shared when already set.
        if !flag.load(Ordering::Relaxed) {
            flag.store(true, Ordering::Relaxed);
        }
    }

    /// Takes one block from the page resource like `Space::acquire` after its poll: reserve,
    /// get pages under the acquire lock, map pages and side metadata, grow the space (SFT).
    fn acquire_from_page_resource(&self, tls: VMThread) -> Option<Address> {
        let pages = Block::PAGES;
        let pr = &self.pr;
        let reserved = pr.reserve_pages(pages);
        let lock = self.common.acquire_lock.lock().unwrap();
        let res = match pr.get_new_pages(self.common.descriptor, reserved, pages, tls) {
            Ok(res) => res,
            Err(_) => {
                drop(lock);
                pr.clear_request(reserved);
                return None;
            }
        };
        let bytes = conversions::pages_to_bytes(res.pages);
        let mmap = || {
            if let Err(e) = self
                .common
                .mmapper
                .ensure_mapped(
                    res.start,
                    res.pages,
                    self.common.options.transparent_hugepages_as_huge_page_support(),
                    self.common.mmap_protection(),
                    &MmapAnnotation::Space { name: self.get_name() },
                )
                .and(self.common.metadata.try_map_metadata_space(res.start, bytes, self.get_name()))
            {
                OS::handle_mmap_error::<VM>(e, tls);
            }
        };
        if SFT_MAP.get_side_metadata().is_some() {
            mmap();
            self.grow_space(res.start, bytes, res.new_chunk);
            drop(lock);
        } else {
            self.grow_space(res.start, bytes, res.new_chunk);
            drop(lock);
            mmap();
        }
        self.chunk_map.set_allocated(Chunk::from_unaligned_address(res.start), true);
        // No zeroing here (unlike `Space::acquire`): the core zeroes cells page by page as it
        // hands them out, so untouched pages stay non-resident.
        Some(res.start)
    }

    /// Gives a block back: a retired block whose pages are still resident (and counted) is kept
    /// for reuse (`kept`, see purge.rs); a dropped one goes to the page resource (GC workers) or
    /// is kept as a spare (mutators: the page resource's release queues are per GC worker).
    pub(super) fn return_block(&self, start: Address) {
        // Not read: with `SHARDSWEEP_PURGE=now` the core dropped the block before giving it back
        // (reading its header would map the zero page); otherwise the core keeps retired blocks
        // (`keeps_retired_blocks`), so every block given back here is retired with its pages.
        if self.settings.purge != super::purge::Purge::Now {
            self.kept.lock().unwrap().push(start);
            // Relaxed: a hint for the pressure path (see `try_charge`).
            self.xmay_drop.store(true, Ordering::Relaxed);
        } else if self.xin_gc.load(Ordering::Relaxed) {
            // Relaxed: see `may_poll`.
            self.pr.release_block(Block::from_aligned_address(start));
        } else {
            self.spare.lock().unwrap().push(start);
        }
    }

    /// Drops the idle pages nobody is using, to make room in the heap before the GC trigger is
    /// polled: those of the kept empty blocks (which then become spares) and of the abandoned
    /// blocks. Mutator threads only, outside GC; one at a time (others go on to the poll).
    /// Returns the pages dropped.
    fn drop_idle_under_pressure(&self) -> usize {
        let Ok(_one) = self.pressure_lock.try_lock() else { return 0 };
        let Some(shared) = self.shared_if_created() else { return 0 };
        let mut dropped = 0;
        let kept = std::mem::take(&mut *self.kept.lock().unwrap());
        for &start in kept.iter() {
            self.forget_purge(start);
            // SAFETY: taken off the kept list under its lock: nobody else uses the block.
            dropped += unsafe { shardsweep::Block::drop_retired(start.to_mut_ptr(), self, &DROP) };
        }
        self.spare.lock().unwrap().extend(kept);
        dropped += shared.drop_abandoned_idle();
        if dropped == 0 {
            // Relaxed: a hint; set again when a block is kept or a GC ends.
            self.xmay_drop.store(false, Ordering::Relaxed);
        }
        dropped
    }

    /// End of a GC (stop-the-world, one worker): the idle pages the sweeps left stay resident
    /// for the mutators' reuse only while they fit in half of the heap's free room (heap size
    /// less the pages in use; none when less than a quarter of the heap is free, or after a
    /// user-requested or emergency collection); the rest is
    /// dropped now, the kept empty blocks first, then the
    /// idle pages of abandoned blocks, then those of the mutators' own blocks. Without this, a
    /// tight heap would start its mutator phase full of idle pages that only a pressure drop
    /// (which cannot reach blocks other mutators hold) or the next GC would give back.
    /// Returns the pages dropped.
    pub(super) fn trim_idle_after_gc(&self) -> usize {
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
        let kept_pages = self.pages.charged().saturating_sub(resident);
        let idle = resident - in_use + kept_pages;
        let heap = self.get_gc_trigger().policy.get_current_heap_size_in_pages();
        let state = &self.common.global_state;
        // A collection the user asked for (System.gc()) gives every idle page back, and so
        // does an emergency collection (every page counts before out of memory).
        // A tight heap (less than a quarter free) keeps none: right after the GC its free room
        // is what decides whether the next allocations fit (and MMTk, and a VM's GC-overhead
        // limit, judge the GC by the pages used after it).
        let free = heap.saturating_sub(in_use);
        let room = if state.is_user_triggered_collection() || state.is_emergency_collection() || free < heap / 4 {
            0
        } else {
            free / 2
        };
        if idle <= room {
            return 0;
        }
        let mut excess = idle - room;
        let mut dropped = 0;
        {
            let mut kept = self.kept.lock().unwrap();
            while excess > 0 {
                let Some(start) = kept.pop() else { break };
                self.forget_purge(start);
                // SAFETY: stop-the-world, and the block is off the kept list.
                let n = unsafe { shardsweep::Block::drop_retired(start.to_mut_ptr(), self, &DROP) };
                self.pr.release_block(Block::from_aligned_address(start));
                excess = excess.saturating_sub(n);
                dropped += n;
            }
        }
        if excess > 0 {
            let n = shared.drop_abandoned_idle();
            excess = excess.saturating_sub(n);
            dropped += n;
        }
        for &h in heaps.iter() {
            if excess == 0 {
                break;
            }
            // SAFETY: as above; a GC worker holds every block while the world is stopped.
            for b in unsafe { (*(h as *const Heap)).blocks() } {
                // SAFETY: as above.
                let n = unsafe { (*b).drop_idle(self, &DROP) };
                excess = excess.saturating_sub(n);
                dropped += n;
            }
        }
        dropped
    }

    /// The purge queue forgets a block the space is about to drop.
    fn forget_purge(&self, start: Address) {
        if let Some(q) = self.purge.get() {
            q.forget(start.as_usize());
        }
    }

    /// At the GC's prepare phase with `SHARDSWEEP_PURGE=gc`: the kept empty blocks not reused
    /// since the last GC are dropped and go back to the page resource (a GC worker).
    pub(super) fn purge_kept(&self) -> usize {
        let kept = std::mem::take(&mut *self.kept.lock().unwrap());
        let mut dropped = 0;
        for start in kept {
            self.forget_purge(start);
            // SAFETY: stop-the-world, and the block is off the kept list.
            dropped += unsafe { shardsweep::Block::drop_retired(start.to_mut_ptr(), self, &DROP) };
            self.pr.release_block(Block::from_aligned_address(start));
        }
        dropped
    }
}

// SAFETY: the page resource hands out distinct, block-aligned blocks of BLOCK_BYTES (a
// `BlockPageResource` over `region::Block`), mapped for the life of the space; spares are such
// blocks, each on the spare list at most once.
unsafe impl<VM: VMBinding> BlockSource for ShardSweepSpace<VM> {
    fn acquire_resident_block(&self) -> Option<NonNull<u8>> {
        let a = self.kept.lock().unwrap().pop()?;
        NonNull::new(a.to_mut_ptr())
    }

    fn acquire_block(&self, thread: usize) -> Option<(NonNull<u8>, bool)> {
        // Spares and the page resource's blocks are zero: fresh, or dropped with MADV_DONTNEED
        // before they were given back (`Block::drop_retired`); blocks with resident pages are
        // on the kept list instead.
        let zeroed = true;
        if let Some(a) = self.spare.lock().unwrap().pop() {
            return NonNull::new(a.to_mut_ptr()).map(|p| (p, zeroed));
        }
        // The heap's thread word is its mutator's `VMThread` (`ShardSweepAllocator::new`).
        // SAFETY: the word was made from a `VMThread` pointer, so it is that pointer's address.
        let tls = VMThread(OpaquePointer::from_address(unsafe { Address::from_usize(thread) }));
        // `None` is out of (virtual) memory in the page resource: the core's `NoCell::NoMemory`.
        self.acquire_from_page_resource(tls).and_then(|a| NonNull::new(a.to_mut_ptr()).map(|p| (p, zeroed)))
    }

    unsafe fn release_block(&self, block: NonNull<u8>) {
        self.return_block(Address::from_mut_ptr(block.as_ptr()));
    }

    unsafe fn release_unused_block(&self, block: NonNull<u8>, zeroed: bool) {
        let start = Address::from_mut_ptr(block.as_ptr());
        if zeroed {
            // Not read: its header page may not be backed (reading would map the zero page).
            // Relaxed: see `may_poll`.
            if self.xin_gc.load(Ordering::Relaxed) {
                self.pr.release_block(Block::from_aligned_address(start));
            } else {
                self.spare.lock().unwrap().push(start);
            }
        } else {
            self.return_block(start);
        }
    }
}

impl<VM: VMBinding> PageBudget for ShardSweepSpace<VM> {
    fn try_charge(&self, pages: usize) -> bool {
        // The count (resident pages) is an unlimited `CountingBudget`; the limit is MMTk's GC
        // trigger.
        let counted = self.pages.try_charge(pages);
        debug_assert!(counted);
        // Relaxed: a statistic (peak resident pages, reported at exit).
        self.xpeak.fetch_max(self.pages.charged(), Ordering::Relaxed);
        let may_poll = self.may_poll();
        // Room first from idle pages nobody uses, then a GC. (Relaxed: a hint, see
        // `drop_idle_under_pressure`; the heap-full test is the trigger's own.)
        if may_poll && self.xmay_drop.load(Ordering::Relaxed) && self.get_gc_trigger().is_heap_full() {
            self.drop_idle_under_pressure();
        }
        if may_poll && self.get_gc_trigger().poll(false, Some(self.as_space())) {
            // A GC has been requested: undo the charge, tell the trigger what we wanted, and
            // let the allocator block for the GC outside the core.
            self.pages.uncharge(pages);
            let meta = self.estimate_side_meta_pages(pages);
            self.get_gc_trigger().policy.on_pending_allocation(pages + meta);
            return false;
        }
        true
    }

    fn allocated_after_charge(&self) {
        self.note_allocation_success();
    }

    fn uncharge(&self, pages: usize) {
        self.pages.uncharge(pages);
    }

    fn charged(&self) -> usize {
        self.pages.charged()
    }
}
