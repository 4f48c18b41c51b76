//! `DropBatch` (src/drop_batch.rs): the ranges a stop-the-world pass drops are made at the
//! flush, in one `process_madvise` per 1024 ranges where the kernel allows it, else one
//! `madvise` each; dropped pages read zero afterwards, their neighbours keep their bytes.

use shardsweep::{os_calls, Advice, DropBatch, OsMemory, PAGE_BYTES};
use std::sync::Mutex;

/// One test at a time: they count the process's `madvise` calls.
static SERIAL: Mutex<()> = Mutex::new(());

/// A private anonymous mapping of `pages` pages, every byte of page `i` set to `fill(i)`.
fn mapping(pages: usize, fill: impl Fn(usize) -> u8) -> *mut u8 {
    // SAFETY: an anonymous private mapping with no address hint.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            pages * PAGE_BYTES,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    assert_ne!(p, libc::MAP_FAILED);
    let p = p as *mut u8;
    for i in 0..pages {
        // SAFETY: page `i` of the mapping just made.
        unsafe { std::ptr::write_bytes(p.add(i * PAGE_BYTES), fill(i), PAGE_BYTES) };
    }
    p
}

/// Whether every byte of page `i` is `v`.
fn page_is(p: *mut u8, i: usize, v: u8) -> bool {
    // SAFETY: page `i` of a live mapping of the test.
    let s = unsafe { std::slice::from_raw_parts(p.add(i * PAGE_BYTES), PAGE_BYTES) };
    s.iter().all(|&b| b == v)
}

/// 3000 ranges of two pages with a kept page between them (more than two calls' worth):
/// `flush` (batched) and `flush_one_by_one` (the fallback) both drop exactly those pages.
fn drops_exactly_the_ranges(batched: bool) {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    const RANGES: usize = 3000;
    let pages = RANGES * 3;
    let p = mapping(pages, |i| 1 + (i % 251) as u8);
    let batch = DropBatch::new(Advice::DontNeed);
    for r in 0..RANGES {
        // SAFETY: pages of our mapping that hold nothing the test reads as data afterwards.
        unsafe { batch.drop_pages(p.add((3 * r + 1) * PAGE_BYTES), 2 * PAGE_BYTES) };
    }
    assert_eq!(batch.pending(), RANGES);
    // Nothing happens before the flush.
    assert!(page_is(p, 1, 2) && page_is(p, 2, 3));
    let before = os_calls().madvise;
    let calls = if batched { batch.flush() } else { batch.flush_one_by_one() };
    let counted = os_calls().madvise - before;
    assert_eq!(batch.pending(), 0);
    for i in 0..pages {
        let want = if i % 3 == 0 { 1 + (i % 251) as u8 } else { 0 };
        assert!(page_is(p, i, want), "page {i}: expected every byte {want}");
    }
    if batched {
        // process_madvise where the kernel allows it (3 calls), else one madvise per range
        // (after at most one refused call, counted as made).
        assert!(calls == 3 || calls == RANGES, "{calls} calls");
        assert!(counted == calls || counted == calls + 1, "{counted} counted for {calls} calls");
        eprintln!("drop_batch: {RANGES} ranges in {calls} system calls");
    } else {
        assert_eq!((calls, counted), (RANGES, RANGES));
    }
}

#[test]
fn flush_drops_exactly_the_collected_ranges() {
    drops_exactly_the_ranges(true);
}

#[test]
fn the_fallback_drops_exactly_the_collected_ranges() {
    drops_exactly_the_ranges(false);
}

#[test]
fn adjacent_ranges_merge_and_dropping_the_batch_flushes() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let p = mapping(8, |_| 7);
    {
        let batch = DropBatch::new(Advice::DontNeed);
        // SAFETY: pages of our mapping.
        unsafe {
            batch.drop_pages(p, PAGE_BYTES);
            batch.drop_pages(p.add(PAGE_BYTES), 2 * PAGE_BYTES);
            batch.drop_pages(p.add(5 * PAGE_BYTES), PAGE_BYTES);
        }
        assert_eq!(batch.pending(), 2, "pages 0-2 are one range, page 5 another");
    }
    let zero: Vec<usize> = (0..8).filter(|&i| page_is(p, i, 0)).collect();
    assert_eq!(zero, vec![0, 1, 2, 5]);
}

#[test]
fn release_follows_the_advice_and_drop_always_drops() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let p = mapping(4, |_| 9);
    let keep = DropBatch::new(Advice::Keep);
    // SAFETY: pages of our mapping.
    unsafe { keep.release_pages(p, PAGE_BYTES) };
    assert_eq!(keep.pending(), 0, "keep releases nothing");
    assert!(!keep.released_pages_are_zero());
    // SAFETY: as above.
    unsafe { keep.drop_pages(p.add(PAGE_BYTES), PAGE_BYTES) };
    keep.flush();
    assert!(page_is(p, 0, 9) && page_is(p, 1, 0) && page_is(p, 2, 9));
    let free = DropBatch::new(Advice::Free);
    // SAFETY: as above; MADV_FREE leaves the contents undefined, so they are not read.
    unsafe { free.release_pages(p.add(2 * PAGE_BYTES), PAGE_BYTES) };
    assert_eq!(free.pending(), 1);
    assert!(free.flush() >= 1);
    assert!(page_is(p, 3, 9));
    assert!(DropBatch::new(Advice::DontNeed).released_pages_are_zero());
}
