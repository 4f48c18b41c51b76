//! One contender on the producer→consumer workload (every free cross-thread), for instruction
//! counting: `valgrind --tool=callgrind target/release/xthread <shardsweep|mimalloc|system> [n]`.

use shardsweep_bench::{contenders, producer_consumer};

fn main() {
    let name = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "shardsweep".into());
    let n: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_000);
    let Some((_, a)) = contenders().into_iter().find(|(c, _)| *c == name) else {
        eprintln!(
            "xthread: unknown allocator {name:?}: valid values are shardsweep, mimalloc, system"
        );
        std::process::exit(2);
    };
    producer_consumer(a, 1, n);
    println!("{name}: done");
}
