//! A block: `BLOCK_BYTES` of memory holding cells of one size class, with its header in its
//! first [`HEADER_BYTES`] (found from any interior address by masking) and mimalloc's three
//! sharded free lists.
//!
//! Layout: `[header | cell 0 | cell 1 | ... | cell reserved-1 | tail]`, cell `i` at byte offset
//! `HEADER_BYTES + i * cell_size`.
//!
//! Pages. Cells are put on the lists lazily, one OS page at a time ("extension"): the unit is
//! the set of cells that *start* in a page, and page `p` is in `extended` when those cells have
//! been listed. The pages those cells overlap are `overlap(p)`. The block's charged pages are
//! page 0 (the header) plus the overlap of every extended page; a sweep drops extended pages that
//! hold no live cell and gives back every page no longer charged.
//!
//! Invariants (checked by [`Block::is_valid`] under `debug_assert!`):
//! * `used + |free| + |local_free| == capacity`, where `used` counts cells handed out and not
//!   yet collected (so it includes the cells on `xthread_free` and on `pending`, the remote
//!   frees taken but not yet collected: a collect moves at most `MAX_COLLECT` of them, so that
//!   its work is bounded) and `capacity` is the number of
//!   cells starting in extended pages, less the set-aside ones (`|excluded|`);
//! * `charged == {0} ∪ ⋃_{p ∈ extended} overlap_in_use(p)` (page accounting), or every page
//!   (block accounting); right after a sweep this is exactly page 0 plus the pages overlapped
//!   by live cells;
//! * `extended ⊆ starts` (the pages in which at least one cell starts), `excluded ⊆ extended`;
//! * every cell on `free` / `local_free` starts in an extended page.
//!
//! * `charged ⊆ resident`: `resident` is the set of pages that may be in the process's RSS
//!   (charged, or uncharged by a sweep and not yet dropped with MADV_DONTNEED: "idle"). The
//!   embedder's [`PageBudget`] counts resident pages, so the heap limit bounds the RSS, not just
//!   the pages in use. Pages outside `resident` read as zero (fresh from the OS or dropped).
//!
//! An `Unswept` block (lazy sweeping: accounted at the GC, swept later by its owner) has empty
//! lists and `{0} ⊆ charged ⊆ {0} ∪ ⋃_{p ∈ extended} overlap(p)`: its charge was already cut to
//! page 0 plus the pages of live cells, while `extended` still says which cells the coming sweep
//! must ask about.

use crate::bounds::MAX_COLLECT;
use crate::budget::{Accounting, PageBudget};
use crate::cell::Cell;
use crate::config::{
    BLOCK_BYTES, BLOCK_MASK, HEADER_BYTES, LOG_PAGE_BYTES, PAGES_PER_BLOCK, PAGE_BYTES,
};
use crate::os::OsMemory;
use crate::page_mask::PageMask;
use crate::size_class::{bin_bytes, BIN_COUNT};
use crate::sync::{AtomicPtr, AtomicUsize};
use crate::thread_free::{Delay, ThreadFree};
use std::ptr;

/// Where a block is, for the owner's bookkeeping and the debug checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum BlockState {
    /// In its owner heap's bin queue (it may have free cells).
    Queued = 1,
    /// In its owner heap's full list, off the search path (delayed free wakes it).
    Full = 2,
    /// Owned by no heap, on a global abandoned stack, to be adopted.
    Abandoned = 3,
    /// Given back to the block source.
    Released = 4,
    /// On its owner heap's unswept list (lazy sweeping): accounted at the GC ([`Block::account`]:
    /// pages without a live cell given back, lists dropped), its lists to be rebuilt by the
    /// owner's sweep; nothing allocates from it until then.
    Unswept = 5,
}

/// Words of a block's live-cell bitmap (one bit per cell of the smallest size, 8 bytes).
const LIVE_WORDS: usize = (BLOCK_BYTES / 8).div_ceil(64);
/// A block's live cells by index, built by a sweep.
type LiveMap = [u64; LIVE_WORDS];

