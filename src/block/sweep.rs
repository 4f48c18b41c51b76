//! Sweeping a block: ask the liveness oracle about every cell of the extended pages once, rebuild
//! the free list (or its first page, `unlisted.rs`) from the dead cells (in address order, or the pages with the most live cells
//! first: [`ReuseOrder`]), and give back every page no live cell overlaps (page accounting), or
//! account only (the lazy sweep's first half).

use super::{cells_starting_in, Block, BlockState, Lend, LiveMap, MarkBitmap, SweepResult, LIVE_WORDS};
use crate::budget::{Accounting, PageBudget};
use crate::cell::Cell;
use crate::config::{HEADER_BYTES, LOG_PAGE_BYTES, PAGES_PER_BLOCK, PAGE_BYTES};
use crate::os::OsMemory;
use crate::page_mask::PageMask;
use std::ptr;

/// The order in which a sweep lists a block's free cells, i.e. the order a mutator reuses them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReuseOrder {
    /// Address order (mimalloc's and stock MarkSweep's).
    #[default]
    Address,
    /// Page by page, the pages with the largest share of live cells first (address order within
    /// a page and among pages of equal share): a mutator that needs fewer cells than the block
    /// offers fills the holes of dense pages and leaves sparse pages alone, so that their last
    /// live cells may die and the next sweep gives those pages back.
    Densest,
    /// The pages with the smallest share of live cells first (the largest holes): what a mutator
    /// allocates between two GCs lies on few pages, so that the objects still live at the next
    /// GC (those it was using when the GC came) pin few pages.
    Sparsest,
}

impl ReuseOrder {
    /// Parses `address`, `densest` or `sparsest`.
    pub fn parse(s: &str) -> Result<ReuseOrder, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "address" => Ok(ReuseOrder::Address),
            "densest" => Ok(ReuseOrder::Densest),
            "sparsest" => Ok(ReuseOrder::Sparsest),
            other => Err(format!(
                "invalid reuse order {other:?}: valid values are address, densest, sparsest"
            )),
        }
    }
}

/// Orders `pages` (extended pages, ascending) for listing: unchanged for address order, by
/// descending share of live cells (`live[p]` of `cells[p]`) for [`ReuseOrder::Densest`],
/// ascending for [`ReuseOrder::Sparsest`], ties in address order. Work: an insertion sort of at
/// most `PAGES_PER_BLOCK` entries.
fn order_pages(
    pages: &mut [usize],
    live: &[u32; PAGES_PER_BLOCK],
    cells: &[u32; PAGES_PER_BLOCK],
    order: ReuseOrder,
) {
    if order == ReuseOrder::Address {
        return;
    }
    // live[a]/cells[a] > live[b]/cells[b], cross-multiplied (no division).
    let denser = |a: usize, b: usize| {
        u64::from(live[a]) * u64::from(cells[b]) > u64::from(live[b]) * u64::from(cells[a])
    };
    let before = |a: usize, b: usize| {
        if order == ReuseOrder::Densest {
            denser(a, b)
        } else {
            denser(b, a)
        }
    };
    for i in 1..pages.len() {
        let p = pages[i];
        let mut j = i;
        while j > 0 && before(p, pages[j - 1]) {
            pages[j] = pages[j - 1];
            j -= 1;
        }
        pages[j] = p;
    }
}

/// The bits of word `w` of a cell bitmap that stand for cells of `[first, end)`.
fn word_range(w: usize, first: usize, end: usize) -> u64 {
    let lo = (w * 64).max(first);
    let hi = (w * 64 + 64).min(end);
    match hi.saturating_sub(lo) {
        0 => 0,
        64 => u64::MAX,
        span => ((1u64 << span) - 1) << (lo % 64),
    }
}

/// The cells of `[first, end)` set in `map`, a 64-bit word at a time.
fn count_in(map: &LiveMap, first: usize, end: usize) -> u32 {
    if first >= end {
        return 0;
    }
    (first / 64..=(end - 1) / 64).map(|w| (map[w] & word_range(w, first, end)).count_ones()).sum()
}

impl Block {
    /// Asks `is_live` about every cell of the extended pages (once each, in address order):
    /// the live cells as a bitmap by cell index, and their number.
    fn live_map(&self, is_live: &mut dyn FnMut(*mut u8) -> bool) -> (LiveMap, u32) {
        self.live_map_except(is_live, &[0u64; LIVE_WORDS])
    }

