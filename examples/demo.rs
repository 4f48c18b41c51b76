//! Demonstrates the claim on the core alone: per-thread heaps that each touch many size
//! classes, then a "GC" that keeps a few cells per block. Prints charged memory under page
//! accounting and under whole-block accounting (MMTk's stock behaviour), side by side.

use shardsweep::*;
use std::alloc::{alloc_zeroed, Layout};
use std::ptr::NonNull;
use std::sync::Mutex;

struct Source(Mutex<Vec<usize>>);
// SAFETY: distinct block-aligned allocations, never freed while the process runs.
unsafe impl BlockSource for Source {
    fn acquire_block(&self, _thread: usize) -> Option<(NonNull<u8>, bool)> {
        if let Some(b) = self.0.lock().unwrap().pop() {
            return NonNull::new(b as *mut u8).map(|p| (p, false));
        }
        // SAFETY: non-zero size.
        let p = unsafe { alloc_zeroed(Layout::from_size_align(BLOCK_BYTES, BLOCK_BYTES).unwrap()) };
        NonNull::new(p).map(|p| (p, true))
    }
    unsafe fn release_block(&self, b: NonNull<u8>) {
        self.0.lock().unwrap().push(b.as_ptr() as usize);
    }
}

fn run(accounting: Accounting, threads: usize) -> (usize, usize) {
    let source: &'static Source = Box::leak(Box::new(Source(Mutex::new(Vec::new()))));
    let budget: &'static CountingBudget = Box::leak(Box::new(CountingBudget::unlimited()));
    let os: &'static Madvise = Box::leak(Box::new(Madvise {
        advice: Advice::Keep,
    }));
    let shared = Shared::new(
        source,
        budget,
        os,
        Settings {
            accounting,
            zero_cells: true,
            abandon_idle_bins: true,
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
        },
    )
    .leak();
    let mut heaps: Vec<Box<Heap>> = (0..threads).map(|_| Heap::new_boxed(shared)).collect();
    let mut live = std::collections::HashSet::new();
    let sizes: Vec<usize> = (1..=MAX_BIN)
        .map(bin_bytes)
        .filter(|&s| s <= 2048)
        .collect();
    for (t, h) in heaps.iter_mut().enumerate() {
        for (k, &s) in sizes.iter().enumerate() {
            for i in 0..24 {
                let p = h.alloc(s);
                if (i + k + t) % 12 == 0 {
                    live.insert(p as usize);
                }
            }
        }
    }
    let before = budget.charged();
    for h in heaps.iter_mut() {
        h.sweep(&mut |p| live.contains(&(p as usize)));
    }
    (before, budget.charged())
}

fn main() {
    println!(
        "block size {} KiB; {} threads x {} size classes, 24 cells each, 1 in 12 survives a sweep",
        BLOCK_BYTES >> 10,
        8,
        (1..=MAX_BIN).filter(|&b| bin_bytes(b) <= 2048).count()
    );
    println!("{:<8} {:>14} {:>14}", "mode", "before (KiB)", "after (KiB)");
    for (name, a) in [("page", Accounting::Page), ("block", Accounting::Block)] {
        let (b, after) = run(a, 8);
        println!(
            "{:<8} {:>14} {:>14}",
            name,
            b * PAGE_BYTES / 1024,
            after * PAGE_BYTES / 1024
        );
    }
}
