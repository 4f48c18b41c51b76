//! The block's side of a lease (`heap/lease.rs`, `Adopt::Lease`): the adoption unit as a setting,
//! the size of a lease, and cutting a lease off the front of a block's free list.

use super::Block;
use crate::cell::Cell;
use crate::config::PAGE_BYTES;
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
}

impl Adopt {
    /// Parses `block` or `lease`.
    pub fn parse(s: &str) -> Result<Adopt, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "block" => Ok(Adopt::Block),
            "lease" => Ok(Adopt::Lease),
            other => Err(format!(
                "invalid adoption unit {other:?}: valid values are block, lease"
            )),
        }
    }

    /// The name `parse` takes.
    pub fn name(self) -> &'static str {
        match self {
            Adopt::Block => "block",
            Adopt::Lease => "lease",
        }
    }
}

/// The most bytes of cells one lease takes: an OS page, the unit of charging (a 4 KiB block's
/// worth of cells).
pub const LEASE_BYTES: usize = PAGE_BYTES;

/// Cells one lease of `bin` takes at most (at least one).
#[inline]
pub const fn lease_cells(bin: usize) -> usize {
    let n = LEASE_BYTES / bin_bytes(bin);
    if n == 0 {
        1
    } else {
        n
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

}
