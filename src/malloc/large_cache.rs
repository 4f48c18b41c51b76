//! The standalone mode's cache of freed large mappings (requests above the small size classes,
//! up to [`MAX_CACHED_BYTES`]): mapping and unmapping one per request costs two system calls
//! (mimalloc serves these sizes from its own pages without any). Sizes are rounded up to a
//! power of two of at least 16 KiB; each class keeps up to [`LargeCache::slots`] freed
//! mappings, [`CLASS_CACHE_BYTES`] of them at most (64 of 16 KiB, 8 of 256 KiB), so the cache
//! holds at most 9 MiB (1 MiB of 16 KiB mappings, 2 MiB in each larger class).
//!
//! Why by bytes, not a count: mimalloc-bench's mstress frees bursts of 8–32 KiB objects at
//! each thread's end (its kept objects); 16 slots a class (the cache before 2026-11-25, ≤ 7.75
//! MiB) overflowed and made ~320 more `munmap` and ~360 more `mmap` calls a run than mimalloc
//! (`strace -f -c`), each `munmap` a TLB shootdown on every core. 64 slots for the small
//! classes remove them (mstress, 2 threads: 40 → 29 ms, `benches/RESULTS.md` §5).
//!
//! Each slot is one atomic word, 0 or a mapping's address: `put` claims an empty slot with a
//! compare-exchange, `take` empties a full one with a swap, so a mapping has exactly one owner
//! at a time (no ABA: nothing is read through a pointer that another thread may own).

use crate::config::PAGE_BYTES;
use crate::sync::{AtomicUsize, Ordering};

/// The smallest class, bytes.
const MIN_CLASS_BYTES: usize = 16 << 10;
/// The largest cached request, bytes.
pub const MAX_CACHED_BYTES: usize = 256 << 10;
/// Classes: 16, 32, 64, 128, 256 KiB.
pub const CLASSES: usize = 5;
const _: () = assert!(MIN_CLASS_BYTES << (CLASSES - 1) == MAX_CACHED_BYTES);
/// Cached mappings per class, at most (the smallest class's count).
pub const SLOTS: usize = 64;
/// Bytes a class may hold (a larger class keeps fewer mappings, at least 4).
pub const CLASS_CACHE_BYTES: usize = 2 << 20;
const _: () = assert!(CLASS_CACHE_BYTES / MIN_CLASS_BYTES >= SLOTS);

/// Freed large mappings by size class.
pub struct LargeCache {
    xslots: [[AtomicUsize; SLOTS]; CLASSES],
}

impl LargeCache {
    /// An empty cache.
    pub const fn new() -> LargeCache {
        #[allow(clippy::declare_interior_mutable_const)]
        const Z: AtomicUsize = AtomicUsize::new(0);
        #[allow(clippy::declare_interior_mutable_const)]
        const ROW: [AtomicUsize; SLOTS] = [Z; SLOTS];
        LargeCache {
            xslots: [ROW; CLASSES],
        }
    }

    /// The class of a `bytes` request aligned to at most a page, if cached.
    #[inline]
    pub fn class(bytes: usize, align: usize) -> Option<usize> {
        if bytes > MAX_CACHED_BYTES || align > PAGE_BYTES {
            return None;
        }
        let rounded = bytes.max(MIN_CLASS_BYTES).next_power_of_two();
        Some((rounded / MIN_CLASS_BYTES).trailing_zeros() as usize)
    }

    /// Mappings `class` may hold: `CLASS_CACHE_BYTES` of them, between 4 and [`SLOTS`].
    #[inline]
    pub const fn slots(class: usize) -> usize {
        let n = CLASS_CACHE_BYTES / Self::class_bytes(class);
        if n > SLOTS {
            SLOTS
        } else if n < 4 {
            4
        } else {
            n
        }
    }

    /// Bytes mapped for `class`.
    #[inline]
    pub const fn class_bytes(class: usize) -> usize {
        MIN_CLASS_BYTES << class
    }

    /// A cached mapping of `class`, or 0.
    pub fn take(&self, class: usize) -> usize {
        for s in &self.xslots[class][..Self::slots(class)] {
            // Relaxed peek: only a hint; the swap below decides.
            if s.load(Ordering::Relaxed) != 0 {
                // Acquire: pairs with the Release in `put`, so the freeing thread's writes to the
                // mapping happen-before our reuse of it.
                let p = s.swap(0, Ordering::Acquire);
                if p != 0 {
                    return p;
                }
            }
        }
        0
    }

    /// Caches the mapping `p` of `class`; false if the class is full (the caller unmaps it).
    pub fn put(&self, class: usize, p: usize) -> bool {
        for s in &self.xslots[class][..Self::slots(class)] {
            // Release: publishes our last writes to the mapping to the next `take`; Relaxed on
            // failure: the slot was full, nothing was read.
            if s.compare_exchange(0, p, Ordering::Release, Ordering::Relaxed)
                .is_ok()
            {
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_cover_their_requests() {
        assert_eq!(LargeCache::class(8193, 8), Some(0));
        assert_eq!(LargeCache::class(16 << 10, 8), Some(0));
        assert_eq!(LargeCache::class((16 << 10) + 1, 8), Some(1));
        assert_eq!(LargeCache::class(MAX_CACHED_BYTES, 4096), Some(CLASSES - 1));
        assert_eq!(LargeCache::class(MAX_CACHED_BYTES + 1, 8), None);
        assert_eq!(LargeCache::class(20000, 8192), None);
        for b in (8193..MAX_CACHED_BYTES).step_by(997) {
            let c = LargeCache::class(b, 8).unwrap();
            assert!(
                LargeCache::class_bytes(c) >= b
                    && LargeCache::class_bytes(c) < 2 * b.max(MIN_CLASS_BYTES)
            );
        }
    }

    #[test]
    fn a_slot_has_one_owner() {
        let c = LargeCache::new();
        let n = LargeCache::slots(2);
        for i in 1..=n {
            assert!(c.put(2, i * 4096));
        }
        assert!(
            !c.put(2, 99 * 4096),
            "the class holds at most slots(2) mappings"
        );
        assert_eq!(c.take(1), 0);
        let mut got: Vec<usize> = (0..n).map(|_| c.take(2)).collect();
        got.sort();
        assert_eq!(got, (1..=n).map(|i| i * 4096).collect::<Vec<_>>());
        assert_eq!(c.take(2), 0);
    }

    #[test]
    fn each_class_holds_at_most_its_bytes() {
        assert_eq!(LargeCache::slots(0), SLOTS);
        assert_eq!(LargeCache::slots(CLASSES - 1), 8);
        let mut total = 0;
        for c in 0..CLASSES {
            let n = LargeCache::slots(c);
            assert!((4..=SLOTS).contains(&n));
            assert!(n * LargeCache::class_bytes(c) <= CLASS_CACHE_BYTES);
            total += n * LargeCache::class_bytes(c);
        }
        assert!(total <= CLASSES * CLASS_CACHE_BYTES);
    }
}
