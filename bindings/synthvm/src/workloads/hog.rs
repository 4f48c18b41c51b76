//! `hog`: one thread allocates ~7 KiB arrays and keeps them all, while the other threads wait
//! for it (GC-safe, as Java threads blocked on a monitor are) and wake now and then to allocate
//! a little. The pattern of the OpenJDK livelock (issue 11): at a heap just too small, the
//! hog's request for a fresh block of 7 KiB cells needs its header page and the two pages of its
//! first cells; if the header page fits but the cells' pages do not, the request must still end
//! in out of memory after an emergency collection, not loop over GCs that free nothing. With a
//! heap large enough the run passes.
//!
//! Sizes: the hog keeps 1 MiB (small), 12 MiB (default) or 48 MiB (large) of arrays of 7184
//! bytes (the size a C1 `new_type_array` asked for in the JVM report), linked in a list.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::{Params, Workload};
use crate::object::{self, Kind};
use crate::rng::Rng;
use crate::runtime::Mu;

/// Bytes per array, header included (as in the JVM report).
pub const ARRAY_BYTES: usize = 7184;

pub struct Hog {
    p: Params,
    arrays: u64,
    /// The hog has finished: the other threads stop waiting.  A bare signal (it publishes no
    /// data: the waiters read nothing the hog wrote), so every access is `Relaxed`.
    done: AtomicBool,
}

impl Hog {
    pub fn new(p: Params) -> Hog {
        let kib: u64 = p.size.pick(1 << 10, 12 << 10, 48 << 10);
        Hog {
            arrays: kib * 1024 / ARRAY_BYTES as u64,
            p,
            done: AtomicBool::new(false),
        }
    }
}

impl Workload for Hog {
    fn boot(&mut self, _mu: &Mu) -> Result<(), String> {
        Ok(())
    }

    fn run_thread(&self, mu: &Mu, tid: usize, iter: usize) -> Result<(), String> {
        if tid == 0 {
            // Relaxed: see `done`.
            self.done.store(false, Ordering::Relaxed);
            let mut r = Rng::derive(self.p.seed, 0x7086 + iter as u64, 0);
            let head = mu.push_opt(None);
            let mut hashes = Vec::with_capacity(self.arrays as usize);
            for _ in 0..self.arrays {
                let h = r.next_u64();
                // One reference (the list link) and the rest a primitive payload.
                let a = mu.alloc(Kind::Plain, 1, ARRAY_BYTES - object::HEADER_BYTES - 8, h);
                mu.write_ref(a, 0, mu.get_opt(head));
                mu.set(head, Some(a));
                hashes.push(h);
                mu.poll();
            }
            // Check the list: every array alive, newest first.
            let mut o = mu.get_opt(head);
            for (i, &h) in hashes.iter().enumerate().rev() {
                let a = o.ok_or_else(|| format!("hog: array {} lost", i))?;
                object::check_object(a)?;
                if object::hash_of(a) != h {
                    return Err(format!(
                        "hog: array {} has hash {:#x}, expected {:#x}",
                        i,
                        object::hash_of(a),
                        h
                    ));
                }
                o = object::load_ref(a, 0);
            }
            mu.truncate(head);
            // Relaxed: see `done`.
            self.done.store(true, Ordering::Relaxed);
        } else {
            let mut r = Rng::derive(self.p.seed, 0x7086_0000 + iter as u64, tid as u64);
            let mut woken = 0u64;
            // Waits GC-safe for the hog, allocating a small object at every wake-up.
            // Relaxed: see `done`.
            while !self.done.load(Ordering::Relaxed) {
                mu.native(|| std::thread::sleep(Duration::from_millis(2)));
                let o = mu.alloc(Kind::Plain, 0, 48, r.next_u64());
                object::check_object(o)?;
                woken += 1;
                if woken > 5_000_000 {
                    return Err("waiter: the hog never finished".into());
                }
            }
        }
        Ok(())
    }

    fn verify(&self, _mu: &Mu, _iter: usize) -> Result<(), String> {
        Ok(())
    }
}
