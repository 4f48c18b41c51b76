//! Tracing through the plan's generic trace: a non-moving mark.

use super::ShardSweepSpace;
use crate::plan::tracing::ObjectQueue;
use crate::policy::gc_work::{PolicyTraceObject, TraceKind};
use crate::scheduler::GCWorker;
use crate::util::copy::CopySemantics;
use crate::util::ObjectReference;
use crate::vm::VMBinding;

impl<VM: VMBinding> PolicyTraceObject<VM> for ShardSweepSpace<VM> {
    fn trace_object<Q: ObjectQueue, const KIND: TraceKind>(
        &self,
        queue: &mut Q,
        object: ObjectReference,
        _copy: Option<CopySemantics>,
        _worker: &mut GCWorker<VM>,
    ) -> ObjectReference {
        self.trace_object(queue, object)
    }

    fn may_move_objects<const KIND: TraceKind>() -> bool {
        false
    }
}
