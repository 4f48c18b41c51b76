//! What a garbage-collecting embedder needs beyond malloc: the abandoned stacks detached in
//! batches (so that GC workers sweep them in parallel while mutator sweeps abandon more blocks
//! onto the same stacks), and stop-the-world walks of the abandoned blocks. What a block's pages
//! hold (for accounting checks and footprint reports) is `footprint.rs`.

use crate::block::{Block, SweepResult};
use crate::heap::SweepStats;
use crate::shared::Shared;
use crate::size_class::BIN_COUNT;

/// Abandoned blocks of one bin, detached from the global stack: nobody else can reach them
/// (no heap can adopt them, no later `detach_abandoned` returns them) until
/// [`Shared::sweep_batch`] puts the survivors back.
pub struct AbandonedBatch {
    bin: usize,
    blocks: Vec<*mut Block>,
}

// SAFETY: the batch owns its blocks exclusively (they were popped from the stack); handing it
// to another thread hands over that ownership.
unsafe impl Send for AbandonedBatch {}

impl AbandonedBatch {
    /// The size class.
    pub fn bin(&self) -> usize {
        self.bin
    }
    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }
    /// Whether the batch holds no block.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }
    /// Splits off the blocks after the first `at` into a new batch of the same bin.
    pub fn split_off(&mut self, at: usize) -> AbandonedBatch {
        AbandonedBatch {
            bin: self.bin,
            blocks: self.blocks.split_off(at.min(self.blocks.len())),
        }
    }
}

impl Shared {
    /// Detaches every abandoned block of `bin` (for a stop-the-world sweep: no heap may adopt
    /// concurrently). Blocks abandoned afterwards (e.g. by mutator sweeps running in parallel)
    /// are not in the batch, so a block is never swept twice in one GC.
    pub fn detach_abandoned(&self, bin: usize) -> AbandonedBatch {
        assert!((1..BIN_COUNT).contains(&bin), "invalid bin {bin}");
        let mut blocks = self.abandoned[bin].drain();
        // Oldest first (a stack pops the newest first).
        blocks.reverse();
        AbandonedBatch { bin, blocks }
    }

    /// Sweeps a detached batch (on any thread, concurrently with other batches and with heap
    /// sweeps): empty blocks go back to the source, the rest return to the abandoned stack.
    pub fn sweep_batch(
        &self,
        batch: AbandonedBatch,
        is_live: &mut dyn FnMut(*mut u8) -> bool,
    ) -> SweepStats {
        let mut stats = SweepStats::default();
        for b in batch.blocks {
            stats.blocks += 1;
            // SAFETY: the batch owned the block exclusively.
            unsafe {
                match self.sweep_block(b, is_live, true) {
                    SweepResult::Empty => {
                        stats.released += 1;
                        self.release_block(b);
                    }
                    _ => {
                        stats.live_cells += (*b).used();
                        self.abandoned[batch.bin].push(b);
                    }
                }
            }
        }
        stats
    }

    /// Calls `f` on every abandoned block (stop-the-world: no heap adopts or abandons
    /// concurrently). The stacks are restored in their order.
    pub fn for_each_abandoned(&self, f: &mut dyn FnMut(&Block)) {
        for s in self.abandoned.iter() {
            let v = s.drain();
            for &b in v.iter() {
                // SAFETY: popped blocks are live headers; we push them back unchanged.
                f(unsafe { &*b });
            }
            for b in v.into_iter().rev() {
                // SAFETY: we popped them and push them back unchanged.
                unsafe { s.push(b) };
            }
        }
    }
}
