//! `ObjectModel`: where MMTk keeps its per-object metadata for synthvm's objects (see
//! `crate::object` for their layout), and how objects are copied and sized.

use mmtk::util::copy::{CopySemantics, GCWorkerCopyContext};
use mmtk::util::{Address, ObjectReference};
use mmtk::vm::*;

use super::SynthVM;
use crate::object;

pub struct SynthObjectModel;

impl ObjectModel<SynthVM> for SynthObjectModel {
    const GLOBAL_LOG_BIT_SPEC: VMGlobalLogBitSpec = VMGlobalLogBitSpec::side_first();
    // The forwarding pointer overwrites the hash word of the from-space copy only.
    const LOCAL_FORWARDING_POINTER_SPEC: VMLocalForwardingPointerSpec =
        VMLocalForwardingPointerSpec::in_header(0);
    const LOCAL_FORWARDING_BITS_SPEC: VMLocalForwardingBitsSpec =
        VMLocalForwardingBitsSpec::side_first();
    const LOCAL_MARK_BIT_SPEC: VMLocalMarkBitSpec =
        VMLocalMarkBitSpec::side_after(Self::LOCAL_FORWARDING_BITS_SPEC.as_spec());
    const LOCAL_LOS_MARK_NURSERY_SPEC: VMLocalLOSMarkNurserySpec =
        VMLocalLOSMarkNurserySpec::side_after(Self::LOCAL_MARK_BIT_SPEC.as_spec());
    const OBJECT_REF_OFFSET_LOWER_BOUND: isize = 0;
    /// A reference is its object's start address (`ref_to_object_start`, `ref_to_header`), as in
    /// mmtk-openjdk: a free-list space's sweep then finds a cell's mark at the cell's address.
    const UNIFIED_OBJECT_REFERENCE_ADDRESS: bool = true;

    fn copy(
        from: ObjectReference,
        semantics: CopySemantics,
        copy_context: &mut GCWorkerCopyContext<SynthVM>,
    ) -> ObjectReference {
        let bytes = object::size_of(from);
        let dst = copy_context.alloc_copy(from, bytes, 8, 0, semantics);
        debug_assert!(!dst.is_zero());
        // SAFETY: `from` is a live object of `bytes` bytes; `dst` is a fresh cell of `bytes`
        // bytes MMTk just allocated for the copy, in another region (to-space), so the ranges
        // do not overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(
                from.to_raw_address().to_ptr::<u8>(),
                dst.to_mut_ptr::<u8>(),
                bytes,
            );
        }
        // SAFETY: `dst` is non-zero (debug-asserted; `alloc_copy` does not return 0) and 8-byte
        // aligned, and now holds the object: a valid object reference.
        let to = unsafe { ObjectReference::from_raw_address_unchecked(dst) };
        copy_context.post_copy(to, bytes, semantics);
        to
    }

    fn copy_to(from: ObjectReference, to: ObjectReference, _region: Address) -> Address {
        let bytes = object::size_of(from);
        if from != to {
            // MarkCompact slides objects towards lower addresses: ranges may overlap.
            // SAFETY: `from` is a live object of `bytes` bytes and `to` the address MMTk chose
            // for it, with room for `bytes` bytes; `copy` allows the overlap.
            unsafe {
                std::ptr::copy(
                    from.to_raw_address().to_ptr::<u8>(),
                    to.to_raw_address().to_mut_ptr::<u8>(),
                    bytes,
                );
            }
        }
        to.to_raw_address() + bytes
    }

    fn get_reference_when_copied_to(_from: ObjectReference, to: Address) -> ObjectReference {
        ObjectReference::from_raw_address(to).expect("copy target is null")
    }

    fn get_current_size(object: ObjectReference) -> usize {
        object::size_of(object)
    }

    fn get_size_when_copied(object: ObjectReference) -> usize {
        object::size_of(object)
    }

    fn get_align_when_copied(_object: ObjectReference) -> usize {
        8
    }

    fn get_align_offset_when_copied(_object: ObjectReference) -> usize {
        0
    }

    fn get_type_descriptor(_reference: ObjectReference) -> &'static [i8] {
        &[]
    }

    fn ref_to_object_start(object: ObjectReference) -> Address {
        object.to_raw_address()
    }

    fn ref_to_header(object: ObjectReference) -> Address {
        object.to_raw_address()
    }

    fn dump_object(object: ObjectReference) {
        eprintln!(
            "synthvm object {}: hash {:#x} size {} refs {} tag {:#x}",
            object,
            object::hash_of(object),
            object::size_of(object),
            object::nrefs_of(object),
            object::tag_of(object)
        );
    }

    fn is_object_sane(object: ObjectReference) -> bool {
        object::check_header(object).is_ok()
    }
}
