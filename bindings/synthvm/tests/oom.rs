//! Heaps that are too small end promptly through MMTk's out-of-memory path: a message
//! containing "Out of memory" and a non-zero status, never a hang or a crash.
mod common;

use std::time::Duration;

fn assert_oom(args: &[&str]) {
    let r = common::synthvm_env(args, &[], Duration::from_secs(30));
    assert!(
        r.status.is_some() && r.status != Some(0),
        "expected a non-zero exit status\n{}",
        r.describe()
    );
    assert_eq!(
        r.status,
        Some(3),
        "expected the OOM exit status 3\n{}",
        r.describe()
    );
    assert!(
        r.stderr.contains("Out of memory"),
        "no OOM message\n{}",
        r.describe()
    );
    assert!(
        !r.stdout.contains("PASSED"),
        "an OOM run must not say PASSED\n{}",
        r.describe()
    );
    assert!(
        r.elapsed < Duration::from_secs(10),
        "OOM took {:?}, expected it within seconds\n{}",
        r.elapsed,
        r.describe()
    );
}

#[test]
fn impossible_heap_every_plan() {
    // 1 MiB cannot even hold the boot-time index.
    for plan in common::PLANS {
        assert_oom(&["--heap", "1", "--plan", plan, "lusearch"]);
    }
}

#[test]
fn impossible_heap_every_workload() {
    for w in ["gcbench", "fragger"] {
        for plan in ["MarkSweep", "SemiSpace", "MarkCompact"] {
            assert_oom(&["--heap", "1", "--plan", plan, "-t", "8", w]);
        }
    }
    let wl = concat!(env!("CARGO_MANIFEST_DIR"), "/workloads/example.wl");
    assert_oom(&["--heap", "1", "--plan", "Immix", "-t", "8", wl]);
}

#[test]
fn too_small_with_many_threads() {
    // 11 MiB holds the default index (one thread passes under these plans, see README.md),
    // but not 48 threads' working sets: the run must fail promptly, not crawl.
    for plan in ["MarkSweep", "GenImmix", "MarkCompact"] {
        assert_oom(&["-Xmx11m", "--plan", plan, "-t", "48", "lusearch"]);
    }
}

#[test]
fn nogc_exhaustion() {
    assert_oom(&["--heap", "8", "--plan", "NoGC", "-t", "8", "lusearch"]);
}
