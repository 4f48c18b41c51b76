//! Run statistics: GC time and count (measured by the Collection hooks), MMTk's used pages,
//! allocation counters, peak RSS.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;
use std::sync::OnceLock;

pub static GC_COUNT: AtomicU64 = AtomicU64::new(0);
/// Total nanoseconds between stop_all_mutators entry and resume_mutators.
pub static GC_NANOS: AtomicU64 = AtomicU64::new(0);
/// Start of the current GC, in nanoseconds since `epoch()`.
pub static GC_START: AtomicU64 = AtomicU64::new(0);
/// End of the previous GC (nanoseconds since epoch), for the GC-overhead limit.
pub static LAST_GC_END: AtomicU64 = AtomicU64::new(0);
/// Peak of `memory_manager::used_bytes` sampled after every GC and at the end of each phase.
pub static PEAK_USED_BYTES: AtomicUsize = AtomicUsize::new(0);
/// Peak of `memory_manager::used_bytes` sampled just before every GC.
pub static PEAK_USED_BYTES_BEFORE_GC: AtomicUsize = AtomicUsize::new(0);
/// Allocation counters, summed from per-thread counters when a thread detaches.
pub static ALLOC_COUNT: AtomicU64 = AtomicU64::new(0);
pub static ALLOC_BYTES: AtomicU64 = AtomicU64::new(0);

static EPOCH: OnceLock<Instant> = OnceLock::new();

pub fn epoch() -> Instant {
    *EPOCH.get_or_init(Instant::now)
}

pub fn now_nanos() -> u64 {
    epoch().elapsed().as_nanos() as u64
}

pub fn note_used(bytes: usize) {
    PEAK_USED_BYTES.fetch_max(bytes, Ordering::Relaxed);
}

/// Peak resident set size in KiB (VmHWM), or 0 if unavailable.
pub fn peak_rss_kib() -> u64 {
    status_field("VmHWM:")
}

pub fn current_rss_kib() -> u64 {
    status_field("VmRSS:")
}

fn status_field(name: &str) -> u64 {
    let Ok(s) = std::fs::read_to_string("/proc/self/status") else {
        return 0;
    };
    for line in s.lines() {
        if let Some(rest) = line.strip_prefix(name) {
            let v = rest.trim().trim_end_matches("kB").trim();
            return v.parse().unwrap_or(0);
        }
    }
    0
}

/// A snapshot of the global GC counters, to compute per-iteration deltas.
#[derive(Copy, Clone, Debug, Default)]
pub struct GcSnapshot {
    pub count: u64,
    pub nanos: u64,
}

pub fn gc_snapshot() -> GcSnapshot {
    GcSnapshot {
        count: GC_COUNT.load(Ordering::SeqCst),
        nanos: GC_NANOS.load(Ordering::SeqCst),
    }
}

/// Optional allocation size histogram (`--histogram`).
pub mod histogram {
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    static GLOBAL: Mutex<BTreeMap<usize, u64>> = Mutex::new(BTreeMap::new());

    pub fn merge(local: &BTreeMap<usize, u64>) {
        let mut g = GLOBAL.lock().unwrap_or_else(|e| e.into_inner());
        for (k, v) in local {
            *g.entry(*k).or_insert(0) += v;
        }
    }

    pub fn take() -> BTreeMap<usize, u64> {
        std::mem::take(&mut *GLOBAL.lock().unwrap_or_else(|e| e.into_inner()))
    }
}
