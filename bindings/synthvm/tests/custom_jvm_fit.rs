//! The JVM-fitted lusearch model (workloads/lusearch-jvm-fit.wl: start-up data kept among its
//! garbage, each thread's opening, small and large objects with their own lifetimes), small and
//! with --verify, under every plan with 1, 8 and 48 mutator threads; the kept objects' checksums
//! are checked after the iteration.
mod common;
plan_tests!(
    &[
        "--workload-file",
        concat!(env!("CARGO_MANIFEST_DIR"), "/workloads/lusearch-jvm-fit.wl"),
        "custom"
    ],
    128,
    2048
);
