//! A block's pages: initialising a header (charging its first page, or every page under
//! whole-block accounting, and inheriting a retired block's resident pages), and extension, one
//! OS page of cells at a time, idle resident pages before fresh ones.
//!
//! A page's last cell may spill into the next page (cells do not tile 4 KiB pages: a 48 B cell
//! crosses most page boundaries). [`Spill`] says what an extension does with it when that next
//! page is not charged: charge it (the whole cell is listed), or set the cell aside (`excluded`,
//! as a sweep does) until a later extension charges the next page. Under page accounting a
//! mutator filling a block page by page then holds one charged page in reserve per block, not
//! two; a block of 4 KiB has no spilling cell at all.

use super::{cells_starting_in, Block, BlockState, MAGIC, RETIRED_MAGIC};
use crate::budget::Accounting;
use crate::cell::Cell;
use crate::config::{BLOCK_MASK, HEADER_BYTES, PAGES_PER_BLOCK};
use crate::no_cell::{Charging, NoCell};
use crate::page_mask::PageMask;
use crate::size_class::bin_bytes;
use crate::sync::{AtomicPtr, AtomicUsize};
use crate::thread_free::{Delay, ThreadFree};
use std::ptr;

/// What an extension does with a page's last cell when it spills into a page not yet charged
/// (see the module doc). Whole-block accounting charges every page: nothing spills there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Spill {
    /// Charge the next page and list the cell (the layout's natural extension).
    #[default]
    Charge,
    /// Set the cell aside until the next page is charged, if another cell starts in the page
    /// (a page whose only cell spills charges what that cell needs, as with `Charge`).
    Defer,
}

impl Spill {
    /// Parses `charge` or `defer`.
    pub fn parse(s: &str) -> Result<Spill, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "charge" => Ok(Spill::Charge),
            "defer" => Ok(Spill::Defer),
            other => Err(format!("invalid spill rule {other:?}: valid values are charge, defer")),
        }
    }

    /// The name `parse` takes.
    pub fn name(self) -> &'static str {
        match self {
            Spill::Charge => "charge",
            Spill::Defer => "defer",
        }
    }
}

impl Block {
    /// Initialises a header for size class `bin` in the block at `start` and charges it (page 0,
    /// or the whole block under block accounting). Returns null if the budget vetoes (the block
    /// is left as it was). A block whose previous header was retired without dropping its pages
    /// ([`Block::retire`]) inherits them as idle resident pages: they are still counted by the
    /// budget, and extensions use them before fresh pages.
    ///
    /// # Safety
    /// `start` is a block-aligned block of `BLOCK_BYTES` that nothing else uses, all of whose
    /// bytes are initialised (fresh zero pages, or a block of this allocator given back).
    pub unsafe fn init(
        start: *mut u8,
        bin: usize,
        zeroed: bool,
        accounting: Accounting,
        charging: &mut Charging,
    ) -> Result<*mut Block, NoCell> {
        // Exposes the whole block's provenance (an `as usize` cast does), so that addresses
        // computed inside the block can be turned back into pointers (see `start`).
        let base = start as usize;
        debug_assert_eq!(base & BLOCK_MASK, 0);
        let old = start as *const Block;
        // A zeroed block is not read (reading a page the OS has not backed would map it).
        let (old_magic, old_resident) = if zeroed {
            (0, PageMask::EMPTY)
        } else {
            // SAFETY: the caller hands us the whole, initialised block; only integer fields of
            // the previous header are read (through raw pointers: the rest may be any bytes).
            unsafe {
                (
                    ptr::addr_of!((*old).magic).read(),
                    ptr::addr_of!((*old).resident).read(),
                )
            }
        };
        let (inherited, dirty) = if old_magic == RETIRED_MAGIC {
            (old_resident, old_resident.union(PageMask::page(0)))
        } else if zeroed {
            (PageMask::EMPTY, PageMask::page(0))
        } else {
            (PageMask::EMPTY, PageMask::ALL)
        };
        let charged = match accounting {
            Accounting::Page => PageMask::page(0),
            Accounting::Block => PageMask::ALL,
        };
        // Counting resident pages, inherited pages are counted already; counting pages in use,
        // the header page (every page, under block accounting) comes into use now.
        let fresh = charged.minus(inherited);
        let new = if charging.budget().counts_idle() { fresh } else { charged };
        charging.charge_fresh(new.count(), fresh.count())?;
        let cell_size = bin_bytes(bin);
        crate::steps::add(crate::bounds::INIT_STEPS);
        let block = start as *mut Block;
        // SAFETY: the caller hands us the whole block; the header fits in its first bytes.
        unsafe {
            block.write(Block {
                free: ptr::null_mut(),
                used: 0,
                cell_size: cell_size as u32,
                local_free: ptr::null_mut(),
                xthread_free: ThreadFree::new(Delay::NoDelayed),
                extended: PageMask::EMPTY,
                charged,
                dirty,
                pending: ptr::null_mut(),
                excluded: PageMask::EMPTY,
                capacity: 0,
                unlisted_free: 0,
                list_from: PAGES_PER_BLOCK as u8,
                next: ptr::null_mut(),
                prev: ptr::null_mut(),
                xheap: AtomicPtr::new(ptr::null_mut()),
                xstack_next: AtomicUsize::new(0),
                bin: bin as u8,
                state: BlockState::Queued,
                magic: MAGIC,
                resident: inherited.union(charged),
            });
        }
        Ok(block)
    }

