//! A set of the OS pages of one block, as bits of a `u64` (a block has at most 64 pages).

use crate::config::{LOG_PAGE_BYTES, PAGES_PER_BLOCK};

/// Bit `p` is page `p` of a block (byte offsets `p * 4096 .. (p + 1) * 4096`).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
#[repr(transparent)]
pub struct PageMask(pub u64);

impl PageMask {
    /// No page.
    pub const EMPTY: PageMask = PageMask(0);
    /// Every page of a block.
    pub const ALL: PageMask = PageMask(if PAGES_PER_BLOCK == 64 {
        u64::MAX
    } else {
        (1u64 << PAGES_PER_BLOCK) - 1
    });

    /// The pages overlapped by the byte range `start .. end` (offsets within the block).
    #[inline]
    pub const fn of_range(start: usize, end: usize) -> PageMask {
        if end <= start {
            return PageMask::EMPTY;
        }
        let first = start >> LOG_PAGE_BYTES;
        let last = (end - 1) >> LOG_PAGE_BYTES;
        let n = last - first + 1;
        let bits = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        PageMask(bits << first)
    }

    /// The single page `p`.
    #[inline]
    pub const fn page(p: usize) -> PageMask {
        PageMask(1u64 << p)
    }

    /// Number of pages in the set.
    #[inline]
    pub const fn count(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether page `p` is in the set.
    #[inline]
    pub const fn contains(self, p: usize) -> bool {
        self.0 & (1u64 << p) != 0
    }

    /// Whether every page of `other` is in the set.
    #[inline]
    pub const fn covers(self, other: PageMask) -> bool {
        other.0 & !self.0 == 0
    }

    /// The lowest page in the set.
    #[inline]
    pub const fn first(self) -> Option<usize> {
        if self.0 == 0 {
            None
        } else {
            Some(self.0.trailing_zeros() as usize)
        }
    }

    /// Union.
    #[inline]
    pub const fn union(self, o: PageMask) -> PageMask {
        PageMask(self.0 | o.0)
    }

    /// Pages in `self` and not in `o`.
    #[inline]
    pub const fn minus(self, o: PageMask) -> PageMask {
        PageMask(self.0 & !o.0)
    }

    /// Intersection.
    #[inline]
    pub const fn intersect(self, o: PageMask) -> PageMask {
        PageMask(self.0 & o.0)
    }

    /// The pages as maximal runs `(first_page, page_count)`, lowest first.
    pub fn runs(self) -> impl Iterator<Item = (usize, usize)> {
        let mut rest = self.0;
        std::iter::from_fn(move || {
            if rest == 0 {
                return None;
            }
            let first = rest.trailing_zeros() as usize;
            let n = (rest >> first).trailing_ones() as usize;
            rest &= if first + n >= 64 {
                0
            } else {
                !((1u64 << (first + n)) - 1)
            };
            Some((first, n))
        })
    }
}

impl std::fmt::Debug for PageMask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PageMask({:0width$b})", self.0, width = PAGES_PER_BLOCK)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_runs() {
        assert_eq!(PageMask::of_range(0, 1), PageMask(1));
        assert_eq!(PageMask::of_range(4095, 4097), PageMask(0b11));
        assert_eq!(PageMask::of_range(4096, 8192), PageMask(0b10));
        assert_eq!(PageMask::of_range(10, 10), PageMask::EMPTY);
        let m = PageMask(0b1110_0110);
        assert_eq!(m.runs().collect::<Vec<_>>(), vec![(1, 2), (5, 3)]);
        assert_eq!(PageMask(u64::MAX).runs().collect::<Vec<_>>(), vec![(0, 64)]);
        assert_eq!(m.first(), Some(1));
        assert!(m.covers(PageMask(0b0110_0000)));
        assert!(!m.covers(PageMask(0b1)));
        assert_eq!(PageMask::ALL.count(), PAGES_PER_BLOCK);
    }
}
