//! A budget that counts pages in use (`PageBudget::counts_idle` false): the count is exactly the
//! pages of every block's `charged` set; idle pages stay resident, uncounted, and are reused (and
//! charged again) before fresh pages are touched; dropping idle pages or a retired block changes
//! nothing in the count. The OS stand-in keeps released pages resident, as a deferred purge does.
//! The budget also follows the resident pages through `PageBudget::note_resident`, and every
//! test checks that this follows the blocks' `resident` sets exactly.

mod common;

use common::{gc_settings, resident_and_charged as walk, HeapSource, KeepingOs};
use shardsweep::*;
use std::collections::HashSet;
use std::sync::atomic::{AtomicIsize, Ordering};

/// Counts pages in use, with an optional limit, and follows the resident pages.
struct InUse(CountingBudget, AtomicIsize);

impl InUse {
    /// The resident pages as `note_resident` told them.
    fn resident(&self) -> usize {
        usize::try_from(self.1.load(Ordering::Relaxed)).expect("never below zero")
    }
}

impl PageBudget for InUse {
    fn try_charge(&self, pages: usize) -> bool {
        self.0.try_charge(pages)
    }
    fn uncharge(&self, pages: usize) {
        self.0.uncharge(pages)
    }
    fn charged(&self) -> usize {
        self.0.charged()
    }
    fn counts_idle(&self) -> bool {
        false
    }
    fn note_resident(&self, delta: isize) {
        self.1.fetch_add(delta, Ordering::Relaxed);
    }
}

struct Fx {
    shared: &'static Shared,
    budget: &'static InUse,
    os: &'static KeepingOs,
}

fn fixture(limit: usize, keep_retired: bool) -> Fx {
    let source: &'static HeapSource = Box::leak(Box::new(HeapSource::new(1000)));
    let budget: &'static InUse = Box::leak(Box::new(InUse(CountingBudget::new(limit), AtomicIsize::new(0))));
    let os: &'static KeepingOs = Box::leak(Box::new(KeepingOs {
        keep_retired,
        ..Default::default()
    }));
    let shared = Shared::new(source, budget, os, gc_settings()).leak();
    Fx { shared, budget, os }
}

fn sparse_heap(fx: &Fx) -> Box<Heap> {
    common::sparse_heap(fx.shared).0
}

#[test]
fn the_count_is_the_pages_in_use_and_idle_pages_are_reused_uncounted() {
    let fx = fixture(usize::MAX, false);
    let mut heap = sparse_heap(&fx);
    let (resident, charged) = walk(&heap, fx.shared);
    assert_eq!(
        fx.budget.charged(),
        charged,
        "the budget counts exactly the pages in use"
    );
    assert!(
        charged < resident,
        "idle pages stay resident ({charged} in use of {resident})"
    );
    assert_eq!(fx.budget.resident(), resident, "the resident pages noted");
    // Allocating again lists cells on the idle pages: each is charged again as it comes into
    // use, and no page beyond the resident ones is touched until they are used up.
    let idle = resident - charged;
    let mut n = 0;
    while walk(&heap, fx.shared).0 == resident && n < 4 * BLOCK_BYTES / 64 {
        heap.alloc(64);
        n += 1;
        let (_, c) = walk(&heap, fx.shared);
        assert_eq!(fx.budget.charged(), c, "after {n} allocations");
    }
    let (resident2, charged2) = walk(&heap, fx.shared);
    assert!(
        charged2 >= charged + idle - 2,
        "{n} allocations used the {idle} idle pages (in use {charged} -> {charged2}) before a fresh one"
    );
    assert!(resident2 > resident, "then a fresh page");
    assert_eq!(fx.budget.charged(), charged2);
    assert_eq!(fx.budget.resident(), resident2, "fresh pages noted, reused idle ones not");
}

#[test]
fn dropping_idle_pages_leaves_the_count() {
    let fx = fixture(usize::MAX, false);
    let heap = sparse_heap(&fx);
    let (resident, charged) = walk(&heap, fx.shared);
    drop(heap); // abandons the partly used blocks, idle pages and all
    let dropped = fx.shared.drop_abandoned_idle(usize::MAX);
    assert_eq!(dropped, resident - charged, "every idle page is dropped");
    assert_eq!(fx.budget.charged(), charged, "they were not counted");
    assert_eq!(fx.budget.resident(), charged, "but they left the resident pages");
    assert_eq!(walk(&Heap::new_boxed(fx.shared), fx.shared), (charged, charged));
    assert!(!fx.os.dropped.lock().unwrap().is_empty());
}

