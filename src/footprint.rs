//! What a block's resident pages hold, for accounting checks and footprint reports (a
//! stop-the-world inspection: the caller owns the block or the world is stopped): the cells that
//! are allocated, the pages they overlap, and [`Footprint`], every resident byte of a block in
//! exactly one part.

use crate::block::{cells_starting_in, Block};
use crate::config::{BLOCK_BYTES, HEADER_BYTES, PAGE_BYTES};
use crate::page_mask::PageMask;

/// Where a block's resident bytes are: every byte of every resident page in exactly one field,
/// so the fields add up to `resident().count() × PAGE_BYTES` ([`Footprint::total`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    /// The block header (page 0, up to the first cell).
    pub header: usize,
    /// Bytes of live objects (the oracle's size of each live cell's object), on charged pages.
    pub live: usize,
    /// The rest of live cells on charged pages: size-class rounding.
    pub rounding: usize,
    /// Allocated cells the oracle calls dead: what the coming sweep frees.
    pub dead: usize,
    /// Listed free cells (`free`, `local_free`) on charged pages: fragmentation.
    pub free: usize,
    /// Listed free cells of the block a mutator is filling (its bin's current block): the
    /// untouched tail of what it allocates next.
    pub filling: usize,
    /// Cells on charged pages that are neither listed nor allocated: the part of a cell of a
    /// page not yet extended that overlaps a charged page, or a cell a sweep set aside.
    pub unlisted: usize,
    /// Bytes after the block's last cell, on charged pages.
    pub tail: usize,
    /// Resident pages holding no listed or allocated cell (uncharged by a sweep, not yet
    /// dropped), whole.
    pub idle: usize,
}

impl Footprint {
    /// Every byte counted: equals the block's resident pages × `PAGE_BYTES`.
    pub fn total(&self) -> usize {
        self.header
            + self.live
            + self.rounding
            + self.dead
            + self.free
            + self.filling
            + self.unlisted
            + self.tail
            + self.idle
    }

    /// Adds `other`, field by field.
    pub fn add(&mut self, other: &Footprint) {
        self.header += other.header;
        self.live += other.live;
        self.rounding += other.rounding;
        self.dead += other.dead;
        self.free += other.free;
        self.filling += other.filling;
        self.unlisted += other.unlisted;
        self.tail += other.tail;
        self.idle += other.idle;
    }
}

/// Words of a bitmap with one bit per cell of the smallest size.
const CELL_WORDS: usize = (BLOCK_BYTES / 8).div_ceil(64);
/// A block's cells by index, one bit each.
pub(crate) type CellMap = [u64; CELL_WORDS];

impl Block {
    /// The cells on `free` or `local_free`, by index.
    fn listed_cells(&self) -> CellMap {
        let mut listed = [0u64; CELL_WORDS];
        for mut c in [self.free, self.local_free] {
            while !c.is_null() {
                if let Some(i) = self.cell_index(c as *const u8) {
                    listed[i / 64] |= 1 << (i % 64);
                }
                // SAFETY: listed cells of a live block hold their link.
                c = unsafe { (*c).next };
            }
        }
        listed
    }

    /// The indices of the allocated cells, in address order.
    fn allocated_indices(&self) -> impl Iterator<Item = usize> {
        let a = self.allocated_cells();
        (0..self.reserved()).filter(move |&i| a[i / 64] & (1 << (i % 64)) != 0)
    }

