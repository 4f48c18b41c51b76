//! Build-time configuration of the shardsweep core.
//!
//! The block size is the one layout-changing setting. It is read from the environment variable
//! `SHARDSWEEP_BLOCK_KIB` (default 64) rather than from cargo features, because the core is also
//! compiled inside a patched copy of the `mmtk` crate and inside bindings: an environment variable
//! reaches the core through every layer without each one forwarding a feature. An invalid value
//! fails the build with a message naming the valid values.

use std::env;
use std::fs;
use std::path::Path;

/// Supported block sizes in KiB: powers of two from one OS page to 256 KiB (64 pages, so a
/// block's page set fits one `u64`).
const VALID_KIB: [u32; 7] = [4, 8, 16, 32, 64, 128, 256];
const DEFAULT_KIB: u32 = 64;

fn main() {
    println!("cargo:rerun-if-env-changed=SHARDSWEEP_BLOCK_KIB");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(loom)");

    let kib = match env::var("SHARDSWEEP_BLOCK_KIB") {
        Err(env::VarError::NotPresent) => DEFAULT_KIB,
        Ok(s) if s.trim().is_empty() => DEFAULT_KIB,
        Ok(s) => {
            let t = s.trim().trim_end_matches(['k', 'K']);
            match t.parse::<u32>() {
                Ok(v) if VALID_KIB.contains(&v) => v,
                _ => fail(&s),
            }
        }
        Err(env::VarError::NotUnicode(_)) => fail("<not unicode>"),
    };
    let log_block_bytes = kib.trailing_zeros() + 10;
    let out = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let valid: Vec<String> = VALID_KIB.iter().map(|v| v.to_string()).collect();
    let text = format!(
        "/// log2 of the block size, from `SHARDSWEEP_BLOCK_KIB={kib}` at build time.\n\
         pub const LOG_BLOCK_BYTES: usize = {log_block_bytes};\n\
         /// Why `SHARDSWEEP_BLOCK_KIB` given at run time with another value is refused\n\
         /// (`crate::build_setting`): one line, naming this build's value and how to get another.\n\
         pub const BLOCK_KIB_REFUSED: &str = \"a build-time setting: this build has {kib} KiB blocks \
         (valid at run time: {kib}, or unset); for other blocks build again with \
         SHARDSWEEP_BLOCK_KIB=<{}> set (scripts/build-variants.sh ssNk)\";\n",
        valid.join("|")
    );
    fs::write(Path::new(&out).join("block_size.rs"), text).expect("write block_size.rs");
}

fn fail(value: &str) -> ! {
    let valid: Vec<String> = VALID_KIB.iter().map(|v| v.to_string()).collect();
    eprintln!(
        "error: SHARDSWEEP_BLOCK_KIB={value:?} is not a supported block size; valid values (KiB): {} (default {DEFAULT_KIB})",
        valid.join(", ")
    );
    panic!(
        "invalid SHARDSWEEP_BLOCK_KIB={value:?}: valid values (KiB) are {}",
        valid.join(", ")
    );
}
