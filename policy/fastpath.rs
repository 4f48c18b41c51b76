//! The free-list fast path a JIT compiles inline, as mmtk-core reports it through
//! `AllocatorInfo::FreeList` (seam: `util/alloc/allocators.rs`). The offsets are the core's own
//! (`shardsweep::jit_layout`), which its Rust fast path (`Heap::pop`) reads, and the place of the
//! heap pointer in our allocator; nothing here is copied into a binding by hand.
//!
//! For an object of `size` bytes, `0 < size <= max_inline_bytes`, a multiple of 8 (the JIT's
//! objects are 8-byte aligned):
//!
//! ```text
//! heap = *(mutator + heap_pointer_offset)
//! head = heap + *(usize *)(head_table + size)   // the table is static: size in words -> offset
//! cell = *head                                  // null: call the runtime (the slow path)
//! *head = *(cell + cell_next_offset)
//! ```
//!
//! The head is the `free` of the size's bin's lease in the heap (`Settings::lease_current`: a
//! bin's current block hands its whole list to the lease, its cells counted in the block), so
//! the pop counts nothing. The cell's word at `cell_next_offset` still holds the link: the
//! caller initialises the object (HotSpot writes its header there). No atomic is needed: a
//! lease is its heap's alone, and an empty lease's head is null.

use super::ShardSweepAllocator;
use crate::util::alloc::AllocatorInfo;
use crate::util::options::Options;
use crate::vm::VMBinding;
use shardsweep::jit_layout;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the space offers the fast path: set when the space is created, from the MMTk option
/// `free_list_fastpath` (off for comparisons), and never with the feature `vo_bit` (the fast
/// path does not set VO bits; the call does).
static OFFERED: AtomicBool = AtomicBool::new(false);

/// Called when the space is created.
pub(crate) fn configure(options: &Options) {
    let on = *options.free_list_fastpath && !cfg!(feature = "vo_bit");
    // Relaxed: read by the binding after MMTk is initialised, which happens-after space
    // creation through the binding's own synchronisation (`mmtk_init` returns first).
    OFFERED.store(on, Ordering::Relaxed);
}

/// The largest object the fast path serves: the head table's end (every small size), within
/// the space's objects.
pub const MAX_INLINE_BYTES: usize = if shardsweep::MAX_SMALL_BYTES < super::MAX_OBJECT_SIZE {
    shardsweep::MAX_SMALL_BYTES
} else {
    super::MAX_OBJECT_SIZE
};

/// `AllocatorInfo` for the allocator at `base_offset` in the mutator: `FreeList` when offered,
/// else `Unimplemented` (the binding calls the runtime).
pub fn free_list_allocator_info<VM: VMBinding>(base_offset: usize) -> AllocatorInfo {
    if !OFFERED.load(Ordering::Relaxed) {
        return AllocatorInfo::Unimplemented;
    }
    AllocatorInfo::FreeList {
        heap_pointer_offset: base_offset + ShardSweepAllocator::<VM>::HEAP_OFFSET,
        head_table: jit_layout::LEASE_HEADS.as_ptr() as usize,
        max_inline_bytes: MAX_INLINE_BYTES,
        cell_next_offset: jit_layout::CELL_NEXT,
    }
}
