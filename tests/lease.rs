//! Adoption by lease (`Adopt::Lease`, `heap/lease.rs`): a heap takes at most a page's worth of an
//! abandoned block's free cells and leaves the block on its stack, so several heaps fill one
//! block's free cells before any of them charges a page; no cell is handed out twice, leased cells
//! a heap did not hand out come back at the next sweep, and the accounting equations hold.

mod common;

use common::{fixture, gc_settings, Fixture};
use shardsweep::*;
use std::collections::HashSet;

const SIZE: usize = 48;

fn settings(adopt: Adopt) -> Settings {
    Settings {
        adopt,
        abandon_all_partial: true,
        ..gc_settings()
    }
}

/// One heap fills `blocks` blocks of 48 B cells; a sweep keeps every `keep`-th cell and abandons
/// the partly used blocks. Returns the live cells and the dead ones (now free in abandoned blocks).
fn abandoned_blocks(fx: &Fixture, blocks: usize, keep: usize) -> (HashSet<usize>, HashSet<usize>) {
    let mut heap = Heap::new_boxed(fx.shared);
    let per_block = (BLOCK_BYTES - HEADER_BYTES) / bin_bytes(bin_of(SIZE));
    let cells: Vec<usize> = (0..blocks * per_block).map(|_| heap.alloc(SIZE) as usize).collect();
    let live: HashSet<usize> = cells.iter().step_by(keep).copied().collect();
    let dead: HashSet<usize> = cells.iter().filter(|c| !live.contains(c)).copied().collect();
    heap.sweep(&mut |c| live.contains(&(c as usize)));
    assert_eq!(heap.owned_blocks(), 0, "every partly used block abandoned");
    assert_eq!(fx.shared.abandoned_blocks(), blocks);
    drop(heap);
    (live, dead)
}

/// The charged pages of every abandoned block (heaps under lease own none here).
fn abandoned_charged(shared: &Shared) -> usize {
    let mut n = 0;
    shared.for_each_abandoned(&mut |b| {
        assert!(b.is_valid());
        n += b.charged().count();
    });
    n
}

#[test]
fn a_lease_takes_at_most_a_page_of_cells_and_leaves_the_block_abandoned() {
    let fx = fixture(settings(Adopt::Lease), 100, usize::MAX);
    let (_, dead) = abandoned_blocks(&fx, 1, 4);
    let cell = bin_bytes(bin_of(SIZE));
    assert_eq!(lease_cells(bin_of(SIZE)), LEASE_BYTES / cell);
    // A lease takes a page's worth of cells, or all the block has left (4 KiB blocks); the lease
    // that takes the block's last free cell adopts the block (`heap/lease.rs`).
    let lease = lease_cells(bin_of(SIZE)).min(dead.len());
    let owned_after = |handed_out: usize| usize::from(handed_out.div_ceil(lease) * lease >= dead.len());
    let mut heap = Heap::new_boxed(fx.shared);
    let c = heap.alloc(SIZE) as usize;
    assert!(dead.contains(&c), "the first cell comes from the abandoned block");
    assert_eq!(heap.owned_blocks(), owned_after(1), "a lease adopts no block but the last");
    assert_eq!(fx.shared.abandoned_blocks(), 1 - owned_after(1), "the block stays abandoned");
    assert_eq!(heap.leased_bytes(), (lease - 1) * cell);
    // The lease's cells come first, then the next lease: no block owned but for the last lease.
    let more = (2 * lease).min(dead.len() - 1);
    for _ in 0..more {
        let c = heap.alloc(SIZE) as usize;
        assert!(dead.contains(&c));
    }
    assert_eq!(heap.owned_blocks(), owned_after(1 + more));
}