/// Magic value of a live header, to reject foreign pointers in debug builds.
const MAGIC: u32 = 0x5348_5357; // "SHSW"
/// Magic value of a retired header (an empty block given back whose pages were not dropped):
/// its `resident` mask still says which pages may be resident, for the next [`Block::init`] of
/// the block (which inherits them) or for [`Block::drop_retired`].
const RETIRED_MAGIC: u32 = 0x5253_5357; // "RSSW"

/// The block header, laid out for the fast path: `free` and `used` first.
#[repr(C)]
pub struct Block {
    // Cache line 0: the owner's fields (fast path, extension, sweep). No other thread writes
    // here, so remote frees do not invalidate the line the owner allocates through.
    /// Allocation list (fast path: pop).
    pub(crate) free: *mut Cell,
    /// Cells handed out and not collected back (includes cells on `xthread_free`).
    pub(crate) used: u32,
    /// Bytes per cell.
    pub(crate) cell_size: u32,
    /// Cells freed by the owner, reused once `free` runs out.
    pub(crate) local_free: *mut Cell,
    /// Pages whose starting cells are listed or handed out.
    pub(crate) extended: PageMask,
    /// Pages charged to the budget.
    pub(crate) charged: PageMask,
    /// Pages that may hold non-zero bytes outside listed cells' link words.
    pub(crate) dirty: PageMask,
    /// Remote frees taken from `xthread_free` and not yet moved to `local_free` (still counted
    /// in `used`): what a bounded collect left for the next one (owner only).
    pub(crate) pending: *mut Cell,
    /// Cells starting in extended pages.
    pub(crate) capacity: u32,
    /// Cells that fit in the block.
    pub(crate) reserved: u32,
    // Cache line 1: what other threads touch: the remote-free word (CAS), and what a free
    // reads to decide local or remote (owner, state).
    /// Cells freed by other threads, plus the delayed-free state.
    pub(crate) xthread_free: ThreadFree,
    /// Extended pages whose last cell a sweep set aside (dead, touching a page no longer
    /// charged): neither listed nor handed out until an extension charges its pages (owner only).
    pub(crate) excluded: PageMask,
    /// Owner heap (null when abandoned); read by every free and by remote freers on the
    /// delayed path. Opaque here: the heap, a layer above the block, casts it.
    pub(crate) xheap: AtomicPtr<OwnerHeap>,
    /// See [`BlockState`].
    pub(crate) state: BlockState,
    /// Size class.
    pub(crate) bin: u8,
    pub(crate) magic: u32,
    /// Queue links (owner only).
    pub(crate) next: *mut Block,
    pub(crate) prev: *mut Block,
    /// Link for the global lock-free stacks (abandoned blocks, free blocks of a source).
    pub(crate) xstack_next: AtomicUsize,
    /// Pages that may be resident: `charged` plus idle pages (uncharged, not yet dropped).
    /// Owner only, or whoever holds the block exclusively (an abandoned block popped from its
    /// stack, a retired block under its source's lock, stop-the-world).
    pub(crate) resident: PageMask,
}

const _: () = assert!(
    std::mem::offset_of!(Block, xthread_free) == 64,
    "remote frees touch the header's second cache line only"
);
const _: () = assert!(
    std::mem::size_of::<Block>() <= HEADER_BYTES,
    "the header fits its reserved bytes"
);

/// The heap that owns a block, as the block sees it: an address to compare and hand back, never
/// dereferenced below `heap.rs` (which casts it to its `Heap`).
pub(crate) enum OwnerHeap {}

/// What a sweep found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SweepResult {
    /// No live cell: the block can be given back whole.
    Empty,
    /// Some free cells (or room to extend).
    Partial,
    /// No free cell and nothing left to extend.
    Full,
}

/// The placeholder every empty direct slot and queue points to: its `free` is always null, so
/// the fast path needs no null check on the block (mimalloc's `_mi_page_empty`). Never written.
pub(crate) struct EmptyBlock(pub(crate) Block);
// SAFETY: the empty block is never written after construction; its raw pointers are all null.
unsafe impl Sync for EmptyBlock {}

