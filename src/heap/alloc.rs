//! The allocation slow path (mimalloc's `_mi_malloc_generic`): a chain of named steps, each
//! bounded (the constants in `bounds.rs`, checked by `tests/bounded*.rs`), each either handing
//! back the block to allocate from or passing on, and the failure a value ([`NoCell`]) that the
//! embedder acts on.
//!
//! The order is the memory order of page accounting: a free cell on a page already charged (our
//! queue, then an abandoned block's) before an idle resident page of a block we hold before a
//! fresh page of a block we hold before a retired block still resident before a fresh block.
//! Charging a new page while listed cells on charged pages wait would grow the heap for
//! nothing, so the queue search only remembers the blocks that could extend. mimalloc 2.3's
//! `mi_page_queue_find_free_ex` takes the first page with room (listed cells or room to extend)
//! as its candidate, looks at up to four more pages for a fully extended one with free cells and
//! at least as many cells in use, and extends the candidate if it has no listed cell: a page is
//! extended while listed cells further down the queue wait.
//!
//! Work of one slow path:
//! * draining delayed frees: at most [`MAX_DRAIN`] cells, each O(1) (the rest wait on
//!   `delayed_rest` for the next slow path);
//! * queue search: at most [`MAX_SEARCH`] blocks, each collected (at most `MAX_COLLECT` remote
//!   frees) and either used (after listing the next page of the dead cells its bitmap sweep left
//!   unlisted, if its list is empty: a mark-bit read per cell of the pages passed over, most often
//!   one page, at most the block's; the first block that has any is used),
//!   remembered as extendable, or moved to the full list (O(1)), so a block is skipped at most
//!   once between two frees into it;
//! * adoption: at most [`MAX_ADOPT`] abandoned blocks popped (O(1) each plus a collect); under
//!   `Adopt::Lease` (`lease.rs`) the first with a free cell gives a lease of at most a page's
//!   worth of cells (O(cells in a page) ≤ 512 links) and is pushed back; under `Adopt::Headroom`
//!   a lease of up to a block's worth less a page (O(cells in a block)), or the block adopted;
//! * extension of one block by one page (O(cells in a page) ≤ 512 links, plus the choice of an
//!   idle resident page: at most one overlap test per page of the block);
//! * a retired resident block or a fresh block: one call to the block source plus O(pages per
//!   block) header set-up.
//!
//! [`MAX_DRAIN`]: crate::bounds::MAX_DRAIN

use super::Heap;
use crate::block::{lease_pages, Adopt, Block, BlockState};
use crate::bounds::{MAX_ADOPT, MAX_SEARCH};
use crate::config::{DIRECT_SLOTS, MAX_DIRECT_BYTES, PAGES_PER_BLOCK, WORD_BYTES};
use crate::no_cell::{Charging, NoCell};
use crate::size_class::bin_bytes;
use crate::sync::Ordering;
use crate::thread_free::Delay;
use std::ptr::NonNull;

/// The blocks a search met that have no free cell but can extend: the first that can extend
/// onto idle resident pages (no charge), the first that can extend at all.
#[derive(Default)]
pub(super) struct Held {
    reusable: Option<*mut Block>,
    extendable: Option<*mut Block>,
}

impl Held {
    /// Files a block without a free cell: remembered if it can extend, else `false` (full).
    ///
    /// # Safety: `b` is queued and owned by the searching heap.
    pub(super) unsafe fn note(&mut self, b: *mut Block) -> bool {
        // SAFETY: per the contract.
        unsafe {
            if !(*b).can_extend() {
                return false;
            }
            self.extendable.get_or_insert(b);
            if self.reusable.is_none() && (*b).can_extend_resident() {
                self.reusable = Some(b);
            }
        }
        true
    }
}

impl Heap {
    /// The slow path: a cell of `bin`, or why there is none. Tells the budget when it charged
    /// pages and handed out a cell ([`crate::PageBudget::allocated_after_charge`]).
    #[inline(never)]
    pub(super) fn alloc_generic(&mut self, bin: usize) -> Result<NonNull<u8>, NoCell> {
        let mut charging = Charging::new(self.shared.budget);
        let got = self.alloc_generic_steps(bin, &mut charging);
        if got.is_ok() && charging.pages() > 0 {
            self.shared.budget.allocated_after_charge(bin, charging.pages());
        }
        got
    }

