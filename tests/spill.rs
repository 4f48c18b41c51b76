//! What an extension does with a page's last cell when it spills into a page not yet charged
//! (`Settings::spill`): `Spill::Charge` charges that page at once; `Spill::Defer` sets the cell
//! aside until the next page's extension charges it, so a block filled page by page holds no
//! page charged ahead. No cell is lost or handed out twice either way.

mod common;

use common::{fixture, gc_settings};
use shardsweep::*;
use std::collections::HashSet;

fn page_of(addr: usize) -> usize {
    (addr & BLOCK_MASK) >> LOG_PAGE_BYTES
}

/// Allocates cells of `size` from a fresh heap until one starts in page `last`; returns, for each
/// cell handed out, (its address, the pages charged right after it was handed out), and the block.
fn fill(spill: Spill, size: usize, last: usize) -> (Vec<(usize, usize)>, usize) {
    let fx = fixture(Settings { spill, ..gc_settings() }, 100, usize::MAX);
    let mut heap = Heap::new_boxed(fx.shared);
    let mut out = Vec::new();
    loop {
        let c = heap.alloc(size) as usize;
        assert_ne!(c, 0);
        out.push((c, fx.budget.charged()));
        let b = Block::of(c as *const u8);
        // SAFETY: a block of this heap; nothing else touches it.
        let charged = unsafe { (*b).charged() };
        let off = c - b as usize;
        assert!(
            charged.covers(PageMask::of_range(off, off + size)),
            "cell {c:#x} handed out on an uncharged page ({spill:?})"
        );
        if page_of(c) >= last {
            return (out, b as usize);
        }
    }
}

#[test]
fn a_spilling_cell_waits_for_the_next_page_and_no_cell_is_lost() {
    if PAGES_PER_BLOCK < 6 {
        return;
    }
    let size = 48; // 4096 / 48 is not whole: the last cell of most pages spills
    let (charge, cb) = fill(Spill::Charge, size, 5);
    let (defer, db) = fill(Spill::Defer, size, 5);
    // The same cells (offsets in their blocks) before the first one of page 5, each once.
    let set = |v: &[(usize, usize)], b: usize| v.iter().map(|&(c, _)| c - b).collect::<HashSet<_>>();
    assert_eq!(charge.len(), defer.len());
    assert_eq!(set(&charge, cb), set(&defer, db));
    assert_eq!(set(&defer, db).len(), defer.len(), "a cell handed out twice");
    // Charging the spill page ahead holds one more page whenever a page's last cell spills into
    // an uncharged page; deferring never holds more.
    let mut ahead = 0;
    for (&(_, c), &(_, d)) in charge.iter().zip(&defer) {
        assert!(d <= c, "deferring charged more ({d} > {c})");
        ahead += usize::from(c > d);
    }
    assert!(ahead > 0, "the charging rule never held a page ahead");
    // Deferring: while the first cells of a page are handed out, the page after it is not
    // charged (the header page, the pages filled so far and this one only).
    let first_on = |p: usize| defer.iter().position(|&(c, _)| page_of(c) == p && (c & (PAGE_BYTES - 1)) < PAGE_BYTES / 2);
    // Whether the last cell starting in page p spills into page p + 1.
    let spills = |p: usize| {
        let end = (p + 1) * PAGE_BYTES;
        let last = (end - HEADER_BYTES - 1) / size; // the last cell starting before `end`
        HEADER_BYTES + (last + 1) * size > end
    };
    assert!((1..5).any(spills));
    for p in 1..5 {
        let i = first_on(p).expect("a cell in the page's first half");
        assert_eq!(defer[i].1, p + 1, "page {p}: pages 0..={p} charged, not the next one");
        let ahead = usize::from(spills(p));
        assert_eq!(charge[i].1, p + 1 + ahead, "page {p}: charging the spill page ahead");
    }
}

#[test]
fn a_page_whose_only_cell_spills_still_extends() {
    // A cell larger than a page: one cell starts in most pages, and it must be charged whole.
    if bin_bytes(BIN_COUNT - 1) < 5000 {
        return; // blocks too small to serve it
    }
    let (defer, _) = fill(Spill::Defer, 5000, 4.min(PAGES_PER_BLOCK - 1));
    assert!(defer.len() >= 2);
    let set: HashSet<usize> = defer.iter().map(|&(c, _)| c).collect();
    assert_eq!(set.len(), defer.len());
}

#[test]
fn deferred_cells_survive_a_sweep() {
    if PAGES_PER_BLOCK < 6 {
        return;
    }
    let fx = fixture(Settings { spill: Spill::Defer, ..gc_settings() }, 100, usize::MAX);
    let mut heap = Heap::new_boxed(fx.shared);
    let mut cells = Vec::new();
    while cells.last().is_none_or(|&c| page_of(c) < 3) {
        cells.push(heap.alloc(48) as usize);
    }
    // Everything live: the sweep keeps the pages; the deferred cell of page 3 stays aside.
    let live: HashSet<usize> = cells.iter().copied().collect();
    heap.sweep(&mut |c| live.contains(&(c as usize)));
    let mut all: HashSet<usize> = live.clone();
    while cells.last().is_some_and(|&c| page_of(c) < 5) {
        let c = heap.alloc(48) as usize;
        assert!(all.insert(c), "cell {c:#x} handed out twice");
        cells.push(c);
    }
    // Every cell that starts before page 5 was handed out: none lost to the set-aside.
    let block = Block::of(cells[0] as *const u8) as usize;
    let before5 = (5 * PAGE_BYTES - HEADER_BYTES).div_ceil(48);
    let got = all.iter().filter(|&&c| c - block < 5 * PAGE_BYTES).count();
    assert_eq!(got, before5);
}

#[test]
fn spill_parses_its_two_names() {
    assert_eq!(Spill::parse("charge"), Ok(Spill::Charge));
    assert_eq!(Spill::parse(" Defer"), Ok(Spill::Defer));
    assert_eq!(Spill::default(), Spill::Charge);
    let e = Spill::parse("ahead").unwrap_err();
    assert!(e.contains("valid values are charge, defer"), "{e}");
}
