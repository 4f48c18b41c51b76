//! A lock-free LIFO of blocks (Treiber stack), intrusive through `Block::xstack_next`, with an
//! ABA tag in the head word's low bits: blocks are `BLOCK_BYTES`-aligned (at least 4 KiB), so
//! the low 12 bits of a block address are free for a 12-bit generation count.

use crate::block::Block;
use crate::config::PAGE_BYTES;
use crate::sync::{AtomicUsize, Ordering};
use crossbeam_utils::CachePadded;

const TAG_MASK: usize = PAGE_BYTES - 1;

/// The stack. Requirement on its users: a block popped by one thread may still be read (only
/// its `xstack_next` word) by another thread's racing pop, so block memory must stay mapped for
/// the life of the stack (every `BlockSource` keeps its memory mapped).
pub(crate) struct BlockStack {
    xhead: CachePadded<AtomicUsize>,
}

impl BlockStack {
    pub(crate) const fn new() -> BlockStack {
        BlockStack {
            xhead: CachePadded::new(AtomicUsize::new(0)),
        }
    }

    /// Pushes `block` (not on any stack).
    ///
    /// # Safety
    /// `block` is a live block header that the caller owns and gives up.
    pub(crate) unsafe fn push(&self, block: *mut Block) {
        // SAFETY: forwarded contract; a chain of one block.
        unsafe { self.push_chain(block, block) }
    }

    /// Pushes the chain `first ..= last` (linked through `xstack_next`, `first` on top), in one
    /// compare-exchange.
    ///
    /// # Safety
    /// The blocks are live block headers that the caller owns and gives up, on no stack, and
    /// each one's `xstack_next` but `last`'s points at the next.
    pub(crate) unsafe fn push_chain(&self, first: *mut Block, last: *mut Block) {
        debug_assert_eq!(first as usize & TAG_MASK, 0);
        let mut head = self.xhead.load(Ordering::Relaxed);
        loop {
            // SAFETY: the caller owns the blocks until the CAS publishes them. Relaxed store:
            // published by the Release CAS below.
            unsafe {
                (*last)
                    .xstack_next
                    .store(head & !TAG_MASK, Ordering::Relaxed)
            };
            let new = first as usize | (head.wrapping_add(1) & TAG_MASK);
            // Release: the block's header writes (and the link) happen-before a popper's Acquire.
            match self
                .xhead
                .compare_exchange_weak(head, new, Ordering::Release, Ordering::Relaxed)
            {
                Ok(_) => return,
                Err(now) => {
                    crate::steps::retry();
                    head = now
                }
            }
        }
    }

    /// Pops a block, or `None` if empty.
    pub(crate) fn pop(&self) -> Option<*mut Block> {
        // Acquire: pairs with the pusher's Release, so the header is visible.
        let mut head = self.xhead.load(Ordering::Acquire);
        loop {
            let top = (head & !TAG_MASK) as *mut Block;
            if top.is_null() {
                return None;
            }
            // SAFETY: block memory stays mapped (see the type's doc); if `top` was popped and
            // reused meanwhile, the tag makes the CAS below fail and the value read is dropped.
            let next = unsafe { (*top).xstack_next.load(Ordering::Relaxed) };
            let new = next | (head.wrapping_add(1) & TAG_MASK);
            // Acquire on success: we own `top` and read its header next.
            match self
                .xhead
                .compare_exchange_weak(head, new, Ordering::Acquire, Ordering::Acquire)
            {
                Ok(_) => return Some(top),
                Err(now) => {
                    crate::steps::retry();
                    head = now
                }
            }
        }
    }

    /// Takes every block at once, without allocating: the former top (null if the stack was
    /// empty), the rest linked through `xstack_next` (0 ends the chain). The caller owns them.
    pub(crate) fn take_all(&self) -> *mut Block {
        let mut head = self.xhead.load(Ordering::Relaxed);
        loop {
            if head & !TAG_MASK == 0 {
                return std::ptr::null_mut();
            }
            // The tag moves on, as for a pop: a racing pop's compare-exchange fails.
            let new = head.wrapping_add(1) & TAG_MASK;
            // Acquire on success: every push is a read-modify-write of the head, so this
            // synchronises with all of them (release sequence): the links and headers are visible.
            match self
                .xhead
                .compare_exchange_weak(head, new, Ordering::Acquire, Ordering::Relaxed)
            {
                Ok(_) => return (head & !TAG_MASK) as *mut Block,
                Err(now) => {
                    crate::steps::retry();
                    head = now
                }
            }
        }
    }

    /// Takes every block (for a stop-the-world sweep), as a vector.
    pub(crate) fn drain(&self) -> Vec<*mut Block> {
        let mut v = Vec::new();
        while let Some(b) = self.pop() {
            v.push(b);
        }
        v
    }
}
