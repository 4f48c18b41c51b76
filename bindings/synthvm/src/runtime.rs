//! The synthvm runtime: the MMTk binding (VMBinding and its traits), mutator threads with
//! shadow stacks, safepoints and the stop-the-world protocol, global roots.
//!
//! # Threads and safepoints
//!
//! Every mutator thread owns a heap-allocated [`ThreadCtx`]; its address is the thread's MMTk
//! `tls`.  A thread is in one of three states, changed only while holding `COORD`:
//!
//! * `IN_VM`: running mutator code; it may hold raw object references and must reach a
//!   safepoint before a GC can proceed.
//! * `IN_NATIVE`: blocked or doing non-heap work (joining threads, waiting on a barrier).
//!   Its shadow stack is still a root set, but the GC does not wait for it.  Leaving native
//!   waits for any GC in progress to finish.
//! * `AT_SAFEPOINT`: parked in a safepoint poll or in `block_for_gc`.
//!
//! `stop_all_mutators` raises `GC_REQUESTED` (which every mutator polls on each allocation and
//! in its loops) and waits until no registered thread is `IN_VM`.  `resume_mutators` clears the
//! flag, bumps the completed-GC counter and wakes everyone.  A thread in `block_for_gc` waits
//! for the completed-GC counter to move past the value it saw on entry: the GC it is waiting
//! for cannot finish before it parks, because that GC needs it stopped.

use std::cell::Cell;
use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use mmtk::util::alloc::AllocationError;
use mmtk::util::copy::{CopySemantics, GCWorkerCopyContext};
use mmtk::util::opaque_pointer::{OpaquePointer, VMMutatorThread, VMThread, VMWorkerThread};
use mmtk::util::options::PlanSelector;
use mmtk::util::{Address, ObjectReference};
use mmtk::vm::slot::{SimpleSlot, UnimplementedMemorySlice};
use mmtk::vm::*;
use mmtk::{memory_manager, AllocationSemantics, Mutator, MMTK};

use crate::exit;
use crate::object::{self, Kind};
use crate::stats;

// ---------------------------------------------------------------------------------------------
// Global binding state
// ---------------------------------------------------------------------------------------------

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

/// The safepoint flag every mutator polls.
static GC_REQUESTED: AtomicBool = AtomicBool::new(false);

const IN_VM: u8 = 0;
const IN_NATIVE: u8 = 1;
const AT_SAFEPOINT: u8 = 2;

#[derive(Copy, Clone, PartialEq, Eq)]
struct CtxPtr(*mut ThreadCtx);
unsafe impl Send for CtxPtr {}

struct Coord {
    gc_requested: bool,
    completed_gcs: u64,
    threads: Vec<CtxPtr>,
}

static COORD: Mutex<Coord> = Mutex::new(Coord {
    gc_requested: false,
    completed_gcs: 0,
    threads: Vec::new(),
});
static COND: Condvar = Condvar::new();

fn coord() -> MutexGuard<'static, Coord> {
    COORD.lock().unwrap_or_else(|e| e.into_inner())
}