    /// Idle pages: resident (counted by the budget) but holding no listed or allocated cell.
    #[inline]
    pub fn idle(&self) -> PageMask {
        self.resident.minus(self.charged)
    }

    /// Pages that may be resident (see the module doc).
    #[inline]
    pub fn resident(&self) -> PageMask {
        self.resident
    }

    /// The page the next extension lists: the lowest page not yet extended whose cells lie on
    /// resident pages only (an idle page is reused before a fresh one is touched), else the
    /// lowest page not yet extended. Work: at most one overlap test per page of the block.
    fn next_extension(&self) -> Option<usize> {
        let candidates = self.starts().minus(self.extended);
        if !self.idle().is_empty() {
            let mut rest = candidates.0;
            while rest != 0 {
                let p = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                crate::steps::add(1);
                if self.resident.covers(self.overlap(p)) {
                    return Some(p);
                }
            }
        }
        candidates.first()
    }

    /// Whether the next extension needs no new resident page (it reuses idle pages).
    pub fn can_extend_resident(&self) -> bool {
        self.next_extension()
            .is_some_and(|p| self.resident.covers(self.overlap(p)))
    }

    /// Lists the cells of one page not yet extended ([`Block::next_extension`]: idle resident
    /// pages first), charging the pages they overlap; only pages not already resident cost the
    /// budget. `zero`: the cells must read as zero (garbage-collected mode). `spill`: whether a
    /// last cell spilling into a page not yet charged charges it or waits ([`Spill`]).
    /// `Ok(false)` if there is nothing to extend, [`NoCell::Refused`] if the budget vetoes.
    /// Work: one page of cells (at most 512 links) plus the choice of the page (at most one
    /// overlap test per page).
    pub fn extend(&mut self, charging: &mut Charging, zero: bool, spill: Spill) -> Result<bool, NoCell> {
        self.extend_at(charging, zero, spill, None)
    }

    /// [`Block::extend`], the new cells linked behind `*tail` (the last cell of `free`, null if
    /// it is empty) instead of in front, so that pages extended one after another in one slow
    /// path (`Heap::extend_ahead`) are handed out in address order, the lowest first, as one
    /// page's cells are; `*tail` becomes the new last cell.
    ///
    /// # Safety
    /// `*tail` is null with `free` empty, or the last cell of `free` (its link null).
    pub(crate) unsafe fn extend_behind(
        &mut self,
        tail: &mut *mut Cell,
        charging: &mut Charging,
        zero: bool,
        spill: Spill,
    ) -> Result<bool, NoCell> {
        self.extend_at(charging, zero, spill, Some(tail))
    }

    /// The last cell of `free` (null if it is empty). Work: one link per listed cell.
    pub(crate) fn free_tail(&self) -> *mut Cell {
        let mut c = self.free;
        let mut last = ptr::null_mut();
        while !c.is_null() {
            crate::steps::add(1);
            last = c;
            // SAFETY: `free` links listed cells of this block, each readable.
            c = unsafe { (*c).next };
        }
        last
    }

