//! The queue search and the adoption stop at their limits (`MAX_SEARCH`, `MAX_ADOPT`) and the
//! allocation that reaches them stays within the documented work bound: twelve heaps each leave
//! an abandoned block whose listed cells are all handed out but which can still extend, then one
//! heap allocates that size class until its queue holds more such blocks than a search examines.
//! Deterministic, on the core's `Heap` (the bound is the core's, in either mode). Requires
//! `--features step-count`.

use shardsweep::bounds::ALLOC_STEP_BOUND;
use shardsweep::steps::{self, Limit};
use shardsweep::*;

fn shared() -> &'static Shared {
    let budget: &'static CountingBudget = Box::leak(Box::new(CountingBudget::unlimited()));
    let os: &'static Madvise = Box::leak(Box::new(Madvise {
        advice: Advice::DontNeed,
    }));
    let arena: &'static ArenaSource = Box::leak(Box::new(ArenaSource::new(1 << 30)));
    let settings = Settings {
        accounting: Accounting::Page,
        zero_cells: false,
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
    Shared::new(arena, budget, os, settings).leak()
}

/// Cells of `size` that start in a block's first page (after the header).
fn first_page_cells(size: usize) -> usize {
    (PAGE_BYTES - HEADER_BYTES).div_ceil(size)
}

#[test]
fn search_and_adoption_stop_at_their_limits_within_the_bound() {
    if PAGES_PER_BLOCK < 2 {
        // One-page blocks are extended whole at once: no block is ever extendable without a
        // free cell, so the search never meets more than one candidate. Nothing to test.
        eprintln!("skipped: {PAGES_PER_BLOCK}-page blocks");
        return;
    }
    let shared = shared();
    // 1 KiB cells with 64 KiB blocks; a quarter of the largest small size with smaller blocks.
    let size = (MAX_SMALL_BYTES / 4).min(1024);
    let per_page = first_page_cells(size);
    // Twelve abandoned blocks of this class, each with its first page's cells all handed out.
    // All heaps allocate before any is dropped, so none adopts another's block.
    let mut live = Vec::new();
    let mut heaps: Vec<Box<Heap>> = (0..12).map(|_| Heap::new_boxed(shared)).collect();
    for h in heaps.iter_mut() {
        for _ in 0..per_page {
            let p = h.alloc(size);
            assert!(!p.is_null());
            live.push(p as usize);
        }
    }
    drop(heaps); // abandons the blocks: used > 0, no free cell, can extend
    assert_eq!(shared.abandoned_blocks(), 12);
    let before = steps::limited_counts();
    let mut h = Heap::new_boxed(shared);
    let mut max = 0;
    for _ in 0..12 * per_page {
        steps::take();
        let p = h.alloc(size);
        max = max.max(steps::take());
        assert!(!p.is_null());
        live.push(p as usize);
    }
    let after = steps::limited_counts();
    let searched = after[Limit::Search as usize] - before[Limit::Search as usize];
    let adopted = after[Limit::Adopt as usize] - before[Limit::Adopt as usize];
    eprintln!(
        "max work units of an allocation {max} (bound {ALLOC_STEP_BOUND}); searches stopped at \
         MAX_SEARCH {searched}, adoptions stopped at MAX_ADOPT {adopted}"
    );
    assert!(
        adopted > 0,
        "no adoption reached MAX_ADOPT: the scenario does not test it"
    );
    assert!(
        searched > 0,
        "no search reached MAX_SEARCH: the scenario does not test it"
    );
    assert!(max <= ALLOC_STEP_BOUND as u64);
    assert!(h.is_valid());
    for p in live {
        // SAFETY: cells of this instance, freed once (remote frees into adopted blocks or ours).
        unsafe { h.free(p as *mut u8) };
    }
}
