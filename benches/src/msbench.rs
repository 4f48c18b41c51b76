//! mimalloc-bench's workloads, written from their published descriptions and command lines
//! (no code copied), each over `&dyn GlobalAlloc` so one binary runs every contender. The
//! parameters are mimalloc-bench's where it has them, with the repetition counts scaled down
//! (named `scale` below) so a run takes well under a second on a loaded 2-core machine.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;

/// The allocator under test.
pub type Alloc = &'static (dyn GlobalAlloc + Sync);

#[inline]
fn rnd(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

#[inline]
fn lay(size: usize) -> Layout {
    Layout::from_size_align(size.max(1), 8).unwrap()
}

#[inline]
fn get(a: Alloc, size: usize) -> *mut u8 {
    // SAFETY: non-zero size.
    let p = unsafe { a.alloc(lay(size)) };
    assert!(!p.is_null());
    // SAFETY: at least one byte; touched so the page is really used.
    unsafe { p.write_volatile(size as u8) };
    p
}

#[inline]
fn put(a: Alloc, p: *mut u8, size: usize) {
    // SAFETY: allocated by `a` with this layout (every caller), freed once.
    unsafe { a.dealloc(p, lay(size)) };
}

/// Send-able pointer.
#[derive(Clone, Copy)]
struct P(usize, usize);

/// larson (`larson 5 8 1000 5000 100 4141 N`: sizes 8–1000, 5000 chunks a thread): each thread
/// frees a random chunk and allocates a new one `rounds × 5000 / 10` times, then hands its chunks
/// to a fresh thread (the next generation frees what the previous allocated).
pub fn larson(a: Alloc, threads: usize, scale: usize) {
    const CHUNKS: usize = 5000;
    let mut arrays: Vec<Vec<P>> = (0..threads)
        .map(|t| {
            let mut s = 4141 + t as u64;
            (0..CHUNKS)
                .map(|_| {
                    let z = 8 + (rnd(&mut s) as usize % 993);
                    P(get(a, z) as usize, z)
                })
                .collect()
        })
        .collect();
    for g in 0..scale {
        let hs: Vec<_> = arrays
            .into_iter()
            .enumerate()
            .map(|(t, mut arr)| {
                thread::spawn(move || {
                    let mut s = (g * 7919 + t * 31 + 1) as u64;
                    for _ in 0..CHUNKS * 10 {
                        let x = rnd(&mut s);
                        let k = (x >> 16) as usize % CHUNKS;
                        put(a, arr[k].0 as *mut u8, arr[k].1);
                        let z = 8 + (x as usize % 993);
                        arr[k] = P(get(a, z) as usize, z);
                    }
                    arr
                })
            })
            .collect();
        arrays = hs.into_iter().map(|h| h.join().unwrap()).collect();
    }
    for p in arrays.into_iter().flatten() {
        put(a, p.0 as *mut u8, p.1);
    }
}

/// xmalloc-test (`xmalloc-test -w N -t 5 -s 64`): N writer threads allocate 64-byte objects in
/// batches and pass them to N reader threads that free them (every free is remote).
pub fn xmalloc(a: Alloc, threads: usize, scale: usize) {
    let per_writer = scale * 100_000;
    let (tx, rx) = mpsc::sync_channel::<Vec<usize>>(4 * threads);
    let rx = Arc::new(Mutex::new(rx));
    let mut hs = Vec::new();
    for _ in 0..threads {
        let tx = tx.clone();
        hs.push(thread::spawn(move || {
            let mut batch = Vec::with_capacity(100);
            for _ in 0..per_writer {
                batch.push(get(a, 64) as usize);
                if batch.len() == 100 {
                    tx.send(std::mem::replace(&mut batch, Vec::with_capacity(100)))
                        .unwrap();
                }
            }
            tx.send(batch).unwrap();
        }));
        let rx = rx.clone();
        hs.push(thread::spawn(move || loop {
            let b = rx.lock().unwrap().recv();
            match b {
                Ok(b) => b.into_iter().for_each(|p| put(a, p as *mut u8, 64)),
                Err(_) => break,
            }
        }));
    }
    drop(tx);
    hs.into_iter().for_each(|h| h.join().unwrap());
}

/// cache-thrash (`cache-thrash N 1000 1 2000000`): each thread 1000 times allocates a 1-byte
/// object, writes it `reps` times and frees it (false sharing if neighbours' objects share a line).
pub fn cache_thrash(a: Alloc, threads: usize, scale: usize) {
    let reps = scale * 1000;
    let hs: Vec<_> = (0..threads)
        .map(|_| {
            thread::spawn(move || {
                for _ in 0..1000 {
                    let p = get(a, 1);
                    for j in 0..reps {
                        // SAFETY: a live 1-byte object.
                        unsafe { p.write_volatile(j as u8) };
                    }
                    put(a, p, 1);
                }
            })
        })
        .collect();
    hs.into_iter().for_each(|h| h.join().unwrap());
}

/// cache-scratch (`cache-scratch N 1000 1 2000000`): the main thread allocates one 1-byte
/// object per thread (neighbours), each thread frees its object, then as cache-thrash (a
/// passive-false-sharing test: a freed neighbour must not be handed out to another thread).
pub fn cache_scratch(a: Alloc, threads: usize, scale: usize) {
    let reps = scale * 1000;
    let objs: Vec<usize> = (0..threads).map(|_| get(a, 1) as usize).collect();
    let hs: Vec<_> = objs
        .into_iter()
        .map(|o| {
            thread::spawn(move || {
                put(a, o as *mut u8, 1);
                for _ in 0..1000 {
                    let p = get(a, 1);
                    for j in 0..reps {
                        // SAFETY: a live 1-byte object.
                        unsafe { p.write_volatile(j as u8) };
                    }
                    put(a, p, 1);
                }
            })
        })
        .collect();
    hs.into_iter().for_each(|h| h.join().unwrap());
}

/// mstress (mimalloc's stress test, `mstress N 50 25`): each thread allocates objects of mostly
/// small random sizes (rarely up to 64× larger), keeps some, frees others at random, and swaps
/// objects through a shared array of slots (so they are freed by another thread); `25 × scale /
/// 10` iterations, each a fresh set of threads.
pub fn mstress(a: Alloc, threads: usize, scale: usize) {
    const SLOTS: usize = 1000;
    let transfer: &'static [AtomicUsize] =
        Box::leak((0..SLOTS).map(|_| AtomicUsize::new(0)).collect());
    let size_of = |x: u64| -> usize {
        let base = 1 + (x as usize % 64) * 8;
        if x % 100 == 0 {
            base * 64
        } else {
            base
        }
    };
    // The slot's object size is stored in its first word.
    for it in 0..(25 * scale / 10).max(1) {
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                thread::spawn(move || {
                    let mut s = (it * 131 + t * 7 + 1) as u64;
                    let mut kept: Vec<P> = Vec::new();
                    for _ in 0..50 * 200 {
                        let x = rnd(&mut s);
                        let z = size_of(x).max(8);
                        let p = get(a, z);
                        // SAFETY: at least 8 bytes, 8-aligned.
                        unsafe { (p as *mut usize).write(z) };
                        match x >> 60 {
                            0..=7 => kept.push(P(p as usize, z)),
                            8..=11 => put(a, p, z),
                            _ => {
                                let k = (x >> 20) as usize % SLOTS;
                                // AcqRel: the object's size word travels with the pointer.
                                let old = transfer[k].swap(p as usize, Ordering::AcqRel);
                                if old != 0 {
                                    // SAFETY: the size word written by its allocator.
                                    let oz = unsafe { (old as *const usize).read() };
                                    put(a, old as *mut u8, oz);
                                }
                            }
                        }
                        if kept.len() > 500 && x % 3 == 0 {
                            let k = (x >> 8) as usize % kept.len();
                            let P(q, qz) = kept.swap_remove(k);
                            put(a, q as *mut u8, qz);
                        }
                    }
                    kept.into_iter()
                        .for_each(|P(q, qz)| put(a, q as *mut u8, qz));
                })
            })
            .collect();
        hs.into_iter().for_each(|h| h.join().unwrap());
    }
    for slot in transfer {
        let old = slot.swap(0, Ordering::Acquire);
        if old != 0 {
            // SAFETY: as above.
            let oz = unsafe { (old as *const usize).read() };
            put(a, old as *mut u8, oz);
        }
    }
}

