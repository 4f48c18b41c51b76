//! `fragger`: an adversary for size-segregated (mimalloc-style) allocators.
//!
//! Every round, a thread walks all its size classes; for each it allocates a burst of
//! objects (about `burst_bytes` of them, i.e. about one allocator page/block) and keeps only
//! `keep` of them, at random positions in the burst, in its survivor ring; the rest die at
//! once.  Survivors live for `retain` rounds, then are replaced.  So, at any time, each
//! thread pins about `classes * retain` blocks with a handful of live cells each: little live
//! data, many stranded pages, spread over many size classes and threads.  The total number of
//! rounds is fixed and split over the threads.

use super::{share, Params, Size, Workload};
use crate::object::{self, Kind};
use crate::rng::Rng;
use crate::runtime::Mu;

/// Object sizes (bytes, header included): roughly mimalloc's small bins up to 4 KiB.
const ALL_CLASSES: [usize; 31] = [
    16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768,
    896, 1024, 1280, 1536, 1792, 2048, 2560, 3072, 3584, 4096,
];

pub struct Fragger {
    p: Params,
    classes: &'static [usize],
    rounds: u64,
    burst_bytes: usize,
    keep: usize,
    retain: usize,
}

impl Fragger {
    pub fn new(p: Params) -> Fragger {
        let (nclasses, rounds, burst_bytes, keep, retain) = match p.size {
            Size::Small => (16, 400, 16 << 10, 1, 2),
            Size::Default => (31, 2000, 64 << 10, 2, 3),
            Size::Large => (31, 10000, 64 << 10, 4, 4),
        };
        Fragger {
            p,
            classes: &ALL_CLASSES[..nclasses],
            rounds,
            burst_bytes,
            keep,
            retain,
        }
    }
}

impl Workload for Fragger {
    fn boot(&mut self, _mu: &Mu) -> Result<(), String> {
        Ok(())
    }

    fn run_thread(&self, mu: &Mu, tid: usize, iter: usize) -> Result<(), String> {
        let per_round = self.classes.len() * self.keep;
        let slots = per_round * self.retain;
        let mut r = Rng::derive(self.p.seed, 0xF4A6 + iter as u64, tid as u64);
        let ring = mu.alloc(Kind::RefArray, slots, 0, r.next_u64());
        let ring_root = mu.push(ring);
        let mut expect: Vec<u64> = vec![0; slots];
        for (k, round) in share(self.rounds, self.p.threads, tid).enumerate() {
            let mut r = Rng::derive(self.p.seed, 0xF4A6_0000 + iter as u64, round);
            let base = (k % self.retain) * per_round;
            let prev_base = ((k + self.retain - 1) % self.retain) * per_round;
            for (c, &size) in self.classes.iter().enumerate() {
                let n = (self.burst_bytes / size).max(self.keep * 2);
                // Which burst positions survive.
                let mut picks: Vec<usize> =
                    (0..self.keep).map(|_| r.below(n as u64) as usize).collect();
                picks.sort_unstable();
                let nrefs = if size >= 32 && c % 3 == 0 { 1 } else { 0 };
                let payload = size - object::HEADER_BYTES - 8 * nrefs;
                let mut next = 0;
                for i in 0..n {
                    let h = r.next_u64();
                    let o = mu.alloc(Kind::Plain, nrefs, payload, h);
                    while next < self.keep && picks[next] == i {
                        let slot = base + c * self.keep + next;
                        let ring = mu.get(ring_root);
                        if nrefs == 1 {
                            // Point at the same class's survivor of the previous round (an
                            // inter-block pointer), and cut that one's own link so survivors
                            // never form a chain that would keep old rounds alive.
                            let prev = object::load_ref(ring, prev_base + c * self.keep + next);
                            mu.write_ref(o, 0, prev);
                            if let Some(p) = prev {
                                mu.write_ref(p, 0, None);
                            }
                        }
                        mu.write_ref(ring, slot, Some(o));
                        expect[slot] = h;
                        next += 1;
                    }
                }
            }
            // Check this thread's survivors after every round.
            let ring = mu.get(ring_root);
            object::check_object(ring)?;
            for (s, &h) in expect.iter().enumerate() {
                if h == 0 {
                    continue;
                }
                let o = object::load_ref(ring, s)
                    .ok_or_else(|| format!("thread {}: survivor slot {} is null", tid, s))?;
                object::check_object(o).map_err(|e| format!("thread {}: {}", tid, e))?;
                if object::hash_of(o) != h {
                    return Err(format!(
                        "thread {}: survivor slot {} has hash {:#x}, expected {:#x}",
                        tid,
                        s,
                        object::hash_of(o),
                        h
                    ));
                }
            }
            mu.poll();
        }
        mu.truncate(ring_root);
        Ok(())
    }

    fn verify(&self, _mu: &Mu, _iter: usize) -> Result<(), String> {
        Ok(())
    }
}
