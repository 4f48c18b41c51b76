//! The offsets a JIT-compiled allocation fast path reads: a heap's direct table, a block's `free`
//! and `used`, a free cell's link. The MMTk space reports them to bindings through mmtk's
//! `AllocatorInfo::FreeList` (`policy/fastpath.rs`), so no binding copies them; they are the
//! layout the core's own fast path (`Heap::pop`) uses, and the asserts below keep the JIT's
//! sequence (three dependent loads, two stores) as short as it is.

use crate::block::Block;
use crate::cell::Cell;
use crate::config::DIRECT_SLOTS;
use crate::heap::Heap;
use crate::size_class::bin_of_words;

/// Offset of the direct table in a [`Heap`]: a `*mut Block` per object size in words, up to
/// `MAX_DIRECT_BYTES`.
pub const HEAP_DIRECT: usize = std::mem::offset_of!(Heap, direct);
/// Offset of a block's allocation list head (`*mut Cell`, null when empty).
pub const BLOCK_FREE: usize = std::mem::offset_of!(Block, free);
/// Offset of a block's count of cells handed out (`u32`).
pub const BLOCK_USED: usize = std::mem::offset_of!(Block, used);
/// Offset of a free cell's link to the next one.
pub const CELL_NEXT: usize = std::mem::offset_of!(Cell, next);

/// Per object size in words (0 ..= `MAX_DIRECT_BYTES / 8`), the offset in a [`Heap`] of the
/// list head its pops take under `Settings::lease_current`: the `free` of its bin's lease. A
/// word per entry, so a JIT indexes it by the size in bytes: `LEASE_HEADS.as_ptr() as usize +
/// size` (sizes are whole words).
pub static LEASE_HEADS: [usize; DIRECT_SLOTS] = lease_heads();

const fn lease_heads() -> [usize; DIRECT_SLOTS] {
    let mut t = [0; DIRECT_SLOTS];
    let mut w = 0;
    while w < DIRECT_SLOTS {
        t[w] = Heap::LEASES + bin_of_words(w) * std::mem::size_of::<Block>() + BLOCK_FREE;
        w += 1;
    }
    t
}

const _: () = assert!(HEAP_DIRECT == 0, "the direct table starts the heap");
const _: () = assert!(
    BLOCK_FREE == 0 && BLOCK_USED == 8,
    "free and used start the block header"
);
const _: () = assert!(CELL_NEXT == 0, "a free cell's link is its first word");