#[test]
fn heaps_share_an_abandoned_block_before_charging_a_page() {
    if PAGES_PER_BLOCK < 4 {
        return; // a block of one page is its own lease
    }
    // Headroom under a budget that does not know its room (`CountingBudget`) adopts blocks.
    for adopt in [Adopt::Lease, Adopt::Block, Adopt::Headroom] {
        let fx = fixture(settings(adopt), 100, usize::MAX);
        let (live, dead) = abandoned_blocks(&fx, 1, 4);
        let charged = fx.budget.charged();
        let mut heaps: Vec<Box<Heap>> = (0..4).map(|_| Heap::new_boxed(fx.shared)).collect();
        let mut got = HashSet::new();
        // The dead cells handed out before the first page was charged.
        let mut dead_before_charge = None;
        // Each heap takes one cell, in turn, until every free cell of the block is handed out
        // (a heap whose lease ran out while the others hold the block's last cells charges a
        // page meanwhile: how many leases the block gives depends on the block size).
        'fill: for _ in 0..2 * dead.len() {
            for h in heaps.iter_mut() {
                let c = h.alloc(SIZE) as usize;
                assert!(!live.contains(&c), "a live cell handed out");
                assert!(got.insert(c), "cell {c:#x} handed out twice");
                if dead_before_charge.is_none() && fx.budget.charged() > charged {
                    dead_before_charge = Some(got.iter().filter(|c| dead.contains(c)).count());
                    if adopt == Adopt::Lease {
                        // Every free cell of the abandoned block is leased by now.
                        fx.shared.for_each_abandoned(&mut |b| assert_eq!(b.used(), b.capacity()));
                    }
                }
                if dead.is_subset(&got) {
                    break 'fill;
                }
            }
        }
        match adopt {
            Adopt::Lease => {
                // Every free cell of the block was used, and none was left unleased when the
                // first page was charged.
                assert!(dead.is_subset(&got));
                let before = dead_before_charge.unwrap_or(dead.len());
                let in_leases = (heaps.len() - 1) * lease_cells(bin_of(SIZE)); // the other heaps' leases at most
                assert!(before + in_leases >= dead.len(), "{before} of {} dead cells before a charge", dead.len());
                if dead.len() % (heaps.len() * lease_cells(bin_of(SIZE))) == 0 {
                    // The leases run out together (64 KiB blocks): no page charged at all.
                    assert_eq!(fx.budget.charged(), charged, "no page charged while cells were free");
                }
            }
            Adopt::Block | Adopt::Headroom => {
                // The control: the first heap owns the block; the others charge fresh blocks
                // while most of its cells are still free.
                let before = dead_before_charge.expect("the other heaps charge fresh blocks");
                assert!(before < dead.len());
                assert!(fx.budget.charged() > charged);
            }
        }
    }
}

#[test]
fn leased_cells_not_handed_out_come_back_at_the_sweep() {
    let fx = fixture(settings(Adopt::Lease), 100, usize::MAX);
    let (live, _) = abandoned_blocks(&fx, 2, 3);
    let mut heap = Heap::new_boxed(fx.shared);
    let mine: Vec<usize> = (0..5).map(|_| heap.alloc(SIZE) as usize).collect();
    assert!(heap.leased_bytes() > 0);
    // A GC: everything live stays live, including the five new cells; the heap's sweep drops
    // its leases and the abandoned blocks are swept in a batch.
    let all: HashSet<usize> = live.iter().copied().chain(mine.iter().copied()).collect();
    heap.sweep(&mut |c| all.contains(&(c as usize)));
    assert_eq!(heap.leased_bytes(), 0);
    let batch = fx.shared.detach_abandoned(bin_of(SIZE));
    let stats = fx.shared.sweep_batch(batch, &mut |c| all.contains(&(c as usize)));
    assert_eq!(stats.live_cells, all.len(), "the unused leased cells are free again");
    assert_eq!(abandoned_charged(fx.shared), fx.budget.charged());
    // The next allocations never return a live cell.
    let mut seen = HashSet::new();
    for _ in 0..2000 {
        let c = heap.alloc(SIZE) as usize;
        assert!(!all.contains(&c) && seen.insert(c));
    }
}

#[test]
fn heaps_lease_concurrently_without_handing_a_cell_out_twice() {
    let fx = fixture(settings(Adopt::Lease), 1000, usize::MAX);
    let (live, dead) = abandoned_blocks(&fx, 8, 5);
    let shared = fx.shared;
    let threads = 4;
    let per_thread = dead.len() / threads + 50;
    let got: Vec<(Vec<usize>, Box<Heap>)> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(move || {
                    let mut heap = Heap::new_boxed(shared);
                    let v: Vec<usize> = (0..per_thread).map(|_| heap.alloc(SIZE) as usize).collect();
                    (v, heap)
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut all = HashSet::new();
    let mut leased = 0;
    for (cells, heap) in &got {
        leased += heap.leased_bytes() / bin_bytes(bin_of(SIZE));
        for &c in cells {
            assert!(!live.contains(&c), "a live cell handed out");
            assert!(all.insert(c), "cell {c:#x} handed out twice");
        }
    }
    // Every free cell of the abandoned blocks is handed out, on a lease, or still listed in
    // its block (a heap that found the stack empty for a moment took a fresh block instead).
    let blocks: HashSet<usize> = dead.iter().map(|&c| Block::of(c as *const u8) as usize).collect();
    let listed: usize = blocks
        .iter()
        // SAFETY: the threads are joined; the blocks are live headers nobody uses now.
        .map(|&b| unsafe { (*(b as *const Block)).capacity() - (*(b as *const Block)).used() })
        .sum();
    let handed = all.iter().filter(|c| dead.contains(c)).count();
    assert_eq!(handed + leased + listed, dead.len());
    assert!(handed > dead.len() / 2, "the heaps used the abandoned cells: {handed} of {}", dead.len());
}

#[test]
fn adopt_parses_its_two_names() {
    assert_eq!(Adopt::parse("block"), Ok(Adopt::Block));
    assert_eq!(Adopt::parse(" Lease"), Ok(Adopt::Lease));
    assert_eq!(Adopt::default(), Adopt::Block);
    assert_eq!(Adopt::Lease.name(), "lease");
    let e = Adopt::parse("page").unwrap_err();
    assert!(e.contains("valid values are block, lease, headroom"), "{e}");
}
