//! The footprint report (`SHARDSWEEP_REPORT_FOOTPRINT=1`): at each GC, after marking and before
//! the sweeps give pages back, every page the space reports to MMTk in exactly one part, one line
//! on stderr:
//!
//! `shardsweep-footprint gc=<n> reported_pages=<P> meta_pages=<M> kept_pages=<K> header=<B>
//! live=<B> rounding=<B> dead=<B> free=<B> filling=<B> unlisted=<B> tail=<B> idle=<B>
//! abandoned_pages=<A> free_abandoned=<B> mutators=<m> mutator_pages_mean=<x>
//! mutator_pages_max=<x> free_by_class=<cell bytes>:<free bytes>,...
//! filling_by_class=<cell bytes>:<bytes>,... unlisted_by_class=<cell bytes>:<bytes>,...
//! charged_by_class=<cell bytes>:<pages>,... holes_small=512:<B>,1024:<B>,2048:<B>,4096:<B>,all:<B>
//! lent=<B> lent_runs=<n> lent_unused=<B> leased=<B> los_pages=<P>`
//!
//! Bytes (`B`) are those of the blocks' resident pages, split as `shardsweep::Footprint` says:
//! block headers, live objects, their size-class rounding, dead cells (what the sweep frees),
//! free cells (fragmentation; `free_by_class` by cell size), the free cells of the blocks the
//! mutators are filling and the cells on charged pages neither listed nor allocated (both by cell
//! size too, `filling_by_class` and `unlisted_by_class`: what a mutator holds in reserve per size
//! class, the difference between 64 KiB and 4 KiB blocks on the JVM), block tails, and
//! idle pages. `free_abandoned` is the part of `free` in abandoned blocks (no mutator holds
//! them: any may adopt them), the rest of `free` is in blocks mutators hold. `charged_by_class`:
//! the pages the mutators' slow paths charged since the previous report, by the cell size they
//! served (which classes needed new memory while `free` waited). `kept_pages` are the resident
//! pages of the empty blocks kept for reuse, `meta_pages` the side metadata MMTk counts. They add up exactly:
//! `(header + … + idle) / 4096 + kept_pages + meta_pages = reported_pages` (the policy tests
//! assert it). With `SHARDSWEEP_COUNT=in-use` (the line says `count=in-use`) idle pages and kept
//! blocks are resident but not reported: `(header + … + tail) / 4096 + meta_pages =
//! reported_pages`. `mutator_pages_*`: the resident pages of the blocks each mutator holds. With
//! `SHARDSWEEP_REPORT_FOOTPRINT=2` each mutator's own split follows on a
//! `shardsweep-footprint-mutator` line. At exit the line of the GC with the most reported pages is
//! printed again as `shardsweep-footprint peak …`.
//!
//! `holes_small`: in blocks of cells under 1 KiB, what the coming sweep leaves free as holes of
//! contiguous memory on pages it keeps (`Block::hole_bytes`): the bytes in holes of at least 512
//! B, 1, 2 and 4 KiB, and in all holes. It says how much of the small classes' fragmentation a
//! larger request could take if free memory of a size class served other sizes (as Immix's
//! lines do), which a segregated free list cannot.
//!
//! `lent` (with `SHARDSWEEP_HOLES`, else 0): the bytes of the runs of small cells lent to larger
//! requests (`shardsweep::Lent`), pinned ones and those lent at the last sweep, in `lent_runs`
//! runs; `lent_unused`: the part no request has used yet (in the pool, or left in a mutator's
//! hole). `lent - lent_unused` is what lending served since the last sweep plus what pinned runs
//! hold. Lent cells count among the allocated cells of the split above (as `live`, `rounding`
//! or `dead`, by what the oracle says of a cell's start), not in `free`.
//!
//! `leased`: the bytes of the cells on the mutators' leases not yet handed out
//! (`Heap::leased_bytes`; under every adoption unit, since a current block's whole list is its
//! bin's lease, `Settings::lease_current`): counted as allocated in their blocks, so a part of
//! `dead` above, yet held by a mutator as `filling` is.
//!
//! Not in it: the large-object space (another space of the plan, with its own pages). Beside it:
//! `los_pages`, the large-object space's reported pages at the same point, and at the GC's end a
//! `shardsweep-footprint-los` line on what survived there (large_objects.rs).

