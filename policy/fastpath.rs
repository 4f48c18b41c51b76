//! The free-list fast path a JIT compiles inline, as mmtk-core reports it through
//! `AllocatorInfo::FreeList` (seam: `util/alloc/allocators.rs`). The offsets are the core's own
//! (`shardsweep::jit_layout`), which its Rust fast path (`Heap::pop`) reads, and the place of the
//! heap pointer in our allocator; nothing here is copied into a binding by hand.
//!
//! For an object of `size` bytes, `0 < size <= max_inline_bytes`, a multiple of 8 (the JIT's
//! objects are 8-byte aligned):
//!
//! ```text
//! heap  = *(mutator + heap_pointer_offset)
//! block = *(heap + direct_table_offset + 8 * (size / 8))
//! cell  = *(block + block_free_offset)          // null: call the runtime (the slow path)
//! *(block + block_free_offset) = *(cell + cell_next_offset)
//! *(u32 *)(block + block_used_offset) += 1
//! ```
//!
//! The cell's word at `cell_next_offset` still holds the link: the caller initialises the object
//! (HotSpot writes its header there). No atomic is needed: other threads only ever push onto a
//! block's `xthread_free`, which the fast path never touches, and a missing block is the
//! never-written empty block, whose `free` is null.

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

/// The largest object the fast path serves: the direct table's end, within the space's objects.
pub const MAX_INLINE_BYTES: usize = if shardsweep::MAX_DIRECT_BYTES < super::MAX_OBJECT_SIZE {
    shardsweep::MAX_DIRECT_BYTES
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
        direct_table_offset: jit_layout::HEAP_DIRECT,
        max_inline_bytes: MAX_INLINE_BYTES,
        block_free_offset: jit_layout::BLOCK_FREE,
        block_used_offset: jit_layout::BLOCK_USED,
        cell_next_offset: jit_layout::CELL_NEXT,
    }
}
