//! The large-object space beside the footprint report (`SHARDSWEEP_REPORT_FOOTPRINT` ≥ 1).
//!
//! Objects larger than the space's largest cell (`MAX_OBJECT_SIZE`) go to the plan's
//! large-object space, a page-granular space of its own that this space cannot see. The seam
//! hands it over at each GC's `Release` (`note_large_object_space`, before this space's
//! `release` and the large-object space's sweep), so that:
//!
//! * the footprint line (`footprint.rs`, after marking, before any sweep) says
//!   `los_pages=<P>`: the large-object space's reported pages at that point, its live and dead
//!   objects both, i.e. what it held against the heap limit when the GC was triggered;
//! * at the GC's end (after the large-object space's sweep), one more line describes what
//!   survived, object by object:
//!
//! `shardsweep-footprint-los gc=<n> pages=<P> objects=<N> bytes=<B> object_pages=<Q>
//! by_size=<lower bound>:<objects>:<bytes>,...`
//!
//! `pages`: the space's reported pages after its sweep (objects' pages plus its side metadata);
//! `bytes`: the live objects' sizes (`ObjectModel::get_current_size`); `object_pages`: the pages
//! they occupy, each object rounded up to whole pages as the large-object allocator asks for
//! them. `object_pages × 4096 − bytes` is the large-object space's rounding. `by_size`: the live
//! objects by size, in power-of-two bins from 512 B (bin `512` holds 512–1023 B, ..., `65536`
//! everything from 64 KiB; `0` anything smaller), empty bins left out. This is what a workload
//! model of the JVM needs to reproduce: how much of the live memory at a GC the large-object
//! space holds, in objects of which sizes.
//!
//! Without the seam's hand-over (a plan other than MarkSweep) both parts are left out.

use super::ShardSweepSpace;
use crate::policy::largeobjectspace::LargeObjectSpace;
use crate::policy::space::Space;
use crate::util::object_enum::ClosureObjectEnumerator;
use crate::vm::{ObjectModel, VMBinding};
use shardsweep::{Advice, PAGE_BYTES};
use std::sync::atomic::Ordering;

/// Lower bounds of the `by_size` bins: 0, then powers of two from 512 B to 64 KiB.
const SIZE_BINS: [usize; 9] = [0, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536];

/// The `by_size` bin of an object of `bytes`.
fn size_bin(bytes: usize) -> usize {
    SIZE_BINS.iter().rposition(|&low| bytes >= low).unwrap_or(0)
}

/// Pages the large-object allocator takes for an object of `bytes`.
fn object_pages(bytes: usize) -> usize {
    bytes.div_ceil(PAGE_BYTES)
}

impl<VM: VMBinding> ShardSweepSpace<VM> {
    /// Called by the MarkSweep plan at each GC's `Release`, before this space's `release` and
    /// the large-object space's sweep (the seam). The plan lives at a fixed address from its
    /// creation to the process's end, so the pointer stays valid once noted.
    pub fn note_large_object_space(&self, los: &LargeObjectSpace<VM>) {
        // Relaxed: written and read by GC work of the same GC, ordered by the scheduler's
        // work-bucket barriers (Release happens before the end of the GC).
        self.xlos
            .store(los as *const LargeObjectSpace<VM> as *mut LargeObjectSpace<VM>, Ordering::Relaxed);
    }

    /// The large-object space, once the seam noted it.
    pub(super) fn large_object_space(&self) -> Option<&LargeObjectSpace<VM>> {
        // Relaxed: see `note_large_object_space`.
        let p = self.xlos.load(Ordering::Relaxed);
        // SAFETY: the pointer is null or the plan's large-object space, which lives as long as
        // the plan (the process), at a fixed address (`note_large_object_space`).
        unsafe { p.as_ref() }
    }

