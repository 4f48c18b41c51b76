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