fn wait(g: MutexGuard<'static, Coord>) -> MutexGuard<'static, Coord> {
    COND.wait(g).unwrap_or_else(|e| e.into_inner())
}

/// The tls value given to GC worker threads: the address of this static, so that
/// `is_mutator` can tell workers from mutators.
static WORKER_TAG: u64 = 0x5747_4b52;

fn worker_tls() -> VMWorkerThread {
    VMWorkerThread(VMThread(OpaquePointer::from_address(Address::from_ptr(
        &WORKER_TAG as *const u64,
    ))))
}

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

// ---------------------------------------------------------------------------------------------
// Global roots
// ---------------------------------------------------------------------------------------------

/// Number of global root slots.  Workloads allocate slots with [`alloc_global_root`].
pub const GLOBAL_ROOTS: usize = 4096;
#[allow(clippy::declare_interior_mutable_const)]
const ZERO: AtomicUsize = AtomicUsize::new(0);
static GLOBAL_ROOT_SLOTS: [AtomicUsize; GLOBAL_ROOTS] = [ZERO; GLOBAL_ROOTS];
static GLOBAL_ROOTS_USED: AtomicUsize = AtomicUsize::new(0);

/// A global root slot: a static location scanned by `scan_vm_specific_roots`.
#[derive(Copy, Clone, Debug)]
pub struct GlobalRoot(usize);

pub fn alloc_global_root() -> GlobalRoot {
    let i = GLOBAL_ROOTS_USED.fetch_add(1, Ordering::SeqCst);
    assert!(i < GLOBAL_ROOTS, "out of global root slots");
    GlobalRoot(i)
}

impl GlobalRoot {
    pub fn get(self) -> Option<ObjectReference> {
        ObjectReference::from_raw_address(unsafe {
            Address::from_usize(GLOBAL_ROOT_SLOTS[self.0].load(Ordering::Relaxed))
        })
    }
    pub fn set(self, o: Option<ObjectReference>) {
        GLOBAL_ROOT_SLOTS[self.0].store(
            o.map(|o| o.to_raw_address().as_usize()).unwrap_or(0),
            Ordering::Relaxed,
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Mutator threads
// ---------------------------------------------------------------------------------------------

const CTX_MAGIC: u64 = 0x5359_4e54_4856_4d21;
/// Shadow stack capacity (slots) per thread.
pub const SHADOW_STACK_SLOTS: usize = 1 << 14;

/// Per-thread state.  Its address is the thread's MMTk tls.
pub struct ThreadCtx {
    magic: u64,
    pub id: usize,
    mutator: *mut Mutator<SynthVM>,
    state: AtomicU8,
    roots: *mut usize,
    roots_len: usize,
    allocs: u64,
    alloc_bytes: u64,
    histogram: Option<BTreeMap<usize, u64>>,
    /// `--histogram`: this mutator's size classes (see `stats::class_profile`).
    classes: Option<Box<stats::class_profile::ClassProfile>>,
}

impl ThreadCtx {
    fn tls(this: *mut ThreadCtx) -> VMMutatorThread {
        VMMutatorThread(VMThread(OpaquePointer::from_address(
            Address::from_mut_ptr(this),
        )))
    }
    fn from_tls(tls: VMMutatorThread) -> *mut ThreadCtx {
        let p = tls.0 .0.to_address().to_mut_ptr::<ThreadCtx>();
        debug_assert!(unsafe { (*p).magic } == CTX_MAGIC);
        p
    }
}

/// A mutator thread's handle.  Not `Send`: it is bound to the thread that attached it.
///
/// Object references returned by this API are only valid until the next allocation or
/// safepoint poll (a GC may move the object).  Anything that must survive has to be kept in
/// the shadow stack (`push`/`get`/`set`) or a global root, and re-read after allocating.
pub struct Mu {
    ctx: *mut ThreadCtx,
    barrier: bool,
    los: usize,
    histogram: bool,
    /// `object::owner_bits(id)`: OR-ed into every object's meta word.
    owner: u64,
    /// Makes the type !Send and !Sync.
    _not_send: std::marker::PhantomData<Cell<*mut ()>>,
}

impl Mu {
    /// Register the current thread as a mutator and bind an MMTk mutator to it.
    pub fn attach(id: usize) -> Mu {
        let roots = vec![0usize; SHADOW_STACK_SLOTS].into_boxed_slice();
        let roots = Box::into_raw(roots) as *mut usize;
        let hist = HISTOGRAM.load(Ordering::Relaxed);
        let ctx = Box::into_raw(Box::new(ThreadCtx {
            magic: CTX_MAGIC,
            id,
            mutator: std::ptr::null_mut(),
            state: AtomicU8::new(IN_VM),
            roots,
            roots_len: 0,
            allocs: 0,
            alloc_bytes: 0,
            histogram: if hist { Some(BTreeMap::new()) } else { None },
            classes: hist.then(Box::default),
        }));
        {
            // Do not join in the middle of a GC.
            let mut g = coord();
            while g.gc_requested {
                g = wait(g);
            }
            g.threads.push(CtxPtr(ctx));
        }
        // We are IN_VM and registered, so no GC can proceed while the mutator is created.
        let m = memory_manager::bind_mutator(mmtk(), ThreadCtx::tls(ctx));
        unsafe { (*ctx).mutator = Box::into_raw(m) };
        Mu {
            ctx,
            barrier: NEEDS_BARRIER.load(Ordering::Relaxed),
            los: LOS_THRESHOLD.load(Ordering::Relaxed),
            histogram: hist,
            owner: object::owner_bits(id),
            _not_send: std::marker::PhantomData,
        }
    }

    pub fn id(&self) -> usize {
        unsafe { (*self.ctx).id }
    }

    /// Bytes this mutator has allocated so far.
    pub fn allocated_bytes(&self) -> u64 {
        unsafe { (*self.ctx).alloc_bytes }
    }

    /// Safepoint poll.  Call it in every loop that can run for a while without allocating.
    /// All live references must be in the shadow stack or global roots when calling it.
    #[inline(always)]
    pub fn poll(&self) {
        if GC_REQUESTED.load(Ordering::Relaxed) {
            self.safepoint_slow();
        }
    }

    #[cold]
    fn safepoint_slow(&self) {
        let mut g = coord();
        if !g.gc_requested {
            return;
        }
        let ctx = unsafe { &*self.ctx };
        ctx.state.store(AT_SAFEPOINT, Ordering::SeqCst);
        COND.notify_all();
        while g.gc_requested {
            g = wait(g);
        }
        ctx.state.store(IN_VM, Ordering::SeqCst);
    }

    /// Force a full-heap GC from this (mutator) thread and wait for it: MMTk's user collection
    /// request, forced (even with `ignore_system_gc`) and exhaustive (a full-heap GC in the
    /// generational and sticky plans).  `--final-gc` uses it.
    pub fn collect_full(&self) {
        mmtk().handle_user_collection_request(ThreadCtx::tls(self.ctx), true, true);
    }

    /// Mark this thread as blocked / in native code: a GC may run without waiting for it (its
    /// shadow stack is still scanned).  The thread must not touch the heap until `leave_native`.
    pub fn enter_native(&self) {
        let _g = coord();
        unsafe { &*self.ctx }
            .state
            .store(IN_NATIVE, Ordering::SeqCst);
        COND.notify_all();
    }

    /// Return from native: waits for any GC in progress.
    pub fn leave_native(&self) {
        let mut g = coord();
        while g.gc_requested {
            g = wait(g);
        }
        unsafe { &*self.ctx }.state.store(IN_VM, Ordering::SeqCst);
    }

    /// Run `f` (which must not touch the heap) in the native state.
    pub fn native<R>(&self, f: impl FnOnce() -> R) -> R {
        self.enter_native();
        let r = f();
        self.leave_native();
        r
    }

    /// Allocate and initialise an object: `nrefs` null reference fields, `payload` bytes of
    /// payload (rounded up to a word), identity hash `hash`.  May trigger a GC.
    #[inline(always)]
    pub fn alloc(&self, kind: Kind, nrefs: usize, payload: usize, hash: u64) -> ObjectReference {
        self.poll();
        let size = object::object_size(nrefs, payload);
        let sem = if size > self.los {
            AllocationSemantics::Los
        } else {
            AllocationSemantics::Default
        };
        unsafe {
            let ctx = self.ctx;
            let m = &mut *(*ctx).mutator;
            let addr = memory_manager::alloc(m, size, 8, 0, sem);
            if addr.is_zero() {
                exit::out_of_memory("allocation failed");
            }
            object::init_object(addr, size, nrefs, kind, hash, self.owner);
            let obj = ObjectReference::from_raw_address_unchecked(addr);
            memory_manager::post_alloc(m, obj, size, sem);
            (*ctx).allocs += 1;
            (*ctx).alloc_bytes += size as u64;
            if self.histogram {
                if let Some(h) = (*ctx).histogram.as_mut() {
                    *h.entry(size).or_insert(0) += 1;
                }
                if let Some(c) = (*ctx).classes.as_mut() {
                    c.add(size);
                }
            }
            obj
        }
    }

    /// Store `target` into reference field `i` of `src`, with MMTk's write barrier when the plan
    /// needs one (generational and sticky plans).
    #[inline(always)]
    pub fn write_ref(&self, src: ObjectReference, i: usize, target: Option<ObjectReference>) {
        debug_assert!(i < object::nrefs_of(src));
        let slot = object::ref_slot(src, i);
        unsafe {
            slot.store::<usize>(target.map(|t| t.to_raw_address().as_usize()).unwrap_or(0));
        }
        if self.barrier {
            let m = unsafe { &mut *(*self.ctx).mutator };
            memory_manager::object_reference_write_post(
                m,
                src,
                SimpleSlot::from_address(slot),
                target,
            );
        }
    }

    #[inline(always)]
    pub fn read_ref(&self, src: ObjectReference, i: usize) -> Option<ObjectReference> {
        object::load_ref(src, i)
    }

    // --- shadow stack -----------------------------------------------------------------------

    /// Push a root; returns its index.
    #[inline(always)]
    pub fn push(&self, o: ObjectReference) -> usize {
        self.push_opt(Some(o))
    }

    #[inline(always)]
    pub fn push_opt(&self, o: Option<ObjectReference>) -> usize {
        unsafe {
            let ctx = &mut *self.ctx;
            let i = ctx.roots_len;
            if i >= SHADOW_STACK_SLOTS {
                exit::failed("shadow stack overflow");
            }
            *ctx.roots.add(i) = o.map(|o| o.to_raw_address().as_usize()).unwrap_or(0);
            ctx.roots_len = i + 1;
            i
        }
    }

    /// Read root `i` (valid after any GC: the GC updates the slot).
    #[inline(always)]
    pub fn get(&self, i: usize) -> ObjectReference {
        self.get_opt(i).expect("null root")
    }

    #[inline(always)]
    pub fn get_opt(&self, i: usize) -> Option<ObjectReference> {
        unsafe {
            let ctx = &*self.ctx;
            debug_assert!(i < ctx.roots_len);
            ObjectReference::from_raw_address(Address::from_usize(*ctx.roots.add(i)))
        }
    }

    #[inline(always)]
    pub fn set(&self, i: usize, o: Option<ObjectReference>) {
        unsafe {
            let ctx = &mut *self.ctx;
            debug_assert!(i < ctx.roots_len);
            *ctx.roots.add(i) = o.map(|o| o.to_raw_address().as_usize()).unwrap_or(0);
        }
    }

    #[inline(always)]
    pub fn depth(&self) -> usize {
        unsafe { (*self.ctx).roots_len }
    }

    /// Pop roots down to `depth`.
    #[inline(always)]
    pub fn truncate(&self, depth: usize) {
        unsafe {
            let ctx = &mut *self.ctx;
            debug_assert!(depth <= ctx.roots_len);
            ctx.roots_len = depth;
        }
    }

    #[inline(always)]
    pub fn pop(&self) -> Option<ObjectReference> {
        let d = self.depth();
        let o = self.get_opt(d - 1);
        self.truncate(d - 1);
        o
    }
}

impl Drop for Mu {
    /// Unbind: flush and destroy the MMTk mutator, then deregister the thread.
    ///
    /// With `--late-exit`, the other order, as an exiting OpenJDK thread does (`Threads::remove`,
    /// then `~Thread` destroys the mutator): deregister, wait for the next GC to complete (GCs
    /// in between do not see this mutator: it is neither stopped nor visited), then destroy the
    /// mutator with no GC in progress and the coordination lock held, so none starts meanwhile
    /// (OpenJDK: under `Threads_lock`, which a safepoint holds).
    fn drop(&mut self) {
        unsafe {
            let ctx = self.ctx;
            let m = (*ctx).mutator;
            if LATE_EXIT.load(Ordering::Relaxed) {
                let mut g = coord();
                g.threads.retain(|t| t.0 != ctx);
                COND.notify_all();
                let seen = g.completed_gcs;
                let deadline = Instant::now() + Duration::from_secs(2);
                while g.completed_gcs == seen && !g.threads.is_empty() && Instant::now() < deadline
                {
                    g = COND
                        .wait_timeout(g, Duration::from_millis(10))
                        .map(|(g, _)| g)
                        .unwrap_or_else(|e| e.into_inner().0);
                }
                while g.gc_requested {
                    g = wait(g);
                }
                memory_manager::destroy_mutator(&mut *m);
                drop(g);
            } else {
                // Still IN_VM: no GC can run while the mutator is being destroyed.
                memory_manager::destroy_mutator(&mut *m);
            }
            stats::ALLOC_COUNT.fetch_add((*ctx).allocs, Ordering::Relaxed);
            stats::ALLOC_BYTES.fetch_add((*ctx).alloc_bytes, Ordering::Relaxed);
            if let Some(h) = (*ctx).histogram.take() {
                stats::histogram::merge(&h);
            }
            if let Some(c) = (*ctx).classes.take() {
                let who = match (*ctx).id {
                    usize::MAX => "main".to_string(),
                    id => format!("mutator-{}", id),
                };
                stats::class_profile::finish(who, &c);
            }
            {
                let mut g = coord();
                g.threads.retain(|t| t.0 != ctx);
                COND.notify_all();
            }
            drop(Box::from_raw(m));
            drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                (*ctx).roots,
                SHADOW_STACK_SLOTS,
            )));
            drop(Box::from_raw(ctx));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Heap construction
// ---------------------------------------------------------------------------------------------

/// How the heap is configured.
pub struct HeapConfig {
    pub plan: PlanSelector,
    /// Fixed heap size in bytes; `None` keeps MMTk's default / MMTK_GC_TRIGGER.
    pub heap_bytes: Option<usize>,
    pub verify_after_gc: bool,
    pub histogram: bool,
    /// `--final-gc`: also make user-requested GCs full-heap (MMTk's `full_heap_system_gc`).
    pub final_gc: bool,
    /// `--late-exit`: see [`Mu`]'s `Drop`.
    pub late_exit: bool,
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
    memory_manager::initialize_collection(instance, VMThread::UNINITIALIZED);
}

pub fn gc_threads() -> usize {
    *mmtk().get_options().threads
}

pub fn used_bytes() -> usize {
    memory_manager::used_bytes(mmtk())
}

// ---------------------------------------------------------------------------------------------
// The VMBinding
// ---------------------------------------------------------------------------------------------

#[derive(Default)]
pub struct SynthVM;

impl VMBinding for SynthVM {
    type VMObjectModel = SynthObjectModel;
    type VMScanning = SynthScanning;
    type VMCollection = SynthCollection;
    type VMActivePlan = SynthActivePlan;
    type VMReferenceGlue = SynthReferenceGlue;
    type VMSlot = SimpleSlot;
    type VMMemorySlice = UnimplementedMemorySlice<SimpleSlot>;

    const MIN_ALIGNMENT: usize = 8;
    const MAX_ALIGNMENT: usize = 8;
    const USE_ALLOCATION_OFFSET: bool = false;
}

pub struct SynthObjectModel;

impl ObjectModel<SynthVM> for SynthObjectModel {
    const GLOBAL_LOG_BIT_SPEC: VMGlobalLogBitSpec = VMGlobalLogBitSpec::side_first();
    // The forwarding pointer overwrites the hash word of the from-space copy only.
    const LOCAL_FORWARDING_POINTER_SPEC: VMLocalForwardingPointerSpec =
        VMLocalForwardingPointerSpec::in_header(0);
    const LOCAL_FORWARDING_BITS_SPEC: VMLocalForwardingBitsSpec =
        VMLocalForwardingBitsSpec::side_first();
    const LOCAL_MARK_BIT_SPEC: VMLocalMarkBitSpec =
        VMLocalMarkBitSpec::side_after(Self::LOCAL_FORWARDING_BITS_SPEC.as_spec());
    const LOCAL_LOS_MARK_NURSERY_SPEC: VMLocalLOSMarkNurserySpec =
        VMLocalLOSMarkNurserySpec::side_after(Self::LOCAL_MARK_BIT_SPEC.as_spec());
    const OBJECT_REF_OFFSET_LOWER_BOUND: isize = 0;

    fn copy(
        from: ObjectReference,
        semantics: CopySemantics,
        copy_context: &mut GCWorkerCopyContext<SynthVM>,
    ) -> ObjectReference {
        let bytes = object::size_of(from);
        let dst = copy_context.alloc_copy(from, bytes, 8, 0, semantics);
        debug_assert!(!dst.is_zero());
        unsafe {
            std::ptr::copy_nonoverlapping(
                from.to_raw_address().to_ptr::<u8>(),
                dst.to_mut_ptr::<u8>(),
                bytes,
            );
        }
        let to = unsafe { ObjectReference::from_raw_address_unchecked(dst) };
        copy_context.post_copy(to, bytes, semantics);
        to
    }

    fn copy_to(from: ObjectReference, to: ObjectReference, _region: Address) -> Address {
        let bytes = object::size_of(from);
        if from != to {
            // MarkCompact slides objects towards lower addresses: ranges may overlap.
            unsafe {
                std::ptr::copy(
                    from.to_raw_address().to_ptr::<u8>(),
                    to.to_raw_address().to_mut_ptr::<u8>(),
                    bytes,
                );
            }
        }
        to.to_raw_address() + bytes
    }

    fn get_reference_when_copied_to(_from: ObjectReference, to: Address) -> ObjectReference {
        ObjectReference::from_raw_address(to).expect("copy target is null")
    }

    fn get_current_size(object: ObjectReference) -> usize {
        object::size_of(object)
    }

    fn get_size_when_copied(object: ObjectReference) -> usize {
        object::size_of(object)
    }

    fn get_align_when_copied(_object: ObjectReference) -> usize {
        8
    }

    fn get_align_offset_when_copied(_object: ObjectReference) -> usize {
        0
    }

    fn get_type_descriptor(_reference: ObjectReference) -> &'static [i8] {
        &[]
    }

    fn ref_to_object_start(object: ObjectReference) -> Address {
        object.to_raw_address()
    }

    fn ref_to_header(object: ObjectReference) -> Address {
        object.to_raw_address()
    }

    fn dump_object(object: ObjectReference) {
        eprintln!(
            "synthvm object {}: hash {:#x} size {} refs {} tag {:#x}",
            object,
            object::hash_of(object),
            object::size_of(object),
            object::nrefs_of(object),
            object::tag_of(object)
        );
    }

    fn is_object_sane(object: ObjectReference) -> bool {
        object::check_header(object).is_ok()
    }
}

pub struct SynthScanning;

impl Scanning<SynthVM> for SynthScanning {
    fn scan_object<SV: SlotVisitor<SimpleSlot>>(
        _tls: VMWorkerThread,
        object: ObjectReference,
        slot_visitor: &mut SV,
    ) {
        let n = object::nrefs_of(object);
        let base = object::ref_slot(object, 0);
        for i in 0..n {
            let slot = base + i * 8;
            if unsafe { slot.load::<usize>() } != 0 {
                slot_visitor.visit_slot(SimpleSlot::from_address(slot));
            }
        }
    }

    fn notify_initial_thread_scan_complete(_partial_scan: bool, _tls: VMWorkerThread) {}

    fn scan_roots_in_mutator_thread(
        _tls: VMWorkerThread,
        mutator: &'static mut Mutator<SynthVM>,
        mut factory: impl RootsWorkFactory<SimpleSlot>,
    ) {
        let ctx = ThreadCtx::from_tls(mutator.mutator_tls);
        let (roots, len) = unsafe { ((*ctx).roots, (*ctx).roots_len) };
        let mut slots = Vec::with_capacity(len);
        for i in 0..len {
            let p = unsafe { roots.add(i) };
            if unsafe { *p } != 0 {
                slots.push(SimpleSlot::from_address(Address::from_mut_ptr(p)));
            }
        }
        if !slots.is_empty() {
            factory.create_process_roots_work(slots);
        }
    }

    fn scan_vm_specific_roots(
        _tls: VMWorkerThread,
        mut factory: impl RootsWorkFactory<SimpleSlot>,
    ) {
        let used = GLOBAL_ROOTS_USED.load(Ordering::SeqCst).min(GLOBAL_ROOTS);
        let mut slots = Vec::new();
        for slot in GLOBAL_ROOT_SLOTS.iter().take(used) {
            if slot.load(Ordering::Relaxed) != 0 {
                slots.push(SimpleSlot::from_address(Address::from_ptr(
                    slot as *const AtomicUsize,
                )));
            }
        }
        if !slots.is_empty() {
            factory.create_process_roots_work(slots);
        }
    }

    fn supports_return_barrier() -> bool {
        false
    }

    fn prepare_for_roots_re_scanning() {}
}

pub struct SynthCollection;

impl Collection<SynthVM> for SynthCollection {
    fn stop_all_mutators<F>(_tls: VMWorkerThread, mut mutator_visitor: F)
    where
        F: FnMut(&'static mut Mutator<SynthVM>),
    {
        let start = stats::now_nanos();
        stats::GC_START.store(start, Ordering::SeqCst);
        let threads = {
            let mut g = coord();
            g.gc_requested = true;
            GC_REQUESTED.store(true, Ordering::SeqCst);
            while g
                .threads
                .iter()
                .any(|t| unsafe { (*t.0).state.load(Ordering::SeqCst) } == IN_VM)
            {
                g = wait(g);
            }
            g.threads.clone()
        };
        let used = memory_manager::used_bytes(mmtk());
        stats::PEAK_USED_BYTES_BEFORE_GC.fetch_max(used, Ordering::Relaxed);
        for t in threads {
            mutator_visitor(unsafe { &mut *(*t.0).mutator });
        }
    }

    fn resume_mutators(_tls: VMWorkerThread) {
        if VERIFY_AFTER_GC.load(Ordering::Relaxed) {
            if let Err(e) = verify_heap() {
                exit::failed(&format!(
                    "heap verification after GC #{} failed: {}",
                    stats::GC_COUNT.load(Ordering::SeqCst) + 1,
                    e
                ));
            }
        }
        let used = memory_manager::used_bytes(mmtk());
        stats::note_used(used);
        let end = stats::now_nanos();
        let start = stats::GC_START.load(Ordering::SeqCst);
        let gc_nanos = end.saturating_sub(start);
        stats::GC_NANOS.fetch_add(gc_nanos, Ordering::SeqCst);
        stats::GC_COUNT.fetch_add(1, Ordering::SeqCst);
        let prev_end = stats::LAST_GC_END.swap(end, Ordering::SeqCst);
        overhead_limit::after_gc(used, start.saturating_sub(prev_end), gc_nanos);

        let mut g = coord();
        g.gc_requested = false;
        GC_REQUESTED.store(false, Ordering::SeqCst);
        g.completed_gcs += 1;
        COND.notify_all();
    }

    fn block_for_gc(tls: VMMutatorThread) {
        if plan() == PlanSelector::NoGC {
            exit::out_of_memory("the NoGC heap is exhausted");
        }
        let ctx = ThreadCtx::from_tls(tls);
        let mut g = coord();
        let seen = g.completed_gcs;
        unsafe { &*ctx }.state.store(AT_SAFEPOINT, Ordering::SeqCst);
        COND.notify_all();
        // Wait for the GC we asked for, and also for any GC that started before we got to run
        // again: our state is still AT_SAFEPOINT, so that GC did not wait for us.
        while g.completed_gcs == seen || g.gc_requested {
            g = wait(g);
        }
        unsafe { &*ctx }.state.store(IN_VM, Ordering::SeqCst);
    }

    fn spawn_gc_thread(_tls: VMThread, ctx: GCThreadContext<SynthVM>) {
        let GCThreadContext::Worker(worker) = ctx;
        std::thread::Builder::new()
            .name("mmtk-gc-worker".into())
            .spawn(move || {
                memory_manager::start_worker(mmtk(), worker_tls(), worker);
            })
            .expect("cannot spawn a GC worker thread");
    }

    fn out_of_memory(_tls: VMThread, err_kind: AllocationError) {
        let detail = match err_kind {
            AllocationError::HeapOutOfMemory => "the heap is too small (MMTk HeapOutOfMemory)",
            AllocationError::MmapOutOfMemory => {
                "the OS refused to map memory (MMTk MmapOutOfMemory)"
            }
        };
        exit::out_of_memory(detail);
    }
}

pub struct SynthActivePlan;

impl ActivePlan<SynthVM> for SynthActivePlan {
    fn is_mutator(tls: VMThread) -> bool {
        let a = tls.0.to_address();
        !a.is_zero() && a != Address::from_ptr(&WORKER_TAG as *const u64)
    }

    fn mutator(tls: VMMutatorThread) -> &'static mut Mutator<SynthVM> {
        unsafe { &mut *(*ThreadCtx::from_tls(tls)).mutator }
    }

    fn mutators<'a>() -> Box<dyn Iterator<Item = &'a mut Mutator<SynthVM>> + 'a> {
        let threads = coord().threads.clone();
        Box::new(threads.into_iter().map(|t| unsafe { &mut *(*t.0).mutator }))
    }

    fn number_of_mutators() -> usize {
        coord().threads.len()
    }
}

pub struct SynthReferenceGlue;

impl ReferenceGlue<SynthVM> for SynthReferenceGlue {
    type FinalizableType = ObjectReference;

    fn clear_referent(_new_reference: ObjectReference) {
        unreachable!("synthvm has no weak references")
    }
    fn get_referent(_object: ObjectReference) -> Option<ObjectReference> {
        unreachable!("synthvm has no weak references")
    }
    fn set_referent(_reff: ObjectReference, _referent: ObjectReference) {
        unreachable!("synthvm has no weak references")
    }
    fn enqueue_references(_references: &[ObjectReference], _tls: VMWorkerThread) {}
}

// ---------------------------------------------------------------------------------------------
// Heap verification (--verify): walk everything reachable from the roots after each GC.
// ---------------------------------------------------------------------------------------------

/// Walk all objects reachable from global roots and every thread's shadow stack, checking each
/// header and payload.  Only call it while the world is stopped (or single-threaded).
pub fn verify_heap() -> Result<usize, String> {
    let mut work: Vec<(ObjectReference, &'static str)> = Vec::new();
    let used = GLOBAL_ROOTS_USED.load(Ordering::SeqCst).min(GLOBAL_ROOTS);
    for slot in GLOBAL_ROOT_SLOTS.iter().take(used) {
        let v = slot.load(Ordering::Relaxed);
        if let Some(o) = ObjectReference::from_raw_address(unsafe { Address::from_usize(v) }) {
            work.push((o, "a global root"));
        }
    }
    for t in coord().threads.iter() {
        let (roots, len) = unsafe { ((*t.0).roots, (*t.0).roots_len) };
        for i in 0..len {
            let v = unsafe { *roots.add(i) };
            if let Some(o) = ObjectReference::from_raw_address(unsafe { Address::from_usize(v) }) {
                work.push((o, "a thread's shadow stack"));
            }
        }
    }
    let mut seen: HashSet<usize> = HashSet::new();
    while let Some((o, from)) = work.pop() {
        if !seen.insert(o.to_raw_address().as_usize()) {
            continue;
        }
        if !memory_manager::is_in_mmtk_spaces(o) {
            return Err(format!(
                "reference {} (from {}) is not in any MMTk space",
                o, from
            ));
        }
        object::check_object(o).map_err(|e| format!("{} (reached from {})", e, from))?;
        for i in 0..object::nrefs_of(o) {
            if let Some(c) = object::load_ref(o, i) {
                work.push((c, "a heap object"));
            }
        }
    }
    Ok(seen.len())
}

/// What is reachable from the roots (`--final-gc`): see [`live_census`].
#[derive(Clone, Debug, Default)]
pub struct LiveCensus {
    /// Reachable objects and their bytes (sizes are multiples of 8 already).
    pub objects: usize,
    pub bytes: usize,
    /// Distinct (allocating thread, size class) pairs among reachable objects of at most
    /// `small_limit` bytes, size class = the shardsweep core's (mimalloc's) bin of the size.
    pub classes: usize,
    /// Bytes of the reachable objects of at most `small_limit` bytes.
    pub small_bytes: usize,
    /// min(`shardsweep::MAX_SMALL_BYTES`, the plan's largest non-LOS object).
    pub small_limit: usize,
}

/// Walk everything reachable from the global roots and every registered thread's shadow stack
/// (like [`verify_heap`]), counting objects, bytes and (owner, size class) pairs.  Only call it
/// while no GC can run (the caller is the only mutator and is in the VM, or the world is
/// stopped).
pub fn live_census() -> LiveCensus {
    let small_limit = shardsweep::MAX_SMALL_BYTES.min(LOS_THRESHOLD.load(Ordering::Relaxed));
    let mut work: Vec<ObjectReference> = Vec::new();
    let used = GLOBAL_ROOTS_USED.load(Ordering::SeqCst).min(GLOBAL_ROOTS);
    for slot in GLOBAL_ROOT_SLOTS.iter().take(used) {
        if let Some(o) = ObjectReference::from_raw_address(unsafe {
            Address::from_usize(slot.load(Ordering::Relaxed))
        }) {
            work.push(o);
        }
    }
    for t in coord().threads.iter() {
        let (roots, len) = unsafe { ((*t.0).roots, (*t.0).roots_len) };
        for i in 0..len {
            if let Some(o) =
                ObjectReference::from_raw_address(unsafe { Address::from_usize(*roots.add(i)) })
            {
                work.push(o);
            }
        }
    }
    let mut seen: HashSet<usize> = HashSet::new();
    let mut pairs: HashSet<(Option<usize>, usize)> = HashSet::new();
    let mut c = LiveCensus {
        small_limit,
        ..Default::default()
    };
    while let Some(o) = work.pop() {
        if !seen.insert(o.to_raw_address().as_usize()) {
            continue;
        }
        let size = object::size_of(o);
        c.objects += 1;
        c.bytes += (size + 7) & !7;
        if size <= small_limit {
            c.small_bytes += size;
            pairs.insert((object::owner_of(o), shardsweep::bin_of(size)));
        }
        for i in 0..object::nrefs_of(o) {
            if let Some(t) = object::load_ref(o, i) {
                work.push(t);
            }
        }
    }
    c.classes = pairs.len();
    c
}

/// Test hook (SYNTHVM_TEST_CORRUPT=1): flip one payload word of the first object reachable from
/// the global roots that has a payload, to check that corruption is detected and reported.
pub fn corrupt_for_test() -> bool {
    let used = GLOBAL_ROOTS_USED.load(Ordering::SeqCst).min(GLOBAL_ROOTS);
    let mut work = Vec::new();
    for slot in GLOBAL_ROOT_SLOTS.iter().take(used) {
        if let Some(o) = ObjectReference::from_raw_address(unsafe {
            Address::from_usize(slot.load(Ordering::Relaxed))
        }) {
            work.push(o);
        }
    }
    while let Some(o) = work.pop() {
        if object::payload_words(o) > 0 {
            let a = object::ref_slot(o, object::nrefs_of(o));
            unsafe { a.store::<u64>(a.load::<u64>() ^ 0x10) };
            return true;
        }
        for i in 0..object::nrefs_of(o) {
            if let Some(c) = object::load_ref(o, i) {
                work.push(c);
            }
        }
    }
    false
}

// ---------------------------------------------------------------------------------------------
// GC overhead limit
// ---------------------------------------------------------------------------------------------

/// MMTk raises out-of-memory itself when an emergency GC cannot satisfy an allocation.  With
/// many mutator threads that check can be defeated: other threads' small allocations keep
/// succeeding, so GCs run back to back, each freeing almost nothing, and the run crawls rather
/// than failing.  Like HotSpot's GC overhead limit, synthvm declares out-of-memory after
/// `WINDOW` consecutive GCs that each left less than 2% of the heap free and were each
/// preceded by less mutator time than GC time.  Set SYNTHVM_GC_OVERHEAD_LIMIT=0 to disable.
mod overhead_limit {
    use std::sync::atomic::{AtomicU64, Ordering};

    const WINDOW: u64 = 50;
    static BAD_IN_A_ROW: AtomicU64 = AtomicU64::new(0);

    fn enabled() -> bool {
        static E: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *E.get_or_init(|| {
            std::env::var("SYNTHVM_GC_OVERHEAD_LIMIT")
                .map(|v| v != "0")
                .unwrap_or(true)
        })
    }

    pub fn after_gc(used_after: usize, mutator_nanos: u64, gc_nanos: u64) {
        let heap = super::heap_bytes();
        if heap == 0 || !enabled() || super::plan() == mmtk::util::options::PlanSelector::NoGC {
            return;
        }
        let free = heap.saturating_sub(used_after);
        let bad = free * 50 < heap && mutator_nanos < gc_nanos;
        if bad {
            let n = BAD_IN_A_ROW.fetch_add(1, Ordering::SeqCst) + 1;
            if n >= WINDOW {
                crate::exit::out_of_memory(&format!(
                    "GC overhead limit exceeded: {} consecutive GCs each left less than 2% of the heap free ({} KiB used after the last one)",
                    n,
                    used_after >> 10
                ));
            }
        } else {
            BAD_IN_A_ROW.store(0, Ordering::SeqCst);
        }
    }
}