use super::ShardSweepSpace;
use crate::policy::marksweepspace::shardsweep::sweep;
use crate::policy::space::Space;
use crate::vm::VMBinding;
use shardsweep::{Block, Footprint, Heap, PageBudget, BIN_COUNT, HOLE_SIZES, PAGE_BYTES};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::sync::OnceLock;

/// `SHARDSWEEP_REPORT_FOOTPRINT`: 0 (off), 1 (per GC), 2 (also per mutator). Read once.
pub(in crate::policy::marksweepspace::shardsweep) fn footprint_level() -> u8 {
    static LEVEL: OnceLock<u8> = OnceLock::new();
    *LEVEL.get_or_init(|| match std::env::var("SHARDSWEEP_REPORT_FOOTPRINT").as_deref().map(str::trim) {
        Ok("1") => 1,
        Ok("2") => 2,
        _ => 0,
    })
}

/// Footprint reports made so far (the `gc=` of the lines).
static GCS: AtomicUsize = AtomicUsize::new(0);

/// The number of the last footprint report (the GC in progress, from its `Release` on).
pub(super) fn reported_gcs() -> usize {
    // Relaxed: see `report_footprint`.
    GCS.load(Ordering::Relaxed)
}

/// Pages charged by successful slow paths since the last report, by bin (`note_charged`).
static CHARGED_BY_CLASS: [AtomicUsize; BIN_COUNT] = [const { AtomicUsize::new(0) }; BIN_COUNT];

/// Counts `pages` charged by a slow path that served `bin` (the budget's
/// `allocated_after_charge`), when the report is on.
pub(super) fn note_charged(bin: usize, pages: usize) {
    if footprint_level() > 0 {
        // Relaxed: a statistic, read and reset by the report while the mutators are stopped.
        CHARGED_BY_CLASS[bin].fetch_add(pages, Ordering::Relaxed);
    }
}

/// The line of the GC with the most reported pages so far (printed again at exit).
static PEAK: Mutex<(usize, String)> = Mutex::new((0, String::new()));

extern "C" fn print_peak() {
    if let Ok(peak) = PEAK.lock() {
        if !peak.1.is_empty() {
            eprintln!("shardsweep-footprint peak {}", peak.1);
        }
    }
}

fn fields(f: &Footprint) -> String {
    format!(
        "header={} live={} rounding={} dead={} free={} filling={} unlisted={} tail={} idle={}",
        f.header, f.live, f.rounding, f.dead, f.free, f.filling, f.unlisted, f.tail, f.idle
    )
}

