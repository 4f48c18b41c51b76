//! Building MMTk (`init_heap`) and the run's settings, fixed at start-up and read from then on
//! (the plan, the heap size, the barrier and large-object threshold of the plan, `--verify`,
//! `--histogram`, `--late-exit`).
//!
//! The settings are atomics only to be safe statics: `init_heap` writes them once, before MMTk
//! spawns its GC threads and before any mutator thread is spawned (spawning a thread orders
//! what its parent did before it), so every access is `Relaxed`.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

use mmtk::util::opaque_pointer::VMThread;
use mmtk::util::options::PlanSelector;
use mmtk::{memory_manager, MMTK};

use super::inline_alloc::FreeListPath;
use crate::stats;
use crate::vm::SynthVM;

static MMTK_INSTANCE: OnceLock<&'static MMTK<SynthVM>> = OnceLock::new();

/// Set once the heap has been built; read on the allocation path.
static NEEDS_BARRIER: AtomicBool = AtomicBool::new(false);
static LOS_THRESHOLD: AtomicUsize = AtomicUsize::new(usize::MAX);
static VERIFY_AFTER_GC: AtomicBool = AtomicBool::new(false);
/// `--late-exit` (set once at start-up).
static LATE_EXIT: AtomicBool = AtomicBool::new(false);
static HISTOGRAM: AtomicBool = AtomicBool::new(false);
static PLAN: OnceLock<PlanSelector> = OnceLock::new();
static HEAP_BYTES: AtomicUsize = AtomicUsize::new(0);
/// `--inline-alloc`: the fast path MMTk reports, once MMTk is built.
static INLINE: OnceLock<Option<FreeListPath>> = OnceLock::new();

pub fn mmtk() -> &'static MMTK<SynthVM> {
    MMTK_INSTANCE.get().expect("MMTk is not initialised")
}

pub fn plan() -> PlanSelector {
    *PLAN.get().expect("plan not set")
}

pub fn plan_name() -> String {
    PLAN.get()
        .map(|p| format!("{:?}", p))
        .unwrap_or_else(|| "?".into())
}

pub fn heap_bytes() -> usize {
    HEAP_BYTES.load(Ordering::Relaxed)
}

pub fn heap_description() -> String {
    let b = heap_bytes();
    if b == 0 {
        "?".into()
    } else if b % (1 << 20) == 0 {
        format!("{} MiB", b >> 20)
    } else {
        format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64)
    }
}

/// Whether the plan needs MMTk's write barrier (generational and sticky plans).
pub(crate) fn needs_barrier() -> bool {
    NEEDS_BARRIER.load(Ordering::Relaxed)
}

/// The largest object the plan allocates outside the large-object space.
pub(crate) fn los_threshold() -> usize {
    LOS_THRESHOLD.load(Ordering::Relaxed)
}

/// `--verify`: walk the heap after every GC.
pub(crate) fn verify_after_gc() -> bool {
    VERIFY_AFTER_GC.load(Ordering::Relaxed)
}

/// `--late-exit`: see `Mu`'s `Drop`.
pub(crate) fn late_exit() -> bool {
    LATE_EXIT.load(Ordering::Relaxed)
}

/// `--histogram`: every mutator records its allocation sizes.
pub(crate) fn histogram() -> bool {
    HISTOGRAM.load(Ordering::Relaxed)
}

/// `--inline-alloc`'s fast path (`None`: not asked for, or MMTk offers none).
pub(crate) fn inline_alloc() -> Option<FreeListPath> {
    INLINE.get().copied().flatten()
}

/// How the heap is configured.
pub struct HeapConfig {
    pub plan: PlanSelector,
    /// Fixed heap size in bytes; `None` keeps MMTk's default / MMTK_GC_TRIGGER.
    pub heap_bytes: Option<usize>,
    pub verify_after_gc: bool,
    pub histogram: bool,
    /// `--final-gc`: also make user-requested GCs full-heap (MMTk's `full_heap_system_gc`).
    pub final_gc: bool,
    /// `--late-exit`: see [`Mu`](super::Mu)'s `Drop`.
    pub late_exit: bool,
    /// `--compressed-layout`: see [`compressed_layout`].
    pub compressed_layout: bool,
    /// `--inline-alloc`: see `inline_alloc.rs`.
    pub inline_alloc: bool,
}

