//! One contender on the single-thread mixed workload, for instruction counting:
//! `valgrind --tool=callgrind target/release/mixed <shardsweep|mimalloc|system> [ops]`.
//! Instruction counts are repeatable whatever else the machine runs (see benches/RESULTS.md).

use shardsweep_bench::{contenders, mixed};

fn main() {
    let name = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "shardsweep".into());
    let ops: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let Some((_, a)) = contenders().into_iter().find(|(n, _)| *n == name) else {
        eprintln!(
            "mixed: unknown allocator {name:?}: valid values are shardsweep, mimalloc, system"
        );
        std::process::exit(2);
    };
    println!("{name}: checksum {}", mixed(a, ops, 1000));
}
