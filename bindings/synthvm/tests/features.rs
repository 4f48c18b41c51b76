//! The JSON line's `features` name `mmtk/shardsweep` exactly when the mmtk crate synthvm links
//! has the shardsweep space (`--features mmtk/shardsweep`).  The witness is the space itself,
//! not synthvm: under SHARDSWEEP_PRINT_SETTINGS=1 the space prints its settings when the
//! MarkSweep plan creates it; stock MarkSweep prints nothing.  Holds in either build: the
//! project's test command runs it without the feature, and with it as
//! `cargo test --release --features mmtk/shardsweep --test features`.
mod common;

use std::time::Duration;

#[test]
fn mmtk_shardsweep_reported_iff_the_space_is_built_in() {
    let r = common::synthvm_env(
        &[
            "--plan",
            "MarkSweep",
            "--heap",
            "20",
            "-t",
            "2",
            "--size",
            "small",
            "gcbench",
        ],
        &[("SHARDSWEEP_PRINT_SETTINGS", "1")],
        Duration::from_secs(120),
    );
    r.assert_passed();
    let line = r.json_line().expect("no JSON line");
    let v: serde_json::Value = serde_json::from_str(line).expect("JSON line does not parse");
    let features: Vec<&str> = v["synthvm"]["features"]
        .as_array()
        .expect("features is not an array")
        .iter()
        .map(|f| f.as_str().expect("a feature is not a string"))
        .collect();
    let space_built_in = r.stderr.contains("shardsweep: settings ");
    assert_eq!(
        features.contains(&"mmtk/shardsweep"),
        space_built_in,
        "features {:?}, but the space {} its settings\n{}",
        features,
        if space_built_in {
            "printed"
        } else {
            "did not print"
        },
        r.describe()
    );
}
