//! The object sizes a lusearch query thread allocates on a JVM, for `lusearch-jvm`.
//!
//! Measured, not guessed: `experiments/jfr-alloc/run.sh exact 4 512` records every object the
//! lusearch stand-in (Lucene 9, `experiments/workloads/lusearch-standin`) allocates on JDK 17
//! (G1 without TLABs, so JFR sees each one) and `experiments/jfr-alloc/analyze.py` maps the
//! sizes onto mimalloc's size classes. [`OBJECTS_PER_CLASS`] is its `classes.csv` (query threads
//! pooled, 8 threads, 1024 queries): objects per class. A query thread there touches 40–44 of
//! the 48 classes in its lifetime and 36 on average in each MiB it allocates; 12% of its bytes
//! are in objects above 8 KiB, 3% above 64 KiB. synthvm's `lusearch` object skeleton alone
//! touches 24 classes (22 per MiB). Matching the spread alone did not raise stock MarkSweep's
//! minimum-heap slope (0.17 MiB/thread; experiments/jfr-alloc/results/synthvm-minheap.md):
//! stock reuses abandoned blocks of a class after every GC; the per-thread live state does.
//!
//! [`JvmSizes::next`] draws sizes independently from that distribution: a class with the
//! measured object frequency, then a size uniform over the class's 8-byte steps. Independent
//! draws reproduce the per-window class spread (the unit test checks it), though not the order
//! of real allocation.

use crate::rng::{Rng, Weighted};

/// (cell bytes of the class, objects measured in it); 0 = above 64 KiB (the LOS). Bins 1 and
/// 45–47 had no objects.
pub const OBJECTS_PER_CLASS: [(usize, u64); 45] = [
    (16, 101786),
    (24, 564376),
    (32, 270136),
    (40, 93682),
    (48, 47175),
    (56, 126321),
    (64, 37965),
    (80, 104826),
    (96, 4218),
    (112, 8242),
    (128, 5527),
    (160, 12700),
    (192, 10160),
    (224, 3887),
    (256, 637),
    (320, 2467),
    (384, 624),
    (448, 513),
    (512, 243),
    (640, 5442),
    (768, 586),
    (896, 532),
    (1024, 7393),
    (1280, 901),
    (1536, 1411),
    (1792, 868),
    (2048, 1364),
    (2560, 2267),
    (3072, 2382),
    (3584, 2575),
    (4096, 3003),
    (5120, 6644),
    (6144, 3839),
    (7168, 2270),
    (8192, 1789),
    (10240, 992),
    (12288, 44),
    (14336, 36),
    (16384, 87),
    (20480, 33),
    (24576, 8),
    (28672, 10),
    (32768, 173),
    (65536, 17),
    (0, 35),
];

/// Objects above 64 KiB: uniform in this range (measured mean 187 KiB).
const LOS_MIN: usize = (64 << 10) + 8;
const LOS_MAX: usize = 320 << 10;

/// Bytes per query the JVM allocates (stand-in, JDK 17: 204 KiB exact mode, 190 KiB TLAB mode).
pub const BYTES_PER_QUERY: usize = 200 << 10;

pub struct JvmSizes {
    classes: Weighted<(usize, usize)>,
}

impl Default for JvmSizes {
    fn default() -> Self {
        Self::new()
    }
}

impl JvmSizes {
    pub fn new() -> JvmSizes {
        let mut pairs = Vec::new();
        let mut prev = 8;
        for &(cell, n) in OBJECTS_PER_CLASS.iter().filter(|e| e.1 > 0) {
            if cell == 0 {
                pairs.push((n, (LOS_MIN, LOS_MAX)));
            } else {
                // Sizes that map to this class: (previous cell, cell], in 8-byte steps.
                pairs.push((n, (prev + 8, cell)));
                prev = cell;
            }
        }
        JvmSizes {
            classes: Weighted::new(&pairs),
        }
    }

    /// The next object size in bytes (a multiple of 8, at least 16).
    pub fn next(&self, r: &mut Rng) -> usize {
        let (lo, hi) = self.classes.sample(r);
        let steps = (hi - lo) / 8;
        (lo + 8 * r.below(steps as u64 + 1) as usize).max(16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::class_profile::{class_of, ClassProfile};

    #[test]
    fn table_is_mimalloc_classes() {
        let mut prev = 0;
        for &(cell, _) in OBJECTS_PER_CLASS.iter().filter(|e| e.0 != 0) {
            assert!(cell > prev);
            assert_eq!(
                class_of(cell),
                class_of(cell - 7),
                "{} is a class's largest size",
                cell
            );
            assert_ne!(
                class_of(cell),
                class_of(cell + 8),
                "{} is a class's largest size",
                cell
            );
            prev = cell;
        }
    }

    /// The generated stream spreads over size classes as the JVM's query threads do: at least
    /// 30 distinct classes per MiB (JVM: 36), at least 38 in 32 MiB (JVM: 40–44 per thread), and
    /// 6–20% of bytes above 8 KiB (JVM: 12%).
    #[test]
    fn stream_spreads_like_the_jvm() {
        let s = JvmSizes::new();
        let mut r = Rng::new(7);
        let mut p = ClassProfile::default();
        while p.total_bytes() < 32 << 20 {
            let n = s.next(&mut r);
            assert!(n >= 16 && n % 8 == 0 && n <= LOS_MAX);
            p.add(n);
        }
        let mean = p.window_mean().unwrap();
        assert!(mean >= 30.0, "classes per MiB {:.1}", mean);
        assert!(p.classes() >= 38, "classes {}", p.classes());
        let big = p.share_above(8 << 10);
        assert!((0.06..=0.20).contains(&big), "share above 8 KiB {:.3}", big);
    }
}
