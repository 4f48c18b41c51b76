//! The order in which a sweep lists a block's free cells (`Settings::reuse`): with
//! `ReuseOrder::Densest` a mutator reuses the holes of the pages with the most live cells first,
//! so a sparse page it does not need is left alone and the next sweep gives it back once its
//! last live cells die; in address order the same mutator fills the sparse page again.

mod common;

use common::{fixture, gc_settings};
use shardsweep::*;
use std::collections::HashSet;

fn page_of(addr: usize) -> usize {
    (addr & BLOCK_MASK) >> LOG_PAGE_BYTES
}

/// One block's cells of 32 B over pages 0..=4, swept with page 1 dense (all live but 8), page 2
/// sparse (8 live), page 3 half live, pages 0 and 4 all live and page 5 holding one live cell; then 8 + (page 3's free cells)
/// allocations, the pages they land on, and whether page 2 is still charged after a second GC
/// in which page 2's 8 live cells died (everything else kept, the new cells too).
fn run(reuse: ReuseOrder) -> (Vec<usize>, bool) {
    let fx = fixture(
        Settings {
            reuse,
            ..gc_settings()
        },
        100,
        usize::MAX,
    );
    let mut heap = Heap::new_boxed(fx.shared);
    let mut cells = Vec::new();
    let past = loop {
        let c = heap.alloc(32) as usize;
        assert_ne!(c, 0);
        if page_of(c) > 4 {
            break c;
        }
        cells.push(c);
    };
    let block = Block::of(cells[0] as *const u8) as usize;
    assert!(cells
        .iter()
        .all(|&c| Block::of(c as *const u8) as usize == block));
    let mut live: HashSet<usize> = HashSet::new();
    let mut on_page = [0usize; 5];
    let mut page3_free = 0;
    for &c in &cells {
        let p = page_of(c);
        let k = on_page[p];
        on_page[p] += 1;
        let keep = match p {
            1 => k >= 8,
            2 => k < 8,
            3 => k % 2 == 0,
            _ => true,
        };
        if keep {
            live.insert(c);
        } else if p == 3 {
            page3_free += 1;
        }
    }
    // The first cell past page 4 stays live.
    live.insert(past);
    heap.sweep(&mut |c| live.contains(&(c as usize)));
    let got: Vec<usize> = (0..8 + page3_free)
        .map(|_| heap.alloc(32) as usize)
        .collect();
    let pages: Vec<usize> = got.iter().map(|&c| page_of(c)).collect();
    // Page 2's first 8 cells (its live ones) die; a new cell reusing a dead cell's address lives.
    let sparse: Vec<usize> = cells
        .iter()
        .copied()
        .filter(|&c| page_of(c) == 2)
        .take(8)
        .collect();
    for c in &sparse {
        live.remove(c);
    }
    for &c in &got {
        live.insert(c);
    }
    heap.sweep(&mut |c| live.contains(&(c as usize)));
    // SAFETY: the block holds live cells, so it is still this heap's.
    let page2_charged = unsafe { (*(block as *mut Block)).charged() }.contains(2);
    (pages, page2_charged)
}

#[test]
fn densest_first_fills_dense_pages_and_lets_a_sparse_page_drain() {
    if PAGES_PER_BLOCK < 5 {
        return; // a block of fewer than five pages has no page order to choose
    }
    let (pages, page2_charged) = run(ReuseOrder::Densest);
    assert!(
        pages[..8].iter().all(|&p| p == 1),
        "densest page first: {pages:?}"
    );
    assert!(
        pages[8..].iter().all(|&p| p == 3),
        "then the half-live page: {pages:?}"
    );
    assert!(
        !page2_charged,
        "the sparse page, left alone, is given back when its cells die"
    );

    let (pages, page2_charged) = run(ReuseOrder::Address);
    assert!(
        pages[..8].iter().all(|&p| p == 1),
        "address order: page 1's holes first: {pages:?}"
    );
    assert!(
        pages[8..].contains(&2),
        "address order refills the sparse page: {pages:?}"
    );
    assert!(page2_charged, "so it stays charged");
}

#[test]
fn sparsest_first_fills_the_largest_holes() {
    if PAGES_PER_BLOCK < 5 {
        return;
    }
    // The sparsest pages are page 5 (the first cell past page 4 live, 127 free) and page 2 (8
    // live, 120 free): they hold every cell asked for, and the dense pages 1 and 3 are not touched.
    let (pages, _) = run(ReuseOrder::Sparsest);
    assert!(pages.iter().all(|&p| p == 5 || p == 2), "the sparse pages first: {pages:?}");
}

#[test]
fn reuse_order_parses_its_values_only() {
    assert_eq!(ReuseOrder::parse("address"), Ok(ReuseOrder::Address));
    assert_eq!(ReuseOrder::parse("Densest"), Ok(ReuseOrder::Densest));
    assert_eq!(ReuseOrder::parse("sparsest"), Ok(ReuseOrder::Sparsest));
    let e = ReuseOrder::parse("random").unwrap_err();
    assert!(e.contains("valid values are address, densest, sparsest"), "{e}");
}
