//! The standalone purge delay (`src/malloc/purge_delay.rs`): an arena that keeps empty blocks resident
//! hands them out again before fresh blocks, and drops their pages (and their charge) only after
//! the delay. The delay is `SHARDSWEEP_PURGE_DELAY_MS`'s default here (10 ms): this file runs in
//! its own process and no test sets the variable.

mod common;

use common::KeepingOs;
use shardsweep::malloc::purge_delay::{purge_delay_ms, DEFAULT_PURGE_DELAY_MS};
use shardsweep::*;
use std::time::Duration;

fn fixture() -> (
    &'static Shared,
    &'static CountingBudget,
    &'static KeepingOs,
    &'static ArenaSource,
) {
    let budget: &'static CountingBudget = Box::leak(Box::new(CountingBudget::unlimited()));
    let os: &'static KeepingOs = Box::leak(Box::new(KeepingOs {
        keep_retired: true,
        ..Default::default()
    }));
    let arena: &'static ArenaSource =
        Box::leak(Box::new(ArenaSource::keeping(1 << 30, budget, os)));
    let settings = Settings {
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
    };
    (
        Shared::new(arena, budget, os, settings).leak(),
        budget,
        os,
        arena,
    )
}

/// Fills `blocks` blocks with 1 KiB cells and frees them all: every block but each bin's
/// current one empties and goes back to the arena. Returns the cells' addresses.
fn churn(heap: &mut Heap, blocks: usize) -> Vec<usize> {
    let per_block = BLOCK_BYTES / 1024;
    let cells: Vec<*mut u8> = (0..blocks * per_block).map(|_| heap.alloc(1024)).collect();
    assert!(cells.iter().all(|c| !c.is_null()));
    for &c in &cells {
        // SAFETY: allocated above by this heap, freed once.
        unsafe {
            c.write_bytes(0xAB, 1024);
            heap.free(c);
        }
    }
    cells.iter().map(|&c| c as usize).collect()
}

#[test]
fn empty_blocks_stay_resident_for_the_delay_then_are_dropped() {
    assert_eq!(purge_delay_ms(), DEFAULT_PURGE_DELAY_MS);
    let (shared, budget, os, arena) = fixture();
    let mut heap = Heap::new_boxed(shared);
    let first = churn(&mut heap, 8);
    let kept = arena.kept_blocks();
    assert!(kept >= 6, "empty blocks were not kept: {kept}");
    assert!(
        os.dropped.lock().unwrap().is_empty(),
        "a kept block was dropped at once"
    );
    let charged_kept = budget.charged();
    assert!(
        charged_kept >= kept * (BLOCK_BYTES / PAGE_BYTES),
        "kept blocks' pages not counted: {charged_kept}"
    );

    // Within the delay, the next blocks come from the kept ones (the same addresses), not fresh.
    let second = churn(&mut heap, 4);
    let block_of = |a: usize| a & !(BLOCK_BYTES - 1);
    let reused = second
        .iter()
        .filter(|&&a| first.iter().any(|&f| block_of(f) == block_of(a)))
        .count();
    assert_eq!(
        reused,
        second.len(),
        "blocks taken while kept ones were waiting were fresh"
    );
    assert!(os.dropped.lock().unwrap().is_empty());

    // After two delays, the next block taken rotates the generations twice: every kept block is
    // dropped (its pages uncharged) and handed out again from the dropped list.
    // Each round allocates a size of a new bin, so that it takes a block (the slow path that
    // rotates).
    for size in [2048, 4096] {
        std::thread::sleep(Duration::from_millis(3 * DEFAULT_PURGE_DELAY_MS as u64));
        let c = heap.alloc(size);
        assert!(!c.is_null());
        // SAFETY: allocated above, freed once.
        unsafe { heap.free(c) };
    }
    let dropped = os.dropped.lock().unwrap().len();
    assert!(
        dropped >= kept - 1,
        "only {dropped} of {kept} kept blocks dropped after two delays"
    );
    assert!(
        budget.charged() < charged_kept,
        "charge not given back: {} vs {charged_kept}",
        budget.charged()
    );
    heap.abandon_all();
}
