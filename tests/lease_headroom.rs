//! Adoption by a lease sized by the budget's room left (`Adopt::Headroom`, `heap/lease.rs`):
//! the whole block while the room's share per (heap, size class) pair is a block's worth or more
//! (as `Adopt::Block`), a lease of that share in pages below it, a page's worth at least; a budget
//! that does not know its room (the default) gets whole blocks. `Heap::busy_bins` counts the
//! classes a heap allocated from since its last sweep (what an embedder counts pairs with).

mod common;

use common::{gc_settings, HeapSource, RecordingOs};
use shardsweep::*;
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};

const SIZE: usize = 48;

/// A budget without a limit whose room left the test sets.
struct RoomBudget {
    pages: CountingBudget,
    room: AtomicUsize,
    sharers: usize,
}

impl PageBudget for RoomBudget {
    fn try_charge(&self, pages: usize) -> bool {
        self.pages.try_charge(pages)
    }
    fn uncharge(&self, pages: usize) {
        self.pages.uncharge(pages)
    }
    fn charged(&self) -> usize {
        self.pages.charged()
    }
    fn headroom(&self) -> Option<Headroom> {
        Some(Headroom { pages: self.room.load(Ordering::Relaxed), sharers: self.sharers })
    }
}

fn shared_with_room(sharers: usize) -> (&'static Shared, &'static RoomBudget) {
    shared_with(sharers, Settings { adopt: Adopt::Headroom, abandon_all_partial: true, ..gc_settings() })
}

fn shared_with(sharers: usize, settings: Settings) -> (&'static Shared, &'static RoomBudget) {
    let budget: &'static RoomBudget = Box::leak(Box::new(RoomBudget {
        pages: CountingBudget::unlimited(),
        room: AtomicUsize::new(usize::MAX),
        sharers,
    }));
    let source: &'static HeapSource = Box::leak(Box::new(HeapSource::new(100)));
    let os: &'static RecordingOs = Box::leak(Box::default());
    (Shared::new(source, budget, os, settings).leak(), budget)
}

/// One heap fills a block of 48 B cells; a sweep keeps every fourth and abandons the block.
/// Returns the dead cells (free in the abandoned block).
fn one_abandoned_block(shared: &'static Shared) -> HashSet<usize> {
    let mut heap = Heap::new_boxed(shared);
    let per_block = (BLOCK_BYTES - HEADER_BYTES) / bin_bytes(bin_of(SIZE));
    let cells: Vec<usize> = (0..per_block).map(|_| heap.alloc(SIZE) as usize).collect();
    let live: HashSet<usize> = cells.iter().step_by(4).copied().collect();
    heap.sweep(&mut |c| live.contains(&(c as usize)));
    assert_eq!(shared.abandoned_blocks(), 1);
    cells.into_iter().filter(|c| !live.contains(c)).collect()
}

#[test]
fn the_lease_is_the_rooms_share_per_heap_and_class() {
    let room = |pages, sharers| Some(Headroom { pages, sharers });
    assert_eq!(lease_pages(None), PAGES_PER_BLOCK, "a budget without a known room: whole blocks");
    assert_eq!(lease_pages(room(usize::MAX, 1)), PAGES_PER_BLOCK);
    assert_eq!(lease_pages(room(0, 8)), 1, "at the limit: a page's worth");
    assert_eq!(lease_pages(room(99, 100)), 1);
    assert_eq!(lease_pages(room(100 * PAGES_PER_BLOCK, 100)), PAGES_PER_BLOCK);
    assert_eq!(lease_pages(room(100 * PAGES_PER_BLOCK - 1, 100)), (PAGES_PER_BLOCK - 1).max(1));
    assert_eq!(lease_pages(room(3 * 2 + 2, 3)), 2.min(PAGES_PER_BLOCK));
    assert_eq!(lease_pages(room(5, 0)), 5.min(PAGES_PER_BLOCK), "no sharer counts as one");
    assert_eq!(lease_cells_in(bin_of(SIZE), 3), 3 * LEASE_BYTES / bin_bytes(bin_of(SIZE)));
    assert_eq!(lease_cells_in(bin_of(MAX_SMALL_BYTES), 1), 1, "at least one cell");
}

#[test]
fn busy_bins_are_the_classes_allocated_from_since_the_sweep() {
    let (shared, _) = shared_with_room(1);
    let mut heap = Heap::new_boxed(shared);
    assert_eq!(heap.busy_bins(), 0);
    let cells: Vec<usize> = [16, 48, 48, 1000].iter().map(|&s| heap.alloc(s) as usize).collect();
    assert_eq!(heap.busy_bins(), 3);
    heap.sweep(&mut |c| cells.contains(&(c as usize)));
    assert_eq!(heap.busy_bins(), 0, "a sweep starts a new interval");
}

