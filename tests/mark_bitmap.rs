//! Sweeping from the embedder's side mark bitmap (`Settings::marks`, `MarkBitmap`): the sweep
//! reads a block's live cells from the bitmap and never asks the oracle, and it leaves exactly
//! what a sweep that asks the oracle leaves (live cells, released blocks, charged pages, the
//! cells listed again).

mod common;

use common::{fixture, gc_settings};
use shardsweep::*;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

/// A side bitmap of one bit per 8 bytes, one leaked table per block (bytes consecutive within a
/// block, as MMTk's contiguous side metadata).
static TABLES: Mutex<Option<HashMap<usize, &'static [AtomicU8]>>> = Mutex::new(None);

fn table(block: usize) -> &'static [AtomicU8] {
    let mut t = TABLES.lock().unwrap();
    t.get_or_insert_with(HashMap::new)
        .entry(block)
        .or_insert_with(|| Box::leak((0..BLOCK_BYTES / 64).map(|_| AtomicU8::new(0)).collect()))
}

fn byte_of(addr: usize) -> *const u8 {
    let block = addr & !BLOCK_MASK;
    &table(block)[(addr & BLOCK_MASK) >> 6] as *const AtomicU8 as *const u8
}

fn mark(addr: usize) {
    table(addr & !BLOCK_MASK)[(addr & BLOCK_MASK) >> 6].fetch_or(1 << ((addr >> 3) & 7), Ordering::Relaxed);
}

const BITMAP: MarkBitmap = MarkBitmap { log_granule: 3, byte_of };

/// Sizes over small, medium and page-spanning cells; the two largest are capped at the largest
/// small size (a 4 KiB block's is 512 B).
const SIZES: [usize; 6] = [16, 24, 48, 200, cap(1000, 3), cap(3000, 4)];

const fn cap(size: usize, quarters: usize) -> usize {
    let most = MAX_SMALL_BYTES * quarters / 4;
    if size < most {
        size
    } else {
        most
    }
}

/// Allocates `n` cells of each size, keeps those whose index `keep` accepts; sweeps with the
/// bitmap (`marks`) or with the oracle. Returns the sweep's stats, the charged pages after it,
/// per size the cells allocated again (as many as died) that were dead cells reused in place,
/// and whether one of them was live. (A bitmap sweep leaves most dead cells unlisted for the
/// owner, `block/unlisted.rs`: reused in the same order, they must be the same cells.)
/// With `stray`, the bitmap also has a bit set inside every cell of 24 bytes or more, on a
/// granule that starts no cell (as an object of a lent run may have): the sweep passes it over.
fn run(marks: bool, stray: bool, keep: fn(usize) -> bool) -> (SweepStats, usize, Vec<usize>, bool, usize) {
    let settings = Settings { marks: marks.then_some(BITMAP), ..gc_settings() };
    let fx = fixture(settings, 10_000, usize::MAX);
    let mut heap = Heap::new_boxed(fx.shared);
    let n = 2 * BLOCK_BYTES / 3000 + 40;
    let mut live = HashSet::new();
    let mut dead = vec![0; SIZES.len()];
    let mut dead_cells = HashSet::new();
    for (k, &size) in SIZES.iter().enumerate() {
        for i in 0..n {
            let c = heap.alloc(size) as usize;
            assert_ne!(c, 0);
            if marks && stray && size >= 24 {
                mark(c + 8);
            }
            if keep(i) {
                live.insert(c);
                if marks {
                    mark(c);
                }
            } else {
                dead[k] += 1;
                dead_cells.insert(c);
            }
        }
    }
    let stats = if marks {
        heap.sweep(&mut |_| panic!("the sweep asked the oracle although the bitmap serves"))
    } else {
        heap.sweep(&mut |p| live.contains(&(p as usize)))
    };
    let charged = fx.budget.charged();
    let mut again = Vec::new();
    let mut hit_live = false;
    for (k, &size) in SIZES.iter().enumerate() {
        let mut reused = 0;
        for _ in 0..dead[k] {
            let c = heap.alloc(size) as usize;
            assert_ne!(c, 0);
            hit_live |= live.contains(&c);
            reused += usize::from(dead_cells.contains(&c));
        }
        again.push(reused);
    }
    (stats, charged, again, hit_live, fx.budget.charged())
}

#[test]
fn a_bitmap_sweep_leaves_what_an_oracle_sweep_leaves() {
    let keeps: [fn(usize) -> bool; 4] = [|i| i % 3 == 0, |i| i % 17 == 5, |_| false, |i| i < 10 || i % 64 == 0];
    for keep in keeps {
        let (s_oracle, c_oracle, a_oracle, hit_oracle, e_oracle) = run(false, false, keep);
        for stray in [false, true] {
            let (s_marks, c_marks, a_marks, hit_marks, e_marks) = run(true, stray, keep);
            assert_eq!(s_marks, s_oracle, "same blocks, releases and live cells (stray bits: {stray})");
            assert_eq!(c_marks, c_oracle, "same pages charged after the sweep (stray bits: {stray})");
            assert_eq!(a_marks, a_oracle, "the same dead cells reused in place");
            assert_eq!(e_marks, e_oracle, "the same pages charged after the reuse");
            assert!(!hit_oracle && !hit_marks, "a live cell was handed out again");
        }
    }
}

#[test]
fn a_bitmap_serves_only_cells_that_start_its_granules() {
    assert!(BITMAP.serves(16) && BITMAP.serves(24) && BITMAP.serves(3000));
    let coarse = MarkBitmap { log_granule: 4, byte_of };
    assert!(!coarse.serves(24), "24-byte cells do not all start a 16-byte granule");
    assert_eq!(coarse.serves(32), HEADER_BYTES % 16 == 0);
}