/// The address-space layout mmtk-openjdk uses with compressed oops: the heap from 1 GiB up to
/// 4 GiB (32 GiB when the heap needs more), spaces discontiguous, so that they take chunks from
/// one shared pool and a chunk one space gave back can go to another (as on the JVM).
fn compressed_layout(max_heap: usize) -> mmtk::util::heap::vm_layout::VMLayout {
    use mmtk::util::conversions::{chunk_align_down, chunk_align_up};
    use mmtk::util::Address;
    const GIB: usize = 1 << 30;
    assert!(max_heap <= 32 * GIB, "--compressed-layout: the heap must be at most 32 GiB");
    let start = GIB;
    let end = if start + max_heap <= 4 * GIB { 4 * GIB } else { 32 * GIB };
    mmtk::util::heap::vm_layout::VMLayout {
        log_address_space: 35,
        // SAFETY: plain addresses, not dereferenced here.
        heap_start: chunk_align_down(unsafe { Address::from_usize(start) }),
        // SAFETY: as above.
        heap_end: chunk_align_up(unsafe { Address::from_usize(end) }),
        log_space_extent: 31,
        force_use_contiguous_spaces: false,
    }
}

/// Build and initialise MMTk.  Must be called once, before any `Mu::attach`.
pub fn init_heap(cfg: &HeapConfig) {
    use mmtk::util::options::GCTriggerSelector;
    // Reads MMTK_* environment variables (MMTK_THREADS, MMTK_GC_TRIGGER, ...).
    let mut builder = mmtk::MMTKBuilder::new();
    builder.options.plan.set(cfg.plan);
    if let Some(b) = cfg.heap_bytes {
        builder
            .options
            .gc_trigger
            .set(GCTriggerSelector::FixedHeapSize(b));
    }
    if cfg.final_gc {
        builder.options.full_heap_system_gc.set(true);
    }
    if cfg.compressed_layout {
        let max_heap = builder.options.gc_trigger.max_heap_size();
        builder.set_vm_layout(compressed_layout(max_heap));
    }
    let heap = match *builder.options.gc_trigger {
        GCTriggerSelector::FixedHeapSize(b) => b,
        GCTriggerSelector::DynamicHeapSize(_, max) => max,
        GCTriggerSelector::Delegated => 0,
    };
    HEAP_BYTES.store(heap, Ordering::Relaxed);
    let _ = PLAN.set(cfg.plan);
    VERIFY_AFTER_GC.store(cfg.verify_after_gc, Ordering::Relaxed);
    LATE_EXIT.store(cfg.late_exit, Ordering::Relaxed);
    HISTOGRAM.store(cfg.histogram, Ordering::Relaxed);
    stats::epoch();

    let instance: &'static MMTK<SynthVM> = Box::leak(memory_manager::mmtk_init(&builder));
    if MMTK_INSTANCE.set(instance).is_err() {
        panic!("init_heap called twice");
    }
    let constraints = instance.get_plan().constraints();
    NEEDS_BARRIER.store(
        constraints.barrier != mmtk::plan::BarrierSelector::NoBarrier,
        Ordering::Relaxed,
    );
    LOS_THRESHOLD.store(
        constraints.max_non_los_default_alloc_bytes,
        Ordering::Relaxed,
    );
    let _ = INLINE.set(if cfg.inline_alloc { FreeListPath::of_default_allocator() } else { None });
    memory_manager::initialize_collection(instance, VMThread::UNINITIALIZED);
}

pub fn gc_threads() -> usize {
    *mmtk().get_options().threads
}

pub fn used_bytes() -> usize {
    memory_manager::used_bytes(mmtk())
}

#[cfg(test)]
mod tests {
    use super::compressed_layout;

    #[test]
    fn compressed_layout_is_mmtk_openjdks() {
        const GIB: usize = 1 << 30;
        let small = compressed_layout(64 << 20);
        assert_eq!((small.heap_start.as_usize(), small.heap_end.as_usize()), (GIB, 4 * GIB));
        assert!(!small.force_use_contiguous_spaces, "spaces share one chunk pool");
        assert_eq!((small.log_address_space, small.log_space_extent), (35, 31));
        let big = compressed_layout(8 * GIB);
        assert_eq!(big.heap_end.as_usize(), 32 * GIB);
    }

    #[test]
    #[should_panic(expected = "at most 32 GiB")]
    fn compressed_layout_refuses_a_heap_above_32_gib() {
        compressed_layout(33 << 30);
    }
}
