//! A legal request to the allocator never panics (a panic in a global allocator is undefined
//! behaviour): layouts at the edges of what `Layout` allows, through `GlobalAlloc`, get memory
//! that honours them or null.

use shardsweep::{ShardSweepAlloc, BLOCK_BYTES};
use std::alloc::{GlobalAlloc, Layout};

static A: ShardSweepAlloc = ShardSweepAlloc;

/// Allocates, checks alignment and writability, frees; `false` if the answer was null.
fn round_trip(size: usize, align: usize) -> bool {
    let layout = Layout::from_size_align(size, align).unwrap();
    // SAFETY: a non-zero-sized layout.
    let p = unsafe { A.alloc(layout) };
    if p.is_null() {
        return false;
    }
    assert_eq!(p as usize % align, 0, "{size} bytes at {align}");
    // SAFETY: the allocation holds `size` bytes.
    unsafe {
        p.write(1);
        p.add(size - 1).write(2);
        A.dealloc(p, layout);
    }
    true
}

#[test]
fn alignments_above_the_block_size_are_served() {
    for shift in BLOCK_BYTES.trailing_zeros() + 1..=30 {
        let align = 1usize << shift;
        for size in [1, 100, align, align + 1] {
            assert!(round_trip(size, align), "{size} bytes at alignment {align}");
        }
    }
}

#[test]
fn requests_beyond_the_address_space_return_null() {
    let max_align = 1usize << (usize::BITS - 2);
    for (size, align) in [
        (isize::MAX as usize - 4095, 4096),
        (1 << 62, 8),
        (1 << 50, 1 << 50),
        (8, max_align),
        (max_align, max_align),
    ] {
        assert!(
            !round_trip(size, align),
            "{size} bytes at {align} cannot exist"
        );
    }
}

#[test]
fn realloc_to_an_impossible_size_returns_null_and_keeps_the_block() {
    let layout = Layout::from_size_align(1000, 8).unwrap();
    // SAFETY: a non-zero-sized layout; the realloc's new size is a legal `Layout` size.
    unsafe {
        let p = A.alloc(layout);
        assert!(!p.is_null());
        p.write_bytes(7, 1000);
        let q = A.realloc(p, layout, isize::MAX as usize - 8);
        assert!(q.is_null());
        assert_eq!(
            *p.add(999),
            7,
            "the old block is intact after a failed realloc"
        );
        A.dealloc(p, layout);
    }
}
