//! Dead cells a sweep leaves off the lists: the owner lists them a few pages at a time
//! (`Settings::listing_pages`), when it next needs a cell of the block.
//!
//! A sweep that reads the embedder's mark bitmap ([`MarkBitmap`]) lists the dead cells of the
//! block's pages in address order until one page has given the list a cell; the dead cells of
//! the pages after it are only counted (`unlisted_free`), and `list_from` names the first of
//! those pages. Rebuilding the whole list at the GC writes a link into every dead cell, pulling
//! each line of the block into the collector's cache, and the mutator that allocates there pulls
//! it in again; listed by the owner just before it allocates, a page's cells come in once. The
//! marks say which cells are dead until the embedder clears them in bulk before its next trace,
//! and nothing is allocated on an unlisted page meanwhile (its cells are on no list), so the
//! owner reads the same answers the sweep read. The next sweep asks about every cell of the
//! extended pages, listed or not, and starts afresh.
//!
//! Invariants (with those of `block.rs`): `used + |free| + |local_free| + unlisted_free ==
//! capacity`; `unlisted_free > 0` only with `list_from < PAGES_PER_BLOCK`, no set-aside cell
//! (`excluded` empty) and a sweep with the bitmap; the unlisted dead cells all start in extended
//! pages from `list_from` on, and every other cell of those pages is allocated.

use super::{cells_starting_in, Block, MarkBitmap};
use crate::cell::Cell;
use crate::config::{HEADER_BYTES, PAGES_PER_BLOCK};
use std::ptr;

impl Block {
    /// Whether the block holds dead cells a sweep left unlisted.
    #[inline]
    pub fn has_unlisted(&self) -> bool {
        self.unlisted_free > 0
    }

    /// Dead cells a sweep left unlisted.
    #[inline]
    pub fn unlisted_free(&self) -> usize {
        self.unlisted_free as usize
    }

    /// Lists the dead cells of the next unlisted pages that have any, up to `pages` such pages
    /// (in address order, in front of `free`), as `marks` tells them: the bitmap the block's
    /// last sweep read, not cleared since. `zero`: the cells are zeroed first (the space zeroes
    /// what it hands out). Returns whether a cell was listed. Owner only. Work: one mark-bit
    /// read per cell of the pages passed over (at most the block's cells; a page the sweep
    /// deferred has a dead cell, so most calls read `pages` pages).
    pub fn list_unlisted(&mut self, marks: &MarkBitmap, zero: bool, pages: usize) -> bool {
        if self.unlisted_free == 0 {
            return false;
        }
        debug_assert!(marks.serves(self.cell_size()) && self.excluded.is_empty());
        // 0 would list nothing and lose the count: a listing takes one page at least.
        let pages = pages.max(1);
        let cs = self.cell_size();
        let start = self.start() as usize;
        let base = (marks.byte_of)(start);
        let log_granule = marks.log_granule;
        let mut p = self.list_from as usize;
        let mut head: *mut Cell = ptr::null_mut();
        let mut tail: *mut *mut Cell = &mut head;
        let mut n = 0u32;
        let mut listed_pages = 0;
        while p < PAGES_PER_BLOCK && listed_pages < pages && n < u32::from(self.unlisted_free) {
            if !self.extended.contains(p) {
                p += 1;
                continue;
            }
            let (first, end) = cells_starting_in(p, cs, self.reserved());
            let before = n;
            for i in first..end {
                let off = HEADER_BYTES + i * cs;
                let g = off >> log_granule;
                // SAFETY: the block's mark bytes are mapped and consecutive (the bitmap's
                // contract); nobody writes them between a sweep and the next bulk clear, which
                // comes only after every mutator stopped (no owner is listing then).
                let marked = unsafe { *base.add(g / 8) } & (1 << (g % 8)) != 0;
                if marked {
                    continue;
                }
                let c = (start + off) as *mut u8;
                // SAFETY: a dead cell of an unlisted page: on no list, not handed out (nothing
                // allocates on an unlisted page), every page it touches charged (the sweep
                // deferred only pages whose cells are all listable).
                unsafe {
                    if zero {
                        ptr::write_bytes(c, 0, cs);
                    }
                    *tail = c as *mut Cell;
                    tail = &mut (*(c as *mut Cell)).next;
                }
                n += 1;
            }
            crate::steps::add(end - first);
            p += 1;
            if n > before {
                listed_pages += 1;
            }
        }
        if n > 0 {
            // SAFETY: `tail` is the link word of the last cell listed above.
            unsafe { *tail = self.free };
            self.free = head;
            debug_assert!(n <= u32::from(self.unlisted_free));
            self.unlisted_free -= n as u16;
            self.list_from = if self.unlisted_free == 0 { PAGES_PER_BLOCK } else { p } as u8;
            debug_assert!(self.is_valid());
            return true;
        }
        debug_assert!(false, "{} unlisted cells not found from page {}", self.unlisted_free, self.list_from);
        self.unlisted_free = 0;
        self.list_from = PAGES_PER_BLOCK as u8;
        false
    }
}
