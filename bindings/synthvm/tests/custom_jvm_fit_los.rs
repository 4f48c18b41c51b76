//! The JVM-fitted lusearch model refitted to the JVM's per-GC figures, the large-object space's
//! included (workloads/lusearch-jvm-fit-los.wl: arrays of 64 and 128 KiB kept per thread and from
//! start-up, a larger opening per thread), small and with --verify, under every plan with 1, 8
//! and 48 mutator threads; the kept objects' checksums are checked after the iteration.
mod common;
plan_tests!(
    &[
        "--workload-file",
        concat!(env!("CARGO_MANIFEST_DIR"), "/workloads/lusearch-jvm-fit-los.wl"),
        "custom"
    ],
    128,
    2048
);
