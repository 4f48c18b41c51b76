//! The `xthread_free` word of a block: the list of cells freed by threads other than the owner,
//! pushed lock-free, taken whole by the owner with one atomic swap; plus mimalloc's two-bit
//! delayed-free state in the low bits (cells are 8-byte aligned, so the bits are free).
//!
//! Delayed free is how a *full* block, which the owner keeps off its search path, tells the
//! owner that it has free cells again: the first remote free after the owner set
//! [`Delay::UseDelayed`] does not push onto the block but onto the owner heap's delayed list
//! (which the owner drains in its slow path), so full blocks are never scanned.

use crate::cell::Cell;
use crate::sync::{AtomicUsize, Ordering};
use std::ptr;

/// The delayed-free state of a block (mimalloc's `mi_delayed_t`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(usize)]
pub enum Delay {
    /// The block is full: the next remote free goes to the owner heap's delayed list.
    UseDelayed = 0,
    /// A remote freer is pushing to the owner heap's delayed list right now; the owner must
    /// wait before abandoning the heap (thread exit only). Other freers push onto the block's
    /// own list meanwhile, keeping the state (they do not wait: the freer on the delayed path
    /// wakes the owner for them, and the owner collects their cells with the block's).
    Freeing = 1,
    /// Normal: remote frees push onto the block's own list.
    NoDelayed = 2,
    /// Never use delayed free (abandoned blocks, GC-managed blocks).
    Never = 3,
}

impl Delay {
    #[inline]
    const fn from_bits(b: usize) -> Delay {
        match b & 3 {
            0 => Delay::UseDelayed,
            1 => Delay::Freeing,
            2 => Delay::NoDelayed,
            _ => Delay::Never,
        }
    }
}

/// A snapshot of the word: a cell pointer and a [`Delay`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Tagged(usize);

impl Tagged {
    #[inline]
    pub fn new(head: *mut Cell, delay: Delay) -> Tagged {
        debug_assert!(head as usize & 3 == 0);
        Tagged(head as usize | delay as usize)
    }
    #[inline]
    pub fn head(self) -> *mut Cell {
        (self.0 & !3) as *mut Cell
    }
    #[inline]
    pub fn delay(self) -> Delay {
        Delay::from_bits(self.0)
    }
}

/// The atomic word. Invariant: the list it heads holds only cells of its block, each counted
/// in the block's `used` (they are still "in use" until the owner collects them).
#[repr(transparent)]
pub struct ThreadFree {
    xword: AtomicUsize,
}

/// What [`ThreadFree::push`] did.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PushOutcome {
    /// The cell is on the block's list.
    Pushed,
    /// The block was full (UseDelayed): the state is now `Freeing`; the caller must push the
    /// cell to the owner heap's delayed list and then call [`ThreadFree::end_delayed_freeing`].
    MustDelay,
}

impl ThreadFree {
    pub fn new(delay: Delay) -> ThreadFree {
        ThreadFree {
            xword: AtomicUsize::new(Tagged::new(ptr::null_mut(), delay).0),
        }
    }

    /// The word of a block that is never freed into (the static empty block).
    #[cfg(not(loom))]
    pub(crate) const fn new_const() -> ThreadFree {
        ThreadFree {
            xword: AtomicUsize::new(Delay::Never as usize),
        }
    }

    /// A snapshot. Relaxed: callers use it only as a hint or re-validate with a CAS.
    #[inline]
    pub fn load(&self) -> Tagged {
        Tagged(self.xword.load(Ordering::Relaxed))
    }

    /// Remote free of `cell` (a cell of this word's block, not on any list).
    ///
    /// # Safety
    /// `cell` must be a cell of this block that is allocated and that no one else frees.
    pub unsafe fn push(&self, cell: *mut Cell) -> PushOutcome {
        // Relaxed load: the CAS below re-validates the value.
        let mut cur = Tagged(self.xword.load(Ordering::Relaxed));
        loop {
            let (next, outcome) = match cur.delay() {
                Delay::UseDelayed => (
                    Tagged::new(cur.head(), Delay::Freeing),
                    PushOutcome::MustDelay,
                ),
                d => {
                    // SAFETY: the caller owns `cell` until the CAS publishes it.
                    unsafe { (*cell).next = cur.head() };
                    (Tagged::new(cell, d), PushOutcome::Pushed)
                }
            };
            // Release on success: the link written into `cell` (and the caller's last writes to
            // it) happen-before the owner's Acquire swap in `take_all`.
            match self.xword.compare_exchange_weak(
                cur.0,
                next.0,
                Ordering::Release,
                Ordering::Relaxed,
            ) {
                Ok(_) => return outcome,
                Err(now) => {
                    crate::steps::retry();
                    cur = Tagged(now)
                }
            }
        }
    }

