//! Lending holes (`Settings::lend_holes`): a sweep of an abandoned block that no mutator took
//! since the last GC lends its runs of free cells on kept pages to larger requests, which take
//! them before charging a page; a lent run with a live object stays lent (its pages charged), one
//! without is free again.

mod common;

use common::{fixture, gc_settings};
use shardsweep::*;
use std::collections::HashSet;
use std::sync::Mutex;

/// Live objects (start addresses), for both oracles.
static LIVE: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

fn live_range(start: *mut u8, len: usize) -> bool {
    let (a, b) = (start as usize, start as usize + len);
    LIVE.lock()
        .unwrap()
        .as_ref()
        .unwrap()
        .iter()
        .any(|&x| a <= x && x < b)
}

fn is_live(c: *mut u8) -> bool {
    LIVE.lock()
        .unwrap()
        .as_ref()
        .unwrap()
        .contains(&(c as usize))
}

/// A GC as the space runs one: the abandoned blocks detached first, the pool of holes cleared,
/// the heap swept (its partly used blocks abandoned), then the detached blocks.
fn gc(heap: &mut Heap, shared: &Shared, live: &HashSet<usize>) {
    *LIVE.lock().unwrap() = Some(live.clone());
    let batch = shared.detach_abandoned(bin_of(32));
    shared.clear_hole_pool();
    heap.sweep(&mut is_live);
    shared.sweep_batch(batch, &mut is_live);
}

fn page_of(addr: usize) -> usize {
    (addr & BLOCK_MASK) >> LOG_PAGE_BYTES
}

#[test]
fn a_hole_serves_larger_requests_and_is_pinned_while_they_live() {
    if PAGES_PER_BLOCK < 4 {
        return;
    }
    let settings = Settings {
        lend_holes: 1024,
        hole_live: Some(live_range),
        abandon_all_partial: true,
        ..gc_settings()
    };
    let fx = fixture(settings, 100, usize::MAX);
    let mut heap = Heap::new_boxed(fx.shared);
    let mut cells = Vec::new();
    let past = loop {
        let c = heap.alloc(32) as usize;
        if page_of(c) > 2 {
            break c;
        }
        cells.push(c);
    };
    let block = Block::of(cells[0] as *const u8);
    // Page 1: its first and its 100th cell live, the 98 between them a hole of 3136 B. Every
    // other cell live.
    let on_page1: Vec<usize> = cells.iter().copied().filter(|&c| page_of(c) == 1).collect();
    let mut live: HashSet<usize> = cells.iter().copied().filter(|&c| page_of(c) != 1).collect();
    live.insert(on_page1[0]);
    live.insert(on_page1[99]);
    live.insert(past);
    // The first GC abandons the block (its cells were just used: nothing lent); the second sweeps
    // it untouched since, and lends.
    gc(&mut heap, fx.shared, &live);
    let charged_before = fx.budget.charged();
    gc(&mut heap, fx.shared, &live);
    assert_eq!(fx.budget.charged(), charged_before);
    // SAFETY: a block of this instance; nothing allocates meanwhile.
    let used = unsafe { (*block).used() };
    assert!(
        used >= live.len() - 1 + 98,
        "the lent runs count as used ({used})"
    );
    // What the footprint report prints: every lent byte unused so far, all in the pool.
    let lent = fx.shared.lent();
    assert!(lent.runs >= 1 && lent.bytes >= 98 * 32, "{lent:?}");
    assert_eq!(lent.pool, lent.bytes, "nothing taken yet: {lent:?}");
    assert_eq!(heap.hole_left(), 0);

    // A 2 KiB request takes a hole (page 1's, or the rest of page 3's extension: 127 cells),
    // charging nothing.
    let big = heap.alloc(2048) as usize;
    assert_eq!(
        Block::of(big as *const u8),
        block,
        "from a hole of the 32 B block: {big:#x}"
    );
    let pg = page_of(big);
    assert!(pg == 1 || pg == 3, "{pg}");
    assert_eq!(
        fx.budget.charged(),
        charged_before,
        "no page charged for it"
    );
    // The request took a hole from the pool; the rest of it is the heap's to fill.
    let after = fx.shared.lent();
    assert_eq!(after.bytes, lent.bytes, "the runs stay lent until the next sweep");
    assert_eq!(
        after.pool + heap.hole_left(),
        lent.bytes - 2048,
        "unused = lent - taken: {after:?}, heap hole {}",
        heap.hole_left()
    );
    // Small requests never land in it.
    for _ in 0..200 {
        let c = heap.alloc(32) as usize;
        assert!(!(big <= c && c < big + 2048), "a 32 B cell in the lent run");
        live.insert(c);
    }

    // The big object lives; nothing else on its page: the run stays lent, the page charged.
    live.retain(|&c| Block::of(c as *const u8) != block || page_of(c) != pg);
    live.insert(big);
    gc(&mut heap, fx.shared, &live);
    // SAFETY: as above.
    assert!(
        unsafe { (*block).charged() }.contains(pg),
        "a pinned run keeps its page"
    );
    let again = heap.alloc(2048) as usize;
    assert!(
        !(big <= again && again < big + 2048),
        "a pinned run is not lent again"
    );

    // The big object dies: its page is given back.
    live.remove(&big);
    live.remove(&again);
    gc(&mut heap, fx.shared, &live);
    // SAFETY: as above.
    assert!(
        !unsafe { (*block).charged() }.contains(pg),
        "a run without a live object is free again"
    );
}
