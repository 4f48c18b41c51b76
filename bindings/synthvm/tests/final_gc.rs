//! `--final-gc`: after the last iteration a forced full GC, then the used bytes and a census of
//! what is reachable (bytes, objects, distinct (allocating thread, size class) pairs) in the JSON
//! line.  Under MarkSweep and SemiSpace, with workloads/mostly-dead.wl, whose reachable data at
//! the end is known exactly: per thread, 4 kept objects of each of its 27 sizes (every mimalloc
//! bin size from 16 B to 2 KiB) plus the 880-byte array holding them (bin 896, a size already
//! kept), so 27 pairs per thread.
mod common;

use serde_json::Value;

const WL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/workloads/mostly-dead.wl");
const SIZES: [u64; 27] = [
    16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768,
    896, 1024, 1280, 1536, 1792, 2048,
];

fn run(plan: &str, threads: usize, extra: &[&str]) -> Value {
    let t = threads.to_string();
    let mut args = vec![
        "--plan", plan, "--heap", "32", "-t", &t, "--size", "small", "--verify",
    ];
    args.extend_from_slice(extra);
    args.push(WL);
    let r = common::synthvm(&args);
    r.assert_passed();
    let v: Value = serde_json::from_str(r.json_line().expect("no JSON line"))
        .expect("JSON line does not parse");
    v["synthvm"].clone()
}

fn u(s: &Value, k: &str) -> u64 {
    s[k].as_u64()
        .unwrap_or_else(|| panic!("field {} missing or not a number: {}", k, s))
}

#[test]
fn final_gc_census_marksweep_and_semispace() {
    let kept_per_thread = 16 + 8 * 4 * SIZES.len() as u64 + 4 * SIZES.iter().sum::<u64>();
    let mut census = Vec::new();
    for plan in ["MarkSweep", "SemiSpace"] {
        for threads in [1usize, 8] {
            let s = run(plan, threads, &["--final-gc"]);
            let t = threads as u64;
            assert_eq!(s["final_gc"], true, "{}", s);
            let (used, live) = (u(&s, "final_gc_used_bytes"), u(&s, "final_gc_live_bytes"));
            assert_eq!(
                live,
                t * kept_per_thread,
                "{} t{}: live bytes {}",
                plan,
                t,
                s
            );
            assert_eq!(u(&s, "final_gc_live_small_bytes"), live, "{}", s);
            assert_eq!(
                u(&s, "final_gc_live_objects"),
                t * (1 + 4 * SIZES.len() as u64),
                "{}",
                s
            );
            assert_eq!(
                u(&s, "final_gc_live_classes"),
                t * SIZES.len() as u64,
                "{} t{}: {}",
                plan,
                t,
                s
            );
            assert!(u(&s, "final_gc_small_limit") >= 2048, "{}", s);
            // The final GC ran (counted in gc_count) and the used bytes after it cover the live data.
            assert!(u(&s, "gc_count") >= 1, "{}", s);
            assert!(
                used >= live,
                "{} t{}: used {} < live {}",
                plan,
                t,
                used,
                live
            );
            census.push((
                u(&s, "final_gc_live_bytes"),
                u(&s, "final_gc_live_classes"),
                threads,
            ));
        }
    }
    // The census depends on the workload and the thread count, not on the plan.
    assert_eq!(census[0], census[2]);
    assert_eq!(census[1], census[3]);
}

#[test]
fn final_gc_fields_are_null_without_the_option_and_work_for_other_workloads() {
    let s = run("MarkSweep", 2, &[]);
    assert_eq!(s["final_gc"], false, "{}", s);
    for k in [
        "final_gc_used_bytes",
        "final_gc_live_bytes",
        "final_gc_live_objects",
        "final_gc_live_classes",
    ] {
        assert!(
            s[k].is_null(),
            "{} should be null without --final-gc: {}",
            k,
            s
        );
    }
    // lusearch: the shared index (main thread) and the published results (query threads) survive.
    let r = common::synthvm(&[
        "--plan",
        "SemiSpace",
        "--heap",
        "32",
        "-t",
        "4",
        "--size",
        "small",
        "--final-gc",
        "lusearch",
    ]);
    r.assert_passed();
    let v: Value = serde_json::from_str(r.json_line().unwrap()).unwrap();
    let s = &v["synthvm"];
    assert!(
        u(s, "final_gc_live_bytes") > 0 && u(s, "final_gc_live_objects") > 0,
        "{}",
        s
    );
    assert!(u(s, "final_gc_live_classes") > 0, "{}", s);
    assert!(
        u(s, "final_gc_used_bytes") >= u(s, "final_gc_live_small_bytes"),
        "{}",
        s
    );
}