    fn alloc_generic_steps(
        &mut self,
        bin: usize,
        charging: &mut Charging,
    ) -> Result<NonNull<u8>, NoCell> {
        crate::steps::add(1);
        self.slow_bins |= 1 << bin;
        self.sweep_pending(bin);
        self.drain_delayed();
        let mut held = Held::default();
        let found = match self.search_queue(bin, &mut held) {
            Some(b) => Some(b),
            None => match self.lease_unit() {
                None => self.adopt_abandoned(bin, &mut held),
                Some(pages) => {
                    if let Some(p) = self.lease_cell(bin, pages, &mut held) {
                        return Ok(p);
                    }
                    None
                }
            },
        };
        let block = match found {
            Some(b) => b,
            None => {
                if let Some(p) = self.hole_cell(bin) {
                    return Ok(p);
                }
                let b = match self.extend_held(&held, charging)? {
                    Some(b) => b,
                    None => self.new_block(bin, charging)?,
                };
                self.extend_ahead(b, charging);
                b
            }
        };
        // SAFETY: every step hands back a block queued in this bin with a free cell.
        Ok(unsafe { self.use_block(bin, block) })
    }

    /// Step 0, under a garbage collector's lazy sweep only (never in the malloc front end, which
    /// has no GC): the owner sweeps the bin's unswept blocks before using any of them.
    #[inline]
    fn sweep_pending(&mut self, bin: usize) {
        if !self.unswept[bin].first.is_null() {
            self.sweep_unswept_bin(bin);
        }
    }

    /// Step 2's unit: `None` adopts an abandoned block whole (`Adopt::Block`, and
    /// `Adopt::Headroom` while the room left gives every sharer a block's worth), `Some(pages)`
    /// leases at most `pages` pages' worth of its cells (`Adopt::Lease`: one page).
    #[inline]
    fn lease_unit(&self) -> Option<usize> {
        match self.shared.settings.adopt {
            Adopt::Block => None,
            Adopt::Lease => Some(1),
            Adopt::Headroom => {
                let pages = lease_pages(self.shared.budget.headroom());
                if pages >= PAGES_PER_BLOCK {
                    None
                } else {
                    Some(pages)
                }
            }
        }
    }

    /// Step 1: searches the bin's queue (at most [`MAX_SEARCH`] blocks), collecting remote
    /// frees; a block that can neither give a cell nor extend moves to the full list.
    fn search_queue(&mut self, bin: usize, held: &mut Held) -> Option<*mut Block> {
        let mut b = self.queues[bin].first;
        let mut searched = 0;
        while !b.is_null() && searched < MAX_SEARCH {
            crate::steps::add(1);
            // SAFETY: queued blocks are live and owned by this heap.
            unsafe {
                let next = (*b).next;
                (*b).collect();
                if (*b).has_free() || self.list_unlisted(b) {
                    return Some(b);
                }
                if !held.note(b) {
                    self.to_full(b);
                }
                b = next;
            }
            searched += 1;
        }
        if !b.is_null() {
            crate::steps::limited(crate::steps::Limit::Search);
        }
        None
    }

    /// Step 1's and 2's first resort for a block without a listed cell: the next pages of the
    /// dead cells its sweep left unlisted (`block/unlisted.rs`, at most
    /// `Settings::listing_pages` pages with dead cells), listed with the marks that sweep read.
    /// Work: those pages' cells, as an extension, without a charge.
    ///
    /// # Safety: the caller holds `b` exclusively (owned, or popped from its stack).
    pub(super) unsafe fn list_unlisted(&self, b: *mut Block) -> bool {
        // SAFETY: per the contract.
        unsafe {
            if !(*b).has_unlisted() {
                return false;
            }
            let Some(marks) = self.shared.settings.marks.as_ref() else {
                debug_assert!(false, "unlisted cells without a mark bitmap");
                return false;
            };
            (*b).list_unlisted(marks, self.shared.settings.zero_cells, self.shared.settings.listing_pages)
        }
    }

