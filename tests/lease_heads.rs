//! The JIT's pop (`Settings::lease_current`, `jit_layout::LEASE_HEADS`): a bin's current block
//! hands its whole list to the bin's lease, and a JIT pops from the lease's head at the offset
//! the static table gives for the size, with nothing but two loads and a store. Every cell is
//! handed out once, from a block of a large enough size class; the blocks' counts hold (the
//! leased cells counted handed out); a sweep empties every head and gives the dead cells back,
//! the live ones never; without `lease_current` the heads stay empty (the JIT then calls).

mod common;

use common::{fixture, gc_settings};
use shardsweep::jit_layout::{CELL_NEXT, HEAD_SLOTS, LEASE_HEADS};
use shardsweep::*;
use std::collections::HashSet;

/// The blocks the fixture may map: 1,000, and at least 128 MiB of them (with 32 KiB blocks the
/// largest cells leave a quarter of a block's address space unused).
const BLOCK_LIMIT: usize = if (128 << 20) / BLOCK_BYTES > 1000 {
    (128 << 20) / BLOCK_BYTES
} else {
    1000
};

fn settings(lease_current: bool) -> Settings {
    Settings { lease_current, abandon_all_partial: true, ..gc_settings() }
}

/// The sizes the JIT serves inline: whole words up to the largest small size, three in four
/// within the direct table (most objects are small).
fn size_of_step(rng: &mut u64) -> usize {
    *rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let words = if (*rng >> 20) % 4 == 0 { HEAD_SLOTS - 1 } else { MAX_DIRECT_BYTES / 8 };
    8 * (1 + (*rng >> 33) as usize % words)
}

/// The JIT's sequence (`policy/fastpath.rs`): the head at the table's offset in the heap, its
/// cell and the link; null when the lease is empty.
///
/// # Safety
/// `heap` is a live heap this thread holds; `size` a whole number of words within the table.
unsafe fn jit_pop(heap: *mut Heap, size: usize) -> *mut u8 {
    // SAFETY: per the contract; the table's offsets are within the heap, the head lists cells
    // whose first word is their link.
    unsafe {
        let head = (heap as *mut u8).add(LEASE_HEADS[size / WORD_BYTES]) as *mut *mut u8;
        let cell = *head;
        if !cell.is_null() {
            *head = *(cell.add(CELL_NEXT) as *const *mut u8);
        }
        cell
    }
}

/// `n` allocations of random sizes, each by the JIT's pop or, on null, the call (`Heap::alloc`);
/// the caller's header overwrites the link. Returns the cells and how many the pop served.
fn allocate(heap: &mut Heap, n: usize, rng: &mut u64) -> (Vec<(usize, usize)>, usize) {
    let mut cells = Vec::with_capacity(n);
    let mut inline = 0;
    for _ in 0..n {
        let size = size_of_step(rng);
        // SAFETY: our heap; `size` is a whole number of words within the table.
        let mut c = unsafe { jit_pop(heap, size) };
        if c.is_null() {
            c = heap.alloc(size);
        } else {
            inline += 1;
        }
        assert!(!c.is_null(), "no cell for {size} B after {} cells", cells.len());
        // SAFETY: a handed-out cell of at least `size` bytes: the header's word.
        unsafe { *(c as *mut usize) = 0 };
        cells.push((c as usize, size));
    }
    (cells, inline)
}

/// Every cell lies in a valid block of a size class that holds its size; every owned block's
/// counts hold.
fn check_blocks(heap: &Heap, cells: &[(usize, usize)]) {
    for &(c, size) in cells {
        let b = (c & !(BLOCK_BYTES - 1)) as *const Block;
        // SAFETY: a cell's block header starts its block-aligned block, which the heap holds.
        let (cell_size, valid) = unsafe { ((*b).cell_size(), (*b).is_valid()) };
        assert!(cell_size >= size && valid, "cell {c:#x} of {size} B in a block of {cell_size} B");
    }
    assert!(heap.is_valid());
    for b in heap.blocks() {
        // SAFETY: owned blocks of a heap we hold.
        assert!(unsafe { (*b).is_valid() });
    }
}

#[test]
fn jit_pops_hand_out_every_cell_once_and_the_counts_hold() {
    let fx = fixture(settings(true), BLOCK_LIMIT, usize::MAX);
    let mut heap = Heap::new_boxed(fx.shared);
    let mut rng = 7;
    let (cells, inline) = allocate(&mut heap, 40_000, &mut rng);
    let distinct: HashSet<usize> = cells.iter().map(|&(c, _)| c).collect();
    assert_eq!(distinct.len(), cells.len(), "a cell handed out twice");
    // A call per lease refill, at most a page's worth of cells each (one or none of the largest,
    // a page or two each): most allocations are inline pops (70% with these sizes).
    assert!(inline * 2 > cells.len(), "{inline} of {} inline", cells.len());
    check_blocks(&heap, &cells);
}

#[test]
fn a_sweep_empties_the_heads_and_gives_back_the_dead_cells_only() {
    let fx = fixture(settings(true), BLOCK_LIMIT, usize::MAX);
    let mut heap = Heap::new_boxed(fx.shared);
    let mut rng = 11;
    let (cells, _) = allocate(&mut heap, 30_000, &mut rng);
    let live: HashSet<usize> = cells.iter().step_by(3).map(|&(c, _)| c).collect();
    let dead: HashSet<usize> = cells.iter().map(|&(c, _)| c).filter(|c| !live.contains(c)).collect();
    heap.sweep(&mut |c| live.contains(&(c as usize)));
    for size in (WORD_BYTES..=MAX_SMALL_BYTES).step_by(WORD_BYTES) {
        // SAFETY: our heap; the table's offset of a whole-word size.
        let head = unsafe { *((&mut *heap as *mut Heap as *mut u8).add(LEASE_HEADS[size / WORD_BYTES]) as *const usize) };
        assert_eq!(head, 0, "the lease of {size} B survived the sweep");
    }
    let (again, _) = allocate(&mut heap, 30_000, &mut rng);
    let mut reused = 0;
    for &(c, _) in &again {
        assert!(!live.contains(&c), "a live cell {c:#x} handed out again");
        reused += dead.contains(&c) as usize;
    }
    assert!(reused > 0, "no dead cell reused");
    check_blocks(&heap, &again);
}

#[test]
fn without_lease_current_the_heads_stay_empty() {
    let fx = fixture(settings(false), BLOCK_LIMIT, usize::MAX);
    let mut heap = Heap::new_boxed(fx.shared);
    let mut rng = 13;
    let (cells, inline) = allocate(&mut heap, 5_000, &mut rng);
    // Blocks are adopted whole (`Adopt::Block`): no lease, so the JIT's pop always calls.
    assert_eq!(inline, 0);
    check_blocks(&heap, &cells);
}

#[test]
fn the_table_gives_one_head_per_size_class() {
    let mut by_bin = std::collections::HashMap::new();
    for size in (WORD_BYTES..=MAX_SMALL_BYTES).step_by(WORD_BYTES) {
        let off = LEASE_HEADS[size / WORD_BYTES];
        assert_eq!(off % WORD_BYTES, 0);
        assert!(off < std::mem::size_of::<Heap>());
        assert_eq!(*by_bin.entry(bin_of(size)).or_insert(off), off, "{size} B");
    }
    let offsets: HashSet<usize> = by_bin.values().copied().collect();
    assert_eq!(offsets.len(), by_bin.len(), "two size classes share a head");
}
