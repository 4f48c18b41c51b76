//! `Collection`: stopping and resuming the mutators (through `crate::runtime`'s safepoint
//! protocol), with the GC statistics, `--verify` and the GC overhead limit at either end;
//! blocking a mutator for a GC; GC worker threads; out of memory.

use std::sync::atomic::Ordering;

use mmtk::util::alloc::AllocationError;
use mmtk::util::opaque_pointer::{VMMutatorThread, VMThread, VMWorkerThread};
use mmtk::util::options::PlanSelector;
use mmtk::vm::*;
use mmtk::{memory_manager, Mutator};

use super::SynthVM;
use crate::runtime::{self, mmtk, overhead_limit, plan, safepoint, threads, ThreadCtx};
use crate::{exit, stats};

pub struct SynthCollection;

impl Collection<SynthVM> for SynthCollection {
    fn stop_all_mutators<F>(_tls: VMWorkerThread, mut mutator_visitor: F)
    where
        F: FnMut(&'static mut Mutator<SynthVM>),
    {
        let start = stats::now_nanos();
        // Relaxed: a statistic, read by this GC's `resume_mutators`, which MMTk runs after
        // this hook (see `stats`' "Orderings").
        stats::GC_START.store(start, Ordering::Relaxed);
        let threads = safepoint::stop_mutators();
        let used = memory_manager::used_bytes(mmtk());
        // Relaxed: a statistic.
        stats::PEAK_USED_BYTES_BEFORE_GC.fetch_max(used, Ordering::Relaxed);
        for t in threads {
            // SAFETY: `CtxPtr::mutator`'s contract: every registered thread is now stopped or
            // in native, and none can deregister until `resume_mutators`.
            mutator_visitor(unsafe { t.mutator() });
        }
    }

    fn resume_mutators(_tls: VMWorkerThread) {
        if runtime::verify_after_gc() {
            if let Err(e) = runtime::verify_heap() {
                exit::failed(&format!(
                    "heap verification after GC #{} failed: {}",
                    // Relaxed: a statistic, written only by earlier GCs' `resume_mutators`.
                    stats::GC_COUNT.load(Ordering::Relaxed) + 1,
                    e
                ));
            }
        }
        let used = memory_manager::used_bytes(mmtk());
        stats::note_used(used);
        let end = stats::now_nanos();
        // Relaxed: statistics, written by one GC at a time; mutators read them between GCs,
        // ordered by the safepoint handshake below (see `stats`' "Orderings").
        let start = stats::GC_START.load(Ordering::Relaxed);
        let gc_nanos = end.saturating_sub(start);
        stats::GC_NANOS.fetch_add(gc_nanos, Ordering::Relaxed);
        stats::GC_COUNT.fetch_add(1, Ordering::Relaxed);
        let prev_end = stats::LAST_GC_END.swap(end, Ordering::Relaxed);
        overhead_limit::after_gc(used, start.saturating_sub(prev_end), gc_nanos);

        safepoint::resume_mutators();
    }

    fn block_for_gc(tls: VMMutatorThread) {
        if plan() == PlanSelector::NoGC {
            exit::out_of_memory("the NoGC heap is exhausted");
        }
        safepoint::block_for_gc(ThreadCtx::from_tls(tls));
    }

    fn spawn_gc_thread(_tls: VMThread, ctx: GCThreadContext<SynthVM>) {
        let GCThreadContext::Worker(worker) = ctx;
        std::thread::Builder::new()
            .name("mmtk-gc-worker".into())
            .spawn(move || {
                memory_manager::start_worker(mmtk(), threads::worker_tls(), worker);
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
