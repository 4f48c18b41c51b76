//! `Block::footprint`: every resident byte of a block in exactly one part, and each part what
//! the heap's history says it is (live objects and their rounding, dead cells, free and
//! filling cells, idle pages).

mod common;

use common::{fixture, gc_settings};
use shardsweep::*;
use std::collections::HashMap;

/// Footprints of every block of `heap`, with `objects` (cell → object bytes) as the live set;
/// the current block of each bin counted as filling.
fn footprint_of(heap: &Heap, objects: &HashMap<usize, usize>) -> (Footprint, usize) {
    let mut sum = Footprint::default();
    let mut resident = 0;
    let current: Vec<*mut Block> = (1..BIN_COUNT)
        .filter_map(|bin| heap.current_block(bin))
        .collect();
    for b in heap.blocks() {
        // SAFETY: blocks of a heap this test owns; nothing allocates meanwhile.
        let f = unsafe {
            (*b).footprint(
                &mut |c| objects.get(&(c as usize)).copied(),
                current.contains(&b),
            )
        };
        // SAFETY: as above.
        let pages = unsafe { (*b).resident().count() };
        assert_eq!(
            f.total(),
            pages * PAGE_BYTES,
            "every resident byte in one part"
        );
        resident += pages;
        sum.add(&f);
    }
    (sum, resident)
}

#[test]
fn the_parts_add_up_and_say_what_the_heap_did() {
    let fx = fixture(gc_settings(), 100, usize::MAX);
    let mut heap = Heap::new_boxed(fx.shared);
    // Three size classes; objects of 3/4 of their cell.
    let mut cells = Vec::new();
    for &size in &[24usize, 128, 1000] {
        for _ in 0..600 {
            let p = heap.alloc(size);
            assert!(!p.is_null());
            cells.push((p as usize, size));
        }
    }
    // Every third object lives; the object is the first 3/4 of the request.
    let objects: HashMap<usize, usize> = cells
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 3 == 0)
        .map(|(_, &(p, size))| (p, size * 3 / 4))
        .collect();
    let live_bytes: usize = objects.values().sum();
    let (before, resident) = footprint_of(&heap, &objects);
    assert_eq!(before.total(), resident * PAGE_BYTES);
    // Before the sweep: the live objects exactly, the dead cells are every other allocated cell.
    assert_eq!(before.live, live_bytes);
    let cell_bytes: usize = cells
        .iter()
        .map(|&(p, _)| {
            // SAFETY: the block of a cell this test allocated.
            unsafe { (*Block::of(p as *const u8)).cell_size() }
        })
        .sum();
    let live_cell_bytes: usize = objects
        .keys()
        .map(|&p| {
            // SAFETY: as above.
            unsafe { (*Block::of(p as *const u8)).cell_size() }
        })
        .sum();
    assert_eq!(before.live + before.rounding, live_cell_bytes);
    assert_eq!(before.dead, cell_bytes - live_cell_bytes);
    assert_eq!(before.idle, 0, "nothing given back yet");
    assert!(
        before.header >= HEADER_BYTES * 3,
        "three blocks' headers at least"
    );

    // The sweep frees the dead cells: after it, none is dead, and the pages it gave back but
    // kept resident are idle.
    let live: std::collections::HashSet<usize> = objects.keys().copied().collect();
    heap.sweep(&mut |c| live.contains(&(c as usize)));
    let (after, resident_after) = footprint_of(&heap, &objects);
    assert_eq!(after.total(), resident_after * PAGE_BYTES);
    assert_eq!(after.dead, 0);
    assert_eq!(after.live, live_bytes);
    assert!(
        after.free + after.filling > 0,
        "the dead cells are listed free"
    );
    // Allocating again takes cells of the current blocks: filling shrinks, live stays.
    for _ in 0..10 {
        assert!(!heap.alloc(128).is_null());
    }
    let (again, _) = footprint_of(&heap, &objects);
    // The new cells are allocated but not in the live set: the oracle calls them dead.
    assert_eq!(again.dead, 10 * 128);
    assert_eq!(again.live, live_bytes);
}

