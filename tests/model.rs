//! Model-based property test: random alloc / free / sweep sequences on one heap, checked against
//! a simple model (a map of allocated cells with their contents).
//!
//! Checked after every step: no cell is handed out twice; every allocated cell lies in a block
//! and its pages are charged; the budget equals the sum of the blocks' charged pages; every
//! block's invariants hold. After every sweep: each block's charged pages are exactly page 0 (the
//! header) plus the pages overlapped by allocated cells, released pages hold no allocated cell, and live
//! cells' bytes are intact. A lazy GC (`defer_sweep`) must leave the same equation on every block,
//! swept or not (lazy sweeping defers building lists, never the accounting).

mod common;

use common::*;
use proptest::prelude::*;
use shardsweep::*;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
enum Op {
    Alloc(usize),
    Free(usize),
    /// Sweep, keeping cells whose index hash passes the given fraction (out of 8).
    Sweep(u8),
    /// The same, as a lazy GC: `defer_sweep`, the owner sweeping each bin when next used.
    LazyGc(u8),
}

thread_local! {
    /// The live cells of the pending lazy sweep (its oracle is a plain `fn`).
    static LAZY_LIVE: std::cell::RefCell<std::collections::BTreeSet<usize>> = Default::default();
}

fn lazy_oracle(p: *mut u8) -> bool {
    LAZY_LIVE.with(|l| l.borrow().contains(&(p as usize)))
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => prop_oneof![1usize..=64, 1usize..=512, 1usize..=MAX_SMALL_BYTES].prop_map(Op::Alloc),
        3 => any::<usize>().prop_map(Op::Free),
        1 => (0u8..=8).prop_map(Op::Sweep),
        1 => (0u8..=8).prop_map(Op::LazyGc),
    ]
}

struct Model {
    /// cell address -> (requested size, fill byte)
    cells: BTreeMap<usize, (usize, u8)>,
    next_fill: u8,
}

fn check_cell(addr: usize, size: usize, fill: u8) {
    // SAFETY: the cell is allocated and `size` bytes long.
    let bytes = unsafe { std::slice::from_raw_parts(addr as *const u8, size) };
    assert!(
        bytes.iter().all(|&b| b == fill),
        "cell {addr:#x} ({size} bytes) corrupted"
    );
}

fn check_structure(heap: &Heap, fx: &Fixture, model: &Model, after_sweep: bool) {
    assert!(heap.is_valid(), "heap invariants");
    let blocks = heap.blocks();
    let mut total = 0;
    for &b in &blocks {
        // SAFETY: blocks owned by the heap, which the test holds.
        let blk = unsafe { &*b };
        total += blk.charged().count();
        if after_sweep {
            let mut expect = PageMask::page(0);
            for (&addr, _) in model.cells.range(b as usize..b as usize + BLOCK_BYTES) {
                expect = expect.union(pages_of(b, addr, blk.cell_size()));
            }
            assert_eq!(blk.charged(), expect, "charged pages after a sweep");
        }
    }
    assert_eq!(
        fx.budget.charged(),
        total,
        "budget == sum of blocks' charged pages"
    );
    for (&addr, &(size, _)) in &model.cells {
        let b = Block::of(addr as *const u8);
        assert!(
            blocks.contains(&b),
            "allocated cell {addr:#x} in no owned block"
        );
        // SAFETY: as above.
        let blk = unsafe { &*b };
        assert!(size <= blk.cell_size());
        assert!(
            blk.charged().covers(pages_of(b, addr, blk.cell_size())),
            "allocated cell on an uncharged page"
        );
    }
}

fn run(ops: Vec<Op>, accounting: Accounting, reuse: ReuseOrder) {
    run_with(ops, accounting, reuse, Spill::Charge)
}

