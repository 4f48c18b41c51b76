//! What a garbage-collecting embedder needs beyond malloc: the abandoned stacks detached in
//! batches (so that GC workers sweep them in parallel while mutator sweeps abandon more blocks
//! onto the same stacks), stop-the-world walks of the abandoned blocks, and the pages of a block
//! that hold allocated cells (for accounting checks).

use crate::block::{Block, SweepResult};
use crate::heap::SweepStats;
use crate::page_mask::PageMask;
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
                match self.sweep_block(b, is_live) {
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

impl Block {
    /// Whether cell `i` is allocated: a cell of an extended page that is on neither `free` nor
    /// `local_free` and not set aside by a sweep (stop-the-world, or the owner; remote frees not
    /// yet collected count as allocated). Returns the bitmap of allocated cells.
    fn allocated_cells(&self) -> [u64; (crate::config::BLOCK_BYTES / 8).div_ceil(64)] {
        const WORDS: usize = (crate::config::BLOCK_BYTES / 8).div_ceil(64);
        let mut listed = [0u64; WORDS];
        for mut c in [self.free, self.local_free] {
            while !c.is_null() {
                if let Some(i) = self.cell_index(c as *const u8) {
                    listed[i / 64] |= 1 << (i % 64);
                }
                // SAFETY: listed cells of a live block hold their link.
                c = unsafe { (*c).next };
            }
        }
        let mut allocated = [0u64; WORDS];
        let mut rest = self.extended.0;
        while rest != 0 {
            let p = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let (first, end) =
                crate::block::cells_starting_in(p, self.cell_size(), self.reserved());
            let end = if self.excluded.contains(p) {
                end - 1
            } else {
                end
            };
            for i in first..end {
                if listed[i / 64] & (1 << (i % 64)) == 0 {
                    allocated[i / 64] |= 1 << (i % 64);
                }
            }
        }
        allocated
    }

    /// The pages in which an allocated cell starts. Work: O(cells in the block).
    pub fn allocated_start_pages(&self) -> PageMask {
        let a = self.allocated_cells();
        let mut pages = PageMask::EMPTY;
        for i in 0..self.reserved() {
            if a[i / 64] & (1 << (i % 64)) != 0 {
                pages = pages.union(PageMask::page(
                    (crate::config::HEADER_BYTES + i * self.cell_size())
                        >> crate::config::LOG_PAGE_BYTES,
                ));
            }
        }
        pages
    }

    /// The pages overlapped by allocated cells. Right after a sweep, under page accounting,
    /// `charged() == {page 0} ∪ allocated_pages()` exactly. Work: O(cells in the block).
    pub fn allocated_pages(&self) -> PageMask {
        let a = self.allocated_cells();
        let mut pages = PageMask::EMPTY;
        for i in 0..self.reserved() {
            if a[i / 64] & (1 << (i % 64)) != 0 {
                let off = crate::config::HEADER_BYTES + i * self.cell_size();
                pages = pages.union(PageMask::of_range(off, off + self.cell_size()));
            }
        }
        pages
    }

    /// Bytes of allocated cells in each page of the block (a cell that straddles pages counts
    /// the part in each), for footprint reports. Work: O(cells in the block).
    pub fn allocated_bytes_per_page(&self) -> [u32; crate::config::PAGES_PER_BLOCK] {
        use crate::config::{HEADER_BYTES, PAGE_BYTES};
        let a = self.allocated_cells();
        let cs = self.cell_size();
        let mut bytes = [0u32; crate::config::PAGES_PER_BLOCK];
        for i in 0..self.reserved() {
            if a[i / 64] & (1 << (i % 64)) != 0 {
                let (mut off, end) = (HEADER_BYTES + i * cs, HEADER_BYTES + (i + 1) * cs);
                while off < end {
                    let page_end = (off / PAGE_BYTES + 1) * PAGE_BYTES;
                    let n = end.min(page_end) - off;
                    bytes[off / PAGE_BYTES] += n as u32;
                    off += n;
                }
            }
        }
        bytes
    }
}