    fn extend_at(
        &mut self,
        charging: &mut Charging,
        zero: bool,
        spill: Spill,
        behind: Option<&mut *mut Cell>,
    ) -> Result<bool, NoCell> {
        let Some(p) = self.next_extension() else {
            return Ok(false);
        };
        crate::steps::extension();
        let (first, all_end) = cells_starting_in(p, self.cell_size(), self.reserved());
        // The last cell waits if it spills into a page not charged and is not the page's only cell.
        let defer = spill == Spill::Defer && all_end - first >= 2 && {
            let off = HEADER_BYTES + (all_end - 1) * self.cell_size();
            !self
                .charged
                .union(PageMask::page(p))
                .covers(PageMask::of_range(off, off + self.cell_size()))
        };
        let end = if defer { all_end - 1 } else { all_end };
        let overlap = PageMask::of_range(
            HEADER_BYTES + first * self.cell_size(),
            HEADER_BYTES + end * self.cell_size(),
        );
        // Counting resident pages, an idle page is counted already; counting pages in use, it
        // comes into use now (a neighbour's extension may have charged a shared page).
        let fresh = overlap.minus(self.resident);
        let new = if charging.budget().counts_idle() {
            fresh
        } else {
            overlap.minus(self.charged)
        };
        charging.charge_fresh(new.count(), fresh.count())?;
        self.resident = self.resident.union(overlap);
        self.charged = self.charged.union(overlap);
        if zero && !self.dirty.intersect(overlap).is_empty() {
            let lo = self.cell(first);
            let bytes = (end - first) * self.cell_size();
            // SAFETY: the range is exactly the cells starting in page p (less a deferred last one),
            // none of which is listed or handed out (p was not extended), all inside the block.
            unsafe { ptr::write_bytes(lo, 0, bytes) };
        }
        // Link the new cells in address order, in front of the current free list or behind it.
        crate::steps::add(end - first);
        let mut head = if behind.is_none() { self.free } else { ptr::null_mut() };
        for i in (first..end).rev() {
            let c = self.cell(i) as *mut Cell;
            // SAFETY: `c` is an unlisted cell of this block.
            unsafe { (*c).next = head };
            head = c;
        }
        match behind {
            None => self.free = head,
            Some(tail) if end > first => {
                if tail.is_null() {
                    debug_assert!(self.free.is_null(), "a null tail with a non-empty free list");
                    self.free = head;
                } else {
                    // SAFETY: per `extend_behind`'s contract, `*tail` is the list's last cell.
                    unsafe {
                        debug_assert!((**tail).next.is_null(), "the tail is not the list's last cell");
                        (**tail).next = head;
                    }
                }
                *tail = self.cell(end - 1) as *mut Cell;
            }
            Some(_) => {}
        }
        self.capacity += (end - first) as u32;
        self.extended = self.extended.union(PageMask::page(p));
        if defer {
            self.excluded = self.excluded.union(PageMask::page(p));
        }
        self.dirty = self.dirty.union(overlap);
        // Cells set aside by a sweep whose pages are charged again are listed again (at most one
        // per page: bounded by the block's pages).
        let mut rest = self.excluded.0;
        while rest != 0 {
            let e = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            crate::steps::add(1);
            let i = self.excluded_cell(e);
            let off = HEADER_BYTES + i * self.cell_size();
            if self
                .charged
                .covers(PageMask::of_range(off, off + self.cell_size()))
            {
                let c = self.cell(i);
                // SAFETY: the set-aside cell is neither listed nor handed out; it lies in the
                // block and every page it touches is charged (mapped for our use).
                unsafe {
                    if zero {
                        ptr::write_bytes(c, 0, self.cell_size());
                    }
                    (*(c as *mut Cell)).next = self.free;
                }
                self.free = c as *mut Cell;
                self.capacity += 1;
                self.excluded = self.excluded.minus(PageMask::page(e));
            }
        }
        debug_assert!(self.is_valid());
        Ok(true)
    }
}