/// alloc-test (`alloc-test 1` / `alloc-test N`): each thread keeps a pool of objects whose
/// sizes follow a skewed distribution (most 8–64 bytes, some to 1 KiB, few to 8 KiB) and
/// replaces a random one each step (random lifetimes).
pub fn alloc_test(a: Alloc, threads: usize, scale: usize) {
    const POOL: usize = 1 << 14;
    let hs: Vec<_> = (0..threads)
        .map(|t| {
            thread::spawn(move || {
                let mut s = 0xA11C + t as u64;
                let draw = |x: u64| match x % 100 {
                    0..=79 => 8 + (x >> 8) as usize % 57,
                    80..=97 => 64 + (x >> 8) as usize % 961,
                    _ => 1024 + (x >> 8) as usize % 7169,
                };
                let mut pool: Vec<P> = (0..POOL)
                    .map(|_| {
                        let z = draw(rnd(&mut s));
                        P(get(a, z) as usize, z)
                    })
                    .collect();
                for _ in 0..scale * 200_000 {
                    let x = rnd(&mut s);
                    let k = (x >> 40) as usize % POOL;
                    put(a, pool[k].0 as *mut u8, pool[k].1);
                    let z = draw(x);
                    pool[k] = P(get(a, z) as usize, z);
                }
                pool.into_iter().for_each(|P(q, z)| put(a, q as *mut u8, z));
            })
        })
        .collect();
    hs.into_iter().for_each(|h| h.join().unwrap());
}

