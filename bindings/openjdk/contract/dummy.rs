//! A minimal VM binding: enough to instantiate MMTk's MarkSweep plan, bind a mutator and
//! allocate before collection is enabled (as the JVM does while it boots). Nothing here ever
//! runs a GC: every hook a GC would call panics.
//!
//! Its metadata choices follow mmtk-openjdk's defaults that matter for MarkSweep: the mark bit
//! on the side (mmtk-openjdk's default; feature `mark_bit_in_header` moves it), forwarding bits
//! on the side are irrelevant to a non-moving plan.

use mmtk::util::copy::{CopySemantics, GCWorkerCopyContext};
use mmtk::util::opaque_pointer::{VMMutatorThread, VMThread, VMWorkerThread};
use mmtk::util::{Address, ObjectReference};
use mmtk::vm::slot::{SimpleSlot, UnimplementedMemorySlice};
use mmtk::vm::*;
use mmtk::Mutator;

#[derive(Default)]
pub struct DummyVM;

impl VMBinding for DummyVM {
    type VMObjectModel = DummyObjectModel;
    type VMScanning = DummyScanning;
    type VMCollection = DummyCollection;
    type VMActivePlan = DummyActivePlan;
    type VMReferenceGlue = DummyReferenceGlue;
    type VMSlot = SimpleSlot;
    type VMMemorySlice = UnimplementedMemorySlice<SimpleSlot>;

    // As mmtk-openjdk: 8-byte alignment (HeapWordSize), no allocation offset.
    const MIN_ALIGNMENT: usize = 8;
    const MAX_ALIGNMENT: usize = 8;
    const USE_ALLOCATION_OFFSET: bool = false;
}

const GC: &str = "the contract test never collects";

pub struct DummyObjectModel;

impl ObjectModel<DummyVM> for DummyObjectModel {
    const GLOBAL_LOG_BIT_SPEC: VMGlobalLogBitSpec = VMGlobalLogBitSpec::side_first();
    const LOCAL_FORWARDING_POINTER_SPEC: VMLocalForwardingPointerSpec =
        VMLocalForwardingPointerSpec::in_header(0);
    const LOCAL_FORWARDING_BITS_SPEC: VMLocalForwardingBitsSpec =
        VMLocalForwardingBitsSpec::side_first();
    const LOCAL_MARK_BIT_SPEC: VMLocalMarkBitSpec =
        VMLocalMarkBitSpec::side_after(Self::LOCAL_FORWARDING_BITS_SPEC.as_spec());
    const LOCAL_LOS_MARK_NURSERY_SPEC: VMLocalLOSMarkNurserySpec =
        VMLocalLOSMarkNurserySpec::side_after(Self::LOCAL_MARK_BIT_SPEC.as_spec());
    const OBJECT_REF_OFFSET_LOWER_BOUND: isize = 0;

    fn copy(
        _from: ObjectReference,
        _semantics: CopySemantics,
        _copy_context: &mut GCWorkerCopyContext<DummyVM>,
    ) -> ObjectReference {
        unreachable!("{GC}")
    }
    fn copy_to(_from: ObjectReference, _to: ObjectReference, _region: Address) -> Address {
        unreachable!("{GC}")
    }
    fn get_reference_when_copied_to(_from: ObjectReference, _to: Address) -> ObjectReference {
        unreachable!("{GC}")
    }
    fn get_current_size(_object: ObjectReference) -> usize {
        unreachable!("{GC}")
    }
    fn get_size_when_copied(_object: ObjectReference) -> usize {
        unreachable!("{GC}")
    }
    fn get_align_when_copied(_object: ObjectReference) -> usize {
        8
    }
    fn get_align_offset_when_copied(_object: ObjectReference) -> usize {
        0
    }
    fn get_type_descriptor(_reference: ObjectReference) -> &'static [i8] {
        unreachable!("{GC}")
    }
    fn ref_to_object_start(object: ObjectReference) -> Address {
        object.to_raw_address()
    }
    fn ref_to_header(object: ObjectReference) -> Address {
        object.to_raw_address()
    }
    fn dump_object(_object: ObjectReference) {}
}

pub struct DummyScanning;

impl Scanning<DummyVM> for DummyScanning {
    fn scan_object<SV: SlotVisitor<SimpleSlot>>(
        _tls: VMWorkerThread,
        _object: ObjectReference,
        _slot_visitor: &mut SV,
    ) {
        unreachable!("{GC}")
    }
    fn notify_initial_thread_scan_complete(_partial_scan: bool, _tls: VMWorkerThread) {}
    fn scan_roots_in_mutator_thread(
        _tls: VMWorkerThread,
        _mutator: &'static mut Mutator<DummyVM>,
        _factory: impl RootsWorkFactory<SimpleSlot>,
    ) {
        unreachable!("{GC}")
    }
    fn scan_vm_specific_roots(_tls: VMWorkerThread, _factory: impl RootsWorkFactory<SimpleSlot>) {
        unreachable!("{GC}")
    }
    fn supports_return_barrier() -> bool {
        false
    }
    fn prepare_for_roots_re_scanning() {}
}

pub struct DummyCollection;

impl Collection<DummyVM> for DummyCollection {
    fn stop_all_mutators<F>(_tls: VMWorkerThread, _mutator_visitor: F)
    where
        F: FnMut(&'static mut Mutator<DummyVM>),
    {
        unreachable!("{GC}")
    }
    fn resume_mutators(_tls: VMWorkerThread) {
        unreachable!("{GC}")
    }
    fn block_for_gc(_tls: VMMutatorThread) {
        panic!("a GC was requested: {GC} (is the heap large enough?)")
    }
    fn spawn_gc_thread(_tls: VMThread, _ctx: GCThreadContext<DummyVM>) {
        unreachable!("collection is never initialised")
    }
}

pub struct DummyActivePlan;

impl ActivePlan<DummyVM> for DummyActivePlan {
    fn is_mutator(_tls: VMThread) -> bool {
        true
    }
    fn mutator(_tls: VMMutatorThread) -> &'static mut Mutator<DummyVM> {
        unreachable!("{GC}")
    }
    fn mutators<'a>() -> Box<dyn Iterator<Item = &'a mut Mutator<DummyVM>> + 'a> {
        Box::new(std::iter::empty())
    }
    fn number_of_mutators() -> usize {
        1
    }
}

pub struct DummyReferenceGlue;

impl ReferenceGlue<DummyVM> for DummyReferenceGlue {
    type FinalizableType = ObjectReference;
    fn clear_referent(_new_reference: ObjectReference) {}
    fn get_referent(_object: ObjectReference) -> Option<ObjectReference> {
        None
    }
    fn set_referent(_reff: ObjectReference, _referent: ObjectReference) {}
    fn enqueue_references(_references: &[ObjectReference], _tls: VMWorkerThread) {}
}
