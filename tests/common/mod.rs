//! Test fixtures: a block source over the Rust heap (so tests run under miri), a page budget,
//! and an OS stand-in that records what is given back.
#![allow(dead_code)]

use shardsweep::*;
use std::alloc::{alloc_zeroed, Layout};
use std::ptr::NonNull;
use std::sync::Mutex;

/// Blocks from `std::alloc` (block-aligned), never freed (block memory must stay mapped).
pub struct HeapSource {
    pub limit: usize,
    pub given: Mutex<(usize, Vec<usize>)>,
}

impl HeapSource {
    pub fn new(limit: usize) -> HeapSource {
        HeapSource {
            limit,
            given: Mutex::new((0, Vec::new())),
        }
    }
}

// SAFETY: distinct block-aligned allocations of BLOCK_BYTES, never freed.
unsafe impl BlockSource for HeapSource {
    fn acquire_block(&self, _thread: usize) -> Option<(NonNull<u8>, bool)> {
        let mut g = self.given.lock().unwrap();
        if let Some(b) = g.1.pop() {
            return NonNull::new(b as *mut u8).map(|p| (p, false));
        }
        if g.0 >= self.limit {
            return None;
        }
        g.0 += 1;
        // SAFETY: non-zero size.
        let p = unsafe { alloc_zeroed(Layout::from_size_align(BLOCK_BYTES, BLOCK_BYTES).unwrap()) };
        NonNull::new(p).map(|p| (p, true))
    }
    unsafe fn release_block(&self, block: NonNull<u8>) {
        self.given.lock().unwrap().1.push(block.as_ptr() as usize);
    }
}

/// Records released page ranges; reads back as zero by zeroing them itself.
#[derive(Default)]
pub struct RecordingOs {
    pub released: Mutex<Vec<(usize, usize)>>,
}

impl OsMemory for RecordingOs {
    unsafe fn release_pages(&self, addr: *mut u8, len: usize) {
        // SAFETY: the core guarantees the range holds nothing live.
        unsafe { std::ptr::write_bytes(addr, 0, len) };
        self.released.lock().unwrap().push((addr as usize, len));
    }
    fn released_pages_are_zero(&self) -> bool {
        true
    }
    unsafe fn drop_pages(&self, addr: *mut u8, len: usize) {
        // SAFETY: as above.
        unsafe { self.release_pages(addr, len) };
    }
}

/// Keeps released pages resident (as MADV_FREE or a deferred purge does): the core counts them
/// as idle until they are reused or dropped; `drop_pages` zeroes and records.
#[derive(Default)]
pub struct KeepingOs {
    pub released: Mutex<Vec<(usize, usize)>>,
    pub dropped: Mutex<Vec<(usize, usize)>>,
    /// Keep retired blocks resident (the embedder drops or reuses them).
    pub keep_retired: bool,
}

impl OsMemory for KeepingOs {
    unsafe fn release_pages(&self, addr: *mut u8, len: usize) {
        self.released.lock().unwrap().push((addr as usize, len));
    }
    fn released_pages_are_zero(&self) -> bool {
        false
    }
    unsafe fn drop_pages(&self, addr: *mut u8, len: usize) {
        // SAFETY: the core guarantees the range holds nothing live.
        unsafe { std::ptr::write_bytes(addr, 0, len) };
        self.dropped.lock().unwrap().push((addr as usize, len));
    }
    fn keeps_retired_blocks(&self) -> bool {
        self.keep_retired
    }
}

pub struct Fixture {
    pub shared: &'static Shared,
    pub budget: &'static CountingBudget,
    pub os: &'static RecordingOs,
    pub source: &'static HeapSource,
}

pub fn fixture(settings: Settings, block_limit: usize, page_limit: usize) -> Fixture {
    let source: &'static HeapSource = Box::leak(Box::new(HeapSource::new(block_limit)));
    let budget: &'static CountingBudget = Box::leak(Box::new(CountingBudget::new(page_limit)));
    let os: &'static RecordingOs = Box::leak(Box::default());
    let shared = Shared::new(source, budget, os, settings).leak();
    Fixture {
        shared,
        budget,
        os,
        source,
    }
}

/// Pages of the block overlapped by `len` bytes at `p`.
pub fn pages_of(block: *const Block, p: usize, len: usize) -> PageMask {
    let off = p - block as usize;
    PageMask::of_range(off, off + len)
}

/// The pages an allocated cell at `p` keeps charged after a sweep: those overlapped by all cells
/// starting in the same page as `p` (computed independently of the core).
pub fn start_page_overlap(block: *const Block, p: usize, cell: usize) -> PageMask {
    let off = p - block as usize;
    let page = off / PAGE_BYTES;
    let reserved = (BLOCK_BYTES - HEADER_BYTES) / cell;
    let mut m = PageMask::EMPTY;
    for i in 0..reserved {
        let o = HEADER_BYTES + i * cell;
        if o / PAGE_BYTES == page {
            m = m.union(PageMask::of_range(o, o + cell));
        }
    }
    m
}

/// The settings of a garbage-collected embedder: page accounting, zeroed cells, nothing
/// abandoned at a sweep.
pub fn gc_settings() -> Settings {
    Settings {
        accounting: Accounting::Page,
        zero_cells: true,
        abandon_idle_bins: false,
        abandon_all_partial: false,
        reuse: ReuseOrder::Address,
        spill: Spill::Charge,
        adopt: Adopt::Block,
        lease_current: false,
        lend_holes: 0,
        hole_live: None,
        marks: None,
        listing_pages: 1,
        extension_pages: 1,
    }
}

/// (resident, charged) pages summed over a heap's blocks and the abandoned ones.
pub fn resident_and_charged(heap: &Heap, shared: &Shared) -> (usize, usize) {
    let (mut r, mut c) = (0, 0);
    for b in heap.blocks() {
        // SAFETY: owned blocks of a heap we hold.
        unsafe {
            assert!((*b).is_valid());
            r += (*b).resident().count();
            c += (*b).charged().count();
        }
    }
    shared.for_each_abandoned(&mut |b| {
        r += b.resident().count();
        c += b.charged().count();
    });
    (r, c)
}

/// Allocates two blocks' worth of 64-byte cells and sweeps, keeping one cell in eight pages'
/// worth (and the last one, so that no block empties: it would be given back at once): idle
/// pages in every block. Returns the heap and the pages charged before the sweep.
pub fn sparse_heap(shared: &'static Shared) -> (Box<Heap>, usize) {
    let mut heap = Heap::new_boxed(shared);
    let cells: Vec<usize> = (0..2 * BLOCK_BYTES / 64)
        .map(|_| heap.alloc(64) as usize)
        .collect();
    let per_page = PAGE_BYTES / 64;
    let mut live: std::collections::HashSet<usize> =
        cells.iter().step_by(8 * per_page).copied().collect();
    live.insert(*cells.last().unwrap());
    let before = shared.budget().charged();
    heap.sweep(&mut |p| live.contains(&(p as usize)));
    (heap, before)
}