    /// Step 2: adopts abandoned blocks of the bin (at most [`MAX_ADOPT`]) into the queue; one
    /// with a free cell is used at once, one that can only extend is noted for step 3.
    fn adopt_abandoned(&mut self, bin: usize, held: &mut Held) -> Option<*mut Block> {
        for _ in 0..MAX_ADOPT {
            crate::steps::add(1);
            let b = self.shared.adopt(bin)?;
            // SAFETY: popping the block from its stack made us its exclusive holder.
            if unsafe { self.adopt_whole(b, held) } {
                return Some(b);
            }
        }
        crate::steps::limited(crate::steps::Limit::Adopt);
        None
    }

    /// Adopts a popped abandoned block whole into its bin's queue, its remote frees collected:
    /// `true` if it has a free cell; else it is noted if it can extend, or moved to the full
    /// list (where the sweep finds it). Step 2's tail under either adoption unit.
    ///
    /// # Safety: the caller popped `b` from its stack (exclusive holder, on no list).
    pub(super) unsafe fn adopt_whole(&mut self, b: *mut Block, held: &mut Held) -> bool {
        // SAFETY: per the contract.
        unsafe {
            self.take_ownership(b);
            (*b).collect();
            (*b).state = BlockState::Queued;
            self.queues[(*b).bin()].push_front(b);
            if (*b).has_free() || self.list_unlisted(b) {
                return true;
            }
            if !held.note(b) {
                self.to_full(b);
            }
        }
        false
    }

    /// Step 2b, when lending holes (`block/lend.rs`): a cell's worth of bytes of `bin` from the
    /// hole this heap fills, else from a hole lent at the last sweep; before any page is charged.
    fn hole_cell(&mut self, bin: usize) -> Option<NonNull<u8>> {
        let min = self.shared.settings.lend_holes;
        let bytes = bin_bytes(bin);
        if min == 0 || bytes < min {
            return None;
        }
        crate::steps::add(1);
        let (next, end) = self.hole;
        let at = if next != 0 && next + bytes <= end {
            self.hole.0 = next + bytes;
            next
        } else {
            let (start, end) = self.shared.take_hole(bytes)?;
            self.hole = (start + bytes, end);
            start
        };
        // Provenance: the block's was exposed when it was set up (`Block::init`).
        NonNull::new(std::ptr::with_exposed_provenance_mut(at))
    }

    /// Steps 3 and 4: lists the cells of an idle resident page of a block we hold (no charge),
    /// else charges one more page of a block we hold ([`NoCell::Refused`] if the budget vetoes:
    /// time to collect). `None` if no held block can extend.
    fn extend_held(
        &mut self,
        held: &Held,
        charging: &mut Charging,
    ) -> Result<Option<*mut Block>, NoCell> {
        let zero = self.shared.settings.zero_cells;
        for b in [held.reusable, held.extendable].into_iter().flatten() {
            // SAFETY: held blocks are queued and owned by this heap.
            if unsafe { (*b).extend(charging, zero, self.shared.settings.spill)? } {
                return Ok(Some(b));
            }
        }
        Ok(None)
    }

    /// Steps 3 to 6's tail: while the heap has room, `b` (just extended by a page) extends by a
    /// few more, up to `Settings::extension_pages` pages in all and no more than the room's
    /// share per (heap, size class) pair ([`lease_pages`]): one slow path, and under a JIT one
    /// call into the runtime, then lists several pages' cells (a 4.5 KiB cell takes a page of
    /// its own). An extension that finds nothing to extend or is refused ends it: the cell the
    /// first page gave is enough (a refusal has asked for a GC, which comes at the next stop).
    fn extend_ahead(&mut self, b: *mut Block, charging: &mut Charging) {
        let most = self.shared.settings.extension_pages;
        if most <= 1 {
            return;
        }
        let pages = most.min(lease_pages(self.shared.budget.headroom()));
        if pages <= 1 {
            return;
        }
        let settings = &self.shared.settings;
        // SAFETY (both): `b` is queued in its bin and owned by this heap (the caller's block);
        // `tail` is the last cell of its list, kept so by each `extend_behind`.
        let mut tail = unsafe { (*b).free_tail() };
        for _ in 1..pages {
            // Behind the list: the lowest page's cells go out first, as in a one-page extension
            // (so the first cells of a new block share its header's page).
            // SAFETY: see above.
            let extended = unsafe { (*b).extend_behind(&mut tail, charging, settings.zero_cells, settings.spill) };
            if !matches!(extended, Ok(true)) {
                break;
            }
        }
    }

