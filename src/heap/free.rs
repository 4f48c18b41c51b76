//! Freeing: the owner's fast path (a push on the block's `local_free`), the slow path (zeroed
//! mode, a full block, a remote block), a remote free (a lock-free push on the block's
//! `xthread_free`, or onto the owner heap's delayed list if the block is full), and the
//! owner's bounded drain of its delayed list.

use super::Heap;
use crate::block::{Block, BlockState};
use crate::bounds::MAX_DRAIN;
use crate::cell::Cell;
use crate::sync::Ordering;
use crate::thread_free::PushOutcome;
use std::ptr;

impl Heap {
    /// Frees `p`, a cell returned by some heap of the same instance, from this thread.
    ///
    /// # Safety
    /// `p` was allocated from this instance, is freed once, and is not used afterwards.
    #[inline(always)]
    pub unsafe fn free(&mut self, p: *mut u8) {
        let b = Block::of(p);
        // SAFETY: `p` lies in a live block of this instance (contract).
        unsafe {
            debug_assert!(
                (*b).is_live_header(),
                "shardsweep: free of {p:?}: not a shardsweep block (foreign pointer)"
            );
            debug_assert!(
                (*b).cell_index(p).is_some(),
                "shardsweep: free of {p:?}: not the start of a cell"
            );
            #[cfg(debug_assertions)]
            debug_assert!(
                (*b).xheap.load(Ordering::Relaxed) != self.id() || !is_listed(b, p),
                "shardsweep: double free of {p:?}"
            );
            // The fast path, like mimalloc's: one test that the block is ours and in its queue
            // (Relaxed: only this thread ever stores its own heap into xheap), then a push.
            if (*b).xheap.load(Ordering::Relaxed) == self.id()
                && (*b).state == BlockState::Queued
                && !self.zero_cells
            {
                let c = p as *mut Cell;
                (*c).next = (*b).local_free;
                (*b).local_free = c;
                (*b).used -= 1;
                if (*b).used == 0 {
                    self.block_emptied(b);
                }
                return;
            }
            self.free_slow(b, p);
        }
    }

    /// Frees `p` when the fast path does not apply: zeroed mode, a full block, a remote block.
    #[inline(never)]
    unsafe fn free_slow(&mut self, b: *mut Block, p: *mut u8) {
        // SAFETY: `p` is an allocated cell of the live block `b` (the caller's contract).
        unsafe {
            if self.zero_cells {
                ptr::write_bytes(p, 0, (*b).cell_size());
            }
            if (*b).xheap.load(Ordering::Relaxed) == self.id() {
                self.free_owned(b, p);
            } else {
                Heap::free_remote(b, p);
            }
        }
    }

    /// # Safety: `b` is owned by this heap and `p` an allocated cell of it.
    unsafe fn free_owned(&mut self, b: *mut Block, p: *mut u8) {
        // SAFETY: per the contract.
        unsafe {
            let empty = (*b).free_local(p);
            if (*b).state == BlockState::Full {
                self.unfull(b);
            }
            if empty {
                self.block_emptied(b);
            }
        }
    }

    /// A queued block of this heap just became empty: keep it if it is its bin's current block
    /// (mimalloc's retire delay), give it back otherwise.
    ///
    /// # Safety: `b` is queued in this heap with `used == 0`.
    #[cold]
    unsafe fn block_emptied(&mut self, b: *mut Block) {
        crate::steps::add(1);
        // SAFETY: per the contract.
        unsafe {
            let bin = (*b).bin();
            if self.queues[bin].first != b {
                self.queues[bin].remove(b);
                (*b).collect();
                if (*b).used() == 0 {
                    self.shared.give_up_empty(b);
                } else {
                    self.queues[bin].push_front(b);
                    self.set_direct(bin);
                }
            }
        }
    }

    /// Frees at most [`MAX_DRAIN`] of the cells other threads pushed onto this heap's delayed
    /// list (remote frees into full blocks); the rest wait on `delayed_rest` for the next slow
    /// path. Work: at most `MAX_DRAIN` cells, each O(1) plus the direct slots of its bin.
    pub(super) fn drain_delayed(&mut self) {
        if self.delayed_rest.is_null() {
            // Relaxed check first: the common case is an empty list, one load.
            if self.xdelayed.load(Ordering::Relaxed).is_null() {
                return;
            }
            // Acquire: pairs with the freers' Release pushes.
            self.delayed_rest = self.xdelayed.swap(ptr::null_mut(), Ordering::Acquire);
        }
        let mut c = self.delayed_rest;
        let mut n = 0;
        while !c.is_null() && n < MAX_DRAIN {
            crate::steps::add(1);
            // SAFETY: cells on the delayed list are allocated cells of blocks this heap owns
            // (a heap is only abandoned after every freer left the delayed path, and after
            // `drain_delayed_all`).
            unsafe {
                let next = (*c).next;
                let b = Block::of(c as *const u8);
                self.free_owned(b, c as *mut u8);
                c = next;
            }
            n += 1;
        }
        if !c.is_null() {
            crate::steps::limited(crate::steps::Limit::Drain);
        }
        self.delayed_rest = c;
    }

    /// Frees every delayed cell (sweeps, thread exit: not on an allocation's path).
    pub(super) fn drain_delayed_all(&mut self) {
        loop {
            self.drain_delayed();
            // Relaxed: a hint; the next drain's swap acquires.
            if self.delayed_rest.is_null() && self.xdelayed.load(Ordering::Relaxed).is_null() {
                return;
            }
        }
    }

    /// Frees `p` (a cell of `b`) from a thread that does not own `b`: a lock-free push onto the
    /// block's thread-free list, or, if the block is full, onto its owner heap's delayed list.
    ///
    /// # Safety
    /// `p` is an allocated cell of the live block `b`, freed once.
    pub unsafe fn free_remote(b: *mut Block, p: *mut u8) {
        crate::steps::add(1);
        // SAFETY: per the contract.
        unsafe {
            if (*b).xthread_free.push(p as *mut Cell) == PushOutcome::MustDelay {
                // The state is Freeing: the owner cannot abandon the heap until we end it, so the
                // heap pointer stays valid. Acquire: pairs with `take_ownership`'s Release.
                let heap = (*b).xheap.load(Ordering::Acquire).cast::<Heap>();
                // A block in UseDelayed is in its owner's full list, and the owner clears xheap
                // only after moving the block to Never, which waits for this Freeing to end.
                debug_assert!(!heap.is_null(), "delayed free into an abandoned block");
                let c = p as *mut Cell;
                let mut head = (*heap).xdelayed.load(Ordering::Relaxed);
                loop {
                    (*c).next = head;
                    // Release: the link happens-before the owner's Acquire swap.
                    match (*heap).xdelayed.compare_exchange_weak(
                        head,
                        c,
                        Ordering::Release,
                        Ordering::Relaxed,
                    ) {
                        Ok(_) => break,
                        Err(now) => {
                            crate::steps::retry();
                            head = now
                        }
                    }
                }
                (*b).xthread_free.end_delayed_freeing();
            }
        }
    }
}

/// Whether `p` is on `b`'s free or local-free list (debug double-free check; O(capacity)).
#[cfg(debug_assertions)]
unsafe fn is_listed(b: *mut Block, p: *mut u8) -> bool {
    // SAFETY: owned block; listed cells hold links.
    unsafe {
        for mut c in [(*b).free, (*b).local_free] {
            while !c.is_null() {
                if c as *mut u8 == p {
                    return true;
                }
                c = (*c).next;
            }
        }
    }
    false
}
