//! The oracle the core's sweep asks about every cell: is the object in it marked? It maps the
//! cell to the object reference exactly as `native_ms`'s block sweep does, clears the mark of a
//! live object (so marks need no separate clearing pass), and clears the VO bits of a dead cell.

use crate::util::constants::MIN_OBJECT_SIZE;
use crate::util::{Address, ObjectReference};
use crate::vm::{ObjectModel, VMBinding};
use std::sync::atomic::Ordering;

/// Whether cell address == object reference for cells of `cell_size` bytes (`native_ms`'s
/// condition for its simple sweep).
#[inline(always)]
fn cell_is_object<VM: VMBinding>(cell_size: usize) -> bool {
    !VM::USE_ALLOCATION_OFFSET
        && VM::MAX_ALIGNMENT == VM::MIN_ALIGNMENT
        && cell_size % VM::MAX_ALIGNMENT == 0
        && VM::VMObjectModel::UNIFIED_OBJECT_REFERENCE_ADDRESS
}

/// Whether `object` is marked; if `TAKE`, also clears its mark.
#[inline(always)]
fn take_mark<VM: VMBinding, const TAKE: bool>(object: ObjectReference) -> bool {
    // Relaxed: the release phase starts after the trace has finished (the scheduler's bucket
    // barrier orders every mark before this load); a lazy sweep runs on the owner after the GC
    // (the end of the stop orders it); the cleared bit is next read in the next GC.
    if VM::VMObjectModel::LOCAL_MARK_BIT_SPEC.is_marked::<VM>(object, Ordering::Relaxed) {
        if TAKE {
            VM::VMObjectModel::LOCAL_MARK_BIT_SPEC.store_atomic::<VM, u8>(object, 0, None, Ordering::Relaxed);
        }
        true
    } else {
        false
    }
}

/// Is the cell at `cell` live? Clears its mark if so; clears its VO bits if not.
pub(super) fn is_live<VM: VMBinding>(cell: *mut u8) -> bool {
    probe::<VM, true>(cell)
}

/// Is the cell at `cell` live? Changes nothing (the lazy GC's accounting pass, whose answers the
/// owner's later sweep with [`is_live`] must repeat).
pub(super) fn is_marked<VM: VMBinding>(cell: *mut u8) -> bool {
    probe::<VM, false>(cell)
}

/// The oracle; `TAKE`: clear the mark of a live cell and the VO bits of a dead one.
#[inline(always)]
fn probe<VM: VMBinding, const TAKE: bool>(cell: *mut u8) -> bool {
    // SAFETY: the core only asks about cells of live blocks, whose header is readable.
    let cell_size = unsafe { (*shardsweep::Block::of(cell)).cell_size() };
    let start = Address::from_mut_ptr(cell);
    let live = if cell_is_object::<VM>(cell_size) {
        // SAFETY: a cell address is non-zero.
        take_mark::<VM, TAKE>(unsafe { ObjectReference::from_raw_address_unchecked(start) })
    } else {
        // The object may start anywhere in the cell: look for a mark at every possible
        // reference (native_ms's brute-force sweep).
        let end = start + cell_size;
        let mut cursor = start;
        let mut found = false;
        while cursor < end {
            let r = (cursor.as_usize() as isize + VM::VMObjectModel::OBJECT_REF_OFFSET_LOWER_BOUND) as usize;
            // SAFETY: `r` is inside or just around a mapped cell, never zero.
            let object = unsafe { ObjectReference::from_raw_address_unchecked(Address::from_usize(r)) };
            if take_mark::<VM, TAKE>(object) {
                found = true;
                break;
            }
            cursor += MIN_OBJECT_SIZE;
        }
        found
    };
    #[cfg(feature = "vo_bit")]
    if TAKE && !live {
        crate::util::metadata::vo_bit::bzero_vo_bit(start, cell_size);
    }
    live
}
