//! The synthvm runtime: what a VM keeps beside MMTk, used by the workloads (through [`Mu`] and
//! global roots) and by the binding's traits (`crate::vm`).
//!
//! * `heap`: building MMTk ([`init_heap`]) and the run's settings.
//! * `threads`: each mutator thread's context ([`ThreadCtx`]) and GC workers' tls.
//! * `safepoint`: the thread registry, the thread states and the stop-the-world protocol.
//! * `mutator`: [`Mu`], a mutator thread's handle (allocation, write barrier, shadow stack).
//! * `roots`: global roots ([`alloc_global_root`]).
//! * `heap_walk`: walks of the reachable heap ([`verify_heap`], [`live_census`]).
//! * `overhead_limit`: synthvm's GC overhead limit.

mod heap;
mod heap_walk;
mod inline_alloc;
mod mutator;
pub(crate) mod overhead_limit;
pub(crate) mod roots;
pub(crate) mod safepoint;
pub(crate) mod threads;

pub(crate) use heap::verify_after_gc;
pub use heap::{
    gc_threads, heap_bytes, heap_description, init_heap, mmtk, plan, plan_name, used_bytes,
    HeapConfig,
};
pub use heap_walk::{corrupt_for_test, live_census, verify_heap, LiveCensus};
pub use mutator::Mu;
pub use roots::{alloc_global_root, GlobalRoot, GLOBAL_ROOTS};
pub use threads::{ThreadCtx, SHADOW_STACK_SLOTS};

/// The binding type, also at its old place.
pub use crate::vm::SynthVM;
