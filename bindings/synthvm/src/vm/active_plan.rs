//! `ActivePlan`: which threads are mutators, and the registered mutators.

use mmtk::util::opaque_pointer::{VMMutatorThread, VMThread};
use mmtk::vm::*;
use mmtk::Mutator;

use super::SynthVM;
use crate::runtime::{safepoint, threads, ThreadCtx};

pub struct SynthActivePlan;

impl ActivePlan<SynthVM> for SynthActivePlan {
    fn is_mutator(tls: VMThread) -> bool {
        !tls.0.to_address().is_zero() && !threads::is_worker_tls(tls)
    }

    fn mutator(tls: VMMutatorThread) -> &'static mut Mutator<SynthVM> {
        // SAFETY: `tls` is a registered mutator thread's (MMTk asks only for those), whose
        // context and bound mutator are alive; MMTk asks for it when the thread is stopped or
        // from the thread itself, so the reference is not used concurrently.
        unsafe { &mut *(*ThreadCtx::from_tls(tls)).mutator }
    }

    fn mutators<'a>() -> Box<dyn Iterator<Item = &'a mut Mutator<SynthVM>> + 'a> {
        let threads = safepoint::threads();
        // SAFETY: `CtxPtr::mutator`'s contract: MMTk iterates the mutators during a GC, with
        // every registered thread stopped or in native, when no thread can deregister.
        Box::new(threads.into_iter().map(|t| unsafe { t.mutator() }))
    }

    fn number_of_mutators() -> usize {
        safepoint::thread_count()
    }
}
