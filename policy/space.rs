//! The shardsweep space: blocks from a [`BlockPageResource`], cells from the `shardsweep` core,
//! marks in `VM::VMObjectModel::LOCAL_MARK_BIT_SPEC`, memory counted per 4 KiB page.
//!
//! Accounting: `reserved_pages() == resident pages + their side-metadata pages`, where the
//! resident pages are the core's count (`PageBudget::charged`): every page of the space that may
//! be in the RSS, in use (charged for cells) or idle (given back by a sweep, not yet dropped;
//! purge.rs). So the plan's used pages, and the heap limit, bound the space's resident memory,
//! page by page. The page resource's own counters (whole blocks) are not what the GC trigger
//! sees.

pub(super) mod budget;
mod check;
mod footprint;
mod idle;
mod large_objects;
mod mmtk_space;
mod sft;
mod source;
mod trace;

use super::region::Block;
use super::settings::SpaceSettings;
use super::settings::{Count, SweepMode, Zeroing};
use super::sweep;
use super::work;
use crate::plan::tracing::ObjectQueue;
use crate::policy::space::{CommonSpace, PlanCreateSpaceArgs, Space};
use crate::scheduler::{GCWork, GCWorkScheduler, WorkBucketStage};
use crate::util::heap::chunk_map::{Chunk, ChunkMap};
use crate::util::heap::BlockPageResource;
use crate::util::linear_scan::Region;
use crate::util::metadata::side_metadata::SideMetadataSpec;
use crate::util::metadata::{self, MetadataSpec};
use crate::util::{Address, ObjectReference};
use crate::vm::{ObjectModel, VMBinding};
use super::purge::DeferredPurge;
use shardsweep::{CountingBudget, Heap, Madvise, OsMemory, PageBudget, Settings, Shared};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The effective settings as `SHARDSWEEP_X=value` pairs (what `SHARDSWEEP_PRINT_SETTINGS=1`
/// prints; `scripts/check-doc-defaults.py` compares the defaults with the documents).
fn describe_settings(s: &SpaceSettings) -> String {
    use shardsweep::{Accounting, Advice, ReuseOrder};
    let b = |v: bool| if v { "1" } else { "0" };
    format!(
        "SHARDSWEEP_BLOCK_KIB={} SHARDSWEEP_MAX_OBJECT_BYTES={} SHARDSWEEP_ACCOUNTING={} SHARDSWEEP_COUNT={} SHARDSWEEP_IDLE_CAP={} SHARDSWEEP_IDLE_MARGIN={} SHARDSWEEP_IDLE_MARGIN_ROOM={} SHARDSWEEP_SWEEP={} SHARDSWEEP_ADVICE={} SHARDSWEEP_PURGE={} \
         SHARDSWEEP_DECAY={} SHARDSWEEP_ABANDON_IDLE={} SHARDSWEEP_ABANDON_ALL={} SHARDSWEEP_CHECK_ACCOUNTING={} \
         SHARDSWEEP_CHECK_RECLAIM={} SHARDSWEEP_ZERO={} SHARDSWEEP_REUSE={} SHARDSWEEP_HOLES={} SHARDSWEEP_SPILL={} SHARDSWEEP_ADOPT={} SHARDSWEEP_LISTING_PAGES={} SHARDSWEEP_EXTENSION_PAGES={} SHARDSWEEP_POLL_PAGES={}",
        shardsweep::BLOCK_BYTES / 1024,
        super::MAX_OBJECT_SIZE,
        match s.accounting { Accounting::Page => "page", Accounting::Block => "block" },
        match s.count { Count::Resident => "resident", Count::InUse => "in-use" },
        s.idle_cap.map_or("off".to_string(), |c| c.to_string()),
        s.idle_margin,
        s.idle_margin_room,
        match s.sweep { SweepMode::Eager => "eager", SweepMode::Lazy => "lazy" },
        match s.advice { Advice::DontNeed => "dontneed", Advice::Free => "free", Advice::Keep => "keep" },
        match s.purge { super::purge::Purge::Gc => "gc", super::purge::Purge::Now => "now", super::purge::Purge::Pressure => "pressure" },
        s.decay,
        b(s.abandon_idle),
        b(s.abandon_all),
        b(s.check_accounting),
        b(s.check_reclaim),
        match s.zero { Zeroing::Space => "space", Zeroing::Binding => "binding", Zeroing::Poison => "poison" },
        match s.reuse { ReuseOrder::Address => "address", ReuseOrder::Densest => "densest", ReuseOrder::Sparsest => "sparsest" },
        s.holes,
        s.spill.name(),
        s.adopt.name(),
        s.listing_pages,
        s.extension_pages,
        s.poll_pages,
    )
}

/// The shardsweep space.
pub struct ShardSweepSpace<VM: VMBinding> {
    common: CommonSpace<VM>,
    pr: BlockPageResource<VM, Block>,
    /// Chunks that hold (or held) blocks, for object enumeration.
    chunk_map: ChunkMap,
    scheduler: Arc<GCWorkScheduler<VM>>,
    settings: SpaceSettings,
    /// The core instance, created when the space has its final (`'static`) address.
    shared: OnceLock<&'static Shared>,
    /// The deferred purge queue (`SHARDSWEEP_PURGE=gc`), created with `shared`.
    purge: OnceLock<&'static DeferredPurge>,
    /// Pages charged by the core (the count behind the space's `PageBudget`; the space adds
    /// the GC-trigger veto, see glue.rs).
    pages: CountingBudget,
    /// Between `prepare` and `end_of_gc`: mutators are stopped, callers are GC workers.
    xin_gc: AtomicBool,
    /// Dropped (zero) blocks given back outside a GC (the page resource takes blocks back on GC
    /// workers only).
    spare: Mutex<Vec<Address>>,
    /// Retired blocks whose pages are still resident and counted, kept for the slow path's
    /// reuse until purged (`SHARDSWEEP_PURGE`, purge.rs) or dropped under pressure.
    kept: Mutex<Vec<Address>>,
    /// Whether idle pages may be droppable under pressure (a hint; see `glue.rs`).
    xmay_drop: AtomicBool,
    /// One pressure drop at a time.
    pressure_lock: Mutex<()>,
    /// The core's resident pages (in use, idle, and kept empty blocks), as it notes them
    /// (`PageBudget::note_resident`): the count under `SHARDSWEEP_IDLE_MARGIN`, checked against
    /// the blocks by the accounting check under every count.
    xresident: AtomicUsize,
    /// The idle margin's part set by the room the last GC left free
    /// (`SHARDSWEEP_IDLE_MARGIN_ROOM`; `idle_margin_pages`), in pages: written at each GC's end
    /// (0 before the first), read by the count between GCs.
    xmargin_room: AtomicUsize,
    /// Peak of the resident pages counted (reported at exit with `SHARDSWEEP_REPORT_PEAK=1`).
    xpeak: AtomicUsize,
    /// Pages of every charge that may poll the GC trigger since the space was created, never
    /// decreased (`budget.rs`: the clock of the unpolled charges).
    xcharges: AtomicUsize,
    /// The value of `xcharges` up to which a charge skips the GC trigger's poll: at most the
    /// charges at the last poll plus half the heap's room then (`budget.rs`).
    xpoll_due: AtomicUsize,
    /// Every mutator's core heap (`*mut Heap` as `usize`), for lazy-sweep packets and checks.
    heaps: Mutex<Vec<usize>>,
    /// `heaps.len()`, read without the lock (the budget's headroom, `budget.rs`).
    xheap_count: AtomicUsize,
    /// Under `SHARDSWEEP_ADOPT=headroom`: the (mutator, size class) pairs that allocated in the
    /// last GC interval, counted at each GC's prepare (0 before the first GC; `budget.rs`).
    xsharers: AtomicUsize,
    /// The heaps whose mutator's release hook ran in the current GC (see `sweep_unreleased`).
    released: Mutex<Vec<usize>>,
    /// GCs seen by the end-of-GC checks.
    gcs: AtomicUsize,
    /// The plan's large-object space, for the footprint report (null until the seam notes it;
    /// large_objects.rs).
    xlos: AtomicPtr<crate::policy::largeobjectspace::LargeObjectSpace<VM>>,
    /// The lowest page of a large object seen live (0: none yet; `drop_free_large_object_pages`).
    xlos_low: AtomicUsize,
    /// The end of the highest large object seen live (0: none yet), for the reclaim check.
    xlos_high: AtomicUsize,
    /// With the reclaim check: the free pages of the large-object space between `xlos_low` and
    /// `xlos_high` still resident after this GC's drop (`usize::MAX`: no drop this GC).
    xlos_free_resident: AtomicUsize,
}

// SAFETY: the space's shared state is atomics, mutexes, the page resource (itself thread-safe)
// and the core instance (`Sync`).
unsafe impl<VM: VMBinding> Sync for ShardSweepSpace<VM> {}

impl<VM: VMBinding> ShardSweepSpace<VM> {
    /// Same signature as the other MarkSweep spaces: no global side metadata.
    #[allow(clippy::ptr_arg)]
    pub fn extend_global_side_metadata_specs(_specs: &mut Vec<SideMetadataSpec>) {}

    pub fn new(args: PlanCreateSpaceArgs<VM>) -> Self {
        let settings = SpaceSettings::from_env(*args.options.binding_zeroes_objects);
        super::fastpath::configure(&args.options);
        if std::env::var("SHARDSWEEP_PRINT_SETTINGS").is_ok_and(|v| v.trim() == "1") {
            eprintln!("shardsweep: settings {}", describe_settings(&settings));
        }
        let scheduler = args.scheduler.clone();
        let vm_map = args.vm_map;
        let is_discontiguous = args.vmrequest.is_discontiguous();
        // The chunk map's table is global since mmtk 0.33 (one map per space, by space index).
        let local_specs = metadata::extract_side_metadata(&[*VM::VMObjectModel::LOCAL_MARK_BIT_SPEC]);
        let max_heap_pages = args.gc_trigger.policy.get_max_heap_size_in_pages();
        let mut common = CommonSpace::new(args.into_policy_args(false, false, local_specs));
        let space_index = common.descriptor.get_index();
        if common.contiguous {
            common.extent = Self::virtual_extent(common.extent, max_heap_pages);
        }
        let log_pages = Block::LOG_BYTES - crate::util::constants::LOG_BYTES_IN_PAGE as usize;
        ShardSweepSpace {
            pr: if is_discontiguous {
                BlockPageResource::new_discontiguous(log_pages, vm_map, scheduler.num_workers())
            } else {
                BlockPageResource::new_contiguous(log_pages, common.start, common.extent, vm_map, scheduler.num_workers())
            },
            common,
            chunk_map: ChunkMap::new(space_index),
            scheduler,
            settings,
            shared: OnceLock::new(),
            purge: OnceLock::new(),
            pages: CountingBudget::unlimited(),
            xin_gc: AtomicBool::new(false),
            spare: Mutex::new(Vec::new()),
            kept: Mutex::new(Vec::new()),
            xmay_drop: AtomicBool::new(false),
            pressure_lock: Mutex::new(()),
            xresident: AtomicUsize::new(0),
            xmargin_room: AtomicUsize::new(0),
            xpeak: AtomicUsize::new(0),
            xcharges: AtomicUsize::new(0),
            xpoll_due: AtomicUsize::new(0),
            heaps: Mutex::new(Vec::new()),
            xheap_count: AtomicUsize::new(0),
            xsharers: AtomicUsize::new(0),
            released: Mutex::new(Vec::new()),
            gcs: AtomicUsize::new(0),
            xlos: AtomicPtr::new(std::ptr::null_mut()),
            xlos_low: AtomicUsize::new(0),
            xlos_high: AtomicUsize::new(0),
            xlos_free_resident: AtomicUsize::new(usize::MAX),
        }
    }

    /// The address range a contiguous space of this kind may need (64-bit layouts).
    ///
    /// Since mmtk 0.33 a contiguous space reserves only twice the maximum heap size
    /// (`CommonSpace::estimate_reasonable_contiguous_extent`, at least two chunks), and `Map64`
    /// panics when a space's free list cannot grow past it. That bound suits spaces whose blocks
    /// are all charged to the heap in full. Here a block is charged per page: a block holds at
    /// least one charged page (its header) while it is not back in the page resource, so the
    /// blocks in use are at most the heap's pages, and the blocks' address range is at most the
    /// heap size times the pages per block. Twice that, as `native_ms` gets twice the heap (for
    /// chunk granularity and blocks waiting in the page resource's release queues); never more
    /// than the layout's space extent. Only address space: the range is mapped chunk by chunk
    /// as blocks are taken, and the heap limit still bounds what is charged (resident).
    fn virtual_extent(extent: usize, max_heap_pages: usize) -> usize {
        use crate::util::conversions::raw_align_up;
        use crate::util::heap::layout::vm_layout::{vm_layout, BYTES_IN_CHUNK};
        let wanted = max_heap_pages
            .saturating_mul(Block::BYTES)
            .saturating_mul(2)
            .min(vm_layout().max_space_extent());
        extent.max(raw_align_up(wanted, BYTES_IN_CHUNK).min(vm_layout().max_space_extent()))
    }

    /// The core instance over this space (created on first use and leaked: heaps and blocks
    /// point to it for the life of the process).
    pub fn shared(&'static self) -> &'static Shared {
        self.shared.get_or_init(|| {
            let madvise = Madvise { advice: self.settings.advice };
            let q: &'static DeferredPurge =
                Box::leak(Box::new(DeferredPurge::new(madvise, self.settings.purge, self.settings.decay)));
            let _ = self.purge.set(q);
            let os: &'static dyn OsMemory = q;
            if self.settings.zero == Zeroing::Poison {
                sweep::poison_freed_cells();
            }
            super::report::register_peak_report(&self.xpeak);
            // Registers the drops report now, so that it prints even if nothing is dropped.
            super::report::drops_report_enabled();
            let settings = Settings {
                accounting: self.settings.accounting,
                // The space zeroes cells unless the binding initialises what it allocates.
                zero_cells: self.settings.zero == Zeroing::Space,
                abandon_idle_bins: self.settings.abandon_idle,
                abandon_all_partial: self.settings.abandon_all,
                reuse: self.settings.reuse,
                spill: self.settings.spill,
                adopt: self.settings.adopt,
                lease_current: true,
                lend_holes: self.settings.holes,
                hole_live: Some(sweep::range_marked::<VM>),
                // The sweep reads the mark bits itself where the oracle would only answer.
                marks: if self.marks_cleared_in_bulk() {
                    sweep::mark_bitmap::<VM>(self.settings.zero == Zeroing::Poison)
                } else {
                    None
                },
                listing_pages: self.settings.listing_pages,
                extension_pages: self.settings.extension_pages,
            };
            if settings.lend_holes > 0 && !sweep::holes_supported::<VM>() {
                eprintln!("shardsweep: SHARDSWEEP_HOLES={}: this binding's mark bit is not a side bit per minimum object; valid values here: 0", settings.lend_holes);
                std::process::exit(super::settings::EXIT_USAGE);
            }
            Shared::new(self, self, os, settings).leak()
        })
    }

    /// The core instance, if a mutator has created it.
    pub(super) fn shared_if_created(&self) -> Option<&'static Shared> {
        self.shared.get().copied()
    }

    /// Records a mutator's heap (allocator creation).
    pub(super) fn register_heap(&self, heap: *mut Heap) {
        let mut heaps = self.heaps.lock().unwrap();
        heaps.push(heap as usize);
        // Relaxed: a count read as a hint (`headroom`); the lock orders the list itself.
        self.xheap_count.store(heaps.len(), Ordering::Relaxed);
    }

    /// Forgets a mutator's heap (mutator destruction, before the heap is dropped).
    pub(super) fn unregister_heap(&self, heap: *mut Heap) {
        let mut heaps = self.heaps.lock().unwrap();
        if let Some(i) = heaps.iter().position(|&h| h == heap as usize) {
            heaps.swap_remove(i);
        }
        // Relaxed: see `register_heap`.
        self.xheap_count.store(heaps.len(), Ordering::Relaxed);
    }

    /// Records that the release hook of `heap`'s mutator ran in this GC (a GC worker).
    pub(super) fn note_released(&self, heap: *mut Heap) {
        self.released.lock().unwrap().push(heap as usize);
    }

    /// Sweeps every registered heap with blocks whose mutator this GC did not release (the
    /// binding did not enumerate it): OpenJDK takes an exiting thread off its thread list
    /// before it destroys the thread's mutator, and a GC in between would leave its marks in
    /// that heap's blocks. A left-over mark makes the next trace skip the object (already
    /// marked), so the sweeps free what only its fields reference, while it stays reachable.
    /// Sweeping these heaps here keeps "every block is swept (or deferred) at every GC".
    /// End of GC, on one worker.
    fn sweep_unreleased(&self) {
        let mut released = std::mem::take(&mut *self.released.lock().unwrap());
        released.sort_unstable();
        let mut oracle = self.sweep_oracle();
        for &h in self.heaps.lock().unwrap().iter() {
            if released.binary_search(&h).is_ok() {
                continue;
            }
            // SAFETY: a registered heap lives until its mutator is destroyed, which cannot
            // happen during a GC (OpenJDK deletes a thread under `Threads_lock`, which the
            // safepoint holds); its owner is stopped, or off the thread list and no longer
            // allocating, so we have exclusive access.
            let heap = unsafe { &mut *(h as *mut Heap) };
            // A heap without blocks (a thread that never allocated) holds no mark; one with a
            // lease holds cells the sweeps of the abandoned blocks make free again.
            if heap.owned_blocks() > 0 || heap.leased_bytes() > 0 {
                // Its lazy sweep, if any, was finished in this GC's prepare phase.
                heap.sweep(&mut oracle);
            }
        }
    }

    /// The pages of the space the GC trigger counts: those that may be resident (in use or
    /// idle) under `SHARDSWEEP_COUNT=resident`; those in use under `in-use`; with an idle margin,
    /// those in use plus the idle ones beyond the margin.
    pub fn charged_pages(&self) -> usize {
        let core = self.pages.charged();
        match self.idle_margin_pages() {
            None => core,
            Some(margin) => core + self.idle_pages(core).saturating_sub(margin),
        }
    }

    /// The idle margin in pages: `SHARDSWEEP_IDLE_MARGIN` percent of the current heap size, or
    /// `SHARDSWEEP_IDLE_MARGIN_ROOM` percent of the room the last GC left free if more
    /// (`set_margin_room`); `None` without a margin (the core's count is the trigger's).
    pub(super) fn idle_margin_pages(&self) -> Option<usize> {
        match self.settings.idle_margin {
            0 => None,
            percent => {
                let floor = self.get_gc_trigger().policy.get_current_heap_size_in_pages() * percent / 100;
                // Relaxed: written while the world is stopped (the GC's end orders it for the
                // mutators), read as the count's estimate as the margin itself is.
                Some(floor.max(self.xmargin_room.load(Ordering::Relaxed)))
            }
        }
    }

    /// A GC's end, before the trim and the checks (one worker, the world stopped): the margin's
    /// part by room until the next GC, `SHARDSWEEP_IDLE_MARGIN_ROOM` percent of the heap size
    /// less the pages in use now (this space's with their side metadata, and the large-object
    /// space's). None after a user-requested or emergency collection, which keep no idle page.
    fn set_margin_room(&self) {
        let percent = self.settings.idle_margin_room;
        let state = &self.common.global_state;
        let pages = if percent == 0 || state.is_user_triggered_collection() || state.is_emergency_collection() {
            0
        } else {
            let heap = self.get_gc_trigger().policy.get_current_heap_size_in_pages();
            // With a margin the core counts pages in use.
            let in_use = self.pages.charged();
            let los = self.large_object_space().map_or(0, |l| l.reserved_pages());
            let used = in_use + self.estimate_side_meta_pages(in_use) + los;
            heap.saturating_sub(used) * percent / 100
        };
        // Relaxed: see `idle_margin_pages`.
        self.xmargin_room.store(pages, Ordering::Relaxed);
    }

    /// The resident pages not in use (idle, and kept empty blocks'), given the pages in use
    /// (the core's count when it counts pages in use). Read apart from the count, so an
    /// estimate while mutators run (a page just noted resident and not yet charged shows
    /// as idle for that while); exact with the world stopped.
    pub(super) fn idle_pages(&self, in_use: usize) -> usize {
        // Relaxed: a count read for the trigger's estimate, ordering nothing else.
        self.xresident.load(Ordering::Relaxed).saturating_sub(in_use)
    }

    /// The core's resident pages as noted (`xresident`).
    pub(super) fn resident_pages(&self) -> usize {
        // Relaxed: as in `idle_pages`.
        self.xresident.load(Ordering::Relaxed)
    }

    /// Whether idle pages take room in the heap now (so dropping some makes room): always when
    /// the count is of resident pages, never when it is of pages in use, and with a margin when
    /// there are more than the margin.
    pub(super) fn idle_takes_room(&self) -> bool {
        match self.idle_beyond_margin() {
            None => self.counts_idle(),
            Some(beyond) => beyond > 0,
        }
    }

    /// With an idle margin, the idle pages beyond it (those the count holds, and the most a
    /// purge or a drop under pressure gives back); `None` without a margin.
    pub(super) fn idle_beyond_margin(&self) -> Option<usize> {
        self.idle_margin_pages().map(|margin| self.idle_pages(self.pages.charged()).saturating_sub(margin))
    }

    /// The runtime settings.
    pub fn settings(&self) -> &SpaceSettings {
        &self.settings
    }

    /// Marks `object`; `true` if this call marked it.
    fn attempt_mark(&self, object: ObjectReference) -> bool {
        let spec = &VM::VMObjectModel::LOCAL_MARK_BIT_SPEC;
        // A plain load first: most visits find the object marked, and a read leaves the mark
        // byte's cache line shared between the workers.
        if spec.is_marked::<VM>(object, Ordering::Relaxed) {
            return false;
        }
        // One atomic or (the byte holds the marks of other granules too), not a compare-exchange
        // loop: the worker that sets the bit enqueues the object, exactly once (so whether the VM
        // asks for `UNIQUE_OBJECT_ENQUEUING` or not). Relaxed: a mark orders nothing else; the
        // work packet carrying the object hands it over.
        spec.fetch_or_metadata::<VM, u8>(object, 1, Ordering::Relaxed) == 0
    }

    pub(crate) fn trace_object<Q: ObjectQueue>(&self, queue: &mut Q, object: ObjectReference) -> ObjectReference {
        debug_assert!(self.in_space(object), "{object} is not in the shardsweep space");
        if self.attempt_mark(object) {
            queue.enqueue(object);
        }
        object
    }

    /// Whether mark bits are cleared in bulk before each trace (eager sweeping with a side mark
    /// bit) rather than by the sweeps, bit by bit.
    pub(super) fn marks_cleared_in_bulk(&self) -> bool {
        self.settings.sweep == SweepMode::Eager && sweep::mark_bit_on_side::<VM>()
    }

    /// The oracle every sweep of this space uses.
    pub(super) fn sweep_oracle(&self) -> fn(*mut u8) -> bool {
        sweep::sweep_oracle::<VM>(self.marks_cleared_in_bulk())
    }

    pub fn prepare(&mut self, _full_heap: bool) {
        // Relaxed: mutators are stopped; the GC's start orders this for them.
        self.xin_gc.store(true, Ordering::Relaxed);
        if super::report::mutator_report_enabled() {
            super::report::note_gc();
        }
        if self.marks_cleared_in_bulk() {
            // Every block was swept at the last GC, reading (not clearing) its marks: clear them
            // all now, a chunk's side metadata at a time, as `native_ms` does.
            if let MetadataSpec::OnSide(side) = *VM::VMObjectModel::LOCAL_MARK_BIT_SPEC.as_spec() {
                // `all_chunks` yields only this space's allocated chunks.
                for chunk in self.chunk_map.all_chunks() {
                    side.bzero_metadata(chunk.start(), Chunk::BYTES);
                }
            }
        }
        if self.settings.adopt == shardsweep::Adopt::Headroom {
            self.count_sharers();
        }
        // Blocks given back by mutators outside GC return to the page resource (on a worker).
        let spare = std::mem::take(&mut *self.spare.lock().unwrap());
        for a in spare {
            self.pr.release_block(Block::from_aligned_address(a));
        }
        // Pages given back since the last GC and still idle are purged now (before any packet
        // of this GC can sweep or allocate), and so are the kept empty blocks (purge.rs).
        if let Some(q) = self.purge.get() {
            // With an idle margin, only the idle pages beyond it go (they are the ones counted);
            // those within it wait, uncounted, for their reuse without a page fault.
            let mut excess = self.idle_beyond_margin().unwrap_or(usize::MAX);
            let purged = q.purge(&*self, excess);
            excess = excess.saturating_sub(purged);
            super::report::note_drops(super::report::DropPath::Purge, purged);
            if self.settings.purge == super::purge::Purge::Gc && excess > 0 {
                let kept = self.purge_kept(excess);
                super::report::note_drops(super::report::DropPath::Kept, kept);
            }
        }
        // Lazy sweeping: every block must be swept before marking (the sweep reads and clears
        // the previous GC's marks). One packet per heap with unswept blocks; the prepare bucket
        // closes before any tracing starts. (Not the mutator prepare hook: the plan skips it
        // under `eager_sweeping`.)
        if self.settings.sweep == SweepMode::Lazy {
            let packets: Vec<Box<dyn GCWork<VM>>> = self
                .heaps
                .lock()
                .unwrap()
                .iter()
                // SAFETY: registered heaps are alive; mutators are stopped.
                .filter(|&&h| unsafe { (*(h as *const Heap)).has_unswept() })
                .map(|&h| Box::new(work::FinishLazySweep::<VM>::new(h as *mut Heap)) as Box<dyn GCWork<VM>>)
                .collect();
            self.scheduler.work_buckets[WorkBucketStage::Prepare].bulk_add(packets);
        }
    }

    /// Queues the sweep of the abandoned blocks in parallel packets. Runs in the plan's
    /// `Release` packet, which creates the `ReleaseMutator` packets only after it returns: the
    /// stacks are detached here, so blocks that mutators' sweeps abandon later (already swept)
    /// are in no batch, and no block is swept twice (a second sweep would see the marks the
    /// first one cleared, and free live objects).
    pub fn release(&mut self) {
        let Some(shared) = self.shared.get().copied() else { return };
        if footprint::footprint_level() > 0 {
            // After marking, before any sweep (the mutators' sweeps are queued after this).
            self.report_footprint();
        }
        // Holes lent at the last sweep and not taken are lent again by this GC's sweeps (the
        // mutators are stopped since the GC began: none takes one meanwhile).
        shared.clear_hole_pool();
        work::queue_abandoned_sweeps(&self.scheduler, shared, self.sweep_oracle());
    }

    pub fn end_of_gc(&mut self) {
        // Relaxed: a hint for the pressure path; the GC's end orders it for the mutators.
        self.xmay_drop.store(true, Ordering::Relaxed);
        self.sweep_unreleased();
        if self.settings.idle_margin > 0 {
            self.set_margin_room();
        }
        if self.settings.purge != super::purge::Purge::Now {
            let trimmed = self.trim_idle_after_gc();
            super::report::note_drops(super::report::DropPath::Trim, trimmed);
        }
        // After the large-object space's sweep (the plan's `release`); before the checks, which
        // look at what it left resident.
        self.drop_free_large_object_pages();
        self.check_after_gc();
        if footprint::footprint_level() > 0 {
            self.report_large_objects(footprint::reported_gcs());
        }
        self.pr.flush_all();
        // The heap's room and size change at a GC: the first charge after it polls. (Relaxed:
        // as `xin_gc`.)
        self.xpoll_due.store(0, Ordering::Relaxed);
        // Relaxed: see `prepare`.
        self.xin_gc.store(false, Ordering::Relaxed);
    }
}
