//! The space's reports, printed once at process exit on stderr:
//!
//! * `SHARDSWEEP_REPORT_PEAK=1`: the peak resident pages (the experiment scripts set it and
//!   record the figure beside the process's peak RSS):
//!   `shardsweep: peak resident pages <N> (<KiB> KiB)`;
//! * `SHARDSWEEP_REPORT_MUTATORS=1`: what each mutator holds when a GC stops it (sampled in the
//!   mutator's release hook, before its blocks are swept): the size classes it holds blocks of,
//!   the blocks, and their charged pages; mean and maximum over every (mutator, GC) sample.
//!   This is the stranding the thesis measures (blocks of many size classes held per thread),
//!   comparable between bindings (synthvm, mmtk-openjdk) and, with `SHARDSWEEP_ACCOUNTING=block`,
//!   close to stock MarkSweep's charging:
//!   `shardsweep: mutators: <S> samples, size classes held mean <x> max <n>, blocks held mean <x>
//!   max <n> (not full: mean <x> max <n>), charged KiB held mean <x> max <n>; per GC (<G> GCs,
//!   summed over its mutators): mutators <x>, blocks not full <x>, charged KiB <x>`.
//!   The per-GC sums are what compare across bindings: a JVM has helper threads (reference
//!   handler, finalizer, ...) that hold nothing and dilute the per-mutator means.
//! * `SHARDSWEEP_REPORT_DROPS=1`: the pages the space dropped from memory, by the path that
//!   dropped them (each such page the mutators use again costs a page fault):
//!   `shardsweep: dropped pages: purge <n> kept <n> trim <n> pressure <n> los <n>` — the idle
//!   pages purged at a GC's prepare, the kept empty blocks dropped then, the idle pages trimmed
//!   at a GC's end, those dropped under pressure, and the large-object space's free pages that
//!   were resident when its free ranges were dropped.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

static PEAK: OnceLock<&'static AtomicUsize> = OnceLock::new();

/// The paths that drop pages, in the drops report's order.
#[derive(Clone, Copy)]
pub(super) enum DropPath {
    Purge,
    Kept,
    Trim,
    Pressure,
    LargeObjects,
}

const DROP_NAMES: [&str; 5] = ["purge", "kept", "trim", "pressure", "los"];
static DROPS: [AtomicUsize; 5] = [const { AtomicUsize::new(0) }; 5];

/// Whether `SHARDSWEEP_REPORT_DROPS=1` (read once; registers the exit report).
pub(super) fn drops_report_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        let on = std::env::var("SHARDSWEEP_REPORT_DROPS").is_ok_and(|v| v.trim() == "1");
        if on {
            // SAFETY: `print_drops` is an `extern "C" fn()` that neither unwinds nor calls `exit`.
            unsafe { libc::atexit(print_drops) };
        }
        on
    })
}

/// Counts `pages` dropped by `path` (when the report is on).
pub(super) fn note_drops(path: DropPath, pages: usize) {
    if pages > 0 && drops_report_enabled() {
        // Relaxed: a statistic read at exit.
        DROPS[path as usize].fetch_add(pages, Ordering::Relaxed);
    }
}

extern "C" fn print_drops() {
    let parts: Vec<String> = DROP_NAMES
        .iter()
        .zip(DROPS.iter())
        // Relaxed: read at exit, after the GCs that counted.
        .map(|(name, n)| format!("{name} {}", n.load(Ordering::Relaxed)))
        .collect();
    eprintln!("shardsweep: dropped pages: {}", parts.join(" "));
}

extern "C" fn print_peak() {
    if let Some(peak) = PEAK.get() {
        // Relaxed: read at exit, after every mutator and GC thread has stopped allocating.
        let pages = peak.load(Ordering::Relaxed);
        eprintln!(
            "shardsweep: peak resident pages {pages} ({} KiB)",
            pages * shardsweep::PAGE_BYTES / 1024
        );
    }
}

/// Registers the exit report of `peak` (once per process; the first space wins).
pub(super) fn register_peak_report(peak: &'static AtomicUsize) {
    let wanted = std::env::var("SHARDSWEEP_REPORT_PEAK").is_ok_and(|v| v.trim() == "1");
    if wanted && PEAK.set(peak).is_ok() {
        // SAFETY: `print_peak` is an `extern "C" fn()` that neither unwinds nor calls `exit`.
        unsafe { libc::atexit(print_peak) };
    }
}

