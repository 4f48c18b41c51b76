//! A shardsweep block as an MMTk [`Region`], so the space can use a [`BlockPageResource`]
//! (block-aligned, `BLOCK_BYTES`-sized allocations) and enumerate blocks per chunk.
//!
//! [`BlockPageResource`]: crate::util::heap::BlockPageResource

use crate::util::constants::LOG_BYTES_IN_PAGE;
use crate::util::linear_scan::Region;
use crate::util::object_enum::BlockMayHaveObjects;
use crate::util::Address;
use std::num::NonZeroUsize;

/// A block of the shardsweep space: `shardsweep::BLOCK_BYTES` bytes, aligned to its size.
#[derive(Clone, Copy, PartialOrd, PartialEq, Debug)]
#[repr(transparent)]
pub struct Block(NonZeroUsize);

impl Region for Block {
    const LOG_BYTES: usize = shardsweep::LOG_BLOCK_BYTES;

    fn from_aligned_address(address: Address) -> Self {
        debug_assert!(address.is_aligned_to(Self::BYTES));
        Block(NonZeroUsize::new(address.as_usize()).expect("a block at address zero"))
    }

    fn start(&self) -> Address {
        // SAFETY: a block start is a non-zero address.
        unsafe { Address::from_usize(self.0.get()) }
    }
}

impl Block {
    /// OS pages per block.
    pub const PAGES: usize = 1 << (shardsweep::LOG_BLOCK_BYTES - LOG_BYTES_IN_PAGE as usize);
}

const _: () = assert!(Block::PAGES == shardsweep::PAGES_PER_BLOCK);

impl BlockMayHaveObjects for Block {
    fn may_have_objects(&self) -> bool {
        // The header is in the block's first page, which stays resident while the block is in
        // use; a released block's header reads as zero (or stale with a cleared magic).
        // SAFETY: blocks of allocated chunks are mapped (the mmapper maps whole chunks).
        unsafe { (*shardsweep::Block::of(self.start().to_ptr::<u8>())).is_live_header() }
    }
}
