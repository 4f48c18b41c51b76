// Rebuild when SHARDSWEEP_BLOCK_KIB changes: synthvm records it (via option_env!) in its JSON line.
fn main() {
    println!("cargo:rerun-if-env-changed=SHARDSWEEP_BLOCK_KIB");
    println!("cargo:rerun-if-changed=build.rs");
}
