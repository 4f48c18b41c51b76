//! The garbage-collector support of the core: lazy sweeping (`Heap::defer_sweep` /
//! `finish_sweep`, the owner's slow path sweeping a bin before use), abandoned stacks detached
//! in batches and swept on other threads, stop-the-world walks, and `allocated_start_pages`.

mod common;

use common::{fixture, gc_settings};
use shardsweep::*;
use std::collections::HashSet;
use std::sync::Mutex;

/// The liveness oracle of the lazy tests (a plain `fn`, as the lazy sweep stores it).
static LIVE: Mutex<Option<HashSet<usize>>> = Mutex::new(None);
/// Serialises the tests that use `LIVE`.
static SERIAL: Mutex<()> = Mutex::new(());

fn oracle(p: *mut u8) -> bool {
    LIVE.lock()
        .unwrap()
        .as_ref()
        .unwrap()
        .contains(&(p as usize))
}

fn set_live(cells: &[usize]) {
    *LIVE.lock().unwrap() = Some(cells.iter().copied().collect());
}

/// Sum of the charged pages of every block a heap owns plus the abandoned ones.
fn charged_by_walk(heaps: &[&Heap], shared: &Shared) -> usize {
    let mut n = 0;
    for h in heaps {
        for b in h.blocks() {
            // SAFETY: owned blocks of a heap we hold.
            n += unsafe { (*b).charged().count() };
        }
    }
    shared.for_each_abandoned(&mut |b| n += b.charged().count());
    n
}

#[test]
fn lazy_sweep_defers_until_the_bin_is_used() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let fx = fixture(gc_settings(), 1000, usize::MAX);
    let mut heap = Heap::new_boxed(fx.shared);
    // Two bins, a few blocks' worth each.
    let small: Vec<usize> = (0..3000).map(|_| heap.alloc(16) as usize).collect();
    let big: Vec<usize> = (0..300)
        .map(|_| heap.alloc(512.min(MAX_SMALL_BYTES)) as usize)
        .collect();
    // Keep every 100th cell.
    let live: Vec<usize> = small
        .iter()
        .chain(big.iter())
        .step_by(100)
        .copied()
        .collect();
    set_live(&live);
    let before = fx.budget.charged();
    let stats = heap.defer_sweep(oracle, &mut oracle);
    assert_eq!(
        stats.blocks, 0,
        "no idle-bin abandonment: nothing swept at the GC"
    );
    assert!(heap.has_unswept());
    let pending = heap.unswept_blocks();
    assert_eq!(pending, heap.owned_blocks());
    let after_gc = fx.budget.charged();
    assert!(
        after_gc < before,
        "the pages of dead cells are given back at the GC"
    );
    assert_eq!(charged_by_walk(&[&heap], fx.shared), fx.budget.charged());
    // Allocating 16 bytes sweeps the 16-byte bin only; the new cell is a dead one, never a
    // live one, and reads as zero.
    let c = heap.alloc(16) as usize;
    assert!(!live.contains(&c));
    // SAFETY: a fresh 16-byte cell.
    assert_eq!(unsafe { *(c as *const u64) }, 0);
    assert!(heap.has_unswept(), "the 512-byte bin is still pending");
    assert!(heap.unswept_blocks() < pending);
    assert!(heap.is_valid());
    // The eager sweep refuses to run over unswept blocks (their marks would be stale).
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        heap.sweep(&mut |_| true);
    }));
    assert!(r.is_err());
    // Finishing sweeps the rest; no live cell is ever handed out afterwards.
    let s = heap.finish_sweep();
    assert!(s.blocks > 0);
    assert!(!heap.has_unswept());
    assert!(heap.is_valid());
    assert_eq!(
        fx.budget.charged(),
        after_gc,
        "the owner's sweep gives back nothing the GC did not"
    );
    assert_eq!(charged_by_walk(&[&heap], fx.shared), fx.budget.charged());
    let mut seen = HashSet::new();
    for _ in 0..5000 {
        let p = heap.alloc(16) as usize;
        assert!(!live.contains(&p), "a live cell was handed out");
        assert!(seen.insert(p));
    }
    for _ in 0..500 {
        let p = heap.alloc(512.min(MAX_SMALL_BYTES)) as usize;
        assert!(!live.contains(&p), "a live cell was handed out");
    }
}

