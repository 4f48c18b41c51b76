//! The offsets a JIT-compiled allocation fast path would read (the design in
//! `bindings/openjdk/README.md`, "A free-list fast path for the JIT"): a heap's direct table, a
//! block's `free` and `used`, a free cell's link. They are the layout the core's own fast path
//! (`Heap::pop`) uses; the asserts below keep them where a binding would have compiled them in.

use crate::block::Block;
use crate::cell::Cell;
use crate::heap::Heap;

/// Offset of the direct table in a [`Heap`]: a `*mut Block` per object size in words, up to
/// `MAX_DIRECT_BYTES`.
pub const HEAP_DIRECT: usize = std::mem::offset_of!(Heap, direct);
/// Offset of a block's allocation list head (`*mut Cell`, null when empty).
pub const BLOCK_FREE: usize = std::mem::offset_of!(Block, free);
/// Offset of a block's count of cells handed out (`u32`).
pub const BLOCK_USED: usize = std::mem::offset_of!(Block, used);
/// Offset of a free cell's link to the next one.
pub const CELL_NEXT: usize = std::mem::offset_of!(Cell, next);

const _: () = assert!(HEAP_DIRECT == 0, "the direct table starts the heap");
const _: () = assert!(
    BLOCK_FREE == 0 && BLOCK_USED == 8,
    "free and used start the block header"
);
const _: () = assert!(CELL_NEXT == 0, "a free cell's link is its first word");
