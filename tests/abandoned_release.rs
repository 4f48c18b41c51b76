//! `Shared::release_empty_abandoned`: abandoned blocks emptied by other threads' frees go back
//! to the source (and their pages to the budget); blocks with a live cell stay abandoned, in
//! their order, for a heap to adopt.

mod common;
use common::*;
use shardsweep::*;

#[test]
fn emptied_abandoned_blocks_are_given_back_and_used_ones_stay() {
    let fx = fixture(Settings::default(), 100, usize::MAX);
    let big = 1024.min(MAX_SMALL_BYTES);
    let (mut small_cells, mut big_cells) = (Vec::new(), Vec::new());
    {
        let mut a = Heap::new_boxed(fx.shared);
        for _ in 0..300 {
            small_cells.push(a.alloc(64) as usize);
            big_cells.push(a.alloc(big) as usize);
        }
        // Dropping the heap abandons its blocks, every one holding allocated cells.
        drop(a);
    }
    let blocks = fx.shared.abandoned_blocks();
    assert!(blocks >= 2, "{blocks} abandoned blocks");
    assert_eq!(
        fx.shared.release_empty_abandoned(),
        0,
        "no block is empty yet"
    );
    assert_eq!(fx.shared.abandoned_blocks(), blocks);

    // Another heap frees every cell but one: remote frees into blocks nobody owns.
    let mut b = Heap::new_boxed(fx.shared);
    let keep = big_cells.pop().unwrap();
    for &p in small_cells.iter().chain(big_cells.iter()) {
        // SAFETY: cells allocated above, freed once.
        unsafe { b.free(p as *mut u8) };
    }
    assert_eq!(fx.shared.release_empty_abandoned(), blocks - 1);
    assert_eq!(
        fx.shared.abandoned_blocks(),
        1,
        "the block with a live cell stays"
    );
    let kept = Block::of(keep as *const u8);
    // SAFETY: the remaining abandoned block, not freed (it holds `keep`).
    let kept_pages = unsafe { (*kept).charged().count() };
    assert_eq!(
        fx.budget.charged(),
        kept_pages,
        "the released blocks' pages are uncharged"
    );

    // SAFETY: the last live cell, freed once.
    unsafe { b.free(keep as *mut u8) };
    assert_eq!(fx.shared.release_empty_abandoned(), 1);
    assert_eq!(fx.shared.abandoned_blocks(), 0);
    assert_eq!(fx.budget.charged(), 0);
    drop(b);
}
