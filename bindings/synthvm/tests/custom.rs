//! The custom workload from workloads/example.wl (small, --verify) under every plan with 1, 8
//! and 48 mutator threads.
mod common;
plan_tests!(
    &[
        "--workload-file",
        concat!(env!("CARGO_MANIFEST_DIR"), "/workloads/example.wl"),
        "custom"
    ],
    8,
    512
);
