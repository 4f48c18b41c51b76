//! Bounded mode with RT-mimalloc-pag's profile (`BoundedSettings::profile`): the profiled size
//! classes' blocks are built whole at initialisation and stay with their class when they empty,
//! so a workload whose peak the profile covers never extends a block at run time, and every
//! allocation's work stays well below the bound that includes an extension. Two threads allocate
//! four size classes, free half of their cells locally and hand the other half to each other
//! (remote frees, blocks emptied remotely and locally, then adopted again). Runs in its own
//! process. Requires `--features step-count`.

use shardsweep::bounds::{ALLOC_STEP_BOUND, EXTEND_STEPS, FREE_STEP_BOUND};
use shardsweep::{os_calls, steps, BoundedSettings, Standalone, BLOCK_BYTES, MAX_SMALL_BYTES};
use std::alloc::Layout;
use std::sync::mpsc;

/// Sizes of the workload (each its own class), small whatever the block size.
fn sizes() -> [usize; 4] {
    [
        16,
        64,
        (MAX_SMALL_BYTES / 32).max(72),
        (MAX_SMALL_BYTES / 8).max(80),
    ]
}

/// Live cells per thread and size at the peak.
const PEAK: usize = 1000;
const ROUNDS: usize = 40;

/// Blocks of `size` that hold `cells` cells, with one block of slack per thread for the cells
/// a thread holds while its partner's frees are in flight.
fn blocks_for(size: usize, cells: usize) -> usize {
    let per_block = (BLOCK_BYTES - 128) / size.next_multiple_of(8);
    cells.div_ceil(per_block) + 4
}

static PROFILE: std::sync::OnceLock<Vec<(usize, usize)>> = std::sync::OnceLock::new();

#[test]
fn a_covering_profile_means_no_extension_at_run_time() {
    // Two threads, each up to 2 × PEAK live cells per size (its own and its partner's in flight).
    let profile = PROFILE.get_or_init(|| {
        sizes()
            .iter()
            .map(|&s| (s, blocks_for(s, 4 * PEAK)))
            .collect()
    });
    let profile: &'static [(usize, usize)] = profile.as_slice();
    Standalone::init_bounded(BoundedSettings::mib(64, 4).with_profile(profile)).unwrap();
    let extended_at_init = steps::extensions();
    assert!(
        extended_at_init > 0,
        "the profile's blocks were not built at initialisation"
    );
    let calls = os_calls();

    let (to_b, from_a) = mpsc::channel::<Vec<(usize, usize)>>();
    let (to_a, from_b) = mpsc::channel::<Vec<(usize, usize)>>();
    let worker = |tx: mpsc::Sender<Vec<(usize, usize)>>,
                  rx: mpsc::Receiver<Vec<(usize, usize)>>| {
        move || {
            let (mut max_alloc, mut max_free, mut nulls) = (0u64, 0u64, 0u64);
            for round in 0..ROUNDS {
                let mut mine = Vec::new();
                for &s in &sizes() {
                    for _ in 0..PEAK {
                        steps::take();
                        let p = Standalone::alloc(Layout::from_size_align(s, 8).unwrap());
                        max_alloc = max_alloc.max(steps::take());
                        nulls += p.is_null() as u64;
                        mine.push((p as usize, s));
                    }
                }
                // Half freed here (in an order that empties blocks), half by the other thread.
                let theirs: Vec<_> = mine.iter().copied().skip(round % 2).step_by(2).collect();
                for (i, &(p, s)) in mine.iter().enumerate() {
                    if i % 2 != round % 2 && p != 0 {
                        steps::take();
                        // SAFETY: allocated above with this layout, freed once.
                        unsafe {
                            Standalone::dealloc(
                                p as *mut u8,
                                Layout::from_size_align(s, 8).unwrap(),
                            )
                        };
                        max_free = max_free.max(steps::take());
                    }
                }
                tx.send(theirs).unwrap();
                for (p, s) in rx.recv().unwrap() {
                    if p != 0 {
                        steps::take();
                        // SAFETY: allocated by the other thread with this layout, freed once.
                        unsafe {
                            Standalone::dealloc(
                                p as *mut u8,
                                Layout::from_size_align(s, 8).unwrap(),
                            )
                        };
                        max_free = max_free.max(steps::take());
                    }
                }
            }
            (max_alloc, max_free, nulls)
        }
    };
    let a = std::thread::spawn(worker(to_b, from_b));
    let b = std::thread::spawn(worker(to_a, from_a));
    let (ra, rb) = (a.join().unwrap(), b.join().unwrap());
    let (max_alloc, max_free, nulls) = (ra.0.max(rb.0), ra.1.max(rb.1), ra.2 + rb.2);
    let runtime_extensions = steps::extensions() - extended_at_init;
    let after = os_calls();
    eprintln!(
        "profile {profile:?}: {extended_at_init} page extensions at init, {runtime_extensions} at \
         run time; max work units: allocation {max_alloc} (bound {ALLOC_STEP_BOUND}, of which \
         {EXTEND_STEPS} for an extension), free {max_free} (bound {FREE_STEP_BOUND})"
    );
    assert_eq!(nulls, 0, "an allocation failed within the profile");
    assert_eq!(
        runtime_extensions, 0,
        "a block was extended at run time despite the profile"
    );
    assert!(max_alloc <= (ALLOC_STEP_BOUND - EXTEND_STEPS) as u64);
    assert!(max_free <= FREE_STEP_BOUND as u64);
    assert_eq!(
        (after.mmap, after.munmap, after.madvise),
        (calls.mmap, calls.munmap, calls.madvise),
        "a system call after the bounded initialisation"
    );
}
