//! A small deterministic PRNG (SplitMix64).  Every workload derives all its decisions from
//! `--seed`, the thread id and the work item, so a run is reproducible for a given thread
//! count (and the total work is independent of it).

#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x6A09_E667_F3BC_C909)
    }

    /// An independent stream for (seed, a, b).
    pub fn derive(seed: u64, a: u64, b: u64) -> Rng {
        let mut r = Rng::new(seed);
        r.0 ^= a.wrapping_mul(0xD1B5_4A32_D192_ED03);
        r.next_u64();
        r.0 ^= b.wrapping_mul(0x8CB9_2BA7_2F3D_8DD7);
        r.next_u64();
        r
    }

    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, n).
    #[inline(always)]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in [lo, hi] (inclusive).
    #[inline(always)]
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability p/1000.
    #[inline(always)]
    pub fn permille(&mut self, p: u64) -> bool {
        self.below(1000) < p
    }
}

/// A discrete distribution sampled in O(1)-ish by a cumulative table.
#[derive(Clone, Debug)]
pub struct Weighted<T: Copy> {
    items: Vec<(u64, T)>,
    total: u64,
}

impl<T: Copy> Weighted<T> {
    pub fn new(pairs: &[(u64, T)]) -> Weighted<T> {
        let mut items = Vec::new();
        let mut total = 0;
        for &(w, t) in pairs {
            if w > 0 {
                total += w;
                items.push((total, t));
            }
        }
        assert!(total > 0, "empty distribution");
        Weighted { items, total }
    }

    #[inline]
    pub fn sample(&self, r: &mut Rng) -> T {
        let x = r.below(self.total);
        // Tables are short; a linear scan is as fast as a binary search here.
        for &(c, t) in &self.items {
            if x < c {
                return t;
            }
        }
        self.items[self.items.len() - 1].1
    }
}