    /// Whether cell `i` is allocated: a cell of an extended page that is on neither `free` nor
    /// `local_free` and not set aside by a sweep (stop-the-world, or the owner; remote frees not
    /// yet collected count as allocated). Returns the bitmap of allocated cells.
    pub(crate) fn allocated_cells(&self) -> CellMap {
        let listed = self.listed_cells();
        let mut allocated = [0u64; CELL_WORDS];
        let mut rest = self.extended.0;
        while rest != 0 {
            let p = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let (first, end) = cells_starting_in(p, self.cell_size(), self.reserved());
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
        self.allocated_indices().fold(PageMask::EMPTY, |pages, i| {
            pages.union(PageMask::page(
                (HEADER_BYTES + i * self.cell_size()) >> crate::config::LOG_PAGE_BYTES,
            ))
        })
    }

    /// The pages overlapped by allocated cells. Right after a sweep, under page accounting,
    /// `charged() == {page 0} ∪ allocated_pages()` exactly. Work: O(cells in the block).
    pub fn allocated_pages(&self) -> PageMask {
        self.allocated_indices().fold(PageMask::EMPTY, |pages, i| {
            let off = HEADER_BYTES + i * self.cell_size();
            pages.union(PageMask::of_range(off, off + self.cell_size()))
        })
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

impl Block {
    /// Splits the block's resident bytes into a [`Footprint`]. `object_bytes` answers for each
    /// allocated cell: `Some(bytes of its object)` if it is live, `None` if it is dead (called
    /// once per allocated cell, in address order). `filling`: the block is a mutator's current
    /// block, whose free cells are what it allocates next. Work: O(cells in the block).
    pub fn footprint(
        &self,
        object_bytes: &mut dyn FnMut(*mut u8) -> Option<usize>,
        filling: bool,
    ) -> Footprint {
        let allocated = self.allocated_cells();
        let listed = self.listed_cells();
        let cs = self.cell_size();
        let charged = self.charged();
        let resident = self.resident();
        let mut f = Footprint {
            idle: resident.minus(charged).count() * PAGE_BYTES,
            ..Footprint::default()
        };
        // Bytes of `lo..hi` on charged pages.
        let on_charged = |lo: usize, hi: usize| -> usize {
            let mut n = 0;
            let mut off = lo;
            while off < hi {
                let page_end = (off / PAGE_BYTES + 1) * PAGE_BYTES;
                let end = hi.min(page_end);
                if charged.contains(off / PAGE_BYTES) {
                    n += end - off;
                }
                off = end;
            }
            n
        };
        f.header = on_charged(0, HEADER_BYTES);
        let cells_end = HEADER_BYTES + self.reserved() * cs;
        f.tail = on_charged(cells_end, BLOCK_BYTES);
        for i in 0..self.reserved() {
            let start = HEADER_BYTES + i * cs;
            let bytes = on_charged(start, start + cs);
            if bytes == 0 && allocated[i / 64] & (1 << (i % 64)) == 0 {
                continue;
            }
            if allocated[i / 64] & (1 << (i % 64)) != 0 {
                match object_bytes(self.cell(i)) {
                    Some(size) => {
                        let live = on_charged(start, start + size.min(cs));
                        f.live += live;
                        f.rounding += bytes - live;
                    }
                    None => f.dead += bytes,
                }
            } else if listed[i / 64] & (1 << (i % 64)) != 0 {
                if filling {
                    f.filling += bytes;
                } else {
                    f.free += bytes;
                }
            } else {
                f.unlisted += bytes;
            }
        }
        debug_assert_eq!(f.total(), resident.count() * PAGE_BYTES);
        f
    }
}

/// The smallest hole sizes [`Block::hole_bytes`] sorts holes by: a hole of at least
/// `HOLE_SIZES[k]` bytes counts in bucket `k` (and every smaller one).
pub const HOLE_SIZES: [usize; 4] = [512, 1024, 2048, 4096];

impl Block {
    /// What the coming sweep leaves free, as holes of contiguous memory (a stop-the-world
    /// inspection before the sweep, `is_live` the sweep's oracle): a hole is a maximal run of
    /// consecutive free cells (listed, or allocated and dead) cut where it crosses a page the
    /// sweep gives back (one no live cell overlaps, under page accounting). Returns the bytes of
    /// free cells on kept pages in holes of at least `HOLE_SIZES[k]` bytes, for each `k`, and
    /// their total (any hole size) last: memory that a request of that size could take if free
    /// memory of a size class served other sizes (as Immix's lines do). Work: O(cells).
    pub fn hole_bytes(&self, is_live: &mut dyn FnMut(*mut u8) -> bool) -> [usize; HOLE_SIZES.len() + 1] {
        let allocated = self.allocated_cells();
        let listed = self.listed_cells();
        let cs = self.cell_size();
        let bit = |m: &CellMap, i: usize| m[i / 64] & (1 << (i % 64)) != 0;
        let mut live = [0u64; CELL_WORDS];
        let mut kept = PageMask::page(0);
        for i in 0..self.reserved() {
            if bit(&allocated, i) && is_live(self.cell(i)) {
                live[i / 64] |= 1 << (i % 64);
                let off = HEADER_BYTES + i * cs;
                kept = kept.union(PageMask::of_range(off, off + cs));
            }
        }
        let mut out = [0usize; HOLE_SIZES.len() + 1];
        let mut close = |hole: &mut usize| {
            for (k, &min) in HOLE_SIZES.iter().enumerate() {
                if *hole >= min {
                    out[k] += *hole;
                }
            }
            out[HOLE_SIZES.len()] += *hole;
            *hole = 0;
        };
        let mut hole = 0usize;
        for i in 0..self.reserved() {
            let free = bit(&listed, i) || (bit(&allocated, i) && !bit(&live, i));
            if !free {
                close(&mut hole);
                continue;
            }
            let (mut off, end) = (HEADER_BYTES + i * cs, HEADER_BYTES + (i + 1) * cs);
            while off < end {
                let page_end = (off / PAGE_BYTES + 1) * PAGE_BYTES;
                let n = end.min(page_end) - off;
                if kept.contains(off / PAGE_BYTES) {
                    hole += n;
                } else {
                    close(&mut hole);
                }
                off += n;
            }
        }
        close(&mut hole);
        out
    }
}