/// Sums and maxima over every (mutator, GC) sample (`SHARDSWEEP_REPORT_MUTATORS=1`).
struct MutatorStats {
    xsamples: AtomicUsize,
    xbins: AtomicUsize,
    xbins_max: AtomicUsize,
    xblocks: AtomicUsize,
    xblocks_max: AtomicUsize,
    xpages: AtomicUsize,
    xpages_max: AtomicUsize,
    xpartial: AtomicUsize,
    xpartial_max: AtomicUsize,
    /// GCs during which the report was on (counted at the space's prepare).
    xgcs: AtomicUsize,
}

static MUTATORS: MutatorStats = MutatorStats {
    xsamples: AtomicUsize::new(0),
    xbins: AtomicUsize::new(0),
    xbins_max: AtomicUsize::new(0),
    xblocks: AtomicUsize::new(0),
    xblocks_max: AtomicUsize::new(0),
    xpages: AtomicUsize::new(0),
    xpages_max: AtomicUsize::new(0),
    xpartial: AtomicUsize::new(0),
    xpartial_max: AtomicUsize::new(0),
    xgcs: AtomicUsize::new(0),
};

/// Counts a GC for the per-GC sums (the space's prepare, once per GC).
pub(super) fn note_gc() {
    // Relaxed: a statistic, read at exit.
    MUTATORS.xgcs.fetch_add(1, Ordering::Relaxed);
}

/// Whether `SHARDSWEEP_REPORT_MUTATORS=1` (read once; registers the exit report).
pub(super) fn mutator_report_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        let on = std::env::var("SHARDSWEEP_REPORT_MUTATORS").is_ok_and(|v| v.trim() == "1");
        if on {
            // SAFETY: `print_mutators` is an `extern "C" fn()` that neither unwinds nor calls `exit`.
            unsafe { libc::atexit(print_mutators) };
        }
        on
    })
}

/// Samples what `heap` holds (its owner is stopped: a GC worker runs its release hook).
pub(super) fn sample_mutator(heap: &shardsweep::Heap) {
    let mut bins = [false; shardsweep::BIN_COUNT];
    let (mut blocks, mut pages, mut partial) = (0, 0, 0);
    for b in heap.blocks() {
        // SAFETY: a block the heap owns; its owner is stopped, so nothing changes it meanwhile.
        let b = unsafe { &*b };
        bins[b.bin()] = true;
        blocks += 1;
        partial += usize::from(b.state() != shardsweep::BlockState::Full);
        pages += b.charged().count();
    }
    let nbins = bins.iter().filter(|&&x| x).count();
    let s = &MUTATORS;
    // Relaxed: statistics, read at exit after every GC thread has stopped.
    s.xsamples.fetch_add(1, Ordering::Relaxed);
    s.xbins.fetch_add(nbins, Ordering::Relaxed);
    s.xbins_max.fetch_max(nbins, Ordering::Relaxed);
    s.xblocks.fetch_add(blocks, Ordering::Relaxed);
    s.xblocks_max.fetch_max(blocks, Ordering::Relaxed);
    s.xpages.fetch_add(pages, Ordering::Relaxed);
    s.xpages_max.fetch_max(pages, Ordering::Relaxed);
    s.xpartial.fetch_add(partial, Ordering::Relaxed);
    s.xpartial_max.fetch_max(partial, Ordering::Relaxed);
}

extern "C" fn print_mutators() {
    let s = &MUTATORS;
    // Relaxed: read at exit (see `sample_mutator`).
    let n = s.xsamples.load(Ordering::Relaxed);
    let mean = |x: &AtomicUsize| if n == 0 { 0.0 } else { x.load(Ordering::Relaxed) as f64 / n as f64 };
    let kib = shardsweep::PAGE_BYTES as f64 / 1024.0;
    let gcs = s.xgcs.load(Ordering::Relaxed);
    let per_gc = |x: usize| if gcs == 0 { 0.0 } else { x as f64 / gcs as f64 };
    eprintln!(
        "shardsweep: mutators: {n} samples, size classes held mean {:.1} max {}, blocks held mean {:.1} max {} \
         (not full: mean {:.1} max {}), charged KiB held mean {:.0} max {:.0}; per GC ({gcs} GCs, summed over \
         its mutators): mutators {:.1}, blocks not full {:.1}, charged KiB {:.0}",
        mean(&s.xbins),
        s.xbins_max.load(Ordering::Relaxed),
        mean(&s.xblocks),
        s.xblocks_max.load(Ordering::Relaxed),
        mean(&s.xpartial),
        s.xpartial_max.load(Ordering::Relaxed),
        mean(&s.xpages) * kib,
        s.xpages_max.load(Ordering::Relaxed) as f64 * kib,
        per_gc(n),
        per_gc(s.xpartial.load(Ordering::Relaxed)),
        per_gc(s.xpages.load(Ordering::Relaxed)) * kib,
    );
}

