//! The block's side of a lease (`heap/lease.rs`, `Adopt::Lease`, `Adopt::Headroom`): the adoption
//! unit as a setting, the size of a lease, and cutting a lease off the front of a block's free
//! list.

use super::Block;
use crate::budget::Headroom;
use crate::cell::Cell;
use crate::config::{PAGES_PER_BLOCK, PAGE_BYTES};
use crate::size_class::bin_bytes;
use std::ptr;

/// What a heap takes from an abandoned block (see `heap/lease.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Adopt {
    /// The whole block, with every free cell (mimalloc's adoption).
    #[default]
    Block,
    /// A lease of at most [`LEASE_BYTES`] of its free cells; the block stays abandoned.
    Lease,
    /// A lease sized by the budget's headroom ([`lease_pages`]): the whole block while the
    /// room left is large, down to a page's worth near the limit.
    Headroom,
}

impl Adopt {
    /// Parses `block` or `lease`.
    pub fn parse(s: &str) -> Result<Adopt, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "block" => Ok(Adopt::Block),
            "lease" => Ok(Adopt::Lease),
            "headroom" => Ok(Adopt::Headroom),
            other => Err(format!(
                "invalid adoption unit {other:?}: valid values are block, lease, headroom"
            )),
        }
    }

    /// The name `parse` takes.
    pub fn name(self) -> &'static str {
        match self {
            Adopt::Block => "block",
            Adopt::Lease => "lease",
            Adopt::Headroom => "headroom",
        }
    }
}

/// The most bytes of cells one lease takes: an OS page, the unit of charging (a 4 KiB block's
/// worth of cells).
pub const LEASE_BYTES: usize = PAGE_BYTES;

/// Cells one lease of `bin` takes at most under `Adopt::Lease` (at least one).
#[inline]
pub const fn lease_cells(bin: usize) -> usize {
    lease_cells_in(bin, 1)
}

/// Cells a lease of `pages` pages' worth of `bin` takes at most (at least one).
#[inline]
pub const fn lease_cells_in(bin: usize, pages: usize) -> usize {
    let n = pages * LEASE_BYTES / bin_bytes(bin);
    if n == 0 {
        1
    } else {
        n
    }
}

/// The size classes a heap is taken to allocate from when nothing was measured (an embedder's
/// estimate of [`Headroom::sharers`] before its first GC: heaps × this). Under the JVM the
/// lusearch stand-in's mutators together charge pages in about 30 classes between two GCs, a
/// handful of them most (`bindings/openjdk/results/mmtk-0.33/footprint-classes`).
pub const LEASE_SHARE_BINS: usize = 16;

/// Pages' worth of cells one lease takes under `Adopt::Headroom`, from the budget's room left:
/// the share of each (heap, size class) pair that draws on it, `pages / sharers`, at least one
/// page; [`PAGES_PER_BLOCK`] (the caller adopts the whole block) while the room would hold a
/// whole block for every pair, and when the budget does not know its room. So while the heap
/// is far from full a heap adopts blocks (mimalloc's way, the fewest slow paths), and as the
/// room shrinks towards the limit the free cells of abandoned blocks are handed out in ever
/// smaller leases, to whichever heap needs them, before anyone charges a page.
pub const fn lease_pages(room: Option<Headroom>) -> usize {
    match room {
        None => PAGES_PER_BLOCK,
        Some(h) => {
            let sharers = if h.sharers == 0 { 1 } else { h.sharers };
            let share = h.pages / sharers;
            if share == 0 {
                1
            } else if share > PAGES_PER_BLOCK {
                PAGES_PER_BLOCK
            } else {
                share
            }
        }
    }
}

impl Block {
    /// Takes up to `max` cells off the front of `free` as a list (null if `free` is empty) and
    /// counts them as handed out (`used`), for a lease (`heap/lease.rs`): the caller hands them
    /// out from its own descriptor. Returns the list and its length. Work: O(`max`) links.
    ///
    /// # Safety
    /// The caller holds the block exclusively (owner, or popped from an abandoned stack).
    pub(crate) unsafe fn take_prefix(&mut self, max: usize) -> (*mut Cell, usize) {
        debug_assert!(max > 0);
        let first = self.free;
        if first.is_null() {
            return (ptr::null_mut(), 0);
        }
        let mut last = first;
        let mut n = 1;
        // SAFETY: cells on `free` are cells of this block whose first word is their link.
        unsafe {
            while n < max && !(*last).next.is_null() {
                last = (*last).next;
                n += 1;
            }
            self.free = (*last).next;
            (*last).next = ptr::null_mut();
        }
        crate::steps::add(n);
        self.used += n as u32;
        (first, n)
    }

    /// Takes the whole of `free` as a lease (`Settings::lease_current`): in O(1) from the
    /// counts when `local_free` is empty (a garbage-collected embedder's blocks, where only
    /// sweeps and extensions list cells: `used + |free| + |local_free| + unlisted_free ==
    /// capacity`, `Block::is_valid`), else by a walk ([`Block::take_prefix`]).
    ///
    /// # Safety
    /// As [`Block::take_prefix`].
    pub(crate) unsafe fn take_all(&mut self) -> (*mut Cell, usize) {
        if self.free.is_null() || !self.local_free.is_null() {
            // SAFETY: per the contract.
            return unsafe { self.take_prefix(usize::MAX) };
        }
        let n = self.capacity() - self.used() - self.unlisted_free();
        debug_assert!(n > 0);
        let first = self.free;
        self.free = ptr::null_mut();
        crate::steps::add(1);
        self.used += n as u32;
        debug_assert!(self.is_valid());
        (first, n)
    }
}
