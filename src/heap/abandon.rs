//! A heap gives up its blocks (its thread exits): delayed frees stopped and drained, empty
//! blocks back to the source, the rest to the abandoned stacks for other heaps to adopt.

use super::Heap;
use crate::block::empty_block;
use crate::config::DIRECT_SLOTS;
use crate::size_class::BIN_COUNT;
use crate::thread_free::Delay;
use std::iter;

impl Heap {
    /// Gives up every block: empty ones to the source, the rest to the abandoned stacks (a
    /// thread exits). The heap is empty afterwards and may be dropped.
    pub fn abandon_all(&mut self) {
        // Abandoned blocks must be swept: finish a pending lazy sweep first.
        self.finish_sweep();
        // No allocation here: this runs in thread teardown of a standalone global allocator.
        // First stop delayed frees into this heap (waits out freers on the delayed path)...
        for q in self.queues.iter().chain(iter::once(&self.full)) {
            let mut b = q.first;
            while !b.is_null() {
                // SAFETY: owned blocks.
                unsafe {
                    (*b).xthread_free.set_delay(Delay::Never, true);
                    b = (*b).next;
                }
            }
        }
        // ...then take what they delivered.
        self.drain_delayed_all();
        self.direct = [empty_block(); DIRECT_SLOTS];
        // Leased cells not handed out wait for the next sweep of their blocks.
        self.clear_leases();
        for i in 0..=BIN_COUNT {
            loop {
                let b = if i < BIN_COUNT {
                    self.queues[i].pop_front()
                } else {
                    self.full.pop_front()
                };
                if b.is_null() {
                    break;
                }
                // SAFETY: owned blocks, now on no list.
                unsafe {
                    (*b).collect_all();
                    if (*b).used() == 0 {
                        self.shared.give_up_empty(b);
                    } else {
                        self.shared.abandon(b);
                    }
                }
            }
        }
    }
}
