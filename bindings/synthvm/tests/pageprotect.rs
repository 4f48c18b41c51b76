//! PageProtect (one object per page, freed pages protected) works too.  It pays an mmap and an
//! mprotect per object, so it runs a light custom workload (tests/data/pageprotect.wl) rather
//! than the full ones, which do pass under PageProtect given a big enough heap but take long.
mod common;

#[test]
fn pageprotect_light() {
    common::matrix(
        &[
            "--workload-file",
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/pageprotect.wl"),
            "custom",
        ],
        "PageProtect",
        32,
    );
}
