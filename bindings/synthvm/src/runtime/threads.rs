//! Thread identities: each mutator thread's context ([`ThreadCtx`], whose address is its MMTk
//! `tls`) and the tag GC worker threads get as theirs.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicU8;

use mmtk::util::opaque_pointer::{OpaquePointer, VMMutatorThread, VMThread, VMWorkerThread};
use mmtk::util::Address;
use mmtk::Mutator;

use crate::stats;
use crate::vm::SynthVM;

const CTX_MAGIC: u64 = 0x5359_4e54_4856_4d21;
/// Shadow stack capacity (slots) per thread.
pub const SHADOW_STACK_SLOTS: usize = 1 << 14;

/// Per-thread state.  Its address is the thread's MMTk tls.
pub struct ThreadCtx {
    magic: u64,
    pub id: usize,
    pub(crate) mutator: *mut Mutator<SynthVM>,
    /// `IN_VM`, `IN_NATIVE` or `AT_SAFEPOINT` (see `safepoint`).
    pub(super) state: AtomicU8,
    /// The shadow stack: `SHADOW_STACK_SLOTS` slots, of which the first `roots_len` are in use.
    pub(crate) roots: *mut usize,
    pub(crate) roots_len: usize,
    pub(super) allocs: u64,
    /// Of them, by `--inline-alloc`'s fast path.
    pub(super) inline_allocs: u64,
    pub(super) alloc_bytes: u64,
    pub(super) histogram: Option<BTreeMap<usize, u64>>,
    /// `--histogram`: this mutator's size classes (see `stats::class_profile`).
    pub(super) classes: Option<Box<stats::class_profile::ClassProfile>>,
}

impl ThreadCtx {
    /// A context for thread `id`, in state `state`, with an empty shadow stack of `roots` (an
    /// array of `SHADOW_STACK_SLOTS` slots) and no MMTk mutator yet.
    pub(super) fn new(id: usize, state: u8, roots: *mut usize, histogram: bool) -> ThreadCtx {
        ThreadCtx {
            magic: CTX_MAGIC,
            id,
            mutator: std::ptr::null_mut(),
            state: AtomicU8::new(state),
            roots,
            roots_len: 0,
            allocs: 0,
            inline_allocs: 0,
            alloc_bytes: 0,
            histogram: if histogram {
                Some(BTreeMap::new())
            } else {
                None
            },
            classes: histogram.then(Box::default),
        }
    }

    pub(crate) fn tls(this: *mut ThreadCtx) -> VMMutatorThread {
        VMMutatorThread(VMThread(OpaquePointer::from_address(
            Address::from_mut_ptr(this),
        )))
    }

    pub(crate) fn from_tls(tls: VMMutatorThread) -> *mut ThreadCtx {
        let p = tls.0 .0.to_address().to_mut_ptr::<ThreadCtx>();
        // SAFETY: MMTk hands back only tls values this binding gave it for mutators
        // (`ThreadCtx::tls` of a registered, live context); the check is a debug aid.
        debug_assert!(unsafe { (*p).magic } == CTX_MAGIC);
        p
    }
}

/// A registered thread's context, as kept in the thread registry (`safepoint`).
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) struct CtxPtr(pub(crate) *mut ThreadCtx);
// SAFETY: a context is shared between its thread and GC threads by design; who may touch
// which field when is the safepoint protocol's business (see `Mu` and `safepoint`), not the
// pointer's, and the registry only moves the pointer between threads.
unsafe impl Send for CtxPtr {}

impl CtxPtr {
    /// The thread's MMTk mutator.
    ///
    /// # Safety
    /// The thread must still be registered (its context is alive and its mutator bound), and
    /// the caller must be the one user of the mutator for the lifetime it picks: the thread
    /// itself, or MMTk while the thread is stopped or cannot touch its mutator.
    pub(crate) unsafe fn mutator(self) -> &'static mut Mutator<SynthVM> {
        &mut *(*self.0).mutator
    }
}

/// The tls value given to GC worker threads: the address of this static, so that
/// `is_mutator` can tell workers from mutators.
static WORKER_TAG: u64 = 0x5747_4b52;

pub(crate) fn worker_tls() -> VMWorkerThread {
    VMWorkerThread(VMThread(OpaquePointer::from_address(Address::from_ptr(
        &WORKER_TAG as *const u64,
    ))))
}

/// Whether `tls` is a GC worker's (see [`worker_tls`]).
pub(crate) fn is_worker_tls(tls: VMThread) -> bool {
    tls.0.to_address() == Address::from_ptr(&WORKER_TAG as *const u64)
}