/// Dead cells a bitmap sweep left unlisted survive into the next GC: after the first sweep only
/// a few cells are allocated (most dead cells still unlisted), then the marks are cleared and
/// set again for a subset of the survivors and of the new cells, and a second sweep runs. Every
/// cell handed out afterwards was dead at that GC, each once, and the blocks stay valid (their
/// invariants are checked in debug builds at every sweep and listing).
#[test]
fn unlisted_cells_survive_into_the_next_gc() {
    let settings = Settings { marks: Some(BITMAP), ..gc_settings() };
    let fx = fixture(settings, 10_000, usize::MAX);
    let mut heap = Heap::new_boxed(fx.shared);
    // The embedder's bulk clear, over this heap's blocks only (the other tests' blocks have
    // tables of their own in the same map and run at the same time).
    let clear = |heap: &Heap| {
        for b in heap.blocks() {
            table(b as usize).iter().for_each(|m| m.store(0, Ordering::Relaxed));
        }
    };
    for &size in &[24usize, 48, cap(1000, 3)] {
        let n = 3 * BLOCK_BYTES / size;
        let cells: Vec<usize> = (0..n).map(|_| heap.alloc(size) as usize).collect();
        let mut live: HashSet<usize> = cells.iter().copied().enumerate().filter(|(i, _)| i % 5 == 0).map(|(_, c)| c).collect();
        live.iter().for_each(|&c| mark(c));
        heap.sweep(&mut |_| panic!("the bitmap serves"));
        // SAFETY: the heap's blocks, read on its own thread.
        let unlisted: usize = heap.blocks().into_iter().map(|b| unsafe { (*b).unlisted_free() }).sum();
        // Deferral needs later pages with dead cells only; a one-page block (4 KiB) has none,
        // and the 16 KiB layout of these sizes may give none. The 64 KiB layout always does.
        if BLOCK_BYTES >= 64 << 10 {
            assert!(unlisted > 0, "the sweep left no dead cell to its owner (size {size})");
        }
        // A few cells only: most of the dead ones stay unlisted.
        let fresh: Vec<usize> = (0..n / 50).map(|_| heap.alloc(size) as usize).collect();
        assert!(fresh.iter().all(|c| !live.contains(c)), "a live cell handed out after the first GC");
        // The next GC: every fifth survivor and every new cell live.
        clear(&heap);
        let survivors: Vec<usize> = live.iter().copied().collect();
        live = survivors.iter().copied().filter(|c| (c / size) % 2 == 0).chain(fresh.iter().copied()).collect();
        live.iter().for_each(|&c| mark(c));
        heap.sweep(&mut |_| panic!("the bitmap serves"));
        let mut seen = HashSet::new();
        for _ in 0..n {
            let c = heap.alloc(size) as usize;
            assert_ne!(c, 0);
            assert!(!live.contains(&c), "a cell live at the second GC was handed out (size {size})");
            assert!(seen.insert(c), "a cell handed out twice (size {size})");
        }
        clear(&heap);
        heap.sweep(&mut |_| panic!("the bitmap serves"));
    }
}

/// The listings of one workload's unlisted cells with `listing_pages` = `k`: per block (in the
/// order first seen), how many slow paths listed cells, and the cells listed in all.
fn listings(k: usize) -> (Vec<usize>, usize) {
    let settings = Settings { marks: Some(BITMAP), listing_pages: k, ..gc_settings() };
    let fx = fixture(settings, 10_000, usize::MAX);
    let mut heap = Heap::new_boxed(fx.shared);
    let size = 48;
    let n = 3 * BLOCK_BYTES / size;
    let cells: Vec<usize> = (0..n).map(|_| heap.alloc(size) as usize).collect();
    let live: HashSet<usize> = cells.iter().copied().step_by(5).collect();
    live.iter().for_each(|&c| mark(c));
    heap.sweep(&mut |_| panic!("the bitmap serves"));
    let blocks = heap.blocks();
    // SAFETY: the heap's blocks, read on its own thread.
    let unlisted = |b: *mut Block| unsafe { (*b).unlisted_free() };
    let mut count = vec![0; blocks.len()];
    let mut listed = 0;
    let mut before: Vec<usize> = blocks.iter().map(|&b| unlisted(b)).collect();
    for _ in 0..n - live.len() {
        let c = heap.alloc(size) as usize;
        assert!(c != 0 && !live.contains(&c), "a live cell handed out again (listing {k} pages)");
        for (i, &b) in blocks.iter().enumerate() {
            let now = unlisted(b);
            if now < before[i] {
                count[i] += 1;
                listed += before[i] - now;
            }
            before[i] = now;
        }
    }
    assert!(before.iter().all(|&u| u == 0), "dead cells left unlisted after as many allocations as died");
    (count, listed)
}

/// `Settings::listing_pages`: a listing takes the dead cells of up to that many pages, so a
/// block whose unlisted cells took `m` one-page listings takes `ceil(m / k)` of them, and every
/// setting lists the same cells in all.
#[test]
fn a_listing_takes_up_to_listing_pages_pages() {
    let (one, cells) = listings(1);
    if BLOCK_BYTES >= 64 << 10 {
        assert!(one.iter().any(|&m| m > 1), "the sweep left too few pages unlisted to tell: {one:?}");
    }
    for k in [2, 4, PAGES_PER_BLOCK] {
        let (got, cells_k) = listings(k);
        let want: Vec<usize> = one.iter().map(|m| m.div_ceil(k)).collect();
        assert_eq!(got, want, "listings per block with {k} pages per listing");
        assert_eq!(cells_k, cells, "cells listed in all with {k} pages per listing");
    }
}
