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

/// Sizes over small, medium and page-spanning cells.
const SIZES: [usize; 6] = [16, 24, 48, 200, 1000, 3000];

/// Allocates `n` cells of each size, keeps those whose index `keep` accepts; sweeps with the
/// bitmap (`marks`) or with the oracle. Returns the sweep's stats, the charged pages after it,
/// the cells allocated again per size (as many as died), and whether one of them was live.
/// With `stray`, the bitmap also has a bit set inside every cell of 24 bytes or more, on a
/// granule that starts no cell (as an object of a lent run may have): the sweep passes it over.
fn run(marks: bool, stray: bool, keep: fn(usize) -> bool) -> (SweepStats, usize, Vec<usize>, bool) {
    let settings = Settings { marks: marks.then_some(BITMAP), ..gc_settings() };
    let fx = fixture(settings, 10_000, usize::MAX);
    let mut heap = Heap::new_boxed(fx.shared);
    let n = 2 * BLOCK_BYTES / 3000 + 40;
    let mut live = HashSet::new();
    let mut dead = vec![0; SIZES.len()];
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
        let mut got = 0;
        for _ in 0..dead[k] {
            let c = heap.alloc(size) as usize;
            hit_live |= live.contains(&c);
            got += 1;
        }
        again.push(got);
    }
    (stats, charged, again, hit_live)
}

#[test]
fn a_bitmap_sweep_leaves_what_an_oracle_sweep_leaves() {
    let keeps: [fn(usize) -> bool; 4] = [|i| i % 3 == 0, |i| i % 17 == 5, |_| false, |i| i < 10 || i % 64 == 0];
    for keep in keeps {
        let (s_oracle, c_oracle, a_oracle, hit_oracle) = run(false, false, keep);
        for stray in [false, true] {
            let (s_marks, c_marks, a_marks, hit_marks) = run(true, stray, keep);
            assert_eq!(s_marks, s_oracle, "same blocks, releases and live cells (stray bits: {stray})");
            assert_eq!(c_marks, c_oracle, "same pages charged after the sweep (stray bits: {stray})");
            assert_eq!(a_marks, a_oracle);
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