#[test]
fn a_lazy_gc_leaves_the_budget_an_eager_sweep_would() {
    // Two identical heaps fill a budget with one bin and keep every 400th cell; one is swept
    // eagerly, the other lazily. Right after the GC both budgets hold the same pages (lazy
    // sweeping defers building lists, never the accounting), blocks without a live cell are
    // gone, and the lazy heap's second bin gets fresh pages under the same tight budget (a
    // budget still charged for dead cells would veto: the embedder would collect again or
    // report out of memory).
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let limit = 6 * PAGES_PER_BLOCK;
    let eager = fixture(gc_settings(), 1000, limit);
    let lazy = fixture(gc_settings(), 1000, limit);
    let mut he = Heap::new_boxed(eager.shared);
    let mut hl = Heap::new_boxed(lazy.shared);
    let mut live = Vec::new();
    let mut i = 0;
    loop {
        let (a, b) = (he.alloc(48), hl.alloc(48));
        assert_eq!(a.is_null(), b.is_null());
        if a.is_null() {
            break;
        }
        // The first block's cells all die: it must be released at the GC.
        if i % 400 == 0 && i > 2 * (BLOCK_BYTES / 48) {
            live.push(a as usize);
            live.push(b as usize);
        }
        i += 1;
    }
    assert_eq!(
        lazy.budget.charged(),
        limit,
        "the 48-byte bin filled the budget"
    );
    set_live(&live);
    let se = he.sweep(&mut oracle);
    let sl = hl.defer_sweep(oracle, &mut oracle);
    assert!(
        se.released >= 1 && sl.released == se.released,
        "empty blocks released at the GC ({se:?} / {sl:?})"
    );
    assert!(sl.accounted > 0 && hl.has_unswept());
    assert_eq!(
        lazy.budget.charged(),
        eager.budget.charged(),
        "lazy and eager leave the same charge"
    );
    assert!(lazy.budget.charged() < limit / 2);
    assert_eq!(charged_by_walk(&[&hl], lazy.shared), lazy.budget.charged());
    assert!(hl.is_valid());
    // The 512-byte bin has no block: its cells need fresh pages, which fit.
    let big = 512.min(MAX_SMALL_BYTES);
    let mut m = 0;
    while !hl.alloc(big).is_null() {
        m += 1;
    }
    assert!(
        m * big >= (limit / 2) * PAGE_BYTES / 2,
        "only {m} cells of {big} bytes fit"
    );
    assert!(
        hl.has_unswept(),
        "the 48-byte bin was never used: still unswept"
    );
    // Sweeping it gives back nothing more: the GC did the accounting.
    let before = lazy.budget.charged();
    hl.finish_sweep();
    assert_eq!(lazy.budget.charged(), before);
    assert!(hl.is_valid());
    assert_eq!(charged_by_walk(&[&hl], lazy.shared), lazy.budget.charged());
}

#[test]
fn lazy_sweep_of_a_heap_torn_down_before_use() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let fx = fixture(gc_settings(), 1000, usize::MAX);
    let mut heap = Heap::new_boxed(fx.shared);
    let cells: Vec<usize> = (0..2000).map(|_| heap.alloc(64) as usize).collect();
    set_live(&cells[..10]);
    heap.defer_sweep(oracle, &mut oracle);
    // Teardown finishes the sweep: abandoned blocks are swept blocks.
    heap.abandon_all();
    assert_eq!(heap.owned_blocks(), 0);
    let mut abandoned_used = 0;
    fx.shared
        .for_each_abandoned(&mut |b| abandoned_used += b.used());
    assert_eq!(abandoned_used, 10);
    assert_eq!(charged_by_walk(&[], fx.shared), fx.budget.charged());
}