    /// Ends the `Freeing` state set by a push that returned [`PushOutcome::MustDelay`].
    pub fn end_delayed_freeing(&self) {
        let mut cur = Tagged(self.xword.load(Ordering::Relaxed));
        loop {
            debug_assert_eq!(cur.delay(), Delay::Freeing);
            let next = Tagged::new(cur.head(), Delay::NoDelayed);
            // Release: orders the delayed-list push before the state change that lets the
            // owner abandon the heap (the owner reads the state with Acquire).
            match self.xword.compare_exchange_weak(
                cur.0,
                next.0,
                Ordering::Release,
                Ordering::Relaxed,
            ) {
                Ok(_) => return,
                Err(now) => {
                    crate::steps::retry();
                    cur = Tagged(now)
                }
            }
        }
    }

    /// Takes the whole list (owner only), keeping the delay state. One atomic operation when
    /// there is nothing to take; a CAS loop otherwise (the state bits must survive).
    #[inline]
    pub fn take_all(&self) -> *mut Cell {
        let mut cur = Tagged(self.xword.load(Ordering::Relaxed));
        loop {
            if cur.head().is_null() {
                return ptr::null_mut();
            }
            let next = Tagged::new(ptr::null_mut(), cur.delay());
            // Acquire on success: pairs with the freers' Release pushes, so the links and the
            // cells' contents written before the frees are visible to the owner.
            match self.xword.compare_exchange_weak(
                cur.0,
                next.0,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => return cur.head(),
                Err(now) => {
                    crate::steps::retry();
                    cur = Tagged(now)
                }
            }
        }
    }

    /// Sets the delay state (owner only), waiting out a concurrent `Freeing` (a yield loop: used
    /// only to abandon a heap, at thread exit or stop-the-world). With `override_never == false`,
    /// a block in `Never` stays in `Never`.
    pub fn set_delay(&self, delay: Delay, override_never: bool) {
        let mut cur = Tagged(self.xword.load(Ordering::Acquire));
        loop {
            let old = cur.delay();
            if old == Delay::Freeing {
                // Acquire (above and in the reload) pairs with `end_delayed_freeing`.
                crate::sync::yield_now();
                cur = Tagged(self.xword.load(Ordering::Acquire));
                continue;
            }
            if old == delay || (old == Delay::Never && !override_never) {
                return;
            }
            match self.cas_delay(cur, delay) {
                Ok(()) => return,
                Err(now) => cur = now,
            }
        }
    }

    /// One attempt to move the word from `cur` to the same list head in state `delay` (owner
    /// only): `Err` with the word seen if another thread changed it meanwhile.
    fn cas_delay(&self, cur: Tagged, delay: Delay) -> Result<(), Tagged> {
        let next = Tagged::new(cur.head(), delay);
        // AcqRel: acquire the freers' pushes seen in `cur`, release our state change.
        self.xword
            .compare_exchange_weak(cur.0, next.0, Ordering::AcqRel, Ordering::Acquire)
            .map(|_| ())
            .map_err(Tagged)
    }

    /// Sets the delay state (owner only) without waiting, for allocation and free paths: if a
    /// remote freer is on the delayed path (`Freeing`), a move to `NoDelayed` is left to it (its
    /// `end_delayed_freeing` sets `NoDelayed`) and reported done, and any other move is not made
    /// and reported `false` (the caller keeps the block where it is). A block in `Never` stays
    /// in `Never` unless `override_never`. Work: one compare-exchange plus retries.
    pub fn set_delay_nowait(&self, delay: Delay, override_never: bool) -> bool {
        // Acquire: as in `set_delay`.
        let mut cur = Tagged(self.xword.load(Ordering::Acquire));
        loop {
            let old = cur.delay();
            if old == Delay::Freeing {
                return delay == Delay::NoDelayed;
            }
            if old == delay || (old == Delay::Never && !override_never) {
                return true;
            }
            match self.cas_delay(cur, delay) {
                Ok(()) => return true,
                Err(now) => {
                    crate::steps::retry();
                    cur = now
                }
            }
        }
    }
}