    /// Drops (MADV_DONTNEED) the large-object space's pages that no live object holds, at the
    /// GC's end (after its sweep). The large-object space gives the pages of dead objects back
    /// to its free list but leaves them resident, and MMTk counts only the pages of its objects:
    /// without this its resident pages grow to its high-water mark beyond what the heap limit
    /// counts, while this space fills the rest of the heap (the process's peak RSS against stock
    /// MarkSweep's: `experiments/results/rss-t48/`). Its allocator zeroes the pages it hands out,
    /// so nothing reads them before they are written again.
    ///
    /// Only a contiguous large-object space (its whole address range is its own), and only with
    /// `SHARDSWEEP_ADVICE=dontneed` (the default). The range dropped starts at the lowest object
    /// the space ever saw live (the free list's own memory lies below the first object) and ends
    /// at the space's extent; a page of a live object is never dropped.
    pub(super) fn drop_free_large_object_pages(&self) {
        if self.settings.advice != Advice::DontNeed {
            return;
        }
        let Some(los) = self.large_object_space() else { return };
        let common = los.common();
        if !common.contiguous {
            return;
        }
        let mut live: Vec<(usize, usize)> = Vec::new();
        let mut enumerator = ClosureObjectEnumerator::<_, VM>::new(|object| {
            let start = object.to_object_start::<VM>().as_usize();
            let end = start + VM::VMObjectModel::get_current_size(object);
            live.push((start & !(PAGE_BYTES - 1), end.next_multiple_of(PAGE_BYTES)));
        });
        los.enumerate_to_space_objects(&mut enumerator);
        live.sort_unstable();
        // Relaxed: read and written by this GC's end only (one thread, mutators stopped).
        let mut low = self.xlos_low.load(Ordering::Relaxed);
        if let Some(&(first, _)) = live.first() {
            if low == 0 || first < low {
                low = first;
                self.xlos_low.store(low, Ordering::Relaxed);
            }
        }
        if low == 0 {
            return; // no large object seen live yet: the bottom of the space is unknown
        }
        let high = common.start.as_usize() + common.extent;
        let mut from = low;
        let report = super::super::report::drops_report_enabled();
        let drop = |a: usize, b: usize| {
            if b > a {
                if report {
                    super::super::report::note_drops(super::super::report::DropPath::LargeObjects, resident_pages(a, b));
                }
                // SAFETY: [a, b) lies inside the large-object space's own address range and
                // holds no live object (the space's sweep is over, mutators are stopped): the
                // pages are free in its page resource, which zeroes them when it hands them
                // out again. Parts not mapped yet make madvise return ENOMEM, ignored.
                unsafe { libc::madvise(a as *mut libc::c_void, b - a, libc::MADV_DONTNEED) };
            }
        };
        for &(s, e) in &live {
            drop(from, s.max(from));
            from = from.max(e);
        }
        drop(from, high.max(from));
        if self.settings.check_reclaim {
            // Relaxed (both): this GC's end only, as `xlos_low`.
            let top = self.xlos_high.load(Ordering::Relaxed).max(from);
            self.xlos_high.store(top, Ordering::Relaxed);
            let mut resident = 0;
            let mut at = low;
            for &(s, e) in live.iter().chain(std::iter::once(&(top, top))) {
                resident += resident_pages(at, s.max(at));
                at = at.max(e);
            }
            self.xlos_free_resident.store(resident, Ordering::Relaxed);
        }
    }

    /// The reclaim check's field for the large-object space: its free pages (between the lowest
    /// and the highest object it has held) still resident after this GC's drop, which must be 0;
    /// `None` when nothing was dropped this GC (another layout or advice, no large object yet).
    pub(super) fn los_free_resident(&self) -> Option<usize> {
        // Relaxed: written at this GC's end, before the checks, by the same thread.
        match self.xlos_free_resident.swap(usize::MAX, Ordering::Relaxed) {
            usize::MAX => None,
            n => Some(n),
        }
    }

    /// The `los_pages=` field of the footprint line ("-" without the seam's hand-over).
    pub(super) fn los_pages_field(&self) -> String {
        match self.large_object_space() {
            Some(los) => los.reserved_pages().to_string(),
            None => "-".to_string(),
        }
    }

    /// Prints the `shardsweep-footprint-los` line for GC `gc` (at the GC's end, after the
    /// large-object space's sweep: only live objects are left on its treadmill).
    pub(super) fn report_large_objects(&self, gc: usize) {
        let Some(los) = self.large_object_space() else { return };
        if self.shared_if_created().is_none() {
            // No footprint line for this GC either (`report_footprint` returns first): the
            // lines pair up GC by GC. No mutator allocated in the space yet, and none can
            // until the GC ends.
            return;
        }
        let mut objects = 0usize;
        let mut bytes = 0usize;
        let mut pages = 0usize;
        let mut bins = [(0usize, 0usize); SIZE_BINS.len()];
        let mut enumerator = ClosureObjectEnumerator::<_, VM>::new(|object| {
            let size = VM::VMObjectModel::get_current_size(object);
            objects += 1;
            bytes += size;
            pages += object_pages(size);
            let bin = &mut bins[size_bin(size)];
            bin.0 += 1;
            bin.1 += size;
        });
        los.enumerate_to_space_objects(&mut enumerator);
        let by_size: Vec<String> = SIZE_BINS
            .iter()
            .zip(bins)
            .filter(|(_, (n, _))| *n > 0)
            .map(|(low, (n, b))| format!("{low}:{n}:{b}"))
            .collect();
        debug_assert!(
            pages <= los.reserved_pages(),
            "the live large objects' pages ({pages}) fit in the pages the space reports ({})",
            los.reserved_pages()
        );
        eprintln!(
            "shardsweep-footprint-los gc={gc} pages={} objects={objects} bytes={bytes} object_pages={pages} by_size={}",
            los.reserved_pages(),
            if by_size.is_empty() { "-".to_string() } else { by_size.join(",") }
        );
    }
}

/// Resident pages of `[a, b)` (page-aligned; `mincore` per 4 MiB piece, pieces not mapped
/// counted as 0): the reclaim check's view of what a drop left behind.
fn resident_pages(a: usize, b: usize) -> usize {
    const PIECE: usize = 4 << 20;
    let mut n = 0;
    let mut at = a;
    let mut vec = vec![0u8; PIECE / PAGE_BYTES];
    while at < b {
        let end = b.min((at + PIECE) & !(PIECE - 1));
        let pages = (end - at) / PAGE_BYTES;
        // SAFETY: `vec` has room for `pages` entries; mincore only reads the page tables of
        // [at, end), a page-aligned range, and fails (ENOMEM) on a part not mapped.
        if unsafe { libc::mincore(at as *mut libc::c_void, end - at, vec.as_mut_ptr()) } == 0 {
            n += vec[..pages].iter().filter(|&&r| r & 1 != 0).count();
        }
        at = end;
    }
    n
}
