//! Sizes, all derived from one source of truth: [`LOG_BLOCK_BYTES`], chosen at build time
//! (`SHARDSWEEP_BLOCK_KIB`, see `build.rs`). Every other constant here is a shift of it or of
//! the OS page size, with compile-time checks so that a mistake fails to build.

include!(concat!(env!("OUT_DIR"), "/block_size.rs"));

/// Bytes in a block (4 KiB ..= 256 KiB; 64 KiB by default, as mimalloc's small pages).
pub const BLOCK_BYTES: usize = 1 << LOG_BLOCK_BYTES;
/// Mask of the offset within a block.
pub const BLOCK_MASK: usize = BLOCK_BYTES - 1;

/// log2 of the accounting unit: the OS page (4 KiB).
pub const LOG_PAGE_BYTES: usize = 12;
/// Bytes in an OS page, the unit of charging and of giving memory back.
pub const PAGE_BYTES: usize = 1 << LOG_PAGE_BYTES;
/// OS pages per block (1 ..= 64), so that a block's page set fits a `u64` ([`crate::PageMask`]).
pub const PAGES_PER_BLOCK: usize = BLOCK_BYTES >> LOG_PAGE_BYTES;

/// Bytes reserved at the start of every block for its header ([`crate::Block`]).
pub const HEADER_BYTES: usize = 128;

/// The machine word, the granularity of cell sizes.
pub const LOG_WORD_BYTES: usize = 3;
/// Bytes in a word.
pub const WORD_BYTES: usize = 1 << LOG_WORD_BYTES;

/// Largest small-object size: one eighth of the block, and at least 8 KiB (the default
/// build's) where the block holds three cells of 8 KiB after its header (32 KiB blocks).
/// Rule: a block holds at least eight cells, or three of 8 KiB; the tail of a block that no cell
/// fits in is never charged (page accounting), so what it costs is address space, and the
/// 8 KiB floor keeps objects of 4-8 KiB (half of lusearch's bytes) out of the large-object
/// space, as the default build does. 4 KiB blocks: 512 B; 16 KiB: 2 KiB; 32 KiB and 64 KiB:
/// 8 KiB; 256 KiB: 32 KiB. Larger objects go to a large-object path (MMTk's large-object
/// space; the standalone allocator's direct mappings).
pub const MAX_SMALL_BYTES: usize = if BLOCK_BYTES >> 3 < FLOOR_SMALL_BYTES
    && 3 * FLOOR_SMALL_BYTES <= BLOCK_BYTES - HEADER_BYTES
{
    FLOOR_SMALL_BYTES
} else {
    BLOCK_BYTES >> 3
};
/// The floor of [`MAX_SMALL_BYTES`] where the block has room for three such cells.
const FLOOR_SMALL_BYTES: usize = 8 << 10;

/// Sizes up to this many bytes are served through a heap's direct table (mimalloc's
/// `pages_direct`): one load to find the block, then the pop. 1 KiB, or less for small blocks.
pub const MAX_DIRECT_BYTES: usize = if MAX_SMALL_BYTES < 1024 {
    MAX_SMALL_BYTES
} else {
    1024
};
/// Entries of the direct table, indexed by size in words (0 ..= MAX_DIRECT_BYTES / 8).
pub const DIRECT_SLOTS: usize = (MAX_DIRECT_BYTES >> LOG_WORD_BYTES) + 1;

const _: () = assert!(
    LOG_BLOCK_BYTES >= 12 && LOG_BLOCK_BYTES <= 18,
    "block size 4..=256 KiB"
);
const _: () = assert!(
    PAGES_PER_BLOCK >= 1 && PAGES_PER_BLOCK <= 64,
    "a block's pages fit a u64"
);
const _: () = assert!(HEADER_BYTES % 16 == 0 && HEADER_BYTES < PAGE_BYTES);
const _: () = assert!(MAX_SMALL_BYTES * 8 == BLOCK_BYTES || MAX_SMALL_BYTES == FLOOR_SMALL_BYTES);
const _: () = assert!(
    MAX_SMALL_BYTES * 7 <= BLOCK_BYTES - HEADER_BYTES
        || (MAX_SMALL_BYTES == FLOOR_SMALL_BYTES && MAX_SMALL_BYTES * 3 <= BLOCK_BYTES - HEADER_BYTES),
    "7+ of the largest cells fit after the header (3+ at the 8 KiB floor)"
);