/// glibc-simple (glibc's bench-malloc-simple): per thread, for each size in 16–512 bytes,
/// allocate a batch of 100 objects then free them all, repeatedly.
pub fn glibc_simple(a: Alloc, threads: usize, scale: usize) {
    let hs: Vec<_> = (0..threads)
        .map(|_| {
            thread::spawn(move || {
                let mut ps = [std::ptr::null_mut::<u8>(); 100];
                for _ in 0..scale * 200 {
                    for z in [16, 32, 64, 128, 256, 512] {
                        for p in ps.iter_mut() {
                            *p = get(a, z);
                        }
                        for p in ps {
                            put(a, p, z);
                        }
                    }
                }
            })
        })
        .collect();
    hs.into_iter().for_each(|h| h.join().unwrap());
}

/// cfrac-like (cfrac factors with a bignum library): many short-lived small objects of 16–80
/// bytes allocated and freed in near-stack order, a few kept long.
pub fn cfrac(a: Alloc, threads: usize, scale: usize) {
    let hs: Vec<_> = (0..threads)
        .map(|t| {
            thread::spawn(move || {
                let mut s = 0xCF + t as u64;
                let mut stack: Vec<P> = Vec::with_capacity(64);
                let mut long: Vec<P> = Vec::new();
                for _ in 0..scale * 1_000_000 {
                    let x = rnd(&mut s);
                    if stack.len() < 8 || (x & 3 != 0 && stack.len() < 64) {
                        let z = 16 + (x >> 8) as usize % 65;
                        stack.push(P(get(a, z) as usize, z));
                    } else {
                        let P(q, z) = stack.pop().unwrap();
                        if x % 997 == 0 {
                            long.push(P(q, z));
                        } else {
                            put(a, q as *mut u8, z);
                        }
                    }
                }
                stack
                    .into_iter()
                    .chain(long)
                    .for_each(|P(q, z)| put(a, q as *mut u8, z));
            })
        })
        .collect();
    hs.into_iter().for_each(|h| h.join().unwrap());
}

/// The workloads by name.
pub const WORKLOADS: &[(&str, fn(Alloc, usize, usize))] = &[
    ("larson", larson),
    ("xmalloc-test", xmalloc),
    ("cache-scratch", cache_scratch),
    ("cache-thrash", cache_thrash),
    ("mstress", mstress),
    ("alloc-test", alloc_test),
    ("glibc-simple", glibc_simple),
    ("cfrac", cfrac),
];