#[test]
fn dropping_idle_pages_up_to_a_limit_stops_block_by_block() {
    let fx = fixture(usize::MAX, false);
    let heap = sparse_heap(&fx);
    let (resident, charged) = walk(&heap, fx.shared);
    drop(heap);
    let idle = resident - charged;
    assert!(idle >= 4, "the sparse heap leaves idle pages on several blocks ({idle})");
    // A limit of one page drops the idle pages of one block (at least one page), not all.
    let first = fx.shared.drop_abandoned_idle(1);
    assert!(first >= 1 && first < idle, "limit 1: {first} of {idle} idle pages dropped");
    assert_eq!(walk(&Heap::new_boxed(fx.shared), fx.shared), (resident - first, charged));
    // The rest goes without a limit; a limit of 0 drops nothing.
    assert_eq!(fx.shared.drop_abandoned_idle(0), 0);
    assert_eq!(fx.shared.drop_abandoned_idle(usize::MAX), idle - first);
    assert_eq!(fx.budget.charged(), charged);
    assert_eq!(fx.budget.resident(), charged);
}

#[test]
fn an_emptied_block_leaves_the_count_and_a_new_header_on_it_comes_back_into_it() {
    let fx = fixture(usize::MAX, true);
    let mut heap = Heap::new_boxed(fx.shared);
    let cells: Vec<usize> = (0..BLOCK_BYTES / 128)
        .map(|_| heap.alloc(128) as usize)
        .collect();
    assert!(fx.budget.charged() > 1);
    heap.sweep(&mut |_| false); // every block empties; the source keeps them retired
    assert_eq!(fx.budget.charged(), 0, "a retired block has no page in use");
    let b = Block::of(cells[0] as *const u8);
    // SAFETY: the retired block is unused; the test source hands it out again.
    let full = unsafe { Block::retired_resident(b) }.count();
    assert!(full > 1, "the retired block's pages stay resident");
    let before = fx.budget.resident();
    assert!(before >= full, "the retired blocks' pages are noted resident");
    let mut charging = Charging::new(fx.budget);
    // SAFETY: as above.
    let nb = unsafe { Block::init(b as *mut u8, bin_of(128), false, Accounting::Page, &mut charging) }
        .expect("no limit");
    assert_eq!(charging.pages(), 1, "the header page comes into use");
    // SAFETY: a live header we just made, ours alone.
    unsafe {
        assert_eq!((*nb).resident().count(), full);
        assert!((*nb).can_extend_resident());
        assert_eq!((*nb).extend(&mut charging, true, Spill::Charge), Ok(true));
        assert_eq!(fx.budget.charged(), (*nb).charged().count());
        Block::retire(nb, fx.budget);
        assert_eq!(fx.budget.charged(), 0);
        assert_eq!(fx.budget.resident(), before, "a new header on resident pages makes none resident");
        assert_eq!(Block::drop_retired(nb, fx.budget, fx.os), full, "pages dropped");
    }
    assert_eq!(fx.budget.charged(), 0, "dropping uncharges nothing more");
    assert_eq!(fx.budget.resident(), before - full, "but its pages leave the resident ones");
}

#[test]
fn a_limit_bounds_the_pages_in_use_not_the_idle_ones() {
    let limit = 2 * PAGES_PER_BLOCK + 8;
    let fx = fixture(limit, false);
    let mut heap = Heap::new_boxed(fx.shared);
    let mut cells = Vec::new();
    while let Ok(c) = heap.try_alloc(64) {
        cells.push(c.as_ptr() as usize);
    }
    assert_eq!(heap.try_alloc(64), Err(NoCell::Refused));
    let (_, c) = walk(&heap, fx.shared);
    assert_eq!(fx.budget.charged(), c);
    assert!(c <= limit && c + 2 >= limit, "in use {c}, limit {limit}");
    // Keep one cell in eight pages' worth: the rest of the pages go idle, uncounted.
    let per_page = PAGE_BYTES / 64;
    let live: HashSet<usize> = cells.iter().step_by(8 * per_page).copied().collect();
    heap.sweep(&mut |p| live.contains(&(p as usize)));
    let (_, c) = walk(&heap, fx.shared);
    assert_eq!(fx.budget.charged(), c);
    assert!(c < limit / 2);
    // Another size class cannot use those idle pages: it takes fresh ones, up to the limit of
    // pages in use, so that the resident pages exceed the limit by the idle ones.
    while heap.try_alloc(256).is_ok() {}
    let (resident, in_use) = walk(&heap, fx.shared);
    assert_eq!(fx.budget.charged(), in_use);
    assert!(in_use <= limit && in_use + 2 >= limit, "in use {in_use}, limit {limit}");
    assert!(resident > limit, "resident {resident}: the idle pages are not counted");
    assert_eq!(fx.budget.resident(), resident, "refused charges noted back");
}
