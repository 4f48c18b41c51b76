//! Run statistics: GC time and count (measured by the Collection hooks), MMTk's used pages,
//! allocation counters, peak RSS.
//!
//! # Orderings
//!
//! Every atomic here is a statistic: each value stands alone and publishes no other data, so
//! every access is `Relaxed` (`fetch_add`, `fetch_max` and `swap` are atomic whatever the
//! ordering).  The GC's figures (`GC_*`, `LAST_GC_END`, `PEAK_USED_BYTES_BEFORE_GC`) are written
//! between `stop_all_mutators` and `resume_mutators`, one GC at a time (MMTk's scheduler orders
//! a GC's two hooks, and one GC's hooks before the next GC's).  Readers on a mutator thread
//! read them in the VM, after the safepoint handshake (`COORD`) or a thread join that orders
//! them after the last GC's writes and before the next GC's: that is what makes a set of them
//! (`gc_snapshot`, the final report) consistent; `SeqCst` loads would not, as two separate loads
//! can straddle a GC's two writes whatever their ordering.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

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
/// Of them, taken by `--inline-alloc`'s fast path (no call into MMTk).
pub static INLINE_ALLOC_COUNT: AtomicU64 = AtomicU64::new(0);
pub static ALLOC_BYTES: AtomicU64 = AtomicU64::new(0);

static EPOCH: OnceLock<Instant> = OnceLock::new();

pub fn epoch() -> Instant {
    *EPOCH.get_or_init(Instant::now)
}

pub fn now_nanos() -> u64 {
    epoch().elapsed().as_nanos() as u64
}

pub fn note_used(bytes: usize) {
    // Relaxed: a statistic (see "Orderings").
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
        // Relaxed: statistics, read between GCs (see "Orderings").
        count: GC_COUNT.load(Ordering::Relaxed),
        nanos: GC_NANOS.load(Ordering::Relaxed),
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

/// Per-mutator size-class profile (`--histogram`): objects and bytes per mimalloc size class
/// (bins 1..=48 on 8-byte words, `shardsweep::size_class::bin_of_words`, objects up to 64 KiB:
/// stock MarkSweep's space; bin 0 = larger), and the number of distinct classes in each window
/// of [`ClassProfile::WINDOW_BYTES`] of the thread's own allocation: how many partly used
/// blocks a thread can hold at a GC, one per class it touched since the previous GC.
/// `experiments/jfr-alloc/analyze.py` computes the same figures for a JVM thread.
pub mod class_profile {
    use std::sync::Mutex;

    use shardsweep::size_class::{bin_of_words, bin_words};

    /// Bins 1..=48 hold objects up to 64 KiB (cells of `bin_words(48) * 8` bytes).
    pub const MAX_BIN: usize = 48;
    const _: () = assert!(bin_words(MAX_BIN) * 8 == 64 << 10);

    /// Class of an object of `bytes` bytes: 1..=48, or 0 above 64 KiB.
    pub fn class_of(bytes: usize) -> usize {
        if bytes > bin_words(MAX_BIN) * 8 {
            0
        } else {
            bin_of_words(bytes.div_ceil(8))
        }
    }

    #[derive(Clone, Debug)]
    pub struct ClassProfile {
        pub objects: [u64; MAX_BIN + 1],
        pub bytes: [u64; MAX_BIN + 1],
        /// Distinct classes in each completed window.
        pub windows: Vec<u32>,
        window_mask: u64,
        window_bytes: usize,
    }

    impl Default for ClassProfile {
        fn default() -> Self {
            ClassProfile {
                objects: [0; MAX_BIN + 1],
                bytes: [0; MAX_BIN + 1],
                windows: Vec::new(),
                window_mask: 0,
                window_bytes: 0,
            }
        }
    }

    impl ClassProfile {
        pub const WINDOW_BYTES: usize = 1 << 20;

        pub fn add(&mut self, size: usize) {
            let c = class_of(size);
            self.objects[c] += 1;
            self.bytes[c] += size as u64;
            if c != 0 {
                self.window_mask |= 1 << c;
            }
            self.window_bytes += size;
            if self.window_bytes >= Self::WINDOW_BYTES {
                self.windows.push(self.window_mask.count_ones());
                self.window_mask = 0;
                self.window_bytes = 0;
            }
        }

        /// Distinct classes 1..=48 used at all.
        pub fn classes(&self) -> usize {
            self.objects[1..].iter().filter(|&&n| n > 0).count()
        }

        pub fn total_bytes(&self) -> u64 {
            self.bytes.iter().sum()
        }

        /// Share of bytes in objects larger than `limit` bytes (cells above it, or bin 0).
        pub fn share_above(&self, limit: usize) -> f64 {
            let big: u64 = (0..=MAX_BIN)
                .filter(|&c| c == 0 || bin_words(c) * 8 > limit)
                .map(|c| self.bytes[c])
                .sum();
            big as f64 / self.total_bytes().max(1) as f64
        }

        pub fn window_mean(&self) -> Option<f64> {
            (!self.windows.is_empty()).then(|| {
                self.windows.iter().map(|&w| w as f64).sum::<f64>() / self.windows.len() as f64
            })
        }

        /// One line: `mutator objects bytes classes classes_per_MiB_mean classes_per_MiB_max
        /// windows share_gt_8k share_gt_64k`.
        pub fn line(&self, who: &str) -> String {
            format!(
                "{} {} {} {} {} {} {} {:.4} {:.4}",
                who,
                self.objects.iter().sum::<u64>(),
                self.total_bytes(),
                self.classes(),
                self.window_mean()
                    .map(|m| format!("{:.1}", m))
                    .unwrap_or_else(|| "-".into()),
                self.windows
                    .iter()
                    .max()
                    .map(|m| m.to_string())
                    .unwrap_or_else(|| "-".into()),
                self.windows.len(),
                self.share_above(8 << 10),
                self.share_above(64 << 10),
            )
        }
    }

    static DONE: Mutex<Vec<String>> = Mutex::new(Vec::new());

    /// Record a finished mutator's profile line.
    pub fn finish(who: String, p: &ClassProfile) {
        DONE.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(p.line(&who));
    }

    pub fn take() -> Vec<String> {
        std::mem::take(&mut *DONE.lock().unwrap_or_else(|e| e.into_inner()))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn classes_and_windows() {
            assert_eq!(class_of(8), 1);
            assert_eq!(class_of(16), 2);
            assert_eq!(class_of(64 << 10), 48);
            assert_eq!(class_of((64 << 10) + 8), 0);
            let mut p = ClassProfile::default();
            for i in 0..(1 << 20) / 64 {
                p.add(if i % 2 == 0 { 16 } else { 112 });
            }
            assert_eq!(p.windows, vec![2]);
            assert_eq!(p.classes(), 2);
            assert_eq!(p.share_above(8 << 10), 0.0);
        }
    }
}
