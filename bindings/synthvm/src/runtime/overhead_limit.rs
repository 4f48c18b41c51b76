//! MMTk raises out-of-memory itself when an emergency GC cannot satisfy an allocation.  With
//! many mutator threads that check can be defeated: other threads' small allocations keep
//! succeeding, so GCs run back to back, each freeing almost nothing, and the run crawls rather
//! than failing.  Like HotSpot's GC overhead limit, synthvm declares out-of-memory after
//! `WINDOW` consecutive GCs that each left less than 2% of the heap free and were each
//! preceded by less mutator time than GC time.  Set SYNTHVM_GC_OVERHEAD_LIMIT=0 to disable.

use std::sync::atomic::{AtomicU64, Ordering};

const WINDOW: u64 = 50;
/// Only `after_gc` touches it, from `resume_mutators`, one GC at a time (MMTk orders one GC's
/// hooks before the next GC's): `Relaxed` is enough, the atomic only makes it a safe static.
static BAD_IN_A_ROW: AtomicU64 = AtomicU64::new(0);

fn enabled() -> bool {
    static E: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *E.get_or_init(|| {
        std::env::var("SYNTHVM_GC_OVERHEAD_LIMIT")
            .map(|v| v != "0")
            .unwrap_or(true)
    })
}

pub fn after_gc(used_after: usize, mutator_nanos: u64, gc_nanos: u64) {
    let heap = super::heap::heap_bytes();
    if heap == 0 || !enabled() || super::heap::plan() == mmtk::util::options::PlanSelector::NoGC {
        return;
    }
    let free = heap.saturating_sub(used_after);
    let bad = free * 50 < heap && mutator_nanos < gc_nanos;
    if bad {
        let n = BAD_IN_A_ROW.fetch_add(1, Ordering::Relaxed) + 1;
        if n >= WINDOW {
            crate::exit::out_of_memory(&format!(
                "GC overhead limit exceeded: {} consecutive GCs each left less than 2% of the heap free ({} KiB used after the last one)",
                n,
                used_after >> 10
            ));
        }
    } else {
        // Relaxed: see `BAD_IN_A_ROW`.
        BAD_IN_A_ROW.store(0, Ordering::Relaxed);
    }
}
