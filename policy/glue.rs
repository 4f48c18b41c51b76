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
use crate::util::heap::chunk_map::{Chunk, ChunkState};
use crate::util::heap::PageResource;
use crate::util::linear_scan::Region;
use crate::util::memory;
use crate::util::{Address, VMThread};
use crate::vm::{Collection, VMBinding};
use shardsweep::{Advice, BlockSource, PageBudget};
use std::cell::Cell;
use std::ptr::NonNull;
use std::sync::atomic::Ordering;

/// Why the core's last allocation on this thread returned null (read by the allocator's slow
/// path). Thread-local: the core calls back without context, on the allocating thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Failure {
    /// Nothing failed.
    None,
    /// `try_charge` vetoed: the GC trigger has requested a GC.
    Vetoed,
    /// The page resource is out of (virtual) memory.
    Exhausted,
    /// `acquire_block` ran before this thread's allocator told us its `VMThread`.
    NoTls,
}

thread_local! {
    static FAILURE: Cell<Failure> = const { Cell::new(Failure::None) };
    /// The allocating mutator's `VMThread` (set by the allocator's slow path), for the page
    /// resource's and the mmapper's callbacks into the VM.
    static MUTATOR_TLS: Cell<Option<VMThread>> = const { Cell::new(None) };
}

/// Records this thread's mutator (allocator slow path).
pub(super) fn set_mutator_tls(tls: VMThread) {
    MUTATOR_TLS.with(|t| t.set(Some(tls)));
}

/// Takes and resets the reason of this thread's last failure.
pub(super) fn take_failure() -> Failure {
    FAILURE.with(|f| f.replace(Failure::None))
}

fn fail(why: Failure) {
    FAILURE.with(|f| f.set(why));
}

impl<VM: VMBinding> ShardSweepSpace<VM> {
    /// Whether a charge may poll the GC trigger: a mutator allocating outside a GC, with
    /// collection enabled and initialised (as `Space::acquire` decides).
    fn may_poll(&self) -> bool {
        // Relaxed: set/cleared by the GC while mutators are stopped; the stop orders it.
        !self.xin_gc.load(Ordering::Relaxed)
            && VM::VMCollection::is_collection_enabled()
            && self.common.global_state.is_initialized()
    }

    /// Tells MMTk that an allocation needing new memory succeeded since the last GC, as the
    /// stock allocators do after every successful slow path (`alloc_slow_inline`). MMTk counts
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
                    self.common.mmap_strategy(),
                    &memory::MmapAnnotation::Space { name: self.get_name() },
                )
                .and(self.common.metadata.try_map_metadata_space(res.start, bytes, self.get_name()))
            {
                memory::handle_mmap_error::<VM>(e, tls, res.start, bytes);
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
        self.chunk_map.set(Chunk::from_unaligned_address(res.start), ChunkState::Allocated);
        // No zeroing here (unlike `Space::acquire`): the core zeroes cells page by page as it
        // hands them out, so untouched pages stay non-resident.
        Some(res.start)
    }

    /// Gives a block back to the page resource (GC workers) or keeps it as a spare (mutators:
    /// the page resource's release queues are per GC worker).
    pub(super) fn return_block(&self, start: Address) {
        // Relaxed: see `may_poll`.
        if self.xin_gc.load(Ordering::Relaxed) {
            self.pr.release_block(Block::from_aligned_address(start));
        } else {
            self.spare.lock().unwrap().push(start);
        }
    }
}

// SAFETY: the page resource hands out distinct, block-aligned blocks of BLOCK_BYTES (a
// `BlockPageResource` over `region::Block`), mapped for the life of the space; spares are such
// blocks, each on the spare list at most once.
unsafe impl<VM: VMBinding> BlockSource for ShardSweepSpace<VM> {
    fn acquire_block(&self) -> Option<(NonNull<u8>, bool)> {
        // Every block given back went through `Block::retire`, which gave all its pages back
        // with the configured advice; fresh memory from the page resource is zero.
        // (With deferred purging a given-back block may not have been purged yet.)
        let zeroed = self.settings.advice == Advice::DontNeed && self.settings.purge_now;
        if let Some(a) = self.spare.lock().unwrap().pop() {
            return NonNull::new(a.to_mut_ptr()).map(|p| (p, zeroed));
        }
        let Some(tls) = MUTATOR_TLS.with(|t| t.get()) else {
            fail(Failure::NoTls);
            return None;
        };
        match self.acquire_from_page_resource(tls) {
            Some(a) => NonNull::new(a.to_mut_ptr()).map(|p| (p, zeroed)),
            None => {
                fail(Failure::Exhausted);
                None
            }
        }
    }

    unsafe fn release_block(&self, block: NonNull<u8>) {
        self.return_block(Address::from_mut_ptr(block.as_ptr()));
    }
}

impl<VM: VMBinding> PageBudget for ShardSweepSpace<VM> {
    fn try_charge(&self, pages: usize) -> bool {
        // The count is an unlimited `CountingBudget`; the limit is MMTk's GC trigger.
        let counted = self.pages.try_charge(pages);
        debug_assert!(counted);
        if self.may_poll() && self.get_gc_trigger().poll(false, Some(self.as_space())) {
            // A GC has been requested: undo the charge, tell the trigger what we wanted, and
            // let the allocator block for the GC outside the core.
            self.pages.uncharge(pages);
            let meta = self.estimate_side_meta_pages(pages);
            self.get_gc_trigger().policy.on_pending_allocation(pages + meta);
            fail(Failure::Vetoed);
            return false;
        }
        self.note_allocation_success();
        true
    }

    fn uncharge(&self, pages: usize) {
        self.pages.uncharge(pages);
    }

    fn charged(&self) -> usize {
        self.pages.charged()
    }
}
