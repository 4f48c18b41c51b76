//! The workloads shared by the criterion benches and the latency binary. Each takes the
//! allocator as `&dyn GlobalAlloc`, so the three contenders run the same code in one process.

pub mod msbench;

use std::alloc::{GlobalAlloc, Layout};
use std::sync::mpsc;
use std::thread;

/// The contenders, by name.
pub fn contenders() -> Vec<(&'static str, &'static (dyn GlobalAlloc + Sync))> {
    static SS: shardsweep::ShardSweepAlloc = shardsweep::ShardSweepAlloc;
    static MI: mimalloc::MiMalloc = mimalloc::MiMalloc;
    static SYS: std::alloc::System = std::alloc::System;
    vec![("shardsweep", &SS), ("mimalloc", &MI), ("system", &SYS)]
}

#[inline]
fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

/// Sizes drawn like small-object-heavy programs: mostly 8–128 bytes, some up to 1 KiB, rare 4 KiB.
#[inline]
pub fn size_of_draw(x: u64) -> usize {
    match x % 32 {
        0 => 1 + (x as usize >> 8) % 4096,
        1..=5 => 1 + (x as usize >> 8) % 1024,
        _ => 8 + (x as usize >> 8) % 120,
    }
}

/// Single-thread mixed sizes: a ring of `window` live objects; each step frees the oldest and
/// allocates a new one. Returns a checksum so the work is not optimised away.
pub fn mixed(a: &dyn GlobalAlloc, ops: usize, window: usize) -> usize {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut ring: Vec<(*mut u8, Layout)> = Vec::with_capacity(window);
    let mut sum = 0usize;
    for i in 0..ops {
        let l = Layout::from_size_align(size_of_draw(xorshift(&mut seed)), 8).unwrap();
        // SAFETY: non-zero size.
        let p = unsafe { a.alloc(l) };
        // SAFETY: fresh allocation of at least 1 byte.
        unsafe { *p = i as u8 };
        sum = sum.wrapping_add(p as usize & 0xff);
        if ring.len() < window {
            ring.push((p, l));
        } else {
            let k = i % window;
            let (q, ql) = std::mem::replace(&mut ring[k], (p, l));
            // SAFETY: allocated by `a` with `ql`.
            unsafe { a.dealloc(q, ql) };
        }
    }
    for (q, ql) in ring {
        // SAFETY: as above.
        unsafe { a.dealloc(q, ql) };
    }
    sum
}

/// xmalloc-test-like: `pairs` producer threads allocate, consumer threads free (every free is
/// cross-thread).
pub fn producer_consumer(a: &'static (dyn GlobalAlloc + Sync), pairs: usize, per_producer: usize) {
    let mut hs = Vec::new();
    for t in 0..pairs {
        let (tx, rx) = mpsc::sync_channel::<Vec<(usize, usize)>>(64);
        hs.push(thread::spawn(move || {
            let mut seed = 0x1234_5678u64 + t as u64;
            let mut batch = Vec::with_capacity(256);
            for _ in 0..per_producer {
                let s = size_of_draw(xorshift(&mut seed));
                // SAFETY: non-zero size.
                let p = unsafe { a.alloc(Layout::from_size_align(s, 8).unwrap()) };
                batch.push((p as usize, s));
                if batch.len() == 256 {
                    tx.send(std::mem::replace(&mut batch, Vec::with_capacity(256)))
                        .unwrap();
                }
            }
            tx.send(batch).unwrap();
        }));
        hs.push(thread::spawn(move || {
            for batch in rx {
                for (p, s) in batch {
                    // SAFETY: allocated by `a` with this layout, freed once.
                    unsafe { a.dealloc(p as *mut u8, Layout::from_size_align(s, 8).unwrap()) };
                }
            }
        }));
    }
    for h in hs {
        h.join().unwrap();
    }
}

/// larson-like: each thread keeps an array of slots; each step frees a random slot and refills
/// it; every round, threads hand their arrays to the next thread (so frees are often remote).
pub fn larson(
    a: &'static (dyn GlobalAlloc + Sync),
    threads: usize,
    slots: usize,
    rounds: usize,
    steps: usize,
) {
    let mut arrays: Vec<Vec<(usize, usize)>> = (0..threads)
        .map(|t| {
            let mut seed = 77 + t as u64;
            (0..slots)
                .map(|_| {
                    let s = size_of_draw(xorshift(&mut seed));
                    // SAFETY: non-zero size.
                    (
                        unsafe { a.alloc(Layout::from_size_align(s, 8).unwrap()) } as usize,
                        s,
                    )
                })
                .collect()
        })
        .collect();
    for r in 0..rounds {
        let hs: Vec<_> = arrays
            .into_iter()
            .enumerate()
            .map(|(t, mut arr)| {
                thread::spawn(move || {
                    let mut seed = (r * 1000 + t + 1) as u64;
                    for _ in 0..steps {
                        let x = xorshift(&mut seed);
                        let k = (x as usize >> 4) % arr.len();
                        let (p, s) = arr[k];
                        // SAFETY: allocated with this layout, freed once.
                        unsafe { a.dealloc(p as *mut u8, Layout::from_size_align(s, 8).unwrap()) };
                        let s = size_of_draw(x);
                        // SAFETY: non-zero size.
                        arr[k] = (
                            unsafe { a.alloc(Layout::from_size_align(s, 8).unwrap()) } as usize,
                            s,
                        );
                    }
                    arr
                })
            })
            .collect();
        arrays = hs.into_iter().map(|h| h.join().unwrap()).collect();
        arrays.rotate_left(1);
    }
    for arr in arrays {
        for (p, s) in arr {
            // SAFETY: as above.
            unsafe { a.dealloc(p as *mut u8, Layout::from_size_align(s, 8).unwrap()) };
        }
    }
}
