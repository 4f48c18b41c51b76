//! What `lusearch-jvm` adds to `lusearch`: query-lived temporaries with a JVM's size spread,
//! and the per-thread reader state a JVM query thread keeps for a whole iteration.

use super::Lusearch;
use crate::object::{self, Kind};
use crate::rng::Rng;
use crate::runtime::Mu;
use crate::workloads::jvm_sizes::JvmSizes;

/// Slots of the ring that keeps some of a query's JVM-sized temporaries alive for a while.
const JVM_RING: usize = 32;
/// Slots for the per-thread reader state of `lusearch-jvm`.
const JVM_STATE_SLOTS: usize = 8192;

/// Bytes of per-thread reader state `lusearch-jvm` keeps for a whole iteration:
/// `SYNTHVM_JVM_THREAD_STATE_KIB` (default 384, 0 = none). 384 KiB is the stand-in's per-thread
/// minimum-heap slope under shardsweep with 4 KiB blocks (0.38 MiB/thread,
/// bindings/openjdk/RESULTS.md), where block stranding is small: a measure of what a JVM
/// query thread keeps live.
pub fn jvm_thread_state_bytes() -> usize {
    std::env::var("SYNTHVM_JVM_THREAD_STATE_KIB")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(384)
        << 10
}

/// The shape of `lusearch-jvm`'s per-thread reader state: `SYNTHVM_JVM_THREAD_STATE_SHAPE`
/// = `live` (default): the live objects a stand-in query thread adds on the JVM
/// ([`JVM_LIVE_PER_THREAD`]); `alloc`: [`jvm_thread_state_bytes`] drawn from the allocation
/// size distribution (the shape measured in experiments/jfr-alloc/results/synthvm-minheap.md).
pub fn jvm_thread_state_shape_alloc() -> bool {
    std::env::var("SYNTHVM_JVM_THREAD_STATE_SHAPE").is_ok_and(|v| v == "alloc")
}

/// What one more query thread adds to the stand-in's live heap on JDK 17 (`jcmd
/// GC.class_histogram` at 24 threads minus at 1, divided by 23; experiments/jfr-alloc/results/
/// live-histogram-sample1.csv): (objects, smallest and largest size in bytes). Arrays only:
/// int[] of 19.9 KiB mean (17 per thread), byte[] of 2.4 KiB mean (56), long[] of 2.7 KiB (5);
/// the small objects (~60 per thread, 24–72 B) are left to `lusearch`'s own per-thread state.
/// The sizes are ranges around the measured means (the histogram gives means only). Another
/// sample (live-histogram.csv) caught no big int[]s: part of this is in-flight query data.
pub const JVM_LIVE_PER_THREAD: [(usize, usize, usize); 3] =
    [(17, 12 << 10, 28 << 10), (55, 1024, 3840), (5, 1536, 3840)];

/// `lusearch-jvm` keeps one in `SYNTHVM_JVM_THREAD_STATE_KEEP` (default 6, at least 1) of the
/// objects it allocates for the reader state; 1 keeps them all, packed in their blocks (the
/// control: the same live bytes without the scatter).
pub fn jvm_thread_state_keep() -> u64 {
    std::env::var("SYNTHVM_JVM_THREAD_STATE_KEEP")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(6)
        .max(1)
}

