//! Global roots: static slots, each holding one object reference (or 0), that every GC scans
//! (`Scanning::scan_vm_specific_roots`) and updates.  Workloads take slots with
//! [`alloc_global_root`] for their long-lived shared data.
//!
//! # Orderings
//!
//! All `Relaxed`.  A slot's value is written by a mutator in the VM and read or updated by a
//! GC with that mutator stopped: the safepoint handshake (`COORD`, see `safepoint`) orders the
//! two, as it orders the mutator's writes to the objects themselves.  The count of slots in
//! use is the same: `fetch_add` alone hands out distinct slots, and a GC that scans the slots
//! runs after the handshake that follows the allocating thread's use of its slot.

use std::sync::atomic::{AtomicUsize, Ordering};

use mmtk::util::{Address, ObjectReference};

/// Number of global root slots.  Workloads allocate slots with [`alloc_global_root`].
pub const GLOBAL_ROOTS: usize = 4096;
#[allow(clippy::declare_interior_mutable_const)]
const ZERO: AtomicUsize = AtomicUsize::new(0);
static GLOBAL_ROOT_SLOTS: [AtomicUsize; GLOBAL_ROOTS] = [ZERO; GLOBAL_ROOTS];
static GLOBAL_ROOTS_USED: AtomicUsize = AtomicUsize::new(0);

/// A global root slot: a static location scanned by `scan_vm_specific_roots`.
#[derive(Copy, Clone, Debug)]
pub struct GlobalRoot(usize);

pub fn alloc_global_root() -> GlobalRoot {
    // Relaxed: the read-modify-write alone makes `i` unique (see "Orderings").
    let i = GLOBAL_ROOTS_USED.fetch_add(1, Ordering::Relaxed);
    assert!(i < GLOBAL_ROOTS, "out of global root slots");
    GlobalRoot(i)
}

impl GlobalRoot {
    pub fn get(self) -> Option<ObjectReference> {
        object_at(GLOBAL_ROOT_SLOTS[self.0].load(Ordering::Relaxed))
    }
    pub fn set(self, o: Option<ObjectReference>) {
        GLOBAL_ROOT_SLOTS[self.0].store(
            o.map(|o| o.to_raw_address().as_usize()).unwrap_or(0),
            Ordering::Relaxed,
        );
    }
}

/// The slots handed out so far (each holds a raw object address, or 0).
pub(crate) fn used_slots() -> &'static [AtomicUsize] {
    // Relaxed: the safepoint handshake orders this after every slot's allocation and use by a
    // thread now stopped (see "Orderings").
    let used = GLOBAL_ROOTS_USED.load(Ordering::Relaxed).min(GLOBAL_ROOTS);
    &GLOBAL_ROOT_SLOTS[..used]
}

/// The object a slot of [`used_slots`] refers to, if any.
pub(crate) fn slot_object(slot: &AtomicUsize) -> Option<ObjectReference> {
    object_at(slot.load(Ordering::Relaxed))
}

/// The object a root slot's value (a global root's or a shadow stack's) refers to: the value is
/// 0 or an object's address.
#[inline(always)]
pub(crate) fn object_at(value: usize) -> Option<ObjectReference> {
    // SAFETY: `from_usize` only builds an address from the integer; nothing is dereferenced.
    ObjectReference::from_raw_address(unsafe { Address::from_usize(value) })
}
