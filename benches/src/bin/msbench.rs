//! One run of one mimalloc-bench workload on one allocator, in its own process so peak RSS is
//! the allocator's: `msbench <shardsweep|mimalloc|system> <workload> <threads> [scale]`.
//! Prints `allocator workload threads seconds peak_rss_kib`. `scripts/bench-standalone.sh`
//! interleaves the runs.

use shardsweep_bench::contenders;
use shardsweep_bench::msbench::WORKLOADS;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: msbench <allocator> <workload> <threads> [scale]");
        std::process::exit(2);
    }
    let (name, work) = (&args[1], &args[2]);
    let threads: usize = args[3].parse().expect("threads");
    let scale: usize = args.get(4).map_or(1, |s| s.parse().expect("scale"));
    let a = contenders()
        .into_iter()
        .find(|(c, _)| c == name)
        .unwrap_or_else(|| panic!("unknown allocator {name}"))
        .1;
    let w = WORKLOADS
        .iter()
        .find(|(n, _)| n == work)
        .unwrap_or_else(|| panic!("unknown workload {work}"))
        .1;
    let t = Instant::now();
    w(a, threads, scale);
    let secs = t.elapsed().as_secs_f64();
    // Peak RSS of this process image: VmHWM (getrusage's ru_maxrss survives exec, so it would
    // report the launching script's peak when that was larger).
    let hwm = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|st| {
            st.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).map(str::to_owned))
        })
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0);
    println!("{name} {work} {threads} {secs:.4} {hwm}");
}
