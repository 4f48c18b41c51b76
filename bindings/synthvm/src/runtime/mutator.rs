//! `Mu`, a mutator thread's handle: attaching to MMTk, allocation, the write barrier, the
//! safepoint poll and the native state, and the thread's shadow stack (its roots).

use std::cell::Cell;
use std::sync::atomic::Ordering;

use mmtk::util::{Address, ObjectReference};
use mmtk::vm::slot::SimpleSlot;
use mmtk::{memory_manager, AllocationSemantics};

use super::heap::{self, mmtk};
use super::inline_alloc::FreeListPath;
use super::safepoint;
use super::threads::{ThreadCtx, SHADOW_STACK_SLOTS};
use crate::exit;
use crate::object::{self, Kind};
use crate::stats;

/// A mutator thread's handle.  Not `Send`: it is bound to the thread that attached it.
///
/// Object references returned by this API are only valid until the next allocation or
/// safepoint poll (a GC may move the object).  Anything that must survive has to be kept in
/// the shadow stack (`push`/`get`/`set`) or a global root, and re-read after allocating.
///
/// `ctx` is the context `attach` allocated for this thread; it stays valid until `drop` frees
/// it.  Only this thread writes its fields (but `state`, see `safepoint`); a GC thread reads
/// `roots`/`roots_len` and updates the shadow stack's slots only while this thread is stopped
/// or in native, when it does not touch them.  So the methods below access the context through
/// the raw pointer, field by field, and never hold a `&mut` to all of it: a GC thread may read
/// its `state` at any time.
pub struct Mu {
    ctx: *mut ThreadCtx,
    barrier: bool,
    los: usize,
    histogram: bool,
    /// `--inline-alloc`: the free-list fast path MMTk reports.
    inline: Option<FreeListPath>,
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
        let hist = heap::histogram();
        let ctx = Box::into_raw(Box::new(ThreadCtx::new(id, safepoint::IN_VM, roots, hist)));
        safepoint::register(ctx);
        // We are IN_VM and registered, so no GC can proceed while the mutator is created.
        let m = memory_manager::bind_mutator(mmtk(), ThreadCtx::tls(ctx));
        // SAFETY: `ctx` was allocated above and is freed only by `drop`; no other thread uses
        // its `mutator` field before this thread is stopped, which cannot happen before this
        // store: a GC needs this thread, registered and IN_VM, at a safepoint first.
        unsafe { (*ctx).mutator = Box::into_raw(m) };
        Mu {
            ctx,
            barrier: heap::needs_barrier(),
            los: heap::los_threshold(),
            histogram: hist,
            inline: heap::inline_alloc(),
            owner: object::owner_bits(id),
            _not_send: std::marker::PhantomData,
        }
    }

    pub fn id(&self) -> usize {
        // SAFETY: `self.ctx` is valid while `self` lives, and `id` is never written after
        // `attach` (see `Mu`).
        unsafe { (*self.ctx).id }
    }

    /// Bytes this mutator has allocated so far.
    pub fn allocated_bytes(&self) -> u64 {
        // SAFETY: `self.ctx` is valid while `self` lives, and only this thread writes
        // `alloc_bytes` (see `Mu`).
        unsafe { (*self.ctx).alloc_bytes }
    }

    /// Safepoint poll.  Call it in every loop that can run for a while without allocating.
    /// All live references must be in the shadow stack or global roots when calling it.
    #[inline(always)]
    pub fn poll(&self) {
        if safepoint::gc_requested() {
            self.safepoint_slow();
        }
    }

    #[cold]
    fn safepoint_slow(&self) {
        // SAFETY: `self.ctx` is valid while `self` lives; a shared reference to it is sound
        // while a GC thread reads it (no other thread writes the context, and `state` is
        // atomic).
        safepoint::park(unsafe { &*self.ctx });
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
        // SAFETY: as in `safepoint_slow`.
        safepoint::enter_native(unsafe { &*self.ctx });
    }

    /// Return from native: waits for any GC in progress.
    pub fn leave_native(&self) {
        // SAFETY: as in `safepoint_slow`.
        safepoint::leave_native(unsafe { &*self.ctx });
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
        // SAFETY: `self.ctx` is valid while `self` lives and its mutator was bound in `attach`.
        // This thread is IN_VM, so no GC thread uses the mutator, except while this thread
        // waits in `block_for_gc` inside `memory_manager::alloc`: then MMTk itself uses it
        // through `ActivePlan` until the GC is over, as MMTk's binding contract provides for
        // (every binding hands MMTk its mutators this way).  `addr` is a fresh cell of `size` bytes,
        // 8-byte aligned (MIN_ALIGNMENT), with `size` from `object_size`, as `init_object`
        // requires, and non-zero, so it is a valid object reference once initialised.  The
        // counters and histograms are this thread's own fields.  `fl.pop` reads and writes this
        // thread's own mutator and heap (the fast path's contract), with `size` a multiple of 8
        // from `object_size` that `serves` admitted.
        unsafe {
            let ctx = self.ctx;
            let m = &mut *(*ctx).mutator;
            // `--inline-alloc`: the JIT's fast path (`inline_alloc.rs`), which needs no
            // `post_alloc` (the space offers it only when it has nothing to do there).
            let fast = match self.inline {
                Some(fl) if sem == AllocationSemantics::Default && fl.serves(size) => {
                    fl.pop(m as *mut _ as *mut u8, size)
                }
                _ => Address::ZERO,
            };
            let obj = if !fast.is_zero() {
                (*ctx).inline_allocs += 1;
                object::init_object(fast, size, nrefs, kind, hash, self.owner);
                ObjectReference::from_raw_address_unchecked(fast)
            } else {
                let addr = memory_manager::alloc(m, size, 8, 0, sem);
                if addr.is_zero() {
                    exit::out_of_memory("allocation failed");
                }
                object::init_object(addr, size, nrefs, kind, hash, self.owner);
                let obj = ObjectReference::from_raw_address_unchecked(addr);
                memory_manager::post_alloc(m, obj, size, sem);
                obj
            };
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
        // SAFETY: `src` is a live synthvm object and `i` one of its reference fields
        // (debug-asserted): an aligned word inside it.  This thread is IN_VM, so no GC moves
        // or scans `src` meanwhile.
        unsafe {
            slot.store::<usize>(target.map(|t| t.to_raw_address().as_usize()).unwrap_or(0));
        }
        if self.barrier {
            // SAFETY: this thread's bound mutator (see `alloc`); no GC thread uses it while
            // this thread is IN_VM.
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
        // SAFETY: `self.ctx` is valid while `self` lives, and only this thread, IN_VM, touches
        // its shadow stack now (see `Mu`); `i` is checked against the stack's capacity.
        unsafe {
            let ctx = self.ctx;
            let i = (*ctx).roots_len;
            if i >= SHADOW_STACK_SLOTS {
                exit::failed("shadow stack overflow");
            }
            *(*ctx).roots.add(i) = o.map(|o| o.to_raw_address().as_usize()).unwrap_or(0);
            (*ctx).roots_len = i + 1;
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
        // SAFETY: `self.ctx` is valid while `self` lives, and only this thread, IN_VM, touches
        // its shadow stack now (see `Mu`).  `i` is below the depth, so inside the stack: the
        // caller's contract (indices come from `push` and `depth`), checked in debug builds
        // only, to keep the checks off the workloads' hot path.  A slot holds 0 or an object's
        // address.
        unsafe {
            let ctx = self.ctx;
            debug_assert!(i < (*ctx).roots_len);
            ObjectReference::from_raw_address(Address::from_usize(*(*ctx).roots.add(i)))
        }
    }

    #[inline(always)]
    pub fn set(&self, i: usize, o: Option<ObjectReference>) {
        // SAFETY: as in `get_opt` (`i` below the depth is the caller's contract).
        unsafe {
            let ctx = self.ctx;
            debug_assert!(i < (*ctx).roots_len);
            *(*ctx).roots.add(i) = o.map(|o| o.to_raw_address().as_usize()).unwrap_or(0);
        }
    }

    #[inline(always)]
    pub fn depth(&self) -> usize {
        // SAFETY: `self.ctx` is valid while `self` lives; only this thread writes `roots_len`.
        unsafe { (*self.ctx).roots_len }
    }

    /// Pop roots down to `depth`.
    #[inline(always)]
    pub fn truncate(&self, depth: usize) {
        // SAFETY: `self.ctx` is valid while `self` lives, and only this thread, IN_VM, touches
        // its shadow stack now (see `Mu`).  Lowering the depth frees no memory.
        unsafe {
            let ctx = self.ctx;
            debug_assert!(depth <= (*ctx).roots_len);
            (*ctx).roots_len = depth;
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
        // SAFETY: `ctx`, its mutator and its shadow stack were allocated by `attach` with
        // `Box` and are freed here, once.  The mutator is destroyed while no GC can use it
        // (this thread is IN_VM and registered, or, with `--late-exit`, deregistered with the
        // lock held and no GC in progress), and the memory is freed after `deregister`: no GC
        // thread can reach the context any more (the registry is how it finds threads).
        unsafe {
            let ctx = self.ctx;
            let m = (*ctx).mutator;
            if heap::late_exit() {
                safepoint::deregister_then_after_next_gc(ctx, || {
                    memory_manager::destroy_mutator(&mut *m)
                });
            } else {
                // Still IN_VM: no GC can run while the mutator is being destroyed.
                memory_manager::destroy_mutator(&mut *m);
            }
            // Relaxed: statistics, read after this thread is joined (see `stats`).
            stats::ALLOC_COUNT.fetch_add((*ctx).allocs, Ordering::Relaxed);
            stats::INLINE_ALLOC_COUNT.fetch_add((*ctx).inline_allocs, Ordering::Relaxed);
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
            safepoint::deregister(ctx);
            drop(Box::from_raw(m));
            drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                (*ctx).roots,
                SHADOW_STACK_SLOTS,
            )));
            drop(Box::from_raw(ctx));
        }
    }
}
