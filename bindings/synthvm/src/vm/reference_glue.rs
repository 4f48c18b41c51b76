//! `ReferenceGlue`: synthvm has no weak references, soft references or finalizers.

use mmtk::util::opaque_pointer::VMWorkerThread;
use mmtk::util::ObjectReference;
use mmtk::vm::*;

use super::SynthVM;

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
