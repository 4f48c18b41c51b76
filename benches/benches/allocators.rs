//! Criterion benchmarks: the shardsweep core (standalone mode) against real mimalloc (the
//! `mimalloc` crate) and the system allocator, side by side in one run.
//! Run: `cargo bench -p shardsweep-bench --bench allocators` (results: benches/RESULTS.md).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use shardsweep_bench::*;
use std::time::Duration;

fn single_thread_mixed(c: &mut Criterion) {
    let mut g = c.benchmark_group("mixed_single_thread");
    g.throughput(Throughput::Elements(200_000));
    for (name, a) in contenders() {
        g.bench_function(name, |b| b.iter(|| black_box(mixed(a, 200_000, 1000))));
    }
    g.finish();
}

fn cross_thread(c: &mut Criterion) {
    let mut g = c.benchmark_group("producer_consumer_2x2");
    g.throughput(Throughput::Elements(2 * 100_000));
    for (name, a) in contenders() {
        g.bench_function(name, |b| b.iter(|| producer_consumer(a, 1, 100_000)));
    }
    g.finish();
}

fn larson_like(c: &mut Criterion) {
    let mut g = c.benchmark_group("larson_2_threads");
    g.throughput(Throughput::Elements(2 * 4 * 50_000));
    for (name, a) in contenders() {
        g.bench_function(name, |b| b.iter(|| larson(a, 2, 1000, 4, 50_000)));
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
    targets = single_thread_mixed, cross_thread, larson_like
}
criterion_main!(benches);
