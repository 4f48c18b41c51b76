//! Resident pages: the budget counts every page that may be in the RSS, in use or idle (given
//! back by a sweep but not dropped from memory), and the slow path reuses idle pages before it
//! touches fresh ones. The OS stand-in here keeps released pages resident, as MADV_FREE or a
//! deferred purge does.

mod common;

use common::{gc_settings, resident_and_charged as walk, HeapSource, KeepingOs};
use shardsweep::*;
use std::collections::HashSet;

struct Fx {
    shared: &'static Shared,
    budget: &'static CountingBudget,
    os: &'static KeepingOs,
}

fn fixture(keep_retired: bool) -> Fx {
    let source: &'static HeapSource = Box::leak(Box::new(HeapSource::new(1000)));
    let budget: &'static CountingBudget = Box::leak(Box::new(CountingBudget::unlimited()));
    let os: &'static KeepingOs = Box::leak(Box::new(KeepingOs {
        keep_retired,
        ..Default::default()
    }));
    let shared = Shared::new(source, budget, os, gc_settings()).leak();
    Fx { shared, budget, os }
}

#[test]
fn idle_pages_stay_counted_and_are_reused_before_fresh_ones() {
    let fx = fixture(false);
    let (mut heap, before) = common::sparse_heap(fx.shared);
    let (resident, charged) = walk(&heap, fx.shared);
    assert_eq!(
        resident,
        fx.budget.charged(),
        "the budget counts exactly the resident pages"
    );
    assert_eq!(
        resident, before,
        "released pages kept by the OS stay counted"
    );
    assert!(
        charged < resident,
        "the sweep uncharged pages without live cells ({charged} of {resident})"
    );
    assert!(!fx.os.released.lock().unwrap().is_empty());

    // Allocating again reuses idle pages: the budget does not grow until they are used up.
    let idle = resident - charged;
    let mut reused = 0;
    while fx.budget.charged() == before && reused < 4 * BLOCK_BYTES / 64 {
        heap.alloc(64);
        reused += 1;
    }
    let (resident2, charged2) = walk(&heap, fx.shared);
    assert_eq!(resident2, fx.budget.charged());
    assert!(
        charged2 >= charged + idle - 2,
        "{reused} allocations used the {idle} idle pages (charged {charged} -> {charged2}) before a fresh one"
    );
}

#[test]
fn dropping_idle_pages_uncharges_them() {
    let fx = fixture(false);
    let mut heap = Heap::new_boxed(fx.shared);
    let cells: Vec<usize> = (0..BLOCK_BYTES / 32)
        .map(|_| heap.alloc(32) as usize)
        .collect();
    let live: HashSet<usize> = cells.iter().step_by(4 * PAGE_BYTES / 32).copied().collect();
    heap.sweep(&mut |p| live.contains(&(p as usize)));
    let (resident, charged) = walk(&heap, fx.shared);
    drop(heap); // abandons the partly used blocks, idle pages and all
    let dropped = fx.shared.drop_abandoned_idle(usize::MAX);
    assert_eq!(
        dropped,
        resident - charged,
        "every idle page of the abandoned blocks is dropped"
    );
    assert_eq!(fx.budget.charged(), charged);
    let mut n = 0;
    fx.shared.for_each_abandoned(&mut |b| {
        assert!(b.idle().is_empty());
        n += b.resident().count();
    });
    assert_eq!(n, charged);
    assert!(!fx.os.dropped.lock().unwrap().is_empty());
}

#[test]
fn retired_blocks_are_dropped_unless_kept_and_then_inherited() {
    for keep in [false, true] {
        let fx = fixture(keep);
        let mut heap = Heap::new_boxed(fx.shared);
        // One block's worth (less its header).
        let cells: Vec<usize> = (0..BLOCK_BYTES / 128 - 8)
            .map(|_| heap.alloc(128) as usize)
            .collect();
        let full = fx.budget.charged();
        assert!(full > 1);
        heap.sweep(&mut |_| false); // every block empty: retired
        assert_eq!(heap.owned_blocks(), 0);
        if !keep {
            assert_eq!(
                fx.budget.charged(),
                0,
                "retired blocks are dropped and uncharged at once"
            );
        } else {
            assert_eq!(
                fx.budget.charged(),
                full,
                "kept retired blocks stay counted"
            );
            // A new block on the same memory inherits the resident pages: extending into them
            // costs nothing.
            let b = Block::of(cells[0] as *const u8);
            let mut charging = Charging::new(fx.budget);
            // SAFETY: the retired block is unused; the heap source hands it out again.
            let nb = unsafe {
                Block::init(
                    b as *mut u8,
                    bin_of(128),
                    false,
                    Accounting::Page,
                    &mut charging,
                )
            }
            .expect("no charge to refuse");
            assert_eq!(nb, b);
            // SAFETY: a live header we just made.
            unsafe {
                assert_eq!((*nb).resident().count(), full);
                assert!((*nb).can_extend_resident());
                assert_eq!((*nb).extend(&mut charging, true, Spill::Charge), Ok(true));
            }
            assert_eq!(charging.pages(), 0, "inherited resident pages cost nothing");
            assert_eq!(
                fx.budget.charged(),
                full,
                "inherited idle pages are reused for free"
            );
            // SAFETY: the block is ours and has no allocated cell.
            unsafe {
                Block::retire(nb, fx.budget);
                assert_eq!(Block::drop_retired(nb, fx.budget, fx.os), full);
            }
            assert_eq!(fx.budget.charged(), 0);
        }
        let _ = cells;
    }
}