#[test]
fn idle_bins_are_swept_and_abandoned_at_a_lazy_gc() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let settings = Settings {
        abandon_idle_bins: true,
        abandon_all_partial: false,
        reuse: ReuseOrder::Address,
        spill: Spill::Charge,
        adopt: Adopt::Block,
        lease_current: false,
        lend_holes: 0,
        hole_live: None,
        ..gc_settings()
    };
    let fx = fixture(settings, 1000, usize::MAX);
    let mut heap = Heap::new_boxed(fx.shared);
    let a: Vec<usize> = (0..3000).map(|_| heap.alloc(32) as usize).collect();
    let b: Vec<usize> = (0..3000).map(|_| heap.alloc(48) as usize).collect();
    let live: Vec<usize> = a.iter().chain(b.iter()).step_by(50).copied().collect();
    set_live(&live);
    heap.sweep(&mut |p| live.contains(&(p as usize)));
    // Now use only the 32-byte bin; the 48-byte bin is idle at the next GC.
    for _ in 0..10 {
        heap.alloc(32);
    }
    let s = heap.defer_sweep(oracle, &mut oracle);
    assert!(
        s.abandoned > 0,
        "the idle bin's partly used blocks are abandoned, swept"
    );
    assert!(heap.has_unswept(), "the active bin waits for its owner");
    let mut n = 0;
    fx.shared.for_each_abandoned(&mut |_| n += 1);
    assert_eq!(n, s.abandoned);
    heap.finish_sweep();
    assert_eq!(charged_by_walk(&[&heap], fx.shared), fx.budget.charged());
}

#[test]
fn abandoned_batches_are_swept_once_on_other_threads() {
    let fx = fixture(gc_settings(), 1000, usize::MAX);
    let mut live = HashSet::new();
    // Three threads' heaps abandon partly used blocks of several bins.
    for t in 0..3 {
        let mut heap = Heap::new_boxed(fx.shared);
        for (k, size) in [16usize, 24, 128, 1000.min(MAX_SMALL_BYTES)]
            .iter()
            .enumerate()
        {
            for i in 0..1500 {
                let p = heap.alloc(*size) as usize;
                if (i + t + k) % 97 == 0 {
                    live.insert(p);
                }
            }
        }
        heap.sweep(&mut |p| live.contains(&(p as usize)));
        heap.abandon_all();
    }
    let abandoned_before = fx.shared.abandoned_blocks();
    assert!(abandoned_before > 0);
    assert_eq!(charged_by_walk(&[], fx.shared), fx.budget.charged());
    // Detach every bin, split into batches of 2 blocks, sweep them on 4 threads while a "mutator
    // sweep" abandons more (already swept) blocks onto the same stacks.
    let mut batches = Vec::new();
    for bin in 1..BIN_COUNT {
        let mut b = fx.shared.detach_abandoned(bin);
        while b.len() > 2 {
            let rest = b.split_off(2);
            batches.push(b);
            b = rest;
        }
        if !b.is_empty() {
            batches.push(b);
        }
    }
    assert_eq!(fx.shared.abandoned_blocks(), 0);
    let total: usize = batches.iter().map(|b| b.len()).sum();
    assert_eq!(total, abandoned_before);
    let swept = Mutex::new(Vec::new());
    let live_ref = &live;
    let batches = Mutex::new(batches);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| loop {
                let Some(b) = batches.lock().unwrap().pop() else {
                    break;
                };
                let st = fx.shared.sweep_batch(b, &mut |p| {
                    swept.lock().unwrap().push(p as usize);
                    live_ref.contains(&(p as usize))
                });
                assert!(st.blocks > 0);
            });
        }
        s.spawn(|| {
            let mut heap = Heap::new_boxed(fx.shared);
            let keep: Vec<usize> = (0..500)
                .map(|_| heap.alloc(40) as usize)
                .step_by(7)
                .collect();
            heap.sweep(&mut |p| keep.contains(&(p as usize)));
            heap.abandon_all();
        });
    });
    let swept = swept.into_inner().unwrap();
    let uniq: HashSet<usize> = swept.iter().copied().collect();
    assert_eq!(
        uniq.len(),
        swept.len(),
        "a cell was asked about twice: a block was swept twice"
    );
    let mut used = 0;
    fx.shared.for_each_abandoned(&mut |b| {
        used += b.used();
        // Right after a sweep: charged pages are exactly the header plus the live cells' pages.
        assert_eq!(b.charged(), PageMask::page(0).union(b.allocated_pages()));
        assert_eq!(b.charged(), b.charged_for(b.allocated_start_pages()));
    });
    assert_eq!(used, live.len() + (0..500).step_by(7).count());
    assert_eq!(charged_by_walk(&[], fx.shared), fx.budget.charged());
}

