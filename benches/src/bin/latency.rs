//! Allocation latency percentiles (p50, p99, p99.9, max), as RT-mimalloc reports them: each
//! contender runs the same mixed alloc/free loop on one thread, timing every allocation with
//! the TSC-backed `Instant`. The three run interleaved in one process, several rounds.
//! Run: `cargo run --release -p shardsweep-bench --bin latency [ops]`.

use shardsweep_bench::{contenders, size_of_draw};
use std::alloc::Layout;
use std::time::Instant;

fn main() {
    let ops: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let rounds = 3;
    let mut all: Vec<(&str, Vec<u64>)> = contenders()
        .into_iter()
        .map(|(n, _)| (n, Vec::new()))
        .collect();
    for _ in 0..rounds {
        for (i, (_, a)) in contenders().into_iter().enumerate() {
            let mut seed = 0xABCDEFu64;
            let window = 1000;
            let mut ring: Vec<(*mut u8, Layout)> = Vec::with_capacity(window);
            let mut lat = Vec::with_capacity(ops);
            for k in 0..ops {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let l = Layout::from_size_align(size_of_draw(seed), 8).unwrap();
                let t0 = Instant::now();
                // SAFETY: non-zero size.
                let p = unsafe { a.alloc(l) };
                lat.push(t0.elapsed().as_nanos() as u64);
                // SAFETY: at least one byte.
                unsafe { *p = 1 };
                if ring.len() < window {
                    ring.push((p, l));
                } else {
                    let (q, ql) = std::mem::replace(&mut ring[k % window], (p, l));
                    // SAFETY: allocated by `a` with `ql`.
                    unsafe { a.dealloc(q, ql) };
                }
            }
            for (q, ql) in ring {
                // SAFETY: as above.
                unsafe { a.dealloc(q, ql) };
            }
            all[i].1.extend(lat);
        }
    }
    println!(
        "{:<12} {:>8} {:>8} {:>8} {:>10}   (ns per allocation, {} allocations x {rounds} rounds)",
        "allocator", "p50", "p99", "p99.9", "max", ops
    );
    for (name, mut v) in all {
        v.sort_unstable();
        let q = |f: f64| v[((v.len() as f64 * f) as usize).min(v.len() - 1)];
        println!(
            "{:<12} {:>8} {:>8} {:>8} {:>10}",
            name,
            q(0.50),
            q(0.99),
            q(0.999),
            v[v.len() - 1]
        );
    }
}