impl Lusearch {
    /// `lusearch-jvm`: allocate `bytes` bytes of temporaries with the JVM's size spread. Every
    /// 8th lives in a 32-slot ring until 32 later ones replace it (a query's buffers and
    /// collections); the rest die at once. Checked before they are dropped.
    pub(super) fn jvm_temporaries(
        &self,
        mu: &Mu,
        sizes: &JvmSizes,
        q: u64,
        bytes: usize,
    ) -> Result<(), String> {
        let mut r = Rng::derive(self.p.seed, 0x7A5E, q);
        let d = mu.depth();
        let ring = mu.alloc(Kind::RefArray, JVM_RING, 0, r.next_u64());
        mu.push(ring);
        let mut done = 0usize;
        let mut k = 0usize;
        while done < bytes {
            let size = sizes.next(&mut r);
            let o = if size <= 48 {
                // Small objects with a reference field, as most small Java objects have.
                let nrefs = (size - object::HEADER_BYTES) / 8;
                mu.alloc(
                    Kind::Plain,
                    nrefs,
                    size - object::HEADER_BYTES - 8 * nrefs,
                    r.next_u64(),
                )
            } else {
                mu.alloc(Kind::Bytes, 0, size - object::HEADER_BYTES, r.next_u64())
            };
            debug_assert_eq!(object::size_of(o), size);
            done += size;
            if k % 8 == 0 {
                let ring = mu.get(d);
                mu.write_ref(ring, (k / 8) % JVM_RING, Some(o));
            }
            k += 1;
        }
        let ring = mu.get(d);
        object::check_object(ring)?;
        for i in 0..JVM_RING {
            if let Some(o) = object::load_ref(ring, i) {
                object::check_object(o).map_err(|e| format!("query {} temporaries: {}", q, e))?;
            }
        }
        mu.truncate(d);
        Ok(())
    }

    /// `lusearch-jvm`: open the thread's "reader": allocate JVM-sized objects and keep one in
    /// [`jvm_thread_state_keep`] (six) for the whole iteration, until
    /// [`jvm_thread_state_bytes`] are kept; the rest die at once, so the kept objects sit
    /// scattered over the size classes and over mostly-garbage blocks. Returns the
    /// shadow-stack slot of the array holding them and its checksum.
    pub(super) fn jvm_thread_state(
        &self,
        mu: &Mu,
        sizes: &JvmSizes,
        tid: usize,
        iter: usize,
    ) -> Result<(usize, u64), String> {
        let target = jvm_thread_state_bytes();
        let keep = jvm_thread_state_keep();
        let mut r = Rng::derive(self.p.seed, 0x5EAD + iter as u64, tid as u64);
        let arr = mu.alloc(Kind::RefArray, JVM_STATE_SLOTS, 0, r.next_u64());
        let slot = mu.push(arr);
        let (mut kept, mut n) = (0usize, 0usize);
        while kept < target && n < JVM_STATE_SLOTS {
            let size = sizes.next(&mut r);
            let o = mu.alloc(Kind::Bytes, 0, size - object::HEADER_BYTES, r.next_u64());
            if r.below(keep) == 0 {
                mu.write_ref(mu.get(slot), n, Some(o));
                n += 1;
                kept += size;
            }
        }
        let (sum, _) = crate::workloads::tree_sum(mu.get(slot))?;
        Ok((slot, sum))
    }

    /// `lusearch-jvm`, reader state of shape `live`: the objects of [`JVM_LIVE_PER_THREAD`] in
    /// a random order, each after five JVM-sized temporaries that die at once (the reader's
    /// opening garbage), kept for the whole iteration. Returns the shadow-stack slot of the
    /// array holding them and its checksum.
    pub(super) fn jvm_thread_state_live(
        &self,
        mu: &Mu,
        sizes: &JvmSizes,
        tid: usize,
        iter: usize,
    ) -> Result<(usize, u64), String> {
        let mut r = Rng::derive(self.p.seed, 0x11FE + iter as u64, tid as u64);
        let mut want: Vec<(usize, usize)> = JVM_LIVE_PER_THREAD
            .iter()
            .flat_map(|&(n, lo, hi)| std::iter::repeat_n((lo, hi), n))
            .collect();
        for i in (1..want.len()).rev() {
            want.swap(i, r.below(i as u64 + 1) as usize);
        }
        let arr = mu.alloc(Kind::RefArray, want.len(), 0, r.next_u64());
        let slot = mu.push(arr);
        for (n, &(lo, hi)) in want.iter().enumerate() {
            for _ in 0..5 {
                let size = sizes.next(&mut r);
                let _ = mu.alloc(Kind::Bytes, 0, size - object::HEADER_BYTES, r.next_u64());
            }
            let size = (r.range(lo as u64, hi as u64) as usize) & !7;
            let o = mu.alloc(Kind::Bytes, 0, size - object::HEADER_BYTES, r.next_u64());
            mu.write_ref(mu.get(slot), n, Some(o));
        }
        let (sum, _) = crate::workloads::tree_sum(mu.get(slot))?;
        Ok((slot, sum))
    }
}
