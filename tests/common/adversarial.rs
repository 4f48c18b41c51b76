//! The adversarial multi-threaded workload of the bounded-mode tests (`tests/bounded.rs`, and
//! `tests/bounded_default_contrast.rs` which runs it in default mode), measuring the work of
//! every allocation and free with the `step-count` counter (`src/steps.rs`).
//!
//! Each wave starts `THREADS` threads (so heaps are made and dropped: their memory goes back to
//! the pool, their blocks are abandoned and adopted by the next wave); each thread, for `ROUNDS`
//! rounds:
//! * allocates cells of every size class in turn (and some aligned ones), writing a tag into
//!   each, and frees a third of them locally, in an order that empties and refills blocks;
//! * fills whole blocks of one size class (a burst of `BURST` cells: its blocks go to the full
//!   list) and hands the whole burst to the next thread, which frees it (remote frees into full
//!   blocks: the delayed-free path, blocks emptied remotely);
//! * sends other cells to the next thread (producer/consumer), and frees what it receives;
//! * allocates and frees one large object of its own class (the large pool).
//!
//! Every freed cell's tag is checked (no cell handed out twice).

use shardsweep::size_class::{bin_bytes, BIN_COUNT};
use shardsweep::{steps, Standalone, MAX_SMALL_BYTES};
use std::alloc::Layout;
use std::sync::mpsc;
use std::thread;

pub const WAVES: usize = 3;
pub const THREADS: usize = 6;
pub const ROUNDS: usize = 60;
/// Cells per burst: more than one block's worth of the smallest cells.
pub const BURST: usize = 9000;

/// What a run saw.
#[derive(Clone, Copy, Debug, Default)]
pub struct Seen {
    pub allocs: u64,
    pub frees: u64,
    pub large_ops: u64,
    pub max_alloc_steps: u64,
    pub max_free_steps: u64,
    pub max_large_steps: u64,
    pub max_retries: u64,
    pub slow_allocs: u64,
    pub nulls: u64,
}

/// What [`Seen::record`] records.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Alloc,
    Free,
}

impl Seen {
    /// Counts one operation of `size` bytes that took `steps` work units and `retries` failed
    /// compare-exchanges: large objects apart from small allocations and frees.
    fn record(&mut self, op: Op, size: usize, steps: u64, retries: u64) {
        if size > MAX_SMALL_BYTES {
            self.large_ops += 1;
            self.max_large_steps = self.max_large_steps.max(steps);
        } else if op == Op::Alloc {
            self.allocs += 1;
            self.max_alloc_steps = self.max_alloc_steps.max(steps);
            self.slow_allocs += (steps > 0) as u64;
        } else {
            self.frees += 1;
            self.max_free_steps = self.max_free_steps.max(steps);
        }
        self.max_retries = self.max_retries.max(retries);
    }

    fn merge(&mut self, o: &Seen) {
        self.allocs += o.allocs;
        self.frees += o.frees;
        self.large_ops += o.large_ops;
        self.max_alloc_steps = self.max_alloc_steps.max(o.max_alloc_steps);
        self.max_free_steps = self.max_free_steps.max(o.max_free_steps);
        self.max_large_steps = self.max_large_steps.max(o.max_large_steps);
        self.max_retries = self.max_retries.max(o.max_retries);
        self.slow_allocs += o.slow_allocs;
        self.nulls += o.nulls;
    }
}

fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

/// A live cell: address, layout, tag.
type Live = (usize, usize, usize, u64);

/// Runs `op` with this thread's step and retry counters reset: (its result, steps, retries).
fn counted<R>(op: impl FnOnce() -> R) -> (R, u64, u64) {
    steps::take();
    steps::retries();
    let out = op();
    let s = steps::take();
    (out, s, steps::retries())
}

fn alloc(seen: &mut Seen, size: usize, align: usize, tag: u64) -> Live {
    let l = Layout::from_size_align(size, align).unwrap();
    let (p, s, r) = counted(|| Standalone::alloc(l));
    seen.record(Op::Alloc, size, s, r);
    if p.is_null() {
        seen.nulls += 1;
        return (0, size, align, tag);
    }
    // SAFETY: a fresh allocation of at least 8 bytes (sizes are at least 8 here).
    unsafe { (p as *mut u64).write_unaligned(tag) };
    (p as usize, size, align, tag)
}

fn free(seen: &mut Seen, (p, size, align, tag): Live) {
    if p == 0 {
        return;
    }
    // SAFETY: a live allocation of at least 8 bytes.
    let got = unsafe { (p as *const u64).read_unaligned() };
    assert_eq!(got, tag, "cell {p:#x} was handed out twice or corrupted");
    let l = Layout::from_size_align(size, align).unwrap();
    // SAFETY: allocated by `Standalone::alloc(l)`, freed once.
    let ((), s, r) = counted(|| unsafe { Standalone::dealloc(p as *mut u8, l) });
    seen.record(Op::Free, size, s, r);
}