impl<VM: VMBinding> ShardSweepSpace<VM> {
    /// Prints this GC's footprint line (stop-the-world, after marking, before any sweep).
    pub(super) fn report_footprint(&self) {
        let Some(shared) = self.shared_if_created() else { return };
        // Relaxed: a count of the reports, made by one GC worker at a time.
        let gc = GCS.fetch_add(1, Ordering::Relaxed) + 1;
        let level = footprint_level();
        let mut oracle = |c: *mut u8| sweep::live_object_bytes::<VM>(c);
        let mut total = Footprint::default();
        let mut free_by_class = [0usize; BIN_COUNT];
        let mut filling_by_class = [0usize; BIN_COUNT];
        let mut unlisted_by_class = [0usize; BIN_COUNT];
        let mut holes_small = [0usize; HOLE_SIZES.len() + 1];
        let mut note = |b: &Block, f: &Footprint, total: &mut Footprint, oracle: &mut dyn FnMut(*mut u8) -> Option<usize>| {
            total.add(f);
            free_by_class[b.bin()] += f.free;
            filling_by_class[b.bin()] += f.filling;
            unlisted_by_class[b.bin()] += f.unlisted;
            if b.cell_size() < 1024 {
                let h = b.hole_bytes(&mut |c| oracle(c).is_some());
                for (sum, x) in holes_small.iter_mut().zip(h) {
                    *sum += x;
                }
            }
        };
        let heaps: Vec<usize> = self.heaps.lock().unwrap().clone();
        let lent = shared.lent();
        let mut lent_unused = lent.pool;
        let mut leased = 0;
        let (mut mutator_pages_sum, mut mutator_pages_max) = (0usize, 0usize);
        for (i, &h) in heaps.iter().enumerate() {
            // SAFETY: registered heaps are alive; the world is stopped.
            let heap = unsafe { &*(h as *const Heap) };
            lent_unused += heap.hole_left();
            leased += heap.leased_bytes();
            let current: Vec<*mut Block> = (1..BIN_COUNT).filter_map(|bin| heap.current_block(bin)).collect();
            let mut mine = Footprint::default();
            let mut pages = 0;
            for b in heap.blocks() {
                // SAFETY: a block of a live heap; the world is stopped.
                let block = unsafe { &*b };
                let f = block.footprint(&mut oracle, current.contains(&b));
                pages += block.resident().count();
                mine.add(&f);
                note(block, &f, &mut total, &mut oracle);
            }
            mutator_pages_sum += pages;
            mutator_pages_max = mutator_pages_max.max(pages);
            if level >= 2 {
                eprintln!("shardsweep-footprint-mutator gc={gc} mutator={i} pages={pages} {}", fields(&mine));
            }
        }
        let mut abandoned_pages = 0;
        let mut free_abandoned = 0;
        shared.for_each_abandoned(&mut |b| {
            let f = b.footprint(&mut oracle, false);
            abandoned_pages += b.resident().count();
            free_abandoned += f.free;
            note(b, &f, &mut total, &mut oracle);
        });
        let kept_pages: usize = self
            .kept
            .lock()
            .unwrap()
            .iter()
            // SAFETY: a kept block is retired with its pages, off every list but `kept`.
            .map(|a| unsafe { Block::retired_resident(a.to_ptr::<Block>()) }.count())
            .sum();
        let reported = self.reserved_pages();
        let meta_pages = reported - self.charged_pages();
        let by_class = |bytes: &[usize; BIN_COUNT]| {
            let parts: Vec<String> = (1..BIN_COUNT)
                .filter(|&bin| bytes[bin] > 0)
                .map(|bin| format!("{}:{}", shardsweep::bin_bytes(bin), bytes[bin]))
                .collect();
            if parts.is_empty() { "-".to_string() } else { parts.join(",") }
        };
        let charged: Vec<String> = (1..BIN_COUNT)
            // Relaxed: mutators are stopped (see `note_charged`).
            .map(|bin| (bin, CHARGED_BY_CLASS[bin].swap(0, Ordering::Relaxed)))
            .filter(|&(_, pages)| pages > 0)
            .map(|(bin, pages)| format!("{}:{pages}", shardsweep::bin_bytes(bin)))
            .collect();
        let n = heaps.len().max(1);
        let line = format!(
            "gc={gc} count={} margin_pages={} reported_pages={reported} meta_pages={meta_pages} kept_pages={kept_pages} {} abandoned_pages={abandoned_pages} \
             free_abandoned={free_abandoned} mutators={} mutator_pages_mean={:.1} mutator_pages_max={mutator_pages_max} \
             free_by_class={} filling_by_class={} unlisted_by_class={} charged_by_class={} holes_small={} \
             lent={} lent_runs={} lent_unused={lent_unused} leased={leased} los_pages={}",
            match (self.counts_idle(), self.idle_margin_pages()) {
                (_, Some(_)) => "resident-margin",
                (true, None) => "resident",
                (false, None) => "in-use",
            },
            self.idle_margin_pages().unwrap_or(0),
            fields(&total),
            heaps.len(),
            mutator_pages_sum as f64 / n as f64,
            by_class(&free_by_class),
            by_class(&filling_by_class),
            by_class(&unlisted_by_class),
            if charged.is_empty() { "-".to_string() } else { charged.join(",") },
            {
                let mut parts: Vec<String> = HOLE_SIZES.iter().zip(holes_small).map(|(min, b)| format!("{min}:{b}")).collect();
                parts.push(format!("all:{}", holes_small[HOLE_SIZES.len()]));
                parts.join(",")
            },
            lent.bytes,
            lent.runs,
            self.los_pages_field(),
        );
        let in_use = (total.total() - total.idle) / PAGE_BYTES;
        let counted = match self.idle_margin_pages() {
            Some(margin) => in_use + (total.idle / PAGE_BYTES + kept_pages).saturating_sub(margin),
            None if self.counts_idle() => total.total() / PAGE_BYTES + kept_pages,
            None => in_use,
        };
        debug_assert_eq!(
            counted + meta_pages,
            reported,
            "the footprint's parts add up to the reported pages"
        );
        eprintln!("shardsweep-footprint {line}");
        let mut peak = PEAK.lock().unwrap();
        if peak.1.is_empty() {
            // SAFETY: `print_peak` is an `extern "C" fn()` that neither unwinds nor calls `exit`.
            unsafe { libc::atexit(print_peak) };
        }
        if reported > peak.0 || peak.1.is_empty() {
            *peak = (reported, line);
        }
    }
}
