//! The layout a JIT-compiled allocation fast path reads: per object size, the offset in a heap of
//! the list head its pops take (`LEASE_HEADS`, a static table), and a free cell's link. The
//! MMTk space reports them to bindings through mmtk's `AllocatorInfo::FreeList`
//! (`policy/fastpath.rs`), so no binding copies them. The heads are the `free` of the bins'
//! leases (`heap/lease.rs`), which the embedder keeps filled with `Settings::lease_current` (a
//! bin's current block hands its whole list to the lease), so the JIT's pop is the core's own
//! lease pop: after the heap pointer, one load of the head, one of the link, one store, and no
//! count (the leased cells are counted handed out in their block). JikesRVM's segregated
//! free-list allocator keeps its heads in the thread-local allocator (two loads and a store);
//! here they are one load further, in the heap, because the mutator HotSpot copies into each
//! thread has the stock allocator's size (`bindings/openjdk/README.md`).

use crate::block::Block;
use crate::cell::Cell;
use crate::config::{LOG_WORD_BYTES, MAX_SMALL_BYTES};
use crate::heap::Heap;
use crate::size_class::bin_of_words;

/// Offset of a block's (and a lease's) allocation list head (`*mut Cell`, null when empty).
const BLOCK_FREE: usize = std::mem::offset_of!(Block, free);
/// Offset of a free cell's link to the next one.
pub const CELL_NEXT: usize = std::mem::offset_of!(Cell, next);

/// Entries of [`LEASE_HEADS`]: every small size in words, 0 ..= `MAX_SMALL_BYTES / 8` (every
/// bin has a lease, so a JIT pops inline up to the largest small size, not only up to the
/// direct table's end).
pub const HEAD_SLOTS: usize = (MAX_SMALL_BYTES >> LOG_WORD_BYTES) + 1;

/// Per object size in words (0 ..= `MAX_SMALL_BYTES / 8`), the offset in a [`Heap`] of the
/// list head its pops take under `Settings::lease_current`: the `free` of its bin's lease. A
/// word per entry, so a JIT indexes it by the size in bytes: `LEASE_HEADS.as_ptr() as usize +
/// size` (sizes are whole words). Static and never written: a JIT reads it when it compiles a
/// constant size.
pub static LEASE_HEADS: [usize; HEAD_SLOTS] = lease_heads();

const fn lease_heads() -> [usize; HEAD_SLOTS] {
    let mut t = [0; HEAD_SLOTS];
    let mut w = 0;
    while w < HEAD_SLOTS {
        t[w] = Heap::LEASES + bin_of_words(w) * std::mem::size_of::<Block>() + BLOCK_FREE;
        w += 1;
    }
    t
}

const _: () = assert!(CELL_NEXT == 0, "a free cell's link is its first word");
const _: () = assert!(
    Heap::LEASES + BIN_BOUND * std::mem::size_of::<Block>() <= i32::MAX as usize,
    "a head's offset fits a JIT's 32-bit displacement"
);
/// The bins the table can name (every bin, a bound for the assert above).
const BIN_BOUND: usize = crate::size_class::BIN_COUNT;