fn worker(t: usize, tx: mpsc::Sender<Vec<Live>>, rx: mpsc::Receiver<Vec<Live>>) -> Seen {
    let mut seen = Seen::default();
    let mut seed = 0x9E37_79B9_7F4A_7C15 ^ (t as u64 + 1);
    let mut tag = (t as u64) << 40;
    let mut next_tag = || {
        tag += 1;
        tag
    };
    let mut keep: Vec<Live> = Vec::new();
    for round in 0..ROUNDS {
        // Every size class in turn, plus aligned requests.
        let mut batch = Vec::new();
        for bin in 1..BIN_COUNT {
            let size = bin_bytes(bin).max(8);
            let n = (64 * 1024 / size).clamp(2, 64);
            for _ in 0..n {
                let x = xorshift(&mut seed);
                let align = if x % 7 == 0 { 16 << (x % 4) } else { 8 };
                let size = if x % 3 == 0 {
                    size
                } else {
                    8 + (x as usize >> 8) % size
                };
                batch.push(alloc(&mut seen, size, align, next_tag()));
            }
        }
        // Free a third now (every other block emptied and refilled), keep a third, send a third.
        let mut send = Vec::new();
        for (i, c) in batch.into_iter().enumerate() {
            match (i + round) % 3 {
                0 => free(&mut seen, c),
                1 => keep.push(c),
                _ => send.push(c),
            }
        }
        // Fill whole blocks of one class and hand them to the next thread (remote frees into
        // full blocks).
        let size = bin_bytes(1 + (t * 7 + round * 5) % (BIN_COUNT - 1)).max(8);
        let burst = (BURST * 8 / size).clamp(16, BURST);
        for _ in 0..burst {
            send.push(alloc(&mut seen, size, 8, next_tag()));
        }
        // One large object of this thread's class (at most two threads share a class).
        let large = (16 << 10) << (t % 5);
        let l = alloc(&mut seen, large - 100, 8, next_tag());
        free(&mut seen, l);
        if tx.send(send).is_err() {
            break;
        }
        // Free what the previous thread sent, and some of what we kept (oldest first).
        while let Ok(v) = rx.try_recv() {
            for c in v {
                free(&mut seen, c);
            }
        }
        if keep.len() > 4000 {
            let old: Vec<Live> = keep.drain(..2000).collect();
            for c in old {
                free(&mut seen, c);
            }
        }
    }
    drop(tx);
    for v in rx {
        for c in v {
            free(&mut seen, c);
        }
    }
    // Leave some cells live for the next wave: they are freed remotely into abandoned blocks
    // by the main thread.
    let half = keep.len() / 2;
    let rest = keep.split_off(half);
    for c in keep {
        free(&mut seen, c);
    }
    LEFT.with(|l| l.borrow_mut().extend(rest));
    seen
}

thread_local! {
    static LEFT: std::cell::RefCell<Vec<Live>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs the workload; returns what it saw (every thread's maxima and counts).
pub fn run() -> Seen {
    let mut total = Seen::default();
    let mut carried: Vec<Live> = Vec::new();
    for _wave in 0..WAVES {
        // A ring: thread t sends to thread t + 1.
        let (txs, rxs): (Vec<_>, Vec<_>) =
            (0..THREADS).map(|_| mpsc::channel::<Vec<Live>>()).unzip();
        let mut rxs: Vec<Option<_>> = rxs.into_iter().map(Some).collect();
        let mut hs = Vec::new();
        for t in 0..THREADS {
            let tx = txs[(t + 1) % THREADS].clone();
            let rx = rxs[t].take().unwrap();
            hs.push(thread::spawn(move || {
                let s = worker(t, tx, rx);
                let left = LEFT.with(|l| std::mem::take(&mut *l.borrow_mut()));
                (s, left)
            }));
        }
        drop(txs);
        // Meanwhile the main thread frees, remotely, what the previous wave left live (its
        // threads are gone: their blocks are abandoned, or adopted by this wave).
        let mut main = Seen::default();
        for c in carried.drain(..) {
            free(&mut main, c);
        }
        total.merge(&main);
        for h in hs {
            let (s, left) = h.join().unwrap();
            total.merge(&s);
            carried.extend(left);
        }
    }
    let mut main = Seen::default();
    for c in carried.drain(..) {
        free(&mut main, c);
    }
    total.merge(&main);
    total
}
