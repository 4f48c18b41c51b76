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
//! * `used + |free| + |local_free| + unlisted_free == capacity` (`unlisted_free`: dead cells a
//!   sweep left for the owner to list, `unlisted.rs`), where `used` counts cells handed out and not
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
//!   embedder's [`PageBudget`](crate::PageBudget) counts resident pages, so the heap limit bounds the RSS, not just
//!   the pages in use. Pages outside `resident` read as zero (fresh from the OS or dropped).
//!
//! An `Unswept` block (lazy sweeping: accounted at the GC, swept later by its owner) has empty
//! lists and `{0} ⊆ charged ⊆ {0} ∪ ⋃_{p ∈ extended} overlap(p)`: its charge was already cut to
//! page 0 plus the pages of live cells, while `extended` still says which cells the coming sweep
//! must ask about.

use crate::cell::Cell;
use crate::config::{
    BLOCK_BYTES, BLOCK_MASK, HEADER_BYTES, LOG_PAGE_BYTES, PAGES_PER_BLOCK, PAGE_BYTES,
};
use crate::page_mask::PageMask;
use crate::size_class::{bin_bytes, BIN_COUNT};
use crate::sync::{AtomicPtr, AtomicUsize};
use crate::thread_free::ThreadFree;
use std::ptr;

mod lease;
mod lend;
mod lists;
mod marks;
mod pages;
mod retire;
mod sweep;
mod unlisted;

pub use lease::{lease_cells, lease_cells_in, lease_pages, Adopt, LEASE_BYTES, LEASE_SHARE_BINS};
pub use lend::{Lend, Lent};
pub use marks::MarkBitmap;
pub use pages::Spill;
pub use sweep::ReuseOrder;

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
    /// Dead cells a sweep left off the lists, on the extended pages from `list_from` on
    /// (`unlisted.rs`): listed by the owner a page at a time when it next needs a cell of the
    /// block (owner only).
    pub(crate) unlisted_free: u16,
    /// The first page whose dead cells may be unlisted (`PAGES_PER_BLOCK`: none).
    pub(crate) list_from: u8,
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

pub(crate) static EMPTY_BLOCK: EmptyBlock = EmptyBlock(Block::placeholder());

impl Block {
    /// A header that is no block: every list null, no pages, `Released`. The empty block, and a
    /// heap's lease descriptors (`heap/lease.rs`), whose `free` alone is ever used.
    pub(crate) const fn placeholder() -> Block {
        Block {
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
            unlisted_free: 0,
            list_from: PAGES_PER_BLOCK as u8,
            next: ptr::null_mut(),
            prev: ptr::null_mut(),
            xheap: AtomicPtr::new(ptr::null_mut()),
            xstack_next: AtomicUsize::new(0),
            bin: 0,
            state: BlockState::Released,
            magic: 0,
            resident: PageMask::EMPTY,
        }
    }
}

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

/// Per size class, the cells that fit in a block (0 for bin 0, the placeholder's).
static RESERVED: [u32; BIN_COUNT] = reserved_table();

const fn reserved_table() -> [u32; BIN_COUNT] {
    let mut t = [0u32; BIN_COUNT];
    let mut bin = 1;
    while bin < BIN_COUNT {
        t[bin] = ((BLOCK_BYTES - HEADER_BYTES) / bin_bytes(bin)) as u32;
        bin += 1;
    }
    t
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
        (rel % self.cell_size as usize == 0 && i < self.reserved()).then_some(i)
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
        RESERVED[self.bin()] as usize
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

    /// Pages in which a cell of this block's size class starts (a compile-time table).
    #[inline]
    pub fn starts(&self) -> PageMask {
        STARTS[self.bin()]
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
                && self.local_free.is_null()
                && self.unlisted_free == 0;
        }
        if self.unlisted_free > 0
            && (self.list_from as usize >= PAGES_PER_BLOCK || !self.excluded.is_empty())
        {
            return false;
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
            (Some(f), Some(l)) => self.used() + f + l + self.unlisted_free() == self.capacity(),
            _ => false,
        }
    }
}