#[test]
fn with_room_a_heap_adopts_the_whole_block() {
    let (shared, _) = shared_with_room(4);
    let dead = one_abandoned_block(shared);
    let mut heap = Heap::new_boxed(shared);
    assert!(dead.contains(&(heap.alloc(SIZE) as usize)));
    assert_eq!(heap.owned_blocks(), 1, "adopted, as under Adopt::Block");
    assert_eq!(shared.abandoned_blocks(), 0);
    assert_eq!(heap.leased_bytes(), 0);
}

#[test]
fn near_the_limit_a_heap_leases_its_share() {
    if PAGES_PER_BLOCK < 4 {
        return; // a block of one page is its own lease
    }
    let sharers = 64;
    for share in [1, 3] {
        let (shared, budget) = shared_with_room(sharers);
        let dead = one_abandoned_block(shared);
        let charged = budget.charged();
        budget.room.store(share * sharers + sharers - 1, Ordering::Relaxed);
        let mut heap = Heap::new_boxed(shared);
        let c = heap.alloc(SIZE) as usize;
        assert!(dead.contains(&c), "the first cell comes from the abandoned block");
        assert_eq!(heap.owned_blocks(), 0, "a lease adopts no block");
        assert_eq!(shared.abandoned_blocks(), 1, "the block stays abandoned");
        let cell = bin_bytes(bin_of(SIZE));
        let lease = lease_cells_in(bin_of(SIZE), share).min(dead.len());
        assert_eq!(heap.leased_bytes(), (lease - 1) * cell, "a lease of {share} pages' worth");
        // The rest of the block's free cells go out lease by lease before any page is charged.
        let mut got = HashSet::from([c]);
        while got.len() < dead.len() {
            let c = heap.alloc(SIZE) as usize;
            assert!(dead.contains(&c) && got.insert(c), "a cell not free in the block, or twice");
        }
        assert_eq!(budget.charged(), charged, "no page charged while the block had free cells");
    }
}

#[test]
fn adopt_parses_headroom() {
    assert_eq!(Adopt::parse("HEADROOM"), Ok(Adopt::Headroom));
    assert_eq!(Adopt::Headroom.name(), "headroom");
    let e = Adopt::parse("page").unwrap_err();
    assert!(e.contains("valid values are block, lease, headroom"), "{e}");
}

/// Extension by room (`Settings::extension_pages`): a slow path that extends a block extends it
/// by that many pages while the room's share per (heap, size class) pair covers them, by the
/// share below it, by one page at the limit. Counted as the slow paths that raised the block's
/// capacity while one heap fills its first block: the pages where cells start, `want` at a time;
/// the cells go out in address order (the lowest page of an extension first).
#[test]
fn an_extension_takes_up_to_extension_pages_while_there_is_room() {
    let ppb = PAGES_PER_BLOCK;
    for (most, room, sharers, want) in [(1, usize::MAX, 1, 1), (4, usize::MAX, 1, 4.min(ppb)), (4, 6, 3, 2.min(ppb)), (4, 0, 8, 1), (ppb, usize::MAX, 1, ppb)] {
        let (shared, budget) = shared_with(sharers, Settings { extension_pages: most, ..gc_settings() });
        budget.room.store(room, Ordering::Relaxed);
        let mut heap = Heap::new_boxed(shared);
        let first = heap.alloc(SIZE);
        assert!(!first.is_null());
        let b = heap.blocks()[0];
        // SAFETY: the heap's own block, read on its thread.
        let (starts, reserved) = unsafe { ((*b).starts().count(), (*b).reserved()) };
        let mut extensions = 1;
        // SAFETY: as above.
        let mut capacity = unsafe { (*b).capacity() };
        assert!(capacity > 0);
        let mut last = first as usize;
        while capacity < reserved {
            let c = heap.alloc(SIZE) as usize;
            assert!(c > last, "cells of a filling block handed out in address order ({most} pages at most)");
            last = c;
            // SAFETY: as above.
            let now = unsafe { (*b).capacity() };
            extensions += usize::from(now > capacity);
            capacity = now;
        }
        assert_eq!(extensions, starts.div_ceil(want), "slow paths that extended the block, {most} pages at most, room {room}, {sharers} sharers");
    }
}