    /// As [`Block::live_map`], not asking about the cells in `skip` (lent runs). (The bitmap's
    /// live map, `marks.rs`, visits only the set bits instead.)
    fn live_map_except(&self, is_live: &mut dyn FnMut(*mut u8) -> bool, skip: &LiveMap) -> (LiveMap, u32) {
        let mut live = [0u64; LIVE_WORDS];
        let mut live_count = 0u32;
        let cs = self.cell_size();
        let mut rest = self.extended.0;
        while rest != 0 {
            let p = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let (first, end) = cells_starting_in(p, cs, self.reserved());
            for i in first..end {
                if skip[i / 64] & (1 << (i % 64)) == 0 && is_live(self.cell(i)) {
                    live[i / 64] |= 1 << (i % 64);
                    live_count += 1;
                }
            }
        }
        (live, live_count)
    }

    /// The pages a sweep leaves charged: page accounting keeps the header page and exactly the
    /// pages overlapped by live cells; block accounting keeps every page.
    fn charged_after_sweep(&self, live: &LiveMap, accounting: Accounting) -> PageMask {
        if accounting != Accounting::Page {
            return PageMask::ALL;
        }
        let cs = self.cell_size();
        let mut m = PageMask::page(0);
        if cs <= PAGE_BYTES {
            // Page by page: a page with a live cell starting in it is charged, and so is what its
            // last cell, the only one that can cross into the next page, overlaps if live.
            let mut rest = self.extended.0;
            while rest != 0 {
                let p = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let (first, end) = cells_starting_in(p, cs, self.reserved());
                if first < end && count_in(live, first, end) > 0 {
                    m = m.union(PageMask::page(p));
                    if live[(end - 1) / 64] & (1 << ((end - 1) % 64)) != 0 {
                        let off = HEADER_BYTES + (end - 1) * cs;
                        m = m.union(PageMask::of_range(off, off + cs));
                    }
                }
            }
            return m;
        }
        for (w, &bits) in live.iter().enumerate() {
            let mut rest = bits;
            while rest != 0 {
                let i = w * 64 + rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let off = HEADER_BYTES + i * cs;
                m = m.union(PageMask::of_range(off, off + cs));
            }
        }
        m
    }

    /// Page 0 plus the pages overlapped by the cells `is_live` reports live, among the cells of
    /// the extended pages: the charge a page-accounting sweep with that oracle leaves (checks
    /// of `Unswept` blocks).
    pub fn live_pages(&self, is_live: &mut dyn FnMut(*mut u8) -> bool) -> PageMask {
        self.charged_after_sweep(&self.live_map(is_live).0, Accounting::Page)
    }

    /// The accounting half of a sweep, done at the GC for a block whose sweep is deferred (lazy
    /// sweeping): asks `is_marked` about every cell of the extended pages, gives back (and
    /// uncharges) every page that the sweep will not keep charged, drops the free lists (they
    /// may run through given-back pages; the sweep rebuilds them) and marks the block
    /// `Unswept`. Returns the number of live cells (0: the caller releases the block now).
    ///
    /// `is_marked` must answer as the later sweep's oracle will and must not change its answers
    /// (it must not clear marks). Remote frees must have been collected or be absent. Lazy
    /// sweeping thus defers building the lists, never the accounting: after a GC the budget
    /// holds what an eager sweep would have left charged. Work: O(cells in the block).
    pub fn account(
        &mut self,
        is_marked: &mut dyn FnMut(*mut u8) -> bool,
        accounting: Accounting,
        budget: &dyn PageBudget,
        os: &dyn OsMemory,
    ) -> u32 {
        debug_assert!(self.is_valid());
        let (live, live_count) = self.live_map(is_marked);
        let charged = self.charged_after_sweep(&live, accounting);
        self.free = ptr::null_mut();
        self.local_free = ptr::null_mut();
        self.unlisted_free = 0;
        self.list_from = PAGES_PER_BLOCK as u8;
        self.used = live_count;
        self.state = BlockState::Unswept;
        let released = self.charged.minus(charged);
        if !released.is_empty() {
            self.give_back(released, budget, os);
        }
        debug_assert!(self.is_valid());
        live_count
    }

