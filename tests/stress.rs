//! Multi-threaded stress with cross-thread frees: producers allocate cells of many sizes with a
//! recognisable pattern and hand them to consumers on other threads, who verify and free them
//! (remote frees through `xthread_free` and the delayed-free path); every thread also frees some
//! of its own cells locally. Any corruption or double hand-out shows as a pattern mismatch.

use shardsweep::{Standalone, MAX_SMALL_BYTES};
use std::alloc::Layout;
use std::sync::mpsc;
use std::thread;

fn fill(p: *mut u8, size: usize, tag: u64) {
    // SAFETY: `p` is a fresh allocation of `size` bytes.
    let s = unsafe { std::slice::from_raw_parts_mut(p, size) };
    for (i, b) in s.iter_mut().enumerate() {
        *b = (tag as usize).wrapping_mul(31).wrapping_add(i) as u8;
    }
}

fn check(p: *mut u8, size: usize, tag: u64) {
    // SAFETY: `p` is a live allocation of `size` bytes.
    let s = unsafe { std::slice::from_raw_parts(p, size) };
    for (i, &b) in s.iter().enumerate() {
        assert_eq!(
            b,
            (tag as usize).wrapping_mul(31).wrapping_add(i) as u8,
            "cell {p:?} byte {i} corrupted"
        );
    }
}

fn size_for(x: u64) -> usize {
    match x % 16 {
        0 => 1 + (x as usize >> 8) % MAX_SMALL_BYTES,
        1..=3 => 1 + (x as usize >> 8) % 1024,
        _ => 1 + (x as usize >> 8) % 128,
    }
}

fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

#[test]
fn producers_consumers_cross_thread_frees() {
    const PAIRS: usize = 4;
    const PER_PRODUCER: usize = 40_000;
    let mut handles = Vec::new();
    for t in 0..PAIRS {
        let (tx, rx) = mpsc::sync_channel::<(usize, usize, u64)>(1024);
        handles.push(thread::spawn(move || {
            let mut seed = 0x1234_5678_9abc_def0 ^ (t as u64 + 1);
            let mut local = Vec::new();
            for i in 0..PER_PRODUCER {
                let x = xorshift(&mut seed);
                let size = size_for(x);
                let layout = Layout::from_size_align(size, 8).unwrap();
                let p = Standalone::alloc(layout);
                assert!(!p.is_null());
                let tag = x ^ i as u64;
                fill(p, size, tag);
                if x % 3 == 0 {
                    local.push((p as usize, size, tag));
                    if local.len() > 256 {
                        let (q, s, g) = local.swap_remove((x as usize >> 3) % local.len());
                        check(q as *mut u8, s, g);
                        // SAFETY: allocated above with this layout, freed once.
                        unsafe {
                            Standalone::dealloc(
                                q as *mut u8,
                                Layout::from_size_align(s, 8).unwrap(),
                            )
                        };
                    }
                } else {
                    tx.send((p as usize, size, tag)).unwrap();
                }
            }
            for (q, s, g) in local {
                check(q as *mut u8, s, g);
                // SAFETY: as above.
                unsafe {
                    Standalone::dealloc(q as *mut u8, Layout::from_size_align(s, 8).unwrap())
                };
            }
        }));
        handles.push(thread::spawn(move || {
            // Keep a window of received cells alive so frees interleave with the producer's
            // allocations into the same blocks (and blocks go full and wake up).
            let mut window = std::collections::VecDeque::new();
            for (p, size, tag) in rx {
                window.push_back((p, size, tag));
                if window.len() > 512 {
                    let (q, s, g) = window.pop_front().unwrap();
                    check(q as *mut u8, s, g);
                    // SAFETY: allocated by the producer with this layout, freed once.
                    unsafe {
                        Standalone::dealloc(q as *mut u8, Layout::from_size_align(s, 8).unwrap())
                    };
                }
            }
            for (q, s, g) in window {
                check(q as *mut u8, s, g);
                // SAFETY: as above.
                unsafe {
                    Standalone::dealloc(q as *mut u8, Layout::from_size_align(s, 8).unwrap())
                };
            }
        }));
    }
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn aligned_and_large_requests() {
    for &(size, align) in &[
        (24usize, 16usize),
        (100, 64),
        (4000, 128),
        (MAX_SMALL_BYTES + 1, 8),
        (1 << 20, 4096),
        (300, 256),
    ] {
        let layout = Layout::from_size_align(size, align).unwrap();
        let p = Standalone::alloc(layout);
        assert!(!p.is_null());
        assert_eq!(p as usize % align, 0, "size {size} align {align}");
        fill(p, size, 7);
        check(p, size, 7);
        // SAFETY: allocated above with this layout.
        unsafe { Standalone::dealloc(p, layout) };
    }
}

#[test]
fn thread_exit_abandons_and_others_free() {
    // A thread allocates and exits (its heap abandons the blocks); the main thread frees the
    // cells afterwards as a foreign thread.
    let cells = thread::spawn(|| {
        (0..5000usize)
            .map(|i| {
                let size = 8 + (i % 200);
                let p = Standalone::alloc(Layout::from_size_align(size, 8).unwrap());
                fill(p, size, i as u64);
                (p as usize, size)
            })
            .collect::<Vec<_>>()
    })
    .join()
    .unwrap();
    for (i, &(p, s)) in cells.iter().enumerate() {
        check(p as *mut u8, s, i as u64);
        // SAFETY: allocated above with this layout, freed once.
        unsafe { Standalone::dealloc(p as *mut u8, Layout::from_size_align(s, 8).unwrap()) };
    }
}
