//! Command line contract: DaCapo-like options, one-line usage errors with status 2.
mod common;

use std::time::Duration;

fn assert_usage_error(args: &[&str], needle: &str) {
    let r = common::synthvm(args);
    assert_eq!(
        r.status,
        Some(2),
        "expected exit status 2\n{}",
        r.describe()
    );
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "expected exactly one error line\n{}",
        r.describe()
    );
    assert!(
        lines[0].contains(needle),
        "error line lacks '{}'\n{}",
        needle,
        r.describe()
    );
    assert!(r.stdout.is_empty(), "{}", r.describe());
}

#[test]
fn unknown_plan() {
    assert_usage_error(&["--plan", "Epsilon", "lusearch"], "unknown plan 'Epsilon'");
}

#[test]
fn unknown_plan_in_env() {
    let r = common::synthvm_env(
        &["lusearch"],
        &[("MMTK_PLAN", "Bogus")],
        Duration::from_secs(30),
    );
    assert_eq!(r.status, Some(2), "{}", r.describe());
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.describe());
}

#[test]
fn unknown_workload() {
    assert_usage_error(&["--size", "small", "avrora"], "unknown workload 'avrora'");
}

#[test]
fn unknown_option() {
    assert_usage_error(
        &["--frobnicate", "lusearch"],
        "unknown option '--frobnicate'",
    );
    assert_usage_error(&["-q", "lusearch"], "unknown option '-q'");
}

#[test]
fn bad_values() {
    assert_usage_error(&["-t", "0", "lusearch"], "thread count");
    assert_usage_error(&["-t", "many", "lusearch"], "invalid value");
    assert_usage_error(&["--size", "huge", "lusearch"], "unknown size");
    assert_usage_error(&["--heap", "lots", "lusearch"], "invalid heap size");
    assert_usage_error(&["-Xmx64", "lusearch"], "invalid heap size");
    assert_usage_error(&["lusearch", "gcbench"], "unexpected argument");
    assert_usage_error(&[], "no WORKLOAD");
    assert_usage_error(&["custom"], "--workload-file");
}

#[test]
fn help() {
    let r = common::synthvm(&["--help"]);
    assert_eq!(r.status, Some(0));
    assert!(r.stdout.contains("usage: synthvm"));
}

fn json(r: &common::Run) -> serde_json::Value {
    r.assert_passed();
    serde_json::from_str(r.json_line().expect("no JSON line")).unwrap()
}

#[test]
fn xmx_forms_and_plan_from_env() {
    let r = common::synthvm_env(
        &["-Xmx24m", "--size", "small", "gcbench"],
        &[("MMTK_PLAN", "Immix")],
        Duration::from_secs(60),
    );
    let v = json(&r);
    assert_eq!(v["synthvm"]["plan"], "Immix");
    assert_eq!(v["synthvm"]["heap_bytes"], 24 << 20);
    // --plan beats MMTK_PLAN; -Xmx with g; case-insensitive plan names.
    let r = common::synthvm_env(
        &[
            "-Xmx1g",
            "--plan",
            "marksweep",
            "--size",
            "small",
            "fragger",
        ],
        &[("MMTK_PLAN", "Immix")],
        Duration::from_secs(60),
    );
    let v = json(&r);
    assert_eq!(v["synthvm"]["plan"], "MarkSweep");
    assert_eq!(v["synthvm"]["heap_bytes"], 1u64 << 30);
    let r = common::synthvm(&[
        "--heap=20",
        "--threads=3",
        "--iterations=2",
        "--size=small",
        "--seed=3",
        "fragger",
    ]);
    let v = json(&r);
    assert_eq!(v["synthvm"]["heap_mib"], 20);
    assert_eq!(v["synthvm"]["threads"], 3);
    assert_eq!(v["synthvm"]["iterations"], 2);
}

#[test]
fn gc_threads_from_env() {
    let r = common::synthvm_env(
        &["--heap", "16", "--size", "small", "gcbench"],
        &[("MMTK_THREADS", "1")],
        Duration::from_secs(60),
    );
    assert_eq!(json(&r)["synthvm"]["gc_threads"], 1);
}
