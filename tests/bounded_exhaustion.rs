//! Bounded mode reports exhaustion instead of asking the OS: past the declared blocks a small
//! allocation returns null, an emptied block is reused (kept resident, not purged), a thread
//! beyond the declared heaps gets null, an empty large class gets null; and no `mmap`,
//! `munmap` or `madvise` happens meanwhile. Also: `SHARDSWEEP_BOUNDED` in the environment turns
//! the mode on at the first allocation (checked in a child process). Runs in its own process.

use shardsweep::{os_calls, BoundedSettings, Standalone, BLOCK_BYTES, MAX_SMALL_BYTES};
use std::alloc::Layout;

const CHILD: &str = "SHARDSWEEP_TEST_BOUNDED_CHILD";

#[test]
fn exhaustion_returns_null_and_memory_is_reused() {
    if std::env::var_os(CHILD).is_some() {
        return; // the child runs `env_turns_bounded_mode_on` only
    }
    // 4 MiB of blocks, 2 heaps (this thread and one more), 1 MiB of large objects.
    Standalone::init_bounded(BoundedSettings::mib(4, 2).with_large_mib(1)).unwrap();
    let calls = os_calls();
    // A small size class whatever the block size (1 KiB with 64 KiB blocks).
    let size = (MAX_SMALL_BYTES / 2).min(1024);
    let l = Layout::from_size_align(size, 8).unwrap();
    let mut cells = Vec::new();
    loop {
        let p = Standalone::alloc(l);
        if p.is_null() {
            break;
        }
        cells.push(p as usize);
        assert!(
            cells.len() <= (4 << 20) / size,
            "more cells than the declared memory holds"
        );
    }
    let blocks = (4 << 20) / BLOCK_BYTES;
    assert!(
        cells.len() >= (blocks - 1) * (BLOCK_BYTES / size - 1),
        "null long before the declared memory was used: {} cells",
        cells.len()
    );
    assert_eq!(Standalone::fresh_blocks_left(), 0);
    // Free everything: emptied blocks are kept (not purged) and serve the next round entirely.
    let n = cells.len();
    for p in cells.drain(..) {
        // SAFETY: allocated above with `l`, freed once.
        unsafe { Standalone::dealloc(p as *mut u8, l) };
    }
    let l2 = Layout::from_size_align(size / 4, 8).unwrap();
    for _ in 0..n {
        let p = Standalone::alloc(l2);
        assert!(
            !p.is_null(),
            "an emptied block was not reused for another size class"
        );
        cells.push(p as usize);
    }
    for p in cells.drain(..) {
        // SAFETY: allocated above with `l2`, freed once.
        unsafe { Standalone::dealloc(p as *mut u8, l2) };
    }
    // Heaps: this thread holds one, a second thread gets the other, a third gets null.
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<usize>();
    let holder = std::thread::spawn(move || {
        let p = Standalone::alloc(l);
        ready_tx.send(p as usize).unwrap();
        rx.recv().unwrap();
        // SAFETY: allocated above with `l`.
        unsafe { Standalone::dealloc(p, l) };
    });
    assert_ne!(ready_rx.recv().unwrap(), 0, "the second declared heap");
    let third = std::thread::spawn(move || Standalone::alloc(l) as usize)
        .join()
        .unwrap();
    assert_eq!(third, 0, "a thread beyond the declared heaps got memory");
    tx.send(()).unwrap();
    holder.join().unwrap();
    // After the holder exited, its heap slot serves a new thread.
    let again = std::thread::spawn(move || {
        let p = Standalone::alloc(l);
        if !p.is_null() {
            // SAFETY: allocated above with `l`.
            unsafe { Standalone::dealloc(p, l) };
        }
        p as usize
    })
    .join()
    .unwrap();
    assert_ne!(again, 0, "an exited thread's heap slot was not reused");
    // Large: 1 MiB over five classes leaves one 256 KiB object; the second is null.
    let big = Layout::from_size_align(200 << 10, 8).unwrap();
    let a = Standalone::alloc(big);
    assert!(!a.is_null());
    assert!(
        Standalone::alloc(big).is_null(),
        "the large pool was not exhausted"
    );
    assert!(Standalone::alloc(Layout::from_size_align(1 << 20, 8).unwrap()).is_null());
    // SAFETY: allocated above with `big`.
    unsafe { Standalone::dealloc(a, big) };
    let b = Standalone::alloc(big);
    assert_eq!(a, b, "a freed large object is reused");
    // SAFETY: as above.
    unsafe { Standalone::dealloc(b, big) };
    let after = os_calls();
    assert_eq!(
        (after.mmap, after.munmap, after.madvise),
        (calls.mmap, calls.munmap, calls.madvise),
        "a system call after the bounded initialisation"
    );
}

#[test]
fn env_turns_bounded_mode_on() {
    if std::env::var_os(CHILD).is_none() {
        // This test again, in a child process with the setting given.
        let child = |setting: &str| {
            std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", "env_turns_bounded_mode_on", "--test-threads=1"])
                .env(CHILD, "1")
                .env("SHARDSWEEP_BOUNDED", setting)
                .output()
                .unwrap()
        };
        let out = child("8,4");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bad = child("8MiB");
        let err = String::from_utf8_lossy(&bad.stderr);
        assert_eq!(bad.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("SHARDSWEEP_BOUNDED=8MiB: invalid declared memory: valid values are"));
        return;
    }
    let p = Standalone::alloc(Layout::from_size_align(64, 8).unwrap());
    assert!(!p.is_null());
    assert!(
        Standalone::is_bounded(),
        "SHARDSWEEP_BOUNDED did not turn bounded mode on"
    );
    assert!(Standalone::fresh_blocks_left() <= (8 << 20) / BLOCK_BYTES);
}
