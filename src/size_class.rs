//! Size classes ("bins"), computed by mimalloc's rule (`mi_bin` in mimalloc's `page-queue.c`),
//! never tabled:
//!
//! * word-granular up to 8 words: bin `w` holds cells of `w` words (bin 1 also takes 0 bytes);
//! * above 8 words, four bins per power of two: for `w - 1` with top bit `b`, the bin is
//!   `4b + (the two bits below the top) - 3`, and its cell is the largest size mapping to it.
//!
//! Bin 0 is unused (mimalloc keeps it for the empty queue). The number of bins derives from the
//! block size through [`MAX_SMALL_BYTES`]; with 64 KiB blocks it is 36 (bins 1 ..= 36, cells of
//! 8 B ..= 8 KiB).
//!
//! Internal fragmentation of this rule, for requests above 8 words: at most 20% of the cell
//! (a request of `4·2^k + 1` words gets `5·2^k`), and at most 12.5% on average over all sizes of
//! a bin; the unit tests check both. A worst case of 12.5% would need eight bins per doubling,
//! which is not mimalloc's rule.

use crate::config::{LOG_WORD_BYTES, MAX_SMALL_BYTES, WORD_BYTES};

/// Number of bin slots (bins `1 ..= MAX_BIN`; slot 0 unused).
pub const BIN_COUNT: usize = bin_of_words(MAX_SMALL_BYTES >> LOG_WORD_BYTES) + 1;
/// The largest bin, the one whose cells are [`MAX_SMALL_BYTES`].
pub const MAX_BIN: usize = BIN_COUNT - 1;

const _: () = assert!(
    bin_bytes(MAX_BIN) == MAX_SMALL_BYTES,
    "the largest small size is a bin size"
);
const _: () = assert!(BIN_COUNT <= 64, "bins fit a u64 mask");

/// The bin of a request of `words` machine words (mimalloc's `mi_bin`).
#[inline(always)]
pub const fn bin_of_words(words: usize) -> usize {
    if words <= 1 {
        1
    } else if words <= 8 {
        words
    } else {
        let w = words - 1;
        let b = (usize::BITS - 1 - w.leading_zeros()) as usize; // top bit of w, >= 3
        (b << 2) + ((w >> (b - 2)) & 3) - 3
    }
}

/// The bin of a request of `bytes` bytes (`bytes <= MAX_SMALL_BYTES`).
#[inline(always)]
pub const fn bin_of(bytes: usize) -> usize {
    bin_of_words((bytes + WORD_BYTES - 1) >> LOG_WORD_BYTES)
}

/// Cell size in words of `bin`: the largest word count that maps to it (the inverse of
/// [`bin_of_words`]).
pub const fn bin_words(bin: usize) -> usize {
    if bin <= 8 {
        bin
    } else {
        let b = (bin + 3) >> 2; // top bit of (words - 1)
        let r = (bin + 3) & 3; // the two bits below it
        (5 + r) << (b - 2)
    }
}

/// Cell size in bytes of `bin`.
#[inline(always)]
pub const fn bin_bytes(bin: usize) -> usize {
    bin_words(bin) << LOG_WORD_BYTES
}

/// The smallest bin whose cells hold `bytes` and whose cell size is a multiple of `align`
/// (cells start at multiples of their size past a 128-byte header, so such cells are
/// `align`-aligned for `align <= 128`). `None` if no small bin fits.
pub const fn bin_for_aligned(bytes: usize, align: usize) -> Option<usize> {
    if bytes > MAX_SMALL_BYTES
        || align == 0
        || !align.is_power_of_two()
        || align > crate::config::HEADER_BYTES
    {
        return None;
    }
    let mut bin = bin_of(if bytes == 0 { 1 } else { bytes });
    while bin <= MAX_BIN {
        if bin_bytes(bin) % align == 0 {
            return Some(bin);
        }
        bin += 1;
    }
    None
}

/// Shift of [`CellDivisor`]'s reciprocal: twice the block's log size, so that the quotient is
/// exact for every offset and cell size inside a block (see [`CellDivisor::new`]).
const LOG_DIV_SCALE: u32 = 2 * crate::config::LOG_BLOCK_BYTES as u32;

/// Division of a block offset by a cell size as a multiply and a shift (the sweep's per-live-cell
/// index, `marks.rs`), with `m = floor(2^k / d) + 1` and `k = 2 · LOG_BLOCK_BYTES`.
///
/// Exactness: `n·m / 2^k = n/d + n·e / (d·2^k)` with `e = m·d − 2^k`, `0 < e ≤ d`; the floor is
/// `floor(n/d)` iff `n·e / (d·2^k) < 1/d` at the worst remainder, i.e. `n·e < 2^k`, which holds
/// for `n < BLOCK_BYTES` and `d ≤ BLOCK_BYTES` (`n·e < 2^(2·LOG_BLOCK_BYTES)`). No overflow:
/// `n·m < 2^18 · (2^36 + 1) < 2^64` for the largest blocks (`d = 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellDivisor {
    d: u64,
    m: u64,
}

impl CellDivisor {
    /// The divisor of cells of `cell_size` bytes (`1 ..= BLOCK_BYTES`).
    pub const fn new(cell_size: usize) -> CellDivisor {
        assert!(cell_size >= 1 && cell_size <= crate::config::BLOCK_BYTES);
        CellDivisor { d: cell_size as u64, m: (1u64 << LOG_DIV_SCALE) / cell_size as u64 + 1 }
    }

