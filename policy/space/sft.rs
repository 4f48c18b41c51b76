//! The space's side of MMTk's space function table: liveness, pinning, movability, the VO bit,
//! and tracing from the SFT.

use super::ShardSweepSpace;
use crate::plan::tracing::OptionObjectQueue;
use crate::policy::sft::{GCWorkerMutRef, SFT};
use crate::util::ObjectReference;
use crate::vm::{ObjectModel, VMBinding};
use std::sync::atomic::Ordering;

impl<VM: VMBinding> SFT for ShardSweepSpace<VM> {
    fn name(&self) -> &'static str {
        self.common.name
    }

    fn is_live(&self, object: ObjectReference) -> bool {
        // SeqCst as `native_ms`'s `is_live`: callers (weak-reference processing, sanity checks)
        // may run beside marking workers, and a mark load orders nothing else, so the strongest
        // ordering costs nothing measurable here and matches the stock space's answer.
        VM::VMObjectModel::LOCAL_MARK_BIT_SPEC.is_marked::<VM>(object, Ordering::SeqCst)
    }

    #[cfg(feature = "object_pinning")]
    fn pin_object(&self, _object: ObjectReference) -> bool {
        false
    }

    #[cfg(feature = "object_pinning")]
    fn unpin_object(&self, _object: ObjectReference) -> bool {
        false
    }

    /// The space never moves objects: every object is pinned (as `native_ms` says since 0.33).
    #[cfg(feature = "object_pinning")]
    fn is_object_pinned(&self, _object: ObjectReference) -> bool {
        true
    }

    fn is_movable(&self) -> bool {
        false
    }

    #[cfg(feature = "sanity")]
    fn is_sane(&self) -> bool {
        true
    }

    fn initialize_object_metadata(&self, _object: ObjectReference, _bytes: usize) {
        #[cfg(feature = "vo_bit")]
        crate::util::metadata::vo_bit::set_vo_bit(_object);
    }

    #[cfg(feature = "vo_bit")]
    fn is_mmtk_object(&self, addr: crate::util::Address) -> Option<ObjectReference> {
        crate::util::metadata::vo_bit::is_vo_bit_set_for_addr(addr)
    }

    #[cfg(feature = "vo_bit")]
    fn find_object_from_internal_pointer(&self, ptr: crate::util::Address, max_search_bytes: usize) -> Option<ObjectReference> {
        let search_bytes = usize::min(crate::policy::marksweepspace::shardsweep::MAX_OBJECT_SIZE, max_search_bytes);
        crate::util::metadata::vo_bit::find_object_from_internal_pointer::<VM>(ptr, search_bytes)
    }

    fn sft_trace_object(&self, queue: &mut OptionObjectQueue, object: ObjectReference, _worker: GCWorkerMutRef) -> ObjectReference {
        self.trace_object(queue, object)
    }
}
