//! The thread registry and the stop-the-world protocol, both under one lock (`COORD`).
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
//!
//! # Orderings
//!
//! `COORD` (a mutex) orders everything here: a thread's `state` is read and written only with
//! it held, so those accesses are `Relaxed` (the atomic only makes the shared field
//! data-race free; the lock's acquire and release do the ordering).  `GC_REQUESTED` is a hint
//! for the poll's fast path, read `Relaxed` without the lock: a poll that sees it set takes
//! the lock and re-checks `Coord::gc_requested`, which is what counts; one that misses it polls
//! again soon, and a stronger ordering would not make the store visible sooner.  So its stores
//! are `Relaxed` too.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::threads::{CtxPtr, ThreadCtx};

/// The safepoint flag every mutator polls: a copy of `Coord::gc_requested`, written with
/// `COORD` held, read without it (see "Orderings").
static GC_REQUESTED: AtomicBool = AtomicBool::new(false);

pub(super) const IN_VM: u8 = 0;
const IN_NATIVE: u8 = 1;
const AT_SAFEPOINT: u8 = 2;

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

// --- the thread registry ----------------------------------------------------------------------

/// Register a new thread (in state `IN_VM`).  Do not join in the middle of a GC.
pub(super) fn register(ctx: *mut ThreadCtx) {
    let mut g = coord();
    while g.gc_requested {
        g = wait(g);
    }
    g.threads.push(CtxPtr(ctx));
}

/// Remove a thread from the registry (a no-op if it is not there).
pub(super) fn deregister(ctx: *mut ThreadCtx) {
    let mut g = coord();
    g.threads.retain(|t| t.0 != ctx);
    COND.notify_all();
}

/// `--late-exit`: remove the thread from the registry, wait (at most 2 s) for the next GC to
/// complete (GCs in between do not see the thread), then run `destroy` with no GC in progress
/// and the lock held, so none starts meanwhile.  See `Mu`'s `Drop`.
pub(super) fn deregister_then_after_next_gc(ctx: *mut ThreadCtx, destroy: impl FnOnce()) {
    let mut g = coord();
    g.threads.retain(|t| t.0 != ctx);
    COND.notify_all();
    let seen = g.completed_gcs;
    let deadline = Instant::now() + Duration::from_secs(2);
    while g.completed_gcs == seen && !g.threads.is_empty() && Instant::now() < deadline {
        g = COND
            .wait_timeout(g, Duration::from_millis(10))
            .map(|(g, _)| g)
            .unwrap_or_else(|e| e.into_inner().0);
    }
    while g.gc_requested {
        g = wait(g);
    }
    destroy();
    drop(g);
}

/// The registered threads, now.
pub(crate) fn threads() -> Vec<CtxPtr> {
    coord().threads.clone()
}

pub(crate) fn thread_count() -> usize {
    coord().threads.len()
}

/// Run `f` on the registered threads with the registry locked (no thread joins or leaves, no
/// GC starts or ends meanwhile).
pub(crate) fn with_threads<R>(f: impl FnOnce(&[CtxPtr]) -> R) -> R {
    f(&coord().threads)
}

// --- the mutator's side -----------------------------------------------------------------------

/// Whether a GC wants the mutators stopped: the safepoint poll's fast path.
#[inline(always)]
pub(super) fn gc_requested() -> bool {
    // Relaxed: a hint; `park` re-checks under COORD (see "Orderings").
    GC_REQUESTED.load(Ordering::Relaxed)
}

/// Park `ctx`'s thread at a safepoint until the GC in progress, if any, is over.
#[cold]
pub(super) fn park(ctx: &ThreadCtx) {
    let mut g = coord();
    if !g.gc_requested {
        return;
    }
    // Relaxed: `state` is accessed only with COORD held (see "Orderings").
    ctx.state.store(AT_SAFEPOINT, Ordering::Relaxed);
    COND.notify_all();
    while g.gc_requested {
        g = wait(g);
    }
    ctx.state.store(IN_VM, Ordering::Relaxed);
}

/// `ctx`'s thread is blocked or in native code: a GC may run without waiting for it.
pub(super) fn enter_native(ctx: &ThreadCtx) {
    let _g = coord();
    // Relaxed: under COORD.
    ctx.state.store(IN_NATIVE, Ordering::Relaxed);
    COND.notify_all();
}

/// `ctx`'s thread returns from native: waits for any GC in progress.
pub(super) fn leave_native(ctx: &ThreadCtx) {
    let mut g = coord();
    while g.gc_requested {
        g = wait(g);
    }
    // Relaxed: under COORD.
    ctx.state.store(IN_VM, Ordering::Relaxed);
}

// --- the GC's side (`Collection`) -------------------------------------------------------------

/// Raise the safepoint flag and wait until no registered thread is `IN_VM`; returns the
/// registered threads (all stopped or in native until [`resume_mutators`]).
pub(crate) fn stop_mutators() -> Vec<CtxPtr> {
    let mut g = coord();
    g.gc_requested = true;
    // Relaxed: a hint for the polls; `g.gc_requested` is what they act on (see "Orderings").
    GC_REQUESTED.store(true, Ordering::Relaxed);
    while g
        .threads
        .iter()
        // SAFETY: a registered context is alive (it is freed only after `deregister`, which
        // needs this lock), and `state` is atomic.  Relaxed: under COORD.
        .any(|t| unsafe { (*t.0).state.load(Ordering::Relaxed) } == IN_VM)
    {
        g = wait(g);
    }
    g.threads.clone()
}

/// End the GC: clear the safepoint flag, count the GC and wake every waiting thread.
pub(crate) fn resume_mutators() {
    let mut g = coord();
    g.gc_requested = false;
    // Relaxed: a hint, as in `stop_mutators`.
    GC_REQUESTED.store(false, Ordering::Relaxed);
    g.completed_gcs += 1;
    COND.notify_all();
}

/// Park `ctx`'s thread (which asked for a GC, having failed to allocate) until a GC completes.
pub(crate) fn block_for_gc(ctx: *mut ThreadCtx) {
    let mut g = coord();
    let seen = g.completed_gcs;
    // SAFETY: `ctx` is the calling thread's own live context (from the tls MMTk passed); a
    // shared reference is sound (see `Mu`).  Relaxed: under COORD.
    unsafe { &*ctx }
        .state
        .store(AT_SAFEPOINT, Ordering::Relaxed);
    COND.notify_all();
    // Wait for the GC we asked for, and also for any GC that started before we got to run
    // again: our state is still AT_SAFEPOINT, so that GC did not wait for us.
    while g.completed_gcs == seen || g.gc_requested {
        g = wait(g);
    }
    // SAFETY: as above.  Relaxed: under COORD.
    unsafe { &*ctx }.state.store(IN_VM, Ordering::Relaxed);
}