    /// Sweeps the block: asks `is_live` about every cell of the extended pages (once each, in
    /// address order), rebuilds the free list from dead cells on pages that stay charged, drops
    /// extended pages that no longer hold a live cell, uncharges and gives back every page no
    /// longer charged, and classifies the block. Cells on `free`/`local_free` must be reported
    /// dead by `is_live`; remote frees must have been collected (`collect`) or be absent.
    /// `zero`: dead cells put back on the free list are zeroed (garbage-collected mode).
    /// `order`: the order of the rebuilt free list ([`ReuseOrder`]).
    /// `marks`: the embedder's side mark bitmap, read instead of asking `is_live` when it serves
    /// this block's cell size ([`MarkBitmap`]); `is_live` must then agree with it. The rebuild
    /// then stops after the first page that lists a cell and leaves the later pages' dead cells
    /// to the owner (`unlisted.rs`; not when lending, in another order, or with a cell set aside).
    /// An `Unswept` block (see [`Block::account`]) becomes `Queued`; the caller files it.
    /// Work: O(cells in the block).
    #[allow(clippy::too_many_arguments)] // the settings of a sweep, each a plain value
    pub fn sweep(
        &mut self,
        is_live: &mut dyn FnMut(*mut u8) -> bool,
        zero: bool,
        order: ReuseOrder,
        accounting: Accounting,
        budget: &dyn PageBudget,
        os: &dyn OsMemory,
        mut lend: Option<&mut Lend<'_>>,
        marks: Option<&MarkBitmap>,
    ) -> SweepResult {
        if self.state == BlockState::Unswept {
            self.state = BlockState::Queued;
        }
        let cs = self.cell_size();
        // Lent runs: not asked about cell by cell; a run with a live object stays lent (pinned).
        let set = |m: &mut LiveMap, a: usize, b: usize| (a..b).for_each(|i| m[i / 64] |= 1 << (i % 64));
        let has = |m: &LiveMap, i: usize| m[i / 64] & (1 << (i % 64)) != 0;
        let mut lent_before = [0u64; LIVE_WORDS];
        if let Some(l) = lend.as_deref() {
            for &(a, b) in l.runs.iter() {
                set(&mut lent_before, a as usize, b as usize);
            }
        }
        let from_marks = marks.filter(|m| m.serves(cs));
        let (live, live_count) = match from_marks {
            Some(m) => self.live_map_from_marks(m, &lent_before),
            None => self.live_map_except(is_live, &lent_before),
        };
        // Listing deferred (`unlisted.rs`): only where the owner can later tell the dead cells
        // by the same marks, in address order, with nothing lent.
        let mut may_defer = from_marks.is_some() && lend.is_none() && order == ReuseOrder::Address;
        let mut held = live;
        let mut pinned_count = 0u32;
        let mut pinned_pages = PageMask::EMPTY;
        if let Some(l) = lend.as_deref_mut() {
            let before = std::mem::take(l.runs);
            for (a, b) in before {
                let (a, b) = (a as usize, b as usize);
                if (l.is_live)(self.cell(a), (b - a) * cs) {
                    set(&mut held, a, b);
                    pinned_count += (b - a) as u32;
                    let off = HEADER_BYTES + a * cs;
                    pinned_pages = pinned_pages.union(PageMask::of_range(off, HEADER_BYTES + b * cs));
                    l.runs.push((a as u32, b as u32));
                }
            }
            l.new_from = l.runs.len();
        }
        // Page accounting: the pages that stay charged are the header page and exactly the pages
        // overlapped by live cells. A dead cell goes back on the free list only if every page it
        // touches stays charged; otherwise it is the last cell of its page spilling into a page
        // no live cell needs, and it is set aside (`excluded`) until a later extension charges
        // that page or the next sweep. Block accounting keeps every page and lists every dead cell.
        // (An accounted block's charge is already cut to these pages; it only gives back pages
        // if the oracle now reports fewer live cells than `account` saw.)
        let charged = if accounting == Accounting::Page {
            self.charged_after_sweep(&live, accounting).union(pinned_pages)
        } else {
            self.charged_after_sweep(&live, accounting)
        };
        // New holes: maximal runs of consecutive cells, neither live nor pinned, on pages that stay
        // charged, of at least `min_bytes`; only in a block that stays (something live or pinned).
        let mut lent_count = 0u32;
        let mut lent_new = [0u64; LIVE_WORDS];
        if let Some(l) = lend {
            if live_count + pinned_count > 0 {
                let mut run: Option<(usize, usize)> = None; // [start, end)
                let mut close = |run: &mut Option<(usize, usize)>, l: &mut Lend<'_>| {
                    if let Some((a, b)) = run.take() {
                        if (b - a) * cs >= l.min_bytes {
                            set(&mut lent_new, a, b);
                            lent_count += (b - a) as u32;
                            l.runs.push((a as u32, b as u32));
                        }
                    }
                };
                let mut rest = self.extended.0;
                while rest != 0 {
                    let p = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let (first, end) = cells_starting_in(p, cs, self.reserved());
                    for i in first..end {
                        let off = HEADER_BYTES + i * cs;
                        let free = !has(&held, i) && charged.covers(PageMask::of_range(off, off + cs));
                        match run {
                            Some((a, b)) if free && b == i => run = Some((a, i + 1)),
                            _ => {
                                close(&mut run, l);
                                if free {
                                    run = Some((i, i + 1));
                                }
                            }
                        }
                    }
                }
                close(&mut run, l);
            }
        }
        for (w, bits) in lent_new.iter().enumerate() {
            held[w] |= bits;
        }
        if zero && lent_count > 0 {
            for i in 0..self.reserved() {
                if has(&lent_new, i) {
                    // SAFETY: a dead cell of this block on a charged page, lent from now on.
                    unsafe { ptr::write_bytes(self.cell(i), 0, cs) };
                }
            }
        }
        let mut keep = PageMask::EMPTY;
        let mut excluded = PageMask::EMPTY;
        // Rebuild the free list from the listable dead cells, page by page in `order`, address
        // order within a page: walked forwards, each cell appended at the tail (the order in
        // which the hardware prefetches), the dead cells found 64 at a time from `held`'s words.
        let mut head: *mut Cell = ptr::null_mut();
        let mut tail: *mut *mut Cell = &mut head;
        let mut capacity = 0u32;
        let mut pages = [0usize; PAGES_PER_BLOCK];
        let mut live_in = [0u32; PAGES_PER_BLOCK];
        let mut cells_in = [0u32; PAGES_PER_BLOCK];
        let mut np = 0;
        let mut rest = self.extended.0;
        while rest != 0 {
            let p = rest.trailing_zeros() as usize;
            pages[np] = p;
            np += 1;
            rest &= rest - 1;
            if order != ReuseOrder::Address {
                let (first, end) = cells_starting_in(p, cs, self.reserved());
                cells_in[p] = (end - first) as u32;
                live_in[p] = (first..end)
                    .filter(|&i| live[i / 64] & (1 << (i % 64)) != 0)
                    .count() as u32;
            }
        }
        order_pages(&mut pages[..np], &live_in, &cells_in, order);
        // Cell addresses from a local base: the loop's stores into cells could otherwise make
        // the compiler reload the header's cell size for each one.
        let cell0 = self.cell(0) as usize;
        // Deferring needs every cell of the kept pages listable (no set-aside last cell), so
        // that a page is either listed whole or left whole to the owner.
        if may_defer {
            may_defer = pages[..np].iter().all(|&p| {
                let (first, end) = cells_starting_in(p, cs, self.reserved());
                !charged.contains(p)
                    || first == end
                    || charged.covers(PageMask::of_range(HEADER_BYTES + first * cs, HEADER_BYTES + end * cs))
            });
        }
        // Once a page has given the list a cell, the later pages' dead cells are only counted,
        // their pages left to the owner from `list_from` on (no store into them now).
        let mut unlisted_free = 0u32;
        let mut list_from = PAGES_PER_BLOCK;
        for &p in pages[..np].iter() {
            // A page given back holds no cell to keep: a held cell (live, pinned or lent) keeps
            // the pages it overlaps charged, and every cell starting on it touches it.
            if !charged.contains(p) {
                debug_assert!({
                    let (first, end) = cells_starting_in(p, cs, self.reserved());
                    (first..end).all(|i| !has(&held, i))
                });
                continue;
            }
            let (first, end) = cells_starting_in(p, cs, self.reserved());
            if first == end {
                continue;
            }
            // Only the last cell of a page can touch the next page (cells are contiguous): if
            // it touches a page given back and is not held, it is set aside, not listed.
            let last_off = HEADER_BYTES + (end - 1) * cs;
            let drop_last = !has(&held, end - 1) && !charged.covers(PageMask::of_range(last_off, last_off + cs));
            let list_end = if drop_last { end - 1 } else { end };
            if list_from < PAGES_PER_BLOCK {
                debug_assert!(!drop_last);
                unlisted_free += (end - first) as u32 - count_in(&held, first, end);
                keep = keep.union(PageMask::page(p));
                capacity += (end - first) as u32;
                continue;
            }
            let tail_before = tail;
            let words = first / 64..=(end - 1) / 64;
            for (w, &held_w) in held.iter().enumerate().take(*words.end() + 1).skip(*words.start()) {
                // The dead cells of word `w` within [first, list_end).
                let mut dead = !held_w & word_range(w, first, list_end);
                while dead != 0 {
                    let i = w * 64 + dead.trailing_zeros() as usize;
                    dead &= dead - 1;
                    let c = (cell0 + i * cs) as *mut u8;
                    debug_assert_eq!(c, self.cell(i));
                    // SAFETY: a dead cell of this block whose pages all stay charged; nothing
                    // else references it. `tail` is `head` or the link word of the cell appended
                    // before, a dead cell of this block.
                    unsafe {
                        if zero {
                            ptr::write_bytes(c, 0, cs);
                        }
                        *tail = c as *mut Cell;
                        tail = &mut (*(c as *mut Cell)).next;
                    }
                }
            }
            if may_defer && tail != tail_before {
                list_from = p + 1;
            }
            // Every cell starting on the page is held or listed, but a set-aside last one.
            let kept = (list_end - first) as u32;
            if kept > 0 {
                keep = keep.union(PageMask::page(p));
                capacity += kept;
                if drop_last {
                    excluded = excluded.union(PageMask::page(p));
                }
            }
        }
        // SAFETY: `tail` is `head` or the link word of the last cell appended (see above).
        unsafe { *tail = ptr::null_mut() };
        self.excluded = excluded;
        self.free = head;
        self.local_free = ptr::null_mut();
        debug_assert!(unlisted_free <= u16::MAX as u32);
        self.unlisted_free = unlisted_free as u16;
        self.list_from = if unlisted_free == 0 { PAGES_PER_BLOCK } else { list_from } as u8;
        self.used = live_count + pinned_count + lent_count;
        self.capacity = capacity;
        self.extended = keep;
        let released = self.charged.minus(charged);
        if !released.is_empty() {
            self.give_back(released, budget, os);
        }
        debug_assert!(self.is_valid());
        if live_count + pinned_count == 0 {
            SweepResult::Empty
        } else if self.free.is_null() && !self.can_extend() {
            SweepResult::Full
        } else {
            SweepResult::Partial
        }
    }

    /// Uncharges `pages` (all inside `charged`) and gives them back to the OS. If the OS drops
    /// them at once (they read back as zero), they leave `resident` and the budget; otherwise
    /// they stay resident ("idle") until reused or dropped ([`Block::drop_idle`]), counted by a
    /// budget that counts resident pages and uncharged now by one that counts pages in use.
    pub(super) fn give_back(
        &mut self,
        pages: PageMask,
        budget: &dyn PageBudget,
        os: &dyn OsMemory,
    ) {
        debug_assert!(self.charged.covers(pages));
        for (first, n) in pages.runs() {
            // SAFETY: the pages hold no live cell and no listed cell (their cells are not on the
            // rebuilt lists); page 0 is never given back while the header is live.
            unsafe { os.release_pages(self.at(first << LOG_PAGE_BYTES), n << LOG_PAGE_BYTES) };
        }
        self.charged = self.charged.minus(pages);
        if os.released_pages_are_zero() {
            self.resident = self.resident.minus(pages);
            self.dirty = self.dirty.minus(pages);
            budget.uncharge(pages.count());
            budget.note_resident(-(pages.count() as isize));
        } else if !budget.counts_idle() {
            // Idle: resident, and no longer in use.
            budget.uncharge(pages.count());
        }
    }
}
