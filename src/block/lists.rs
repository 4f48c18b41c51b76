//! A block's free lists (mimalloc's sharding): the owner pops from `free` and pushes onto
//! `local_free`; other threads push onto `xthread_free`; a bounded collect brings them together.

use super::Block;
use crate::bounds::MAX_COLLECT;
use crate::cell::Cell;
use std::ptr;

impl Block {
    /// Pops a cell (the fast path's pop, for callers that already hold the block).
    #[inline(always)]
    pub fn pop(&mut self) -> *mut u8 {
        let c = self.free;
        if c.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: a cell on the free list is a cell of this block whose first word is its link; the link is cleared so handed-out cells never expose it.
        unsafe {
            self.free = (*c).next;
            (*c).next = ptr::null_mut();
        }
        self.used += 1;
        c as *mut u8
    }

    /// Frees a cell on the owner thread: onto `local_free`. Returns `true` if the block is now
    /// empty (`used == 0`).
    ///
    /// # Safety
    /// `cell` is an allocated cell of this block, freed once, and the caller owns the block.
    #[inline]
    pub unsafe fn free_local(&mut self, cell: *mut u8) -> bool {
        debug_assert!(
            self.cell_index(cell).is_some(),
            "free of {cell:?}: not a cell start of its block"
        );
        let c = cell as *mut Cell;
        // SAFETY: the caller owns the cell; its first word becomes the link.
        unsafe { (*c).next = self.local_free };
        self.local_free = c;
        debug_assert!(
            self.used > 0,
            "free of {cell:?}: the block has no allocated cell (double free?)"
        );
        self.used -= 1;
        self.used == 0
    }

    /// Moves up to [`MAX_COLLECT`] remote frees (`pending`, then `xthread_free`) into
    /// `local_free` and, if `free` is empty, `local_free` into `free` (mimalloc's
    /// `_mi_page_free_collect`, bounded: RT-mimalloc's concern). Cells beyond the bound stay on
    /// `pending`, counted in `used`, for the next collect. Work: at most `MAX_COLLECT` links plus
    /// one atomic take.
    pub fn collect(&mut self) {
        if self.pending.is_null() {
            self.pending = self.xthread_free.take_all();
        }
        let mut c = self.pending;
        let mut n = 0u32;
        // SAFETY: `pending` holds cells of this block pushed by remote freers, now ours.
        unsafe {
            while !c.is_null() && (n as usize) < MAX_COLLECT {
                let next = (*c).next;
                (*c).next = self.local_free;
                self.local_free = c;
                c = next;
                n += 1;
            }
        }
        self.pending = c;
        if !c.is_null() {
            crate::steps::limited(crate::steps::Limit::Collect);
        }
        crate::steps::add(n as usize + 1);
        debug_assert!(self.used >= n);
        self.used -= n;
        if self.free.is_null() && !self.local_free.is_null() {
            self.free = self.local_free;
            self.local_free = ptr::null_mut();
        }
    }

    /// Collects every remote free (sweeps, thread exit: not on an allocation's path). Work: the
    /// number of cells collected.
    pub fn collect_all(&mut self) {
        loop {
            self.collect();
            if self.pending.is_null() && self.xthread_free.load().head().is_null() {
                return;
            }
        }
    }
}
