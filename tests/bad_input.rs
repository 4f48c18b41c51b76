//! Bad input to the core's heap API gets a clear panic naming the problem, never silent
//! corruption; a request the core cannot serve gets a reason ([`NoCell`]), never a panic.

mod common;

use common::*;
use shardsweep::*;

fn heap() -> Box<Heap> {
    let fx = fixture(Settings::default(), 64, usize::MAX);
    Heap::new_boxed(fx.shared)
}

#[test]
#[should_panic(expected = "zero-sized allocation request")]
fn zero_size() {
    heap().alloc(0);
}

#[test]
#[should_panic(expected = "exceeds the largest small size")]
fn oversized() {
    heap().alloc(MAX_SMALL_BYTES + 1);
}

#[test]
#[should_panic(expected = "invalid bin")]
fn invalid_bin() {
    heap().alloc_bin(BIN_COUNT);
}

#[test]
fn over_aligned_standalone_requests_are_served() {
    let layout = std::alloc::Layout::from_size_align(64, 2 * BLOCK_BYTES).unwrap();
    let p = Standalone::alloc(layout);
    assert!(!p.is_null());
    assert_eq!(p as usize % (2 * BLOCK_BYTES), 0);
    // SAFETY: allocated above with this layout.
    unsafe { Standalone::dealloc(p, layout) };
}

#[test]
fn exhausted_source_returns_null() {
    let fx = fixture(Settings::default(), 1, usize::MAX);
    let mut h = Heap::new_boxed(fx.shared);
    assert!(!h.alloc(16).is_null());
    let charged = fx.budget.charged();
    // A second size class needs a second block: the source is exhausted.
    assert!(h.alloc(512).is_null());
    assert_eq!(h.try_alloc(512), Err(NoCell::NoMemory));
    assert_eq!(
        fx.budget.charged(),
        charged,
        "the failed requests charged nothing"
    );
}

#[test]
fn budget_veto_returns_null_and_recovers() {
    let fx = fixture(Settings::default(), 16, 2);
    let mut h = Heap::new_boxed(fx.shared);
    // Page 0 (header) + page 1: two pages allow the cells overlapping them, then the veto.
    let mut n = 0;
    while !h.alloc(64).is_null() {
        n += 1;
        assert!(n < 10_000);
    }
    assert_eq!(
        h.try_alloc(64),
        Err(NoCell::Refused),
        "the budget said no, not the source"
    );
    assert_eq!(fx.budget.charged(), 2);
    // A sweep that frees everything gives the pages back; allocation works again.
    h.sweep(&mut |_| false);
    assert_eq!(fx.budget.charged(), 0);
    assert!(!h.alloc(64).is_null());
}

#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "double free")]
fn double_free_is_caught_in_debug() {
    let mut h = heap();
    let p = h.alloc(32);
    let _q = h.alloc(32);
    // SAFETY: deliberately wrong: the second free is the bug under test.
    unsafe {
        h.free(p);
        h.free(p);
    }
}

#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "not the start of a cell")]
fn interior_pointer_is_caught_in_debug() {
    let mut h = heap();
    let p = h.alloc(32);
    // SAFETY: deliberately wrong: an interior pointer.
    unsafe { h.free(p.add(8)) };
}

#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "foreign pointer")]
fn foreign_pointer_is_caught_in_debug() {
    let mut h = heap();
    let _ = h.alloc(32);
    let layout = std::alloc::Layout::from_size_align(BLOCK_BYTES, BLOCK_BYTES).unwrap();
    // SAFETY: a block-aligned foreign allocation; zeroed, so its "header" is not ours.
    let foreign = unsafe { std::alloc::alloc_zeroed(layout) };
    // SAFETY: deliberately wrong: not a shardsweep cell.
    unsafe { h.free(foreign.add(HEADER_BYTES)) };
}
