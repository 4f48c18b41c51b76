//! Systematic concurrency check of the thread-free protocol with loom: every interleaving of
//! remote pushes, the owner's take-all, and the delayed-free state changes.
//! Run: `RUSTFLAGS="--cfg loom" cargo test --release --test loom` (scripts/test-core.sh does).
#![cfg(loom)]

use loom::thread;
use shardsweep::cell::Cell;
use shardsweep::thread_free::{Delay, PushOutcome, ThreadFree};
use std::sync::Arc;

/// Bounded exploration: all interleavings with up to two preemptions (spin-waits on the
/// `Freeing` state would otherwise make the search unbounded).
fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(2);
    b.max_branches = 100_000;
    b.check(f);
}

fn cells(n: usize) -> Vec<usize> {
    (0..n)
        .map(|_| {
            Box::into_raw(Box::new(Cell {
                next: std::ptr::null_mut(),
            })) as usize
        })
        .collect()
}

fn count(mut c: *mut Cell, seen: &mut Vec<usize>) {
    while !c.is_null() {
        seen.push(c as usize);
        // SAFETY: cells of the test, linked by the protocol.
        c = unsafe { (*c).next };
    }
}

/// Two remote freers push while the owner collects: every cell is collected exactly once.
#[test]
fn pushes_and_take_all_lose_nothing() {
    model(|| {
        let tf = Arc::new(ThreadFree::new(Delay::NoDelayed));
        let cs = cells(3);
        let mut hs = Vec::new();
        for &c in &cs[..2] {
            let tf = tf.clone();
            hs.push(thread::spawn(move || {
                // SAFETY: each cell is pushed once.
                assert_eq!(unsafe { tf.push(c as *mut Cell) }, PushOutcome::Pushed);
            }));
        }
        let mut seen = Vec::new();
        count(tf.take_all(), &mut seen);
        // SAFETY: pushed once.
        unsafe { tf.push(cs[2] as *mut Cell) };
        for h in hs {
            h.join().unwrap();
        }
        count(tf.take_all(), &mut seen);
        seen.sort();
        let mut all = cs.clone();
        all.sort();
        assert_eq!(seen, all);
        assert_eq!(tf.load().delay(), Delay::NoDelayed);
    });
}

/// A full block (UseDelayed): a remote freer takes the delayed path and ends it while the owner
/// moves the block to Never; the owner's move waits the freer out, so afterwards no freer is on
/// the delayed path, and the cell is either delivered through the delayed path or on the list.
#[test]
fn delayed_free_handshake() {
    model(|| {
        let tf = Arc::new(ThreadFree::new(Delay::UseDelayed));
        let cs = cells(1);
        let c = cs[0];
        let tf2 = tf.clone();
        let h = thread::spawn(move || {
            // SAFETY: the cell is pushed once.
            match unsafe { tf2.push(c as *mut Cell) } {
                PushOutcome::MustDelay => {
                    tf2.end_delayed_freeing();
                    1usize
                }
                PushOutcome::Pushed => 0,
            }
        });
        tf.set_delay(Delay::Never, true);
        assert_ne!(
            tf.load().delay(),
            Delay::Freeing,
            "owner passed the handshake while a freer was in it"
        );
        let delayed = h.join().unwrap();
        let mut seen = Vec::new();
        count(tf.take_all(), &mut seen);
        assert_eq!(
            seen.len() + delayed,
            1,
            "the cell is delayed or listed, exactly once"
        );
        if delayed == 1 {
            // The freer ended its delayed path after the owner's set: the state it leaves must
            // not be Freeing.
            assert_ne!(tf.load().delay(), Delay::Freeing);
        }
    });
}

/// A full block: while one remote freer is on the delayed path (`Freeing`), another pushes onto
/// the block's own list without waiting (bounded mode: no spin-wait in a free), and the owner's
/// non-waiting move to NoDelayed never overrides `Freeing`: every cell is delivered exactly once
/// (through the delayed path or the list) and the state ends NoDelayed.
#[test]
fn a_free_during_freeing_pushes_without_waiting() {
    model(|| {
        let tf = Arc::new(ThreadFree::new(Delay::UseDelayed));
        let cs = cells(2);
        let mut hs = Vec::new();
        for &c in &cs {
            let tf = tf.clone();
            hs.push(thread::spawn(move || {
                // SAFETY: each cell is pushed once.
                match unsafe { tf.push(c as *mut Cell) } {
                    PushOutcome::MustDelay => {
                        tf.end_delayed_freeing();
                        1usize
                    }
                    PushOutcome::Pushed => 0,
                }
            }));
        }
        // The owner wakes the block without waiting (as `Heap::unfull` does).
        assert!(tf.set_delay_nowait(Delay::NoDelayed, false));
        let delayed: usize = hs.into_iter().map(|h| h.join().unwrap()).sum();
        let mut seen = Vec::new();
        count(tf.take_all(), &mut seen);
        assert!(delayed <= 1, "one freer at most takes the delayed path");
        assert_eq!(seen.len() + delayed, 2, "every cell delivered exactly once");
        assert_eq!(tf.load().delay(), Delay::NoDelayed);
    });
}
