//! Reading a block's live cells straight from the embedder's side mark bitmap, instead of asking
//! the sweep's oracle about every cell (a call, a header read and an address-to-metadata
//! computation per cell: the sweep's largest cost under MMTk OpenJDK).
//!
//! The bitmap has one bit per granule of `1 << log_granule` bytes; the bit of the granule at
//! address `a` is bit `(a >> log_granule) & 7` of the byte `byte_of(a)`, and within a block those
//! bytes are consecutive: `byte_of(a + (8 << log_granule)) == byte_of(a) + 1` (MMTk's contiguous
//! side metadata on 64-bit targets). A cell is live iff the bit of its first granule is set (the
//! object reference is the cell's address). The embedder clears the bits in bulk before the next
//! trace; the sweep only reads them.

use super::{Block, LiveMap};
use crate::config::{BLOCK_BYTES, HEADER_BYTES};
use std::sync::atomic::{AtomicU8, Ordering};

/// An embedder's side mark bitmap (see the module documentation for its contract).
#[derive(Clone, Copy, Debug)]
pub struct MarkBitmap {
    /// Log2 of the bytes one mark bit covers.
    pub log_granule: u32,
    /// The byte holding the mark of the granule at an address; mapped and readable for every
    /// block's range whenever a sweep runs.
    pub byte_of: fn(usize) -> *const u8,
}

impl MarkBitmap {
    /// Whether a sweep of cells of `cell_size` bytes may read the bitmap: every cell and the
    /// first cell's offset start a granule, and a block starts a bitmap byte.
    pub fn serves(&self, cell_size: usize) -> bool {
        let g = 1usize << self.log_granule;
        cell_size % g == 0 && HEADER_BYTES % g == 0 && BLOCK_BYTES % (8 * g) == 0
    }
}

impl Block {
    /// The live cells of the extended pages as the bitmap says (as [`Block::live_map_except`]
    /// with an oracle that reads it), not counting the cells in `skip`. Work: one byte load per
    /// cell, no call.
    pub(super) fn live_map_from_marks(&self, marks: &MarkBitmap, skip: &LiveMap) -> (LiveMap, u32) {
        let cs = self.cell_size();
        debug_assert!(marks.serves(cs));
        let start = self.start() as usize;
        let base = (marks.byte_of)(start);
        debug_assert_eq!(
            (marks.byte_of)(start + BLOCK_BYTES - (8 << marks.log_granule)) as usize,
            base as usize + BLOCK_BYTES / (8 << marks.log_granule) - 1,
            "a block's mark bytes must be consecutive"
        );
        let log_granule = marks.log_granule;
        self.live_map_by(skip, |i| {
            let g = (HEADER_BYTES + i * cs) >> log_granule;
            // SAFETY: `g` is the granule of a cell of this block, whose mark bytes are mapped
            // (the contract of `byte_of`) and consecutive; a byte is a valid AtomicU8. Relaxed:
            // the trace finished before any sweep (the embedder's stop-the-world barrier orders
            // every mark before this load).
            let byte = unsafe { (*(base.add(g >> 3) as *const AtomicU8)).load(Ordering::Relaxed) };
            (byte >> (g & 7)) & 1 != 0
        })
    }
}
