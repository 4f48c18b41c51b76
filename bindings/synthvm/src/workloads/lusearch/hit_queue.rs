//! The per-query hit queue of `lusearch`.

use crate::object;
use crate::runtime::Mu;

pub(super) const HITS: usize = 100; // the hit queue holds 10 * hitsPerPage, as lusearch asks for

/// The per-query hit queue: a min-heap of ScoreDocs kept in a heap RefArray (rooted in the
/// shadow stack), mirrored by their keys on the Rust side for verification.
pub(super) struct HitQueue {
    pub(super) root: usize,
    pub(super) keys: Vec<u64>,
}

impl HitQueue {
    fn swap(&mut self, mu: &Mu, i: usize, j: usize) {
        self.keys.swap(i, j);
        let arr = mu.get(self.root);
        let a = object::load_ref(arr, i);
        let b = object::load_ref(arr, j);
        mu.write_ref(arr, i, b);
        mu.write_ref(arr, j, a);
    }

    fn sift_up(&mut self, mu: &Mu, mut i: usize) {
        while i > 0 {
            let p = (i - 1) / 2;
            if self.keys[p] <= self.keys[i] {
                break;
            }
            self.swap(mu, p, i);
            i = p;
        }
    }

    fn sift_down(&mut self, mu: &Mu, mut i: usize) {
        let n = self.keys.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let c = if r < n && self.keys[r] < self.keys[l] {
                r
            } else {
                l
            };
            if self.keys[i] <= self.keys[c] {
                break;
            }
            self.swap(mu, i, c);
            i = c;
        }
    }

    pub(super) fn competitive(&self, key: u64) -> bool {
        self.keys.len() < HITS || key > self.keys[0]
    }

    /// Insert a ScoreDoc that is rooted at shadow-stack slot `sd_root`.
    pub(super) fn insert(&mut self, mu: &Mu, sd_root: usize, key: u64) {
        let sd = mu.get(sd_root);
        let arr = mu.get(self.root);
        if self.keys.len() < HITS {
            let i = self.keys.len();
            self.keys.push(key);
            mu.write_ref(arr, i, Some(sd));
            self.sift_up(mu, i);
        } else {
            self.keys[0] = key;
            mu.write_ref(arr, 0, Some(sd));
            self.sift_down(mu, 0);
        }
    }

    pub(super) fn verify(&self, mu: &Mu) -> Result<(), String> {
        let arr = mu.get(self.root);
        object::check_object(arr)?;
        for (i, &k) in self.keys.iter().enumerate() {
            let sd =
                object::load_ref(arr, i).ok_or_else(|| format!("hit queue slot {} is null", i))?;
            object::check_object(sd)?;
            if object::hash_of(sd) != k {
                return Err(format!(
                    "hit queue slot {} holds ScoreDoc {:#x}, expected {:#x}",
                    i,
                    object::hash_of(sd),
                    k
                ));
            }
        }
        Ok(())
    }
}