    /// `(n / d, n % d)` for an offset `n < BLOCK_BYTES`.
    #[inline(always)]
    pub fn div_rem(self, n: usize) -> (usize, usize) {
        debug_assert!(n < crate::config::BLOCK_BYTES);
        let q = (n as u64 * self.m) >> LOG_DIV_SCALE;
        (q as usize, (n as u64 - q * self.d) as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{BLOCK_BYTES, HEADER_BYTES};

    /// mimalloc's `mi_bin`, transcribed independently for the two-way check.
    fn mi_bin_reference(size: usize) -> usize {
        let mut w = size.div_ceil(8);
        if w <= 1 {
            1
        } else if w <= 8 {
            w
        } else {
            w -= 1;
            let b = 63 - w.leading_zeros() as usize;
            ((b << 2) + ((w >> (b - 2)) & 3)) - 3
        }
    }

    #[test]
    fn every_size_maps_to_the_smallest_bin_that_fits() {
        for size in 0..=MAX_SMALL_BYTES {
            let bin = bin_of(size);
            assert_eq!(bin, mi_bin_reference(size), "size {size}");
            assert!((1..=MAX_BIN).contains(&bin), "size {size} -> bin {bin}");
            assert!(bin_bytes(bin) >= size, "size {size} overflows bin {bin}");
            if bin > 1 {
                assert!(
                    bin_bytes(bin - 1) < size,
                    "size {size} fits the smaller bin {}",
                    bin - 1
                );
            }
        }
    }

    #[test]
    fn bin_sizes_increase_and_are_their_own_bin() {
        for bin in 1..=MAX_BIN {
            assert_eq!(bin_of(bin_bytes(bin)), bin);
            assert_eq!(bin_bytes(bin) % 8, 0);
            if bin > 1 {
                assert!(bin_bytes(bin) > bin_bytes(bin - 1));
            }
        }
    }

    #[test]
    fn no_cell_overruns_its_block_and_each_block_holds_eight() {
        for bin in 1..=MAX_BIN {
            let cells = (BLOCK_BYTES - HEADER_BYTES) / bin_bytes(bin);
            // Seven after the header (eight cells' room), or three of the 8 KiB floor and more
            // (`config::MAX_SMALL_BYTES`, 32 KiB blocks).
            let least = if bin_bytes(bin) * 8 > BLOCK_BYTES { 3 } else { 7 };
            assert!(cells >= least, "bin {bin}: {cells} cells");
            assert!(HEADER_BYTES + cells * bin_bytes(bin) <= BLOCK_BYTES);
        }
    }

    #[test]
    fn internal_fragmentation_above_eight_words() {
        let mut total_waste = 0f64;
        let mut n = 0f64;
        for size in 65..=MAX_SMALL_BYTES {
            let cell = bin_bytes(bin_of(size));
            let waste = (cell - size) as f64 / cell as f64;
            assert!(waste < 0.20, "size {size} -> cell {cell}: {waste}");
            // Requests are word-rounded first; fragmentation is measured on word sizes.
            if size % 8 == 0 {
                total_waste += waste;
                n += 1.0;
            }
        }
        let mean = total_waste / n;
        assert!(mean <= 0.125, "mean internal fragmentation {mean}");
    }

    #[test]
    fn aligned_bins() {
        assert_eq!(bin_for_aligned(24, 8), Some(bin_of(24)));
        let b = bin_for_aligned(24, 16).unwrap();
        assert_eq!(bin_bytes(b) % 16, 0);
        assert!(bin_bytes(b) >= 24);
        assert_eq!(bin_for_aligned(MAX_SMALL_BYTES + 1, 8), None);
        assert_eq!(bin_for_aligned(8, 3), None);
        assert_eq!(bin_for_aligned(8, 256), None);
    }

    #[test]
    fn cell_divisor_is_exact_inside_a_block() {
        use crate::config::LOG_BLOCK_BYTES;
        const _: () = assert!(3 * LOG_BLOCK_BYTES < 64, "n·m fits a u64");
        // Every offset for the bins' sizes; for every other word size, the offsets on both
        // sides of each multiple (where a wrong reciprocal first goes wrong) and the last.
        for bin in 1..=MAX_BIN {
            let d = bin_bytes(bin);
            let div = CellDivisor::new(d);
            for n in 0..BLOCK_BYTES {
                assert_eq!(div.div_rem(n), (n / d, n % d), "{n} / {d}");
            }
        }
        for d in (WORD_BYTES..=BLOCK_BYTES).step_by(WORD_BYTES).chain([1, 3, 7, 127]) {
            let div = CellDivisor::new(d);
            let mut q = 0;
            while q * d < BLOCK_BYTES {
                for n in [q * d, q * d + d - 1] {
                    if n < BLOCK_BYTES {
                        assert_eq!(div.div_rem(n), (n / d, n % d), "{n} / {d}");
                    }
                }
                q += 1;
            }
            assert_eq!(div.div_rem(BLOCK_BYTES - 1), ((BLOCK_BYTES - 1) / d, (BLOCK_BYTES - 1) % d));
        }
    }
}
