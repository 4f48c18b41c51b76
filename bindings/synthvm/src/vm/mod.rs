//! The MMTk VM binding: [`SynthVM`], the type MMTk is instantiated with, and one file per trait
//! it implements, as mmtk-core's own dummy VM binding is laid out.  The traits call into
//! `crate::runtime` for what a VM keeps beside MMTk (threads, safepoints, roots).

mod active_plan;
mod collection;
mod object_model;
mod reference_glue;
mod scanning;

pub use active_plan::SynthActivePlan;
pub use collection::SynthCollection;
pub use object_model::SynthObjectModel;
pub use reference_glue::SynthReferenceGlue;
pub use scanning::SynthScanning;

use mmtk::vm::slot::{SimpleSlot, UnimplementedMemorySlice};
use mmtk::vm::VMBinding;

#[derive(Default)]
pub struct SynthVM;

impl VMBinding for SynthVM {
    type VMObjectModel = SynthObjectModel;
    type VMScanning = SynthScanning;
    type VMCollection = SynthCollection;
    type VMActivePlan = SynthActivePlan;
    type VMReferenceGlue = SynthReferenceGlue;
    type VMSlot = SimpleSlot;
    type VMMemorySlice = UnimplementedMemorySlice<SimpleSlot>;

    const MIN_ALIGNMENT: usize = 8;
    const MAX_ALIGNMENT: usize = 8;
    const USE_ALLOCATION_OFFSET: bool = false;
}