#[test]
fn allocated_start_pages_tracks_allocation() {
    let fx = fixture(gc_settings(), 100, usize::MAX);
    let mut heap = Heap::new_boxed(fx.shared);
    let p = heap.alloc(256);
    let b = Block::of(p);
    // SAFETY: the block of a cell we hold.
    unsafe {
        assert_eq!((*b).allocated_start_pages(), PageMask::page(0));
        let n = ((BLOCK_BYTES - 128) / 256 - 1).min(40);
        let cells: Vec<*mut u8> = (0..n).map(|_| heap.alloc(256)).collect();
        let last = *cells.last().unwrap();
        assert_eq!(Block::of(last), b);
        let page = (last as usize - b as usize) / PAGE_BYTES;
        assert!((*b).allocated_start_pages().contains(page));
        // After a sweep keeping only `last`: its page (and the header page's charge) remain.
        heap.sweep(&mut |c| c == last);
        assert_eq!((*b).allocated_start_pages(), PageMask::page(page));
        // Exactly the header page and the pages `last` overlaps.
        let off = last as usize - b as usize;
        assert_eq!(
            (*b).charged(),
            PageMask::page(0).union(PageMask::of_range(off, off + 256))
        );
        assert_eq!(
            (*b).charged(),
            PageMask::page(0).union((*b).allocated_pages())
        );
    }
}

#[test]
fn charged_cells_are_used_before_a_page_is_charged() {
    // After a sweep, free cells on pages already charged (here an abandoned block's) are
    // handed out before the heap charges a page by extending its own block.
    let fx = fixture(gc_settings(), 1000, usize::MAX);
    let mut heap = Heap::new_boxed(fx.shared);
    // Use up the listed cells of the heap's own block; it can still extend (unless it is a
    // one-page block).
    loop {
        let p = heap.alloc(64);
        // SAFETY: the block of a cell we hold.
        if unsafe { !(*Block::of(p)).has_free() } {
            break;
        }
    }
    let mut other = Heap::new_boxed(fx.shared);
    let cells: Vec<usize> = (0..200).map(|_| other.alloc(64) as usize).collect();
    let live: HashSet<usize> = cells.iter().step_by(10).copied().collect();
    other.sweep(&mut |p| live.contains(&(p as usize)));
    let holes: HashSet<usize> = other.blocks().into_iter().map(|b| b as usize).collect();
    drop(other); // abandons its partly used blocks, holes and all
    let mut n = 0;
    fx.shared.for_each_abandoned(&mut |_| n += 1);
    assert!(n > 0, "the torn-down heap abandoned its partly used blocks");

    let before = fx.budget.charged();
    let p = heap.alloc(64);
    assert_eq!(
        fx.budget.charged(),
        before,
        "no page charged while charged cells are free"
    );
    assert!(
        holes.contains(&(Block::of(p) as usize)),
        "the cell comes from the abandoned block's holes"
    );
    assert!(heap.is_valid());
    assert_eq!(charged_by_walk(&[&heap], fx.shared), fx.budget.charged());
}
