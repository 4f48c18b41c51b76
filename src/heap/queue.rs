//! A heap's block lists: the intrusive queue of a bin (and of the full list), and the moves of a
//! block between its bin's queue and the full list (off the search path; remote frees wake it
//! through the delayed list).

use super::Heap;
use crate::block::{Block, BlockState};
use crate::thread_free::Delay;
use std::ptr;

/// An intrusive doubly-linked list of blocks (owner only).
#[derive(Clone, Copy)]
pub(super) struct Queue {
    pub(super) first: *mut Block,
    pub(super) last: *mut Block,
    pub(super) len: usize,
}

impl Queue {
    pub(super) const EMPTY: Queue = Queue {
        first: ptr::null_mut(),
        last: ptr::null_mut(),
        len: 0,
    };

    /// # Safety: `b` is a live block on no list.
    pub(super) unsafe fn push_front(&mut self, b: *mut Block) {
        // SAFETY: the caller owns `b` and the blocks of this queue.
        unsafe {
            (*b).prev = ptr::null_mut();
            (*b).next = self.first;
            if self.first.is_null() {
                self.last = b;
            } else {
                (*self.first).prev = b;
            }
        }
        self.first = b;
        self.len += 1;
    }

    /// # Safety: `b` is on this queue.
    pub(super) unsafe fn remove(&mut self, b: *mut Block) {
        // SAFETY: the caller owns the queue's blocks.
        unsafe {
            let (p, n) = ((*b).prev, (*b).next);
            if p.is_null() {
                self.first = n
            } else {
                (*p).next = n
            }
            if n.is_null() {
                self.last = p
            } else {
                (*n).prev = p
            }
            (*b).next = ptr::null_mut();
            (*b).prev = ptr::null_mut();
        }
        self.len -= 1;
    }

    /// Detaches and returns the first block, or null.
    pub(super) fn pop_front(&mut self) -> *mut Block {
        let b = self.first;
        if !b.is_null() {
            // SAFETY: `b` is on this queue.
            unsafe { self.remove(b) };
        }
        b
    }

    pub(super) fn blocks(&self) -> Vec<*mut Block> {
        let mut v = Vec::with_capacity(self.len);
        let mut b = self.first;
        while !b.is_null() {
            v.push(b);
            // SAFETY: blocks of an owned queue are live.
            b = unsafe { (*b).next };
        }
        v
    }
}

impl Heap {
    /// Moves `b` to the full list, where remote frees wake it through the delayed list. If a
    /// remote freer is still on the delayed path of the block's previous full spell (`Freeing`),
    /// the block stays queued instead (no wait): a later search sees it again.
    ///
    /// # Safety: `b` is queued in this heap.
    pub(super) unsafe fn to_full(&mut self, b: *mut Block) {
        // SAFETY: per the contract.
        unsafe {
            if !(*b).xthread_free.set_delay_nowait(Delay::UseDelayed, false) {
                return;
            }
            let bin = (*b).bin();
            self.queues[bin].remove(b);
            (*b).state = BlockState::Full;
            self.full.push_front(b);
            self.set_direct(bin);
        }
    }

    /// # Safety: `b` is in this heap's full list.
    pub(super) unsafe fn unfull(&mut self, b: *mut Block) {
        // SAFETY: per the contract.
        unsafe {
            self.full.remove(b);
            // Never waits: a freer still in `Freeing` sets NoDelayed itself.
            (*b).xthread_free.set_delay_nowait(Delay::NoDelayed, false);
            (*b).state = BlockState::Queued;
            let bin = (*b).bin();
            // At the back: the current block stays current.
            if self.queues[bin].first.is_null() {
                self.queues[bin].push_front(b);
                self.set_direct(bin);
            } else {
                let q = &mut self.queues[bin];
                (*b).next = ptr::null_mut();
                (*b).prev = q.last;
                (*q.last).next = b;
                q.last = b;
                q.len += 1;
            }
        }
    }
}
