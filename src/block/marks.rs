//! Reading a block's live cells straight from the embedder's side mark bitmap, instead of asking
//! the sweep's oracle about every cell (a call, a header read and an address-to-metadata
//! computation per cell: the sweep's largest cost under MMTk OpenJDK).
//!
//! The bitmap has one bit per granule of `1 << log_granule` bytes; the bit of the granule at
//! address `a` is bit `(a >> log_granule) & 7` of the byte `byte_of(a)`, and within a block those
//! bytes are consecutive: `byte_of(a + (8 << log_granule)) == byte_of(a) + 1` (MMTk's contiguous
//! side metadata on 64-bit targets). A cell is live iff the bit of its first granule is set (the
//! object reference is the cell's address). The embedder clears the bits in bulk before the next
//! trace; the sweep only reads them, a word at a time, and visits only the set bits.

use super::{Block, LiveMap, LIVE_WORDS};
use crate::config::{BLOCK_BYTES, HEADER_BYTES, PAGE_BYTES};
use crate::size_class::CellDivisor;

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
    /// first cell's offset start a granule, and a block's bitmap is whole 64-bit words.
    pub fn serves(&self, cell_size: usize) -> bool {
        let g = 1usize << self.log_granule;
        cell_size % g == 0 && HEADER_BYTES % g == 0 && BLOCK_BYTES % (64 * g) == 0
    }
}

impl Block {
    /// The live cells of the extended pages as the bitmap says (what [`Block::live_map_except`]
    /// gives with an oracle that reads it), not counting the cells in `skip`. Work: one 64-bit
    /// load per 64 granules of the block and a multiply per set bit (a [`CellDivisor`], not a
    /// division), none per dead cell.
    ///
    /// A set bit marks the object at its granule. One at a cell's start marks the cell; one
    /// elsewhere, or on a cell in `skip`, or on a page not extended, belongs to an object the
    /// block does not list (in a lent run, `lend.rs`) and is passed over, as the oracle's walk,
    /// which asks only about the listed cells of the extended pages not in `skip`, passes it over.
    pub(super) fn live_map_from_marks(&self, marks: &MarkBitmap, skip: &LiveMap) -> (LiveMap, u32) {
        let cs = self.cell_size();
        debug_assert!(marks.serves(cs));
        let start = self.start() as usize;
        let log_granule = marks.log_granule;
        let base = (marks.byte_of)(start);
        let words = BLOCK_BYTES >> log_granule >> 6;
        debug_assert_eq!(
            (marks.byte_of)(start + BLOCK_BYTES - (8 << log_granule)) as usize,
            base as usize + words * 8 - 1,
            "a block's mark bytes must be consecutive"
        );
        let cells_end = HEADER_BYTES + self.reserved() * cs;
        let div = CellDivisor::new(cs);
        let mut live = [0u64; LIVE_WORDS];
        let mut live_count = 0u32;
        for w in 0..words {
            // SAFETY: the block's mark bytes are mapped (the contract of `byte_of`) and
            // consecutive, `words * 8` of them; an unaligned plain read, because the trace has
            // finished before any sweep (the embedder's stop-the-world barrier orders every mark
            // before it) and nobody writes marks until the next GC's bulk clear, so no write
            // races with it. Little-endian: bit k of byte b is granule 8b + k.
            let mut bits = u64::from_le(unsafe { base.add(w * 8).cast::<u64>().read_unaligned() });
            while bits != 0 {
                let g = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let off = g << log_granule;
                if off < HEADER_BYTES || off >= cells_end {
                    continue;
                }
                let (i, r) = div.div_rem(off - HEADER_BYTES);
                let on_start = r == 0;
                if !on_start || skip[i / 64] & (1 << (i % 64)) != 0 || !self.extended.contains(off / PAGE_BYTES) {
                    continue;
                }
                live[i / 64] |= 1 << (i % 64);
                live_count += 1;
            }
        }
        (live, live_count)
    }
}
