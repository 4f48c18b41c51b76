//! The adoption unit ([`Adopt`]): what a heap takes from a partly used block no heap owns.
//!
//! Under `Adopt::Block` (mimalloc's way; the core's default, which the malloc front end keeps)
//! the heap adopts the whole block: it owns every free cell of it until the next sweep, however
//! few it uses. Under a garbage collector that abandons its partly used blocks at each sweep, a
//! mutator's first allocations after a GC adopt one block per size class, and with 64 KiB blocks
//! each holds up to sixteen pages of free cells that no other mutator may use meanwhile: they
//! charge fresh pages instead. That is the cost of large blocks that page accounting does not
//! remove (issue 20, `ARCHITECTURE.md`).
//!
//! Under `Adopt::Lease` (`SHARDSWEEP_ADOPT=lease` in the MMTk space) the heap takes a *lease*:
//! at most a page's worth of cells ([`LEASE_BYTES`], at least one cell) off the front of the
//! block's free list, counted as handed out in the block, and the block goes straight back to
//! its abandoned stack, where the next heap of any thread takes the next lease. The heap hands
//! the leased cells out from a descriptor of its own (a [`Block`] placeholder per bin, whose
//! `free` alone is used), so the fast path is unchanged: the direct slot points at the
//! descriptor, one branch and a pop. A block popped without a free cell is adopted whole, as
//! under `Block` (it can only extend).
//!
//! Under `Adopt::Headroom` (the MMTk space's default) the lease's size follows the room the budget has left
//! ([`crate::block::lease_pages`]): a whole block's worth (the block adopted, as under `Block`)
//! while the room would hold a block per busy size class for every mutator, a page's worth near
//! the limit. Under a collector the room is largest right after a GC, so a mutator adopts blocks
//! then, with `Block`'s few slow paths, and leases as the heap fills: the lease's gain (fewer
//! pages charged while free cells wait in blocks others hold) is needed only near the limit, its
//! cost (a slow path per page's worth of cells) is paid only there.
//!
//! Garbage-collected mode only: a leased cell never handed out counts as allocated in its block
//! until a sweep finds it unmarked, so every sweep of the heap drops its leases first
//! ([`Heap::clear_leases`]), and the sweep of the blocks reclaims their cells. The malloc front
//! end, which has no sweep, never leases.

use super::Heap;
use crate::block::{lease_cells_in, Block};
use crate::config::BLOCK_BYTES;
use crate::bounds::MAX_ADOPT;
use crate::size_class::{bin_bytes, BIN_COUNT};
use std::ptr::{self, NonNull};

impl Heap {
    /// Step 2 under `Adopt::Lease` (and `Adopt::Headroom` below a block's worth): pops abandoned
    /// blocks of the bin (at most [`MAX_ADOPT`]); the first with a free cell gives a lease of at
    /// most `pages` pages' worth of cells and goes back to its stack (unless the lease took its
    /// last free cell), and the lease's first cell is returned. A block without a free cell is
    /// adopted whole into the queue (noted if it can extend, else full), as `adopt_abandoned`
    /// does.
    pub(super) fn lease_cell(
        &mut self,
        bin: usize,
        pages: usize,
        held: &mut super::alloc::Held,
    ) -> Option<NonNull<u8>> {
        debug_assert!(self.leases[bin].free.is_null());
        for _ in 0..MAX_ADOPT {
            crate::steps::add(1);
            let b = self.shared.adopt(bin)?;
            // SAFETY: popping the block from its stack made us its exclusive holder, as an
            // adopter; until we push it back no other heap can reach it.
            unsafe {
                (*b).collect();
                if (*b).has_free() || self.list_unlisted(b) {
                    let (cells, n) = (*b).take_prefix(lease_cells_in(bin, pages));
                    debug_assert!(n > 0 && (*b).is_valid());
                    if (*b).has_free() || (*b).has_unlisted() {
                        // Back on its stack unchanged but for the lease: still abandoned.
                        self.shared.abandoned[bin].push(b);
                    } else {
                        // The lease took its last free cell: adopted whole, as below, so that
                        // the next heap does not spend one of its pops on it (a remote free
                        // since the collect leaves it queued with a cell: found next time).
                        self.adopt_whole(b, held);
                    }
                    self.leases[bin].free = cells;
                    // The fast path counts pops in `used`; restarting it keeps it ≤ a lease.
                    self.leases[bin].used = 0;
                    self.set_direct(bin);
                    let cell = self.leases[bin].pop();
                    return NonNull::new(cell);
                }
                // Without a free cell: adopted whole (queued with a cell if a remote free came
                // since the collect, found by the next slow path).
                self.adopt_whole(b, held);
            }
        }
        crate::steps::limited(crate::steps::Limit::Adopt);
        None
    }

    /// The block the fast path of `bin` pops from: the lease while it has a cell, else the
    /// queue's first block, else the empty block.
    #[inline]
    pub(super) fn current(&mut self, bin: usize) -> *mut Block {
        if !self.leases[bin].free.is_null() {
            return &mut self.leases[bin];
        }
        let first = self.queues[bin].first;
        if first.is_null() {
            crate::block::empty_block()
        } else {
            first
        }
    }

    /// Drops every lease (a sweep, or the thread's exit): the cells not handed out stay
    /// counted as allocated in their blocks until a sweep finds them unmarked.
    pub(super) fn clear_leases(&mut self) {
        for bin in 1..BIN_COUNT {
            self.leases[bin].free = ptr::null_mut();
        }
    }

    /// Bytes of leased cells not yet handed out (stop-the-world, or the owner): cells that
    /// count as allocated in their blocks (the footprint's `dead`) but that this heap holds.
    pub fn leased_bytes(&self) -> usize {
        let mut bytes = 0;
        for bin in 1..BIN_COUNT {
            let mut c = self.leases[bin].free;
            let mut n = 0;
            // A lease is at most a block's cells (the bound only guards the walk).
            while !c.is_null() && n < BLOCK_BYTES / bin_bytes(bin) {
                n += 1;
                // SAFETY: a lease lists cells of live blocks, each holding its link.
                c = unsafe { (*c).next };
            }
            bytes += n * bin_bytes(bin);
        }
        bytes
    }
}
