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
        unsafe { &mut *(*ThreadCtx::from_tls(tls)).mutator }
    }

    fn mutators<'a>() -> Box<dyn Iterator<Item = &'a mut Mutator<SynthVM>> + 'a> {
        let threads = safepoint::threads();
        Box::new(threads.into_iter().map(|t| unsafe { t.mutator() }))
    }

    fn number_of_mutators() -> usize {
        safepoint::thread_count()
    }
}