    /// Steps 5 and 6: a retired block whose pages are still resident (the source's, if it keeps
    /// them: its pages cost nothing, but a new block spreads the bin's cells over one more
    /// header), else a fresh block from the source; queued in the bin and extended by a page.
    fn new_block(&mut self, bin: usize, charging: &mut Charging) -> Result<*mut Block, NoCell> {
        let shared = self.shared;
        let b = match shared.resident_block(bin, charging)? {
            Some(b) => b,
            None => shared.fresh_block(bin, self.thread, charging)?,
        };
        // SAFETY: the new block is ours and on no list.
        unsafe {
            self.take_ownership(b);
            (*b).state = BlockState::Queued;
            self.queues[bin].push_front(b);
            if !(*b).extend(charging, shared.settings.zero_cells, shared.settings.spill)? {
                // A block of a class always has a page to extend.
                debug_assert!(false, "a new block of bin {bin} could not extend");
                return Err(NoCell::NoMemory);
            }
        }
        Ok(b)
    }

    /// Makes `b` (queued, with a free cell) the bin's current block and pops from it.
    ///
    /// # Safety: `b` is on this bin's queue, owned, and has a free cell.
    unsafe fn use_block(&mut self, bin: usize, b: *mut Block) -> NonNull<u8> {
        // SAFETY: `b` is on this bin's queue and owned.
        let cell = unsafe {
            if self.queues[bin].first != b {
                self.queues[bin].remove(b);
                self.queues[bin].push_front(b);
            }
            if self.shared.settings.lease_current && self.leases[bin].free.is_null() {
                // The block's whole list becomes the bin's lease (its cells counted handed out
                // in the block): every pop of the bin is then from the lease head.
                let (cells, _) = (*b).take_all();
                self.leases[bin].free = cells;
                // The fast path counts pops in `used`; restarting it keeps it ≤ a lease.
                self.leases[bin].used = 0;
                self.set_direct(bin);
                self.leases[bin].pop()
            } else {
                self.set_direct(bin);
                (*b).pop()
            }
        };
        debug_assert!(!cell.is_null(), "use_block of a block without a free cell");
        // SAFETY: the caller's block has a free cell, so the pop returned one.
        unsafe { NonNull::new_unchecked(cell) }
    }

    /// Points the direct slots of `bin` at its current block.
    pub(super) fn set_direct(&mut self, bin: usize) {
        let lo_bytes = if bin == 1 { 0 } else { bin_bytes(bin - 1) + 1 };
        let hi_bytes = bin_bytes(bin);
        if lo_bytes > MAX_DIRECT_BYTES {
            return;
        }
        let first = self.current(bin);
        let lo = lo_bytes.div_ceil(WORD_BYTES);
        // The bin's slots are only ever written together, here: if one already points at
        // `first`, all do (mimalloc's `mi_heap_queue_first_update` also skips that case). Most
        // calls find the current block unchanged (a slow path that refilled it, `to_full` of
        // another block).
        if self.direct[lo] == first {
            return;
        }
        let hi = (hi_bytes / WORD_BYTES).min(DIRECT_SLOTS - 1);
        crate::steps::add(hi + 1 - lo);
        for w in lo..=hi {
            self.direct[w] = first;
        }
    }

    /// # Safety: the caller owns `b`, which is on no list.
    pub(super) unsafe fn take_ownership(&mut self, b: *mut Block) {
        // SAFETY: per the contract.
        unsafe {
            // Release: a remote freer on the delayed path reads the heap with Acquire.
            (*b).xheap.store(self.id(), Ordering::Release);
            // A fresh block is in NoDelayed and an adopted one in Never: no freer is on the
            // delayed path (Freeing), so this never waits.
            let set = (*b).xthread_free.set_delay_nowait(Delay::NoDelayed, true);
            debug_assert!(set);
        }
    }
}