fn run_with(ops: Vec<Op>, accounting: Accounting, reuse: ReuseOrder, spill: Spill) {
    let fx = fixture(
        Settings {
            accounting,
            zero_cells: true,
            abandon_idle_bins: false,
            abandon_all_partial: false,
            reuse,
            spill,
            adopt: Adopt::Block,
            lease_current: false,
            lend_holes: 0,
            hole_live: None,
            marks: None,
            listing_pages: 1,
            extension_pages: 1,
        },
        4096,
        usize::MAX,
    );
    let mut heap = Heap::new_boxed(fx.shared);
    let mut model = Model {
        cells: BTreeMap::new(),
        next_fill: 1,
    };
    for op in ops {
        match op {
            Op::Alloc(size) => {
                let p = heap.alloc(size) as usize;
                assert_ne!(p, 0);
                assert_eq!(p % 8, 0);
                assert!(
                    !model.cells.contains_key(&p),
                    "cell {p:#x} handed out twice"
                );
                // A neighbour must not overlap the new cell.
                if let Some((&a, &(s, _))) = model.cells.range(..p).next_back() {
                    assert!(a + s <= p, "cell {p:#x} overlaps allocated {a:#x}+{s}");
                }
                // SAFETY: a fresh cell of at least `size` bytes; zeroed mode.
                let bytes = unsafe { std::slice::from_raw_parts_mut(p as *mut u8, size) };
                assert!(
                    bytes.iter().all(|&b| b == 0),
                    "zero_cells: fresh cell not zero"
                );
                let fill = model.next_fill;
                model.next_fill = model.next_fill.wrapping_add(1).max(1);
                bytes.fill(fill);
                model.cells.insert(p, (size, fill));
            }
            Op::Free(k) => {
                if model.cells.is_empty() {
                    continue;
                }
                let idx = k % model.cells.len();
                let (&addr, &(size, fill)) = model.cells.iter().nth(idx).unwrap();
                // SAFETY: the cell's block is owned by the heap.
                if unsafe { (*Block::of(addr as *const u8)).state() } == BlockState::Unswept {
                    continue; // a garbage-collecting embedder never frees explicitly
                }
                check_cell(addr, size, fill);
                model.cells.remove(&addr);
                // SAFETY: allocated by this heap, freed once.
                unsafe { heap.free(addr as *mut u8) };
            }
            Op::Sweep(keep) | Op::LazyGc(keep) => {
                let lazy = matches!(op, Op::LazyGc(_));
                // The previous lazy sweep finishes before this GC (its marks are still valid:
                // nothing died since, in the model).
                heap.finish_sweep();
                let dead: Vec<usize> = model
                    .cells
                    .keys()
                    .copied()
                    .filter(|a| (a / 8).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 61 >= keep as usize)
                    .collect();
                for a in &dead {
                    model.cells.remove(a);
                }
                fx.os.released.lock().unwrap().clear();
                let cells = &model.cells;
                if lazy {
                    LAZY_LIVE.with(|l| *l.borrow_mut() = cells.keys().copied().collect());
                    heap.defer_sweep(lazy_oracle, &mut |p| cells.contains_key(&(p as usize)));
                } else {
                    heap.sweep(&mut |p| cells.contains_key(&(p as usize)));
                }
                for &(a, len) in fx.os.released.lock().unwrap().iter() {
                    for (&c, &(s, _)) in model
                        .cells
                        .range(a.saturating_sub(MAX_SMALL_BYTES)..a + len)
                    {
                        assert!(
                            c + s <= a || c >= a + len,
                            "released pages {a:#x}+{len} hold live cell {c:#x}"
                        );
                    }
                }
                for (&a, &(s, f)) in &model.cells {
                    check_cell(a, s, f);
                }
                check_structure(&heap, &fx, &model, accounting == Accounting::Page);
                continue;
            }
        }
        check_structure(&heap, &fx, &model, false);
    }
    for (&a, &(s, f)) in &model.cells {
        check_cell(a, s, f);
    }
    // Everything dead: a sweep gives every page back.
    heap.finish_sweep();
    heap.sweep(&mut |_| false);
    assert_eq!(heap.owned_blocks(), 0);
    assert_eq!(
        fx.budget.charged(),
        0,
        "all pages uncharged after everything died"
    );
}

/// Under miri (an interpreter, ~1000x slower) a few short sequences still reach every
/// operation: the point there is undefined behaviour, not coverage. The test command's default
/// tier asks for one shorter sequence per test (`SHARDSWEEP_MIRI_MODEL=short`,
/// `scripts/test-core.sh`); `--full` for two longer ones.
fn miri_short() -> bool {
    cfg!(miri) && std::env::var("SHARDSWEEP_MIRI_MODEL").is_ok_and(|v| v == "short")
}

/// Sequence lengths: `miri` under miri (`short`: 6..16, and every run ends with a sweep of
/// everything), `native` otherwise.
fn ops_len(native: std::ops::Range<usize>, miri: std::ops::Range<usize>) -> std::ops::Range<usize> {
    if miri_short() {
        6..16
    } else if cfg!(miri) {
        miri
    } else {
        native
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if miri_short() { 1 } else if cfg!(miri) { 2 } else { 48 },
        .. ProptestConfig::default()
    })]

    #[test]
    fn page_accounting_model(ops in prop::collection::vec(op(), ops_len(1..400, 20..60))) {
        run(ops, Accounting::Page, ReuseOrder::Address);
    }

    #[test]
    fn page_accounting_densest_first_model(ops in prop::collection::vec(op(), ops_len(1..400, 20..60))) {
        run(ops, Accounting::Page, ReuseOrder::Densest);
    }

    #[test]
    fn page_accounting_sparsest_first_model(ops in prop::collection::vec(op(), ops_len(1..400, 20..60))) {
        run(ops, Accounting::Page, ReuseOrder::Sparsest);
    }

    #[test]
    fn page_accounting_deferred_spill_model(ops in prop::collection::vec(op(), ops_len(1..400, 20..60))) {
        run_with(ops, Accounting::Page, ReuseOrder::Address, Spill::Defer);
    }

    #[test]
    fn block_accounting_model(ops in prop::collection::vec(op(), ops_len(1..200, 20..40))) {
        run(ops, Accounting::Block, ReuseOrder::Address);
    }
}