#[test]
fn idle_pages_are_counted_whole() {
    let fx = fixture(gc_settings(), 100, usize::MAX);
    let mut heap = Heap::new_boxed(fx.shared);
    // Fill many pages of one class, keep only the first cell: the sweep uncharges the rest.
    let cells: Vec<usize> = (0..2000).map(|_| heap.alloc(64) as usize).collect();
    let keep = cells[0];
    heap.sweep(&mut |c| c as usize == keep);
    let objects: HashMap<usize, usize> = [(keep, 64)].into_iter().collect();
    let (f, resident) = footprint_of(&heap, &objects);
    assert_eq!(f.total(), resident * PAGE_BYTES);
    assert_eq!(f.live, 64);
    // Whether uncharged pages stay resident (idle) depends on the OS interface; the fixture's
    // drops them, so every resident page is charged, and the charged ones are few.
    // SAFETY: the block of a cell this test allocated.
    let b = unsafe { &*Block::of(keep as *const u8) };
    assert_eq!(f.idle, b.idle().count() * PAGE_BYTES);
    assert!(
        resident <= 2 + b.idle().count(),
        "header page and the kept cell's page"
    );
}

/// `Block::hole_bytes`: the free cells the coming sweep leaves on kept pages, by the size of the
/// contiguous hole they lie in, cut at pages the sweep gives back.
#[test]
fn holes_are_runs_of_free_cells_on_kept_pages() {
    if PAGES_PER_BLOCK < 4 {
        return; // the pattern needs three pages of one block
    }
    let fx = fixture(gc_settings(), 100, usize::MAX);
    let mut heap = Heap::new_boxed(fx.shared);
    let page_of = |c: usize| (c & BLOCK_MASK) >> LOG_PAGE_BYTES;
    let mut cells = Vec::new();
    loop {
        let c = heap.alloc(64) as usize;
        assert_ne!(c, 0);
        if page_of(c) > 3 {
            break;
        }
        cells.push(c);
    }
    // 64 B cells after a 64-aligned header never straddle pages. Page 1: cells 0, 20 and 63 live
    // (holes of 19 and 42 cells); page 2: nothing live (given back); page 3: every other cell
    // live (holes of one cell). Pages 0 and beyond 3: everything live; page 4 holds the first
    // cell past page 3 (live) and the 63 listed cells of its extension (a hole of 4032 B).
    let mut live = std::collections::HashSet::new();
    let mut k = [0usize; 4];
    for &c in &cells {
        let p = page_of(c);
        let i = if p < 4 { k[p] } else { 0 };
        if p < 4 {
            k[p] += 1;
        }
        let keep = match p {
            1 => i == 0 || i == 20 || i == 63,
            2 => false,
            3 => i % 2 == 0,
            _ => true,
        };
        if keep {
            live.insert(c);
        }
    }
    assert_eq!(HEADER_BYTES % 64, 0, "the pattern assumes 64 B cells aligned to pages");
    let block = Block::of(cells[0] as *const u8);
    // SAFETY: a block of a heap this test owns; nothing allocates meanwhile.
    let h = unsafe { (*block).hole_bytes(&mut |c| live.contains(&(c as usize)) || page_of(c as usize) > 3) };
    let (a, b, c) = (19 * 64, 42 * 64, 63 * 64);
    assert_eq!(h[0], a + b + c, "holes of at least 512 B: page 1's two, page 4's");
    assert_eq!(h[1], a + b + c, "at least 1 KiB: 1216, 2688 and 4032 B");
    assert_eq!(h[2], b + c, "at least 2 KiB: 2688 and 4032 B");
    assert_eq!(h[3], 0, "no hole of 4 KiB: page 2 is given back, so it cuts");
    assert_eq!(h[4], a + b + c + 32 * 64, "all holes: those and page 3's 32 single cells");
}