pub(crate) static EMPTY_BLOCK: EmptyBlock = EmptyBlock(Block {
    free: ptr::null_mut(),
    used: 0,
    cell_size: 0,
    local_free: ptr::null_mut(),
    xthread_free: ThreadFree::new_const(),
    extended: PageMask::EMPTY,
    charged: PageMask::EMPTY,
    dirty: PageMask::EMPTY,
    pending: ptr::null_mut(),
    excluded: PageMask::EMPTY,
    capacity: 0,
    reserved: 0,
    next: ptr::null_mut(),
    prev: ptr::null_mut(),
    xheap: AtomicPtr::new(ptr::null_mut()),
    xstack_next: AtomicUsize::new(0),
    bin: 0,
    state: BlockState::Released,
    magic: 0,
    resident: PageMask::EMPTY,
});

/// The placeholder as a pointer (never written through).
#[inline(always)]
pub(crate) fn empty_block() -> *mut Block {
    &EMPTY_BLOCK.0 as *const Block as *mut Block
}

/// Ids of cells `first .. end` that start in page `p`.
#[inline]
pub(crate) const fn cells_starting_in(
    p: usize,
    cell_size: usize,
    reserved: usize,
) -> (usize, usize) {
    let lo = p * PAGE_BYTES;
    let hi = lo + PAGE_BYTES;
    let first = if lo <= HEADER_BYTES {
        0
    } else {
        (lo - HEADER_BYTES).div_ceil(cell_size)
    };
    let end = if hi <= HEADER_BYTES {
        0
    } else {
        (hi - HEADER_BYTES).div_ceil(cell_size)
    };
    (
        if first < reserved { first } else { reserved },
        if end < reserved { end } else { reserved },
    )
}

/// Per size class, the pages in which a cell starts (`starts` of every block of the class).
static STARTS: [PageMask; BIN_COUNT] = starts_table();

const fn starts_table() -> [PageMask; BIN_COUNT] {
    let mut t = [PageMask::EMPTY; BIN_COUNT];
    let mut bin = 1;
    while bin < BIN_COUNT {
        let cell_size = bin_bytes(bin);
        let reserved = (BLOCK_BYTES - HEADER_BYTES) / cell_size;
        let mut m = 0u64;
        let mut p = 0;
        while p < PAGES_PER_BLOCK {
            let (first, end) = cells_starting_in(p, cell_size, reserved);
            if first < end {
                m |= 1u64 << p;
            }
            p += 1;
        }
        t[bin] = PageMask(m);
        bin += 1;
    }
    t
}

impl Block {
    /// The block containing `addr` (any address inside it).
    #[inline(always)]
    pub fn of(addr: *const u8) -> *mut Block {
        (addr as usize & !BLOCK_MASK) as *mut Block
    }

    /// Start address of the block.
    ///
    /// Provenance: addresses inside a block are computed from the block's address, as mimalloc
    /// does, not derived from `&self` (which covers only the header). [`Block::init`] exposes the
    /// whole block's provenance, so an address-to-pointer cast is valid for any byte of it.
    #[inline]
    pub fn start(&self) -> *mut u8 {
        self.at(0)
    }

    /// The pointer `off` bytes into the block (`off < BLOCK_BYTES`).
    #[inline(always)]
    fn at(&self, off: usize) -> *mut u8 {
        debug_assert!(off < BLOCK_BYTES);
        (self as *const Block as usize + off) as *mut u8
    }

    /// Address of cell `i` (`i < reserved`).
    #[inline]
    pub fn cell(&self, i: usize) -> *mut u8 {
        self.at(HEADER_BYTES + i * self.cell_size as usize)
    }

