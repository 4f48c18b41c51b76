//! lusearch-jvm: each mutator's allocation spreads over the size classes as a JVM lusearch
//! query thread's does (experiments/jfr-alloc: 36 classes per MiB, 12% of bytes above 8 KiB),
//! and lusearch's does not; read from `--histogram`'s per-mutator lines.
mod common;

/// (classes per MiB, share of bytes above 8 KiB) of every query mutator.
fn profile(workload: &str) -> Vec<(f64, f64)> {
    let r = common::synthvm(&[
        "--plan",
        "MarkSweep",
        "--heap",
        "96",
        "-t",
        "2",
        "--size",
        "small",
        "--histogram",
        workload,
    ]);
    r.assert_passed();
    let mut v = Vec::new();
    let mut in_table = false;
    for l in r.stderr.lines() {
        if l.starts_with("# per-mutator size classes") {
            in_table = true;
            continue;
        }
        let f: Vec<&str> = l.split_whitespace().collect();
        if in_table && f.len() == 9 && f[0].starts_with("mutator-") {
            v.push((f[4].parse().unwrap(), f[7].parse().unwrap()));
        }
    }
    assert_eq!(v.len(), 2, "two query mutators expected\n{}", r.describe());
    v
}

#[test]
fn jvm_model_spreads_over_classes() {
    for (classes, big) in profile("lusearch-jvm") {
        assert!(
            classes >= 30.0,
            "lusearch-jvm: {} classes per MiB (JVM: 36)",
            classes
        );
        assert!(
            (0.06..=0.2).contains(&big),
            "lusearch-jvm: share above 8 KiB {} (JVM: 0.12)",
            big
        );
    }
    for (classes, big) in profile("lusearch") {
        assert!(classes < 30.0, "lusearch: {} classes per MiB", classes);
        assert!(big < 0.06, "lusearch: share above 8 KiB {}", big);
    }
}
