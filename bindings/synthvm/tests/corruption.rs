//! A corrupted object is detected and reported with a non-zero exit status.
mod common;

use std::time::Duration;

#[test]
fn corruption_is_reported() {
    for w in ["lusearch", "gcbench"] {
        let r = common::synthvm_env(
            &["--plan", "MarkSweep", "--heap", "32", "--size", "small", w],
            &[("SYNTHVM_TEST_CORRUPT", "1")],
            Duration::from_secs(60),
        );
        assert_eq!(r.status, Some(1), "{}", r.describe());
        assert!(
            r.stderr.contains("FAILED") && r.stderr.contains("corrupt payload"),
            "{}",
            r.describe()
        );
        assert!(!r.stdout.contains("PASSED"), "{}", r.describe());
    }
}