    /// Index of the cell starting at `p`, or `None` if `p` is not a cell start of this block.
    pub fn cell_index(&self, p: *const u8) -> Option<usize> {
        let off = (p as usize).wrapping_sub(self.start() as usize);
        if off < HEADER_BYTES || off >= BLOCK_BYTES || self.cell_size == 0 {
            return None;
        }
        let rel = off - HEADER_BYTES;
        let i = rel / self.cell_size as usize;
        (rel % self.cell_size as usize == 0 && i < self.reserved as usize).then_some(i)
    }

    /// Bytes per cell.
    #[inline]
    pub fn cell_size(&self) -> usize {
        self.cell_size as usize
    }
    /// Size class.
    #[inline]
    pub fn bin(&self) -> usize {
        self.bin as usize
    }
    /// Cells handed out and not collected.
    #[inline]
    pub fn used(&self) -> usize {
        self.used as usize
    }
    /// Cells starting in extended pages.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.capacity as usize
    }
    /// Cells that fit in the block.
    #[inline]
    pub fn reserved(&self) -> usize {
        self.reserved as usize
    }
    /// Pages charged.
    #[inline]
    pub fn charged(&self) -> PageMask {
        self.charged
    }
    /// Where the block is.
    #[inline]
    pub fn state(&self) -> BlockState {
        self.state
    }
    /// Whether a pop would succeed now.
    #[inline]
    pub fn has_free(&self) -> bool {
        !self.free.is_null()
    }
    /// Whether pages with unlisted cells remain.
    #[inline]
    pub fn can_extend(&self) -> bool {
        !self.starts().minus(self.extended).is_empty()
    }
    /// Whether the header is a live shardsweep block header.
    #[inline]
    pub fn is_live_header(&self) -> bool {
        self.magic == MAGIC && self.state != BlockState::Released
    }

    /// The pages overlapped by the cells that start in page `p`.
    pub fn overlap(&self, p: usize) -> PageMask {
        let (first, end) = cells_starting_in(p, self.cell_size(), self.reserved());
        if first >= end {
            return PageMask::EMPTY;
        }
        let lo = HEADER_BYTES + first * self.cell_size();
        let hi = HEADER_BYTES + end * self.cell_size();
        PageMask::of_range(lo, hi)
    }

    /// The pages overlapped by the cells of page `p` that are listed or handed out: all cells
    /// starting in `p`, less its last cell if it is set aside (`excluded`).
    pub fn overlap_in_use(&self, p: usize) -> PageMask {
        if !self.excluded.contains(p) {
            return self.overlap(p);
        }
        let (first, end) = cells_starting_in(p, self.cell_size(), self.reserved());
        if first + 1 >= end {
            return PageMask::EMPTY;
        }
        PageMask::of_range(
            HEADER_BYTES + first * self.cell_size(),
            HEADER_BYTES + (end - 1) * self.cell_size(),
        )
    }

    /// The pages charged for a set of extended pages: page 0 (the header) plus the pages their
    /// listed or handed-out cells overlap (see [`Block::overlap_in_use`]).
    pub fn charged_for(&self, extended: PageMask) -> PageMask {
        let mut m = PageMask::page(0);
        let mut rest = extended.0;
        while rest != 0 {
            let p = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            m = m.union(self.overlap_in_use(p));
        }
        m
    }

    /// The set-aside last cell of page `p` (`p` in `excluded`).
    fn excluded_cell(&self, p: usize) -> usize {
        let (_, end) = cells_starting_in(p, self.cell_size(), self.reserved());
        end - 1
    }

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
        budget: &dyn PageBudget,
    ) -> *mut Block {
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
        let new = charged.minus(inherited);
        if !new.is_empty() && !budget.try_charge(new.count()) {
            return ptr::null_mut();
        }
        let cell_size = bin_bytes(bin);
        let reserved = (BLOCK_BYTES - HEADER_BYTES) / cell_size;
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
                reserved: reserved as u32,
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
        block
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
    /// budget. `zero`: the cells must read as zero (garbage-collected mode). Returns `false` if
    /// there is nothing to extend or the budget vetoes. Work: one page of cells (at most 512
    /// links) plus the choice of the page (at most one overlap test per page).
    pub fn extend(&mut self, budget: &dyn PageBudget, zero: bool) -> bool {
        let Some(p) = self.next_extension() else {
            return false;
        };
        crate::steps::extension();
        let overlap = self.overlap(p);
        let new = overlap.minus(self.resident);
        if !new.is_empty() && !budget.try_charge(new.count()) {
            return false;
        }
        self.resident = self.resident.union(overlap);
        self.charged = self.charged.union(overlap);
        let (first, end) = cells_starting_in(p, self.cell_size(), self.reserved());
        if zero && !self.dirty.intersect(overlap).is_empty() {
            let lo = self.cell(first);
            let bytes = (end - first) * self.cell_size();
            // SAFETY: the range is exactly the cells starting in page p, none of which is listed
            // or handed out (p was not extended), all inside the block.
            unsafe { ptr::write_bytes(lo, 0, bytes) };
        }
        // Link the new cells in address order in front of the current free list.
        let mut head = self.free;
        crate::steps::add(end - first);
        for i in (first..end).rev() {
            let c = self.cell(i) as *mut Cell;
            // SAFETY: `c` is an unlisted cell of this block.
            unsafe { (*c).next = head };
            head = c;
        }
        self.free = head;
        self.capacity += (end - first) as u32;
        self.extended = self.extended.union(PageMask::page(p));
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
        true
    }

    /// Pops a cell (the fast path's pop, for callers that already hold the block).
    #[inline(always)]
    pub fn pop(&mut self) -> *mut u8 {
        let c = self.free;
        if c.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: a cell on the free list is a cell of this block whose first word is its link; the link is cleared so handed-out cells never expose it.
        unsafe {
            self.free = (*c).next;
            (*c).next = ptr::null_mut();
        }
        self.used += 1;
        c as *mut u8
    }

    /// Frees a cell on the owner thread: onto `local_free`. Returns `true` if the block is now
    /// empty (`used == 0`).
    ///
    /// # Safety
    /// `cell` is an allocated cell of this block, freed once, and the caller owns the block.
    #[inline]
    pub unsafe fn free_local(&mut self, cell: *mut u8) -> bool {
        debug_assert!(
            self.cell_index(cell).is_some(),
            "free of {cell:?}: not a cell start of its block"
        );
        let c = cell as *mut Cell;
        // SAFETY: the caller owns the cell; its first word becomes the link.
        unsafe { (*c).next = self.local_free };
        self.local_free = c;
        debug_assert!(
            self.used > 0,
            "free of {cell:?}: the block has no allocated cell (double free?)"
        );
        self.used -= 1;
        self.used == 0
    }

    /// Moves up to [`MAX_COLLECT`] remote frees (`pending`, then `xthread_free`) into
    /// `local_free` and, if `free` is empty, `local_free` into `free` (mimalloc's
    /// `_mi_page_free_collect`, bounded: RT-mimalloc's concern). Cells beyond the bound stay on
    /// `pending`, counted in `used`, for the next collect. Work: at most `MAX_COLLECT` links plus
    /// one atomic take.
    pub fn collect(&mut self) {
        if self.pending.is_null() {
            self.pending = self.xthread_free.take_all();
        }
        let mut c = self.pending;
        let mut n = 0u32;
        // SAFETY: `pending` holds cells of this block pushed by remote freers, now ours.
        unsafe {
            while !c.is_null() && (n as usize) < MAX_COLLECT {
                let next = (*c).next;
                (*c).next = self.local_free;
                self.local_free = c;
                c = next;
                n += 1;
            }
        }
        self.pending = c;
        if !c.is_null() {
            crate::steps::limited(crate::steps::Limit::Collect);
        }
        crate::steps::add(n as usize + 1);
        debug_assert!(self.used >= n);
        self.used -= n;
        if self.free.is_null() && !self.local_free.is_null() {
            self.free = self.local_free;
            self.local_free = ptr::null_mut();
        }
    }

    /// Collects every remote free (sweeps, thread exit: not on an allocation's path). Work: the
    /// number of cells collected.
    pub fn collect_all(&mut self) {
        loop {
            self.collect();
            if self.pending.is_null() && self.xthread_free.load().head().is_null() {
                return;
            }
        }
    }

    /// Whether remote frees wait on `pending` (a bounded collect left them).
    #[inline]
    pub fn has_pending(&self) -> bool {
        !self.pending.is_null()
    }

    /// Pages in which a cell of this block's size class starts (a compile-time table).
    #[inline]
    pub fn starts(&self) -> PageMask {
        STARTS[self.bin()]
    }

    /// Asks `is_live` about every cell of the extended pages (once each, in address order):
    /// the live cells as a bitmap by cell index, and their number.
    fn live_map(&self, is_live: &mut dyn FnMut(*mut u8) -> bool) -> (LiveMap, u32) {
        let mut live = [0u64; LIVE_WORDS];
        let mut live_count = 0u32;
        let cs = self.cell_size();
        let mut rest = self.extended.0;
        while rest != 0 {
            let p = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let (first, end) = cells_starting_in(p, cs, self.reserved());
            for i in first..end {
                if is_live(self.cell(i)) {
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
    /// An `Unswept` block (see [`Block::account`]) becomes `Queued`; the caller files it.
    /// Work: O(cells in the block).
    pub fn sweep(
        &mut self,
        is_live: &mut dyn FnMut(*mut u8) -> bool,
        zero: bool,
        accounting: Accounting,
        budget: &dyn PageBudget,
        os: &dyn OsMemory,
    ) -> SweepResult {
        if self.state == BlockState::Unswept {
            self.state = BlockState::Queued;
        }
        let (live, live_count) = self.live_map(is_live);
        let cs = self.cell_size();
        // Page accounting: the pages that stay charged are the header page and exactly the pages
        // overlapped by live cells. A dead cell goes back on the free list only if every page it
        // touches stays charged; otherwise it is the last cell of its page spilling into a page
        // no live cell needs, and it is set aside (`excluded`) until a later extension charges
        // that page or the next sweep. Block accounting keeps every page and lists every dead cell.
        // (An accounted block's charge is already cut to these pages; it only gives back pages
        // if the oracle now reports fewer live cells than `account` saw.)
        let charged = self.charged_after_sweep(&live, accounting);
        let mut keep = PageMask::EMPTY;
        let mut excluded = PageMask::EMPTY;
        // Rebuild the free list from the listable dead cells, in address order.
        let mut head: *mut Cell = ptr::null_mut();
        let mut capacity = 0u32;
        let mut pages = [0usize; PAGES_PER_BLOCK];
        let mut np = 0;
        let mut rest = self.extended.0;
        while rest != 0 {
            pages[np] = rest.trailing_zeros() as usize;
            np += 1;
            rest &= rest - 1;
        }
        for &p in pages[..np].iter().rev() {
            let (first, end) = cells_starting_in(p, cs, self.reserved());
            let mut kept = 0u32;
            for i in (first..end).rev() {
                if live[i / 64] & (1 << (i % 64)) != 0 {
                    kept += 1;
                    continue;
                }
                let off = HEADER_BYTES + i * cs;
                if !charged.covers(PageMask::of_range(off, off + cs)) {
                    continue; // touches a page that is given back: not listable
                }
                let c = self.cell(i);
                // SAFETY: a dead cell of this block whose pages all stay charged; nothing else
                // references it.
                unsafe {
                    if zero {
                        ptr::write_bytes(c, 0, cs);
                    }
                    (*(c as *mut Cell)).next = head;
                }
                head = c as *mut Cell;
                kept += 1;
            }
            if kept > 0 {
                keep = keep.union(PageMask::page(p));
                capacity += kept;
                if kept < (end - first) as u32 {
                    // Only the last cell of a page can touch the next page (cells are
                    // contiguous), so it is the one left out.
                    debug_assert_eq!(kept, (end - first - 1) as u32);
                    excluded = excluded.union(PageMask::page(p));
                }
            }
        }
        self.excluded = excluded;
        self.free = head;
        self.local_free = ptr::null_mut();
        self.used = live_count;
        self.capacity = capacity;
        self.extended = keep;
        let released = self.charged.minus(charged);
        if !released.is_empty() {
            self.give_back(released, budget, os);
        }
        debug_assert!(self.is_valid());
        if live_count == 0 {
            SweepResult::Empty
        } else if self.free.is_null() && !self.can_extend() {
            SweepResult::Full
        } else {
            SweepResult::Partial
        }
    }

    /// Uncharges `pages` (all inside `charged`) and gives them back to the OS. If the OS drops
    /// them at once (they read back as zero), they leave `resident` and the budget; otherwise
    /// they stay resident and counted ("idle") until reused or dropped ([`Block::drop_idle`]).
    fn give_back(&mut self, pages: PageMask, budget: &dyn PageBudget, os: &dyn OsMemory) {
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
        }
    }

    /// Drops every idle page from the RSS (`OsMemory::drop_pages`) and from the budget. Returns
    /// the number of pages dropped. Work: one system call per run of idle pages.
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
        budget.uncharge(idle.count());
        debug_assert!(self.is_valid());
        idle.count()
    }

    /// Retires an empty block: its header becomes a retired one (not live) that keeps the
    /// `resident` mask, so the pages stay counted by the budget until [`Block::drop_retired`]
    /// drops them or the next [`Block::init`] of the block inherits them. The caller then
    /// returns the block to its source (after dropping it, unless the embedder keeps retired
    /// blocks resident for reuse).
    ///
    /// # Safety
    /// `block` is an empty block owned by the caller and on no list.
    pub unsafe fn retire(block: *mut Block) {
        // SAFETY: the caller owns the block.
        let b = unsafe { &mut *block };
        debug_assert_eq!(b.used, 0, "retiring a block with allocated cells");
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
    /// otherwise: then nothing is counted) and uncharges them. Returns the pages uncharged.
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
        budget.uncharge(resident.count());
        resident.count()
    }

    /// Checks the header's invariants (the equations in the module doc). The list walks are
    /// bounded by the block's capacity.
    pub fn is_valid(&self) -> bool {
        if self.magic != MAGIC || self.cell_size as usize != bin_bytes(self.bin()) {
            return false;
        }
        if !self.starts().covers(self.extended) {
            return false;
        }
        let mut cap = 0;
        let mut rest = self.extended.0;
        while rest != 0 {
            let p = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let (f, e) = cells_starting_in(p, self.cell_size(), self.reserved());
            cap += e - f;
        }
        if !self.resident.covers(self.charged) {
            return false;
        }
        if self.state == BlockState::Unswept {
            let bound = if self.charged == PageMask::ALL {
                PageMask::ALL
            } else {
                self.charged_for(self.extended)
            };
            return self.charged.contains(0)
                && bound.covers(self.charged)
                && self.free.is_null()
                && self.local_free.is_null();
        }
        if !self.extended.covers(self.excluded) || cap != self.capacity() + self.excluded.count() {
            return false;
        }
        if self.charged != PageMask::ALL && self.charged != self.charged_for(self.extended) {
            return false;
        }
        let count = |mut c: *mut Cell| -> Option<usize> {
            let mut n = 0;
            while !c.is_null() {
                let i = self.cell_index(c as *const u8)?;
                let p = (HEADER_BYTES + i * self.cell_size()) >> LOG_PAGE_BYTES;
                if !self.extended.contains(p) || n > self.capacity() {
                    return None;
                }
                n += 1;
                // SAFETY: `c` was checked to be a cell of this block; listed cells hold links.
                c = unsafe { (*c).next };
            }
            Some(n)
        };
        match (count(self.free), count(self.local_free)) {
            (Some(f), Some(l)) => self.used() + f + l == self.capacity(),
            _ => false,
        }
    }
}
