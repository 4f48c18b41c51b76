//! The work bounds of the core's slow paths (RT-mimalloc's concern, seed 001): each step of an
//! allocation or a free that walks a list stops at a named constant here, and their sums bound
//! one operation. A leaf of the crate: the block, the heap and the bounded malloc mode read
//! these, and `tests/bounded*.rs` checks the sums with the `step-count` counter (`steps.rs`).

use crate::config::{PAGES_PER_BLOCK, PAGE_BYTES, WORD_BYTES};
use crate::size_class::{bin_bytes, BIN_COUNT};

/// Blocks examined per queue search before taking another block.
pub const MAX_SEARCH: usize = 8;
/// Abandoned blocks examined per slow path before taking a fresh block.
pub const MAX_ADOPT: usize = 4;
/// Remote frees moved from a block's `xthread_free` to its `local_free` per collect. A block
/// with more pending keeps the rest (counted in `used`) for its next collect.
pub const MAX_COLLECT: usize = 64;
/// Delayed frees (remote frees into full blocks) handled per slow path; the rest wait for the
/// next one, none is lost.
pub const MAX_DRAIN: usize = 32;
/// Cells linked by one extension: those starting in one OS page, 8-byte cells at most.
pub const MAX_EXTEND_LINKS: usize = PAGE_BYTES / WORD_BYTES;
/// Direct-table slots one bin spans (a bin's current block is written into each).
pub const MAX_DIRECT_SPAN: usize = max_direct_span();

const fn max_direct_span() -> usize {
    use crate::config::{LOG_WORD_BYTES, MAX_DIRECT_BYTES};
    let mut max = 0;
    let mut bin = 1;
    while bin < BIN_COUNT {
        let lo = if bin == 1 { 0 } else { bin_bytes(bin - 1) + 1 };
        if lo <= MAX_DIRECT_BYTES {
            let lo_w = lo.div_ceil(WORD_BYTES);
            let mut hi_w = bin_bytes(bin) >> LOG_WORD_BYTES;
            if hi_w > MAX_DIRECT_BYTES >> LOG_WORD_BYTES {
                hi_w = MAX_DIRECT_BYTES >> LOG_WORD_BYTES;
            }
            if hi_w + 1 - lo_w > max {
                max = hi_w + 1 - lo_w;
            }
        }
        bin += 1;
    }
    max
}

/// Work units (see `steps.rs`) of handing one owned cell back: `free_local`, waking a full block
/// (queue moves, one delay-state compare-exchange, the direct slots of its bin), or releasing an
/// emptied block (retire, one push) and re-pointing the direct slots.
pub const FREE_OWNED_STEPS: usize = 3 + MAX_DIRECT_SPAN;
/// Work units of collecting one block (the links moved and the swap of `local_free`).
pub const COLLECT_STEPS: usize = MAX_COLLECT + 1;
/// Work units of one extension: the choice of the page (one test per page), the links, the
/// set-aside cells re-listed (one per page).
pub const EXTEND_STEPS: usize = PAGES_PER_BLOCK + MAX_EXTEND_LINKS + PAGES_PER_BLOCK;
/// Work units of initialising a block header (page-start set from a table, one charge).
pub const INIT_STEPS: usize = 2;

/// Bound on the work units of one allocation (excluding compare-exchange retries): the fast
/// path is one; the slow path is the sum of its steps, each bounded by a constant:
/// entry, delayed-free drain, queue search, adoption, then one of: an idle page, a fresh page,
/// a kept resident block, a fresh block (each one extension), and making the block current.
pub const ALLOC_STEP_BOUND: usize = 1
    + MAX_DRAIN * (1 + FREE_OWNED_STEPS)
    + MAX_SEARCH * (1 + COLLECT_STEPS + FREE_OWNED_STEPS)
    + MAX_ADOPT * (1 + COLLECT_STEPS + FREE_OWNED_STEPS)
    + 2 * (INIT_STEPS + 1)
    + EXTEND_STEPS
    + 2 * MAX_DIRECT_SPAN
    + 1;
/// Bound on the work units of one free (excluding compare-exchange retries): the local fast
/// path, or waking a full block, or a block emptied and handed back, or a remote push.
pub const FREE_STEP_BOUND: usize = 1 + FREE_OWNED_STEPS + 1;

const _: () = assert!(MAX_DIRECT_SPAN >= 1 && MAX_DIRECT_SPAN <= crate::config::DIRECT_SLOTS);
const _: () = assert!(MAX_EXTEND_LINKS == 512, "4 KiB pages of 8-byte cells");
const _: () = assert!(
    ALLOC_STEP_BOUND < 8192 && FREE_STEP_BOUND < 64,
    "the per-operation bounds stay small constants"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_direct_span_is_the_widest_bin() {
        // Recomputed the way `Heap::set_direct` walks a bin's slots.
        use crate::config::{DIRECT_SLOTS, MAX_DIRECT_BYTES};
        let widest = (1..BIN_COUNT)
            .filter_map(|bin| {
                let lo = if bin == 1 { 0 } else { bin_bytes(bin - 1) + 1 };
                (lo <= MAX_DIRECT_BYTES).then(|| {
                    let hi = (bin_bytes(bin) / WORD_BYTES).min(DIRECT_SLOTS - 1);
                    hi + 1 - lo.div_ceil(WORD_BYTES)
                })
            })
            .max()
            .unwrap();
        assert_eq!(widest, MAX_DIRECT_SPAN);
    }
}
