//! Giving memory back: dropping a block's idle pages, retiring an empty block's header (its
//! resident pages kept for the next `init` of the block), and dropping a retired block's pages.

use super::{Block, BlockState, RETIRED_MAGIC};
use crate::budget::PageBudget;
use crate::config::{BLOCK_BYTES, LOG_PAGE_BYTES};
use crate::os::OsMemory;
use crate::page_mask::PageMask;
use std::ptr;

impl Block {
    /// Drops every idle page from the RSS (`OsMemory::drop_pages`) and from the budget (if it
    /// counts idle pages). Returns the number of pages dropped. Work: one system call per run of
    /// idle pages.
    ///
    /// # Safety
    /// The caller holds the block exclusively (its owner; a popped abandoned block; or the world
    /// stopped). Remote frees may run concurrently: they only touch allocated cells, which lie
    /// on charged pages.
    pub unsafe fn drop_idle(&mut self, budget: &dyn PageBudget, os: &dyn OsMemory) -> usize {
        // SAFETY: per the contract.
        unsafe { self.drop_idle_in(PageMask::ALL, budget, os) }
    }

    /// [`Block::drop_idle`] restricted to the pages of `within`.
    ///
    /// # Safety
    /// As for [`Block::drop_idle`].
    pub unsafe fn drop_idle_in(
        &mut self,
        within: PageMask,
        budget: &dyn PageBudget,
        os: &dyn OsMemory,
    ) -> usize {
        let idle = self.idle().intersect(within);
        if idle.is_empty() {
            return 0;
        }
        for (first, n) in idle.runs() {
            // SAFETY: idle pages hold no listed or allocated cell and not the header (page 0 is
            // charged while the header is live).
            unsafe { os.drop_pages(self.at(first << LOG_PAGE_BYTES), n << LOG_PAGE_BYTES) };
        }
        self.resident = self.resident.minus(idle);
        self.dirty = self.dirty.minus(idle);
        if budget.counts_idle() {
            budget.uncharge(idle.count());
        }
        budget.note_resident(-(idle.count() as isize));
        debug_assert!(self.is_valid());
        idle.count()
    }

    /// Retires an empty block: its header becomes a retired one (not live) that keeps the
    /// `resident` mask, so the pages stay resident (counted by a budget that counts resident
    /// pages; a budget that counts pages in use is uncharged for the pages still in use, the
    /// header's) until [`Block::drop_retired`] drops them or the next [`Block::init`] of the
    /// block inherits them. The caller then returns the block to its source (after dropping it,
    /// unless the embedder keeps retired blocks resident for reuse).
    ///
    /// # Safety
    /// `block` is an empty block owned by the caller and on no list.
    pub unsafe fn retire(block: *mut Block, budget: &dyn PageBudget) {
        // SAFETY: the caller owns the block.
        let b = unsafe { &mut *block };
        debug_assert_eq!(b.used, 0, "retiring a block with allocated cells");
        if !budget.counts_idle() {
            budget.uncharge(b.charged.count());
        }
        b.state = BlockState::Released;
        b.magic = RETIRED_MAGIC;
        b.charged = PageMask::EMPTY;
        b.free = ptr::null_mut();
        b.local_free = ptr::null_mut();
    }

    /// The pages a retired header still counts (empty for a live or dropped block).
    ///
    /// # Safety
    /// `block` is a block of this allocator, all of whose header bytes are initialised.
    pub unsafe fn retired_resident(block: *const Block) -> PageMask {
        // SAFETY: integer fields read through raw pointers (the header may be dead).
        unsafe {
            if ptr::addr_of!((*block).magic).read() == RETIRED_MAGIC {
                ptr::addr_of!((*block).resident).read()
            } else {
                PageMask::EMPTY
            }
        }
    }

    /// Drops every resident page of a retired block (or of a block whose header is dead
    /// otherwise: then nothing is counted) and uncharges them if the budget counts idle pages (a
    /// retired block has no page in use). Returns the pages dropped.
    /// Takes the raw pointer: the OS wipes the header, so no reference may live across the drop.
    ///
    /// # Safety
    /// `block` is a block of this allocator that nobody uses (retired, held exclusively by the
    /// caller, e.g. under its source's lock), all of whose bytes are initialised.
    pub unsafe fn drop_retired(
        block: *mut Block,
        budget: &dyn PageBudget,
        os: &dyn OsMemory,
    ) -> usize {
        // SAFETY: integer fields of a header held exclusively (raw reads: it may be dead).
        let (magic, resident) = unsafe {
            (
                ptr::addr_of!((*block).magic).read(),
                ptr::addr_of!((*block).resident).read(),
            )
        };
        if magic != RETIRED_MAGIC || resident.is_empty() {
            return 0;
        }
        // SAFETY: nothing lives in a retired block; the address-derived pointer carries the
        // block's exposed provenance (see `start`).
        // The header reads as zero afterwards (`drop_pages`' contract): no longer retired.
        unsafe { os.drop_pages((block as usize) as *mut u8, BLOCK_BYTES) };
        if budget.counts_idle() {
            budget.uncharge(resident.count());
        }
        budget.note_resident(-(resident.count() as isize));
        resident.count()
    }
}
