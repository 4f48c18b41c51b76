//! Charging: how the core tells its embedder (a garbage collector, a test, the standalone
//! allocator) which OS pages it holds, and how the embedder vetoes growth.

use crate::sync::{AtomicUsize, Ordering};

/// Counts the pages the core may hold resident and may veto new ones. What it counts is the
/// budget's choice ([`PageBudget::counts_idle`]):
///
/// * **resident** (the default): a page is charged before the core first touches it (it
///   becomes resident) and uncharged when it is dropped from memory (given back with an advice
///   that drops it, or `drop_idle`/`drop_retired`), so the count is exactly the pages of all
///   blocks' `resident` sets, plus those of retired blocks an embedder keeps: pages in use and
///   idle pages alike. Reusing an idle page charges nothing. A limit bounds the RSS.
/// * **in use**: a page is charged when it comes into use (its cells are listed) and uncharged
///   when a sweep gives it back, whether or not it is dropped from memory; so the count is
///   exactly the pages of all blocks' `charged` sets. Idle pages (and retired blocks' pages)
///   stay resident uncounted until dropped; reusing one charges it again, without a page fault.
///   As MMTk's other spaces count their blocks: a limit bounds the pages in use, not the RSS.
pub trait PageBudget: Sync {
    /// Asks for `pages` more resident pages. `false` vetoes: the allocation that needed them
    /// fails (for a garbage collector: time to collect). Must not block or call back into the core.
    fn try_charge(&self, pages: usize) -> bool;
    /// Returns `pages` pages (dropped from memory).
    fn uncharge(&self, pages: usize);
    /// Pages currently charged (resident).
    fn charged(&self) -> usize;
    /// An allocation slow path that charged pages has handed out a cell (called on the
    /// allocating thread, after the fact: the pages it charged are counted by a [`Charging`]
    /// on its stack). A garbage-collected embedder reports allocation success to its collector
    /// here, not per charge: a slow path that charged a fresh block's header page and then was
    /// refused its cells' pages did not allocate (counting it as a success kept MMTk from ever
    /// declaring the emergency collection after which it reports out of memory: the OpenJDK
    /// livelock, reproduced by `synthvm hog`).
    ///
    /// `bin` is the size class the slow path served and `pages` the pages it charged (a
    /// footprint report can say which classes needed new memory between two GCs).
    ///
    /// [`Charging`]: crate::no_cell::Charging
    fn allocated_after_charge(&self, _bin: usize, _pages: usize) {}
    /// Whether idle pages stay counted (see the trait's doc): `true`, the default, counts
    /// resident pages; `false` counts pages in use. Must not change while the core runs.
    fn counts_idle(&self) -> bool {
        true
    }
    /// The core's resident pages changed by `delta`: pages it is about to touch for the first
    /// time (before the [`PageBudget::try_charge`] that covers them, and taken back with a
    /// negative `delta` if that charge is refused), or pages dropped from memory. A budget that
    /// counts pages in use can so also know the resident pages (in use + idle); one that counts
    /// resident pages has them as its count already. Called on slow paths, sweeps and drops,
    /// never on the fast path; must not block or call back into the core. Default: ignored.
    fn note_resident(&self, _delta: isize) {}
    /// How much room is left before the budget vetoes (a garbage collector: its GC trigger),
    /// and among how many (heap, size class) pairs; `None` (the default) when unknown or unlimited. Read by the
    /// slow path under `Adopt::Headroom` once per adoption: must be cheap, must not block.
    fn headroom(&self) -> Option<Headroom> {
        None
    }
}

/// The room a budget has left ([`PageBudget::headroom`]): pages that may still be charged
/// before it vetoes (an estimate: a garbage collector counts other spaces too), and how many
/// (heap, size class) pairs are expected to draw on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Headroom {
    /// Pages that may still be charged.
    pub pages: usize,
    /// The (heap, size class) pairs sharing them (a collector: those that allocated in the last
    /// GC interval, [`crate::Heap::busy_bins`]); 0 counts as 1.
    pub sharers: usize,
}

/// A budget with an optional limit (`usize::MAX` for none), counting atomically.
#[derive(Debug)]
pub struct CountingBudget {
    xcharged: AtomicUsize,
    limit: usize,
}

impl CountingBudget {
    /// A budget of at most `limit` pages.
    pub const fn new(limit: usize) -> CountingBudget {
        CountingBudget {
            xcharged: AtomicUsize::new(0),
            limit,
        }
    }
    /// A budget with no limit.
    pub const fn unlimited() -> CountingBudget {
        CountingBudget::new(usize::MAX)
    }
}

impl PageBudget for CountingBudget {
    fn try_charge(&self, pages: usize) -> bool {
        // Relaxed: the counter is a statistic and a limit, it orders no other memory.
        let old = self.xcharged.fetch_add(pages, Ordering::Relaxed);
        if old.saturating_add(pages) > self.limit {
            self.xcharged.fetch_sub(pages, Ordering::Relaxed);
            return false;
        }
        true
    }
    fn uncharge(&self, pages: usize) {
        let old = self.xcharged.fetch_sub(pages, Ordering::Relaxed);
        debug_assert!(old >= pages, "uncharging {pages} of {old} pages");
    }
    fn charged(&self) -> usize {
        self.xcharged.load(Ordering::Relaxed)
    }
}

/// How pages are charged: the one setting that selects page accounting (shardsweep) or
/// whole-block accounting (MMTk's stock MarkSweep behaviour, kept for comparison).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accounting {
    /// A block is charged page by page as cells are handed out of it, and pages with no
    /// allocated cell are uncharged and given back after a sweep.
    Page,
    /// A block is charged whole when a heap takes it and uncharged whole when it is empty.
    Block,
}

impl Accounting {
    /// Parses `page` or `block`.
    pub fn parse(s: &str) -> Result<Accounting, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "page" => Ok(Accounting::Page),
            "block" => Ok(Accounting::Block),
            other => Err(format!(
                "invalid accounting mode {other:?}: valid values are page, block"
            )),
        }
    }
}
