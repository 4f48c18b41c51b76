//! The space as the core's block source: blocks from the space's block page resource (as
//! `Space::acquire` takes pages, without its poll: the poll happens per 4 KiB page in the
//! budget), retired blocks kept resident for reuse, and dropped blocks kept as spares.

use super::ShardSweepSpace;
use crate::mmtk::SFT_MAP;
use crate::policy::marksweepspace::shardsweep::region::Block;
use crate::policy::space::Space;
use crate::util::conversions;
use crate::util::heap::chunk_map::Chunk;
use crate::util::heap::PageResource;
use crate::util::linear_scan::Region;
use crate::util::os::{MmapAnnotation, OSMemory, OS};
use crate::util::{Address, OpaquePointer, VMThread};
use crate::vm::VMBinding;
use shardsweep::BlockSource;
use std::ptr::NonNull;
use std::sync::atomic::Ordering;

// SAFETY: the page resource hands out distinct, block-aligned blocks of BLOCK_BYTES (a
// `BlockPageResource` over `region::Block`), mapped for the life of the space; spares are such
// blocks, each on the spare list at most once.
unsafe impl<VM: VMBinding> BlockSource for ShardSweepSpace<VM> {
    fn acquire_resident_block(&self) -> Option<NonNull<u8>> {
        let a = self.kept.lock().unwrap().pop()?;
        NonNull::new(a.to_mut_ptr())
    }

    fn acquire_block(&self, thread: usize) -> Option<(NonNull<u8>, bool)> {
        // Spares and the page resource's blocks are zero: dropped when their chunk came to the
        // space (`acquire_from_page_resource`), or with MADV_DONTNEED before they were given
        // back (`Block::drop_retired`); blocks with resident pages are on the kept list instead.
        let zeroed = true;
        if let Some(a) = self.spare.lock().unwrap().pop() {
            return NonNull::new(a.to_mut_ptr()).map(|p| (p, zeroed));
        }
        // The heap's thread word is its mutator's `VMThread` (`ShardSweepAllocator::new`).
        // SAFETY: the word was made from a `VMThread` pointer, so it is that pointer's address.
        let tls = VMThread(OpaquePointer::from_address(unsafe { Address::from_usize(thread) }));
        // `None` is out of (virtual) memory in the page resource: the core's `NoCell::NoMemory`.
        acquire_from_page_resource(self, tls).and_then(|a| NonNull::new(a.to_mut_ptr()).map(|p| (p, zeroed)))
    }

    unsafe fn release_block(&self, block: NonNull<u8>) {
        return_block(self, Address::from_mut_ptr(block.as_ptr()));
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
            return_block(self, start);
        }
    }
}

/// Takes one block from the page resource like `Space::acquire` after its poll: reserve,
/// get pages under the acquire lock, map pages and side metadata, grow the space (SFT).
fn acquire_from_page_resource<VM: VMBinding>(space: &ShardSweepSpace<VM>, tls: VMThread) -> Option<Address> {
    let pages = Block::PAGES;
    let pr = &space.pr;
    let reserved = pr.reserve_pages(pages);
    let lock = space.common.acquire_lock.lock().unwrap();
    let res = match pr.get_new_pages(space.common.descriptor, reserved, pages, tls) {
        Ok(res) => res,
        Err(_) => {
            drop(lock);
            pr.clear_request(reserved);
            return None;
        }
    };
    let bytes = conversions::pages_to_bytes(res.pages);
    let mmap = || {
        if let Err(e) = space
            .common
            .mmapper
            .ensure_mapped(
                res.start,
                res.pages,
                space.common.options.transparent_hugepages_as_huge_page_support(),
                space.common.mmap_protection(),
                &MmapAnnotation::Space { name: space.get_name() },
            )
            .and(space.common.metadata.try_map_metadata_space(res.start, bytes, space.get_name()))
        {
            OS::handle_mmap_error::<VM>(e, tls);
        }
    };
    // A new chunk: the page resource took it whole from the global chunk pool and put its other
    // blocks in its pool. A chunk another space (the large-object space) used and gave back is
    // still resident and dirty (MMTk leaves freed pages so), but the core takes every block from
    // here as zero and non-resident (`acquire_block`). So drop it, under the acquire lock: no
    // other block of it can be handed out before (every acquisition takes the lock). Nothing of
    // ours is in it yet. One system call per chunk; on a chunk not yet mapped (never used) it
    // fails with ENOMEM and there is nothing to drop.
    let drop_new_chunk = || {
        if res.new_chunk {
            // SAFETY: the chunk belongs to this space now and holds no live data of any space;
            // MADV_DONTNEED leaves anonymous pages reading as zero.
            unsafe { libc::madvise(res.start.to_mut_ptr(), Chunk::BYTES, libc::MADV_DONTNEED) };
        }
    };
    if SFT_MAP.get_side_metadata().is_some() {
        mmap();
        space.grow_space(res.start, bytes, res.new_chunk);
        drop_new_chunk();
        drop(lock);
    } else {
        space.grow_space(res.start, bytes, res.new_chunk);
        drop_new_chunk();
        drop(lock);
        mmap();
    }
    space.chunk_map.set_allocated(Chunk::from_unaligned_address(res.start), true);
    // No zeroing here (unlike `Space::acquire`): the core zeroes cells page by page as it
    // hands them out, so untouched pages stay non-resident.
    Some(res.start)
}

/// Gives a block back: a retired block whose pages are still resident (and counted) is kept
/// for reuse (`kept`, see purge.rs); a dropped one goes to the page resource (GC workers) or
/// is kept as a spare (mutators: the page resource's release queues are per GC worker).
fn return_block<VM: VMBinding>(space: &ShardSweepSpace<VM>, start: Address) {
    // Not read: with `SHARDSWEEP_PURGE=now` the core dropped the block before giving it back
    // (reading its header would map the zero page); otherwise the core keeps retired blocks
    // (`keeps_retired_blocks`), so every block given back here is retired with its pages.
    if space.settings.purge != crate::policy::marksweepspace::shardsweep::purge::Purge::Now {
        space.kept.lock().unwrap().push(start);
        // Relaxed: a hint for the pressure path (see `try_charge`).
        space.xmay_drop.store(true, Ordering::Relaxed);
    } else if space.xin_gc.load(Ordering::Relaxed) {
        // Relaxed: see `may_poll`.
        space.pr.release_block(Block::from_aligned_address(start));
    } else {
        space.spare.lock().unwrap().push(start);
    }
}
