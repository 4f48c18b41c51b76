//! `Scanning`: an object's reference fields, each mutator's shadow stack, and the global roots.

use std::sync::atomic::{AtomicUsize, Ordering};

use mmtk::util::opaque_pointer::VMWorkerThread;
use mmtk::util::{Address, ObjectReference};
use mmtk::vm::slot::SimpleSlot;
use mmtk::vm::*;
use mmtk::Mutator;

use super::SynthVM;
use crate::object;
use crate::runtime::roots;
use crate::runtime::ThreadCtx;

pub struct SynthScanning;

impl Scanning<SynthVM> for SynthScanning {
    fn scan_object<SV: SlotVisitor<SimpleSlot>>(
        _tls: VMWorkerThread,
        object: ObjectReference,
        slot_visitor: &mut SV,
    ) {
        let n = object::nrefs_of(object);
        let base = object::ref_slot(object, 0);
        let check = crate::runtime::verify_after_gc();
        for i in 0..n {
            let slot = base + i * 8;
            // SAFETY: reference field `i` of a live object (`i < nrefs_of(object)`).
            let value = unsafe { slot.load::<usize>() };
            if value != 0 {
                if check {
                    check_reference(object, i, value);
                }
                slot_visitor.visit_slot(SimpleSlot::from_address(slot));
            }
        }
    }

    fn notify_initial_thread_scan_complete(_partial_scan: bool, _tls: VMWorkerThread) {}

    fn scan_roots_in_mutator_thread(
        _tls: VMWorkerThread,
        mutator: &'static mut Mutator<SynthVM>,
        mut factory: impl RootsWorkFactory<SimpleSlot>,
    ) {
        let ctx = ThreadCtx::from_tls(mutator.mutator_tls);
        // SAFETY: MMTk scans a mutator's roots while its thread is stopped (AT_SAFEPOINT or
        // IN_NATIVE), when the thread does not touch its context or shadow stack, and the
        // context is alive while the thread is registered.
        let (stack, len) = unsafe { ((*ctx).roots, (*ctx).roots_len) };
        let mut slots = Vec::with_capacity(len);
        for i in 0..len {
            // SAFETY: `i < len`, inside the shadow stack's allocation (as above).
            let p = unsafe { stack.add(i) };
            // SAFETY: a slot in use of the shadow stack (as above).
            if unsafe { *p } != 0 {
                slots.push(SimpleSlot::from_address(Address::from_mut_ptr(p)));
            }
        }
        if !slots.is_empty() {
            factory.create_process_roots_work(slots);
        }
    }

    fn scan_vm_specific_roots(
        _tls: VMWorkerThread,
        mut factory: impl RootsWorkFactory<SimpleSlot>,
    ) {
        let mut slots = Vec::new();
        for slot in roots::used_slots() {
            // Relaxed: ordered by the safepoint handshake (see `runtime::roots`).
            if slot.load(Ordering::Relaxed) != 0 {
                slots.push(SimpleSlot::from_address(Address::from_ptr(
                    slot as *const AtomicUsize,
                )));
            }
        }
        if !slots.is_empty() {
            factory.create_process_roots_work(slots);
        }
    }

    fn supports_return_barrier() -> bool {
        false
    }

    fn prepare_for_roots_re_scanning() {}
}

/// `--verify`: a reference field holds null or an object of an MMTk space, else the run fails
/// naming the object and the field (before the GC follows the value). A field the binding
/// never initialised, in memory the space did not zero, is the usual cause.
fn check_reference(object: ObjectReference, field: usize, value: usize) {
    // A user-space address (x86-64 and AArch64 Linux: below 2^47), 8-byte aligned, in a space.
    let valid = value % 8 == 0
        && value < 1 << 47
        && mmtk::memory_manager::is_in_mmtk_spaces(
            // SAFETY: non-zero (checked by the caller); only looked up, never dereferenced.
            unsafe { ObjectReference::from_raw_address_unchecked(Address::from_usize(value)) },
        );
    if !valid {
        crate::exit::failed(&format!(
            "object {object} field {field} holds {value:#x}, in no MMTk space: memory handed out without \
             being cleared, read as a reference (a binding that does not initialise what it allocates, \
             in memory the space did not zero: SHARDSWEEP_ZERO)"
        ));
    }
}
