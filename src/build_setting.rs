//! Build-time settings given at run time. The block size is chosen when the crate is built
//! (`SHARDSWEEP_BLOCK_KIB`, `build.rs`); the same variable in the environment of a program
//! built with another block size would be silently ignored, and a study run that way would
//! compare nothing. [`block_kib_differs`] finds it, without allocating (the standalone allocator
//! asks from inside its first allocation); the space and the standalone allocator then end the
//! process with one line and exit status 2, as for any invalid setting.

use crate::config::BLOCK_BYTES;
/// Why a differing run-time `SHARDSWEEP_BLOCK_KIB` is refused: this build's value, and how to
/// build another (written by `build.rs`).
pub use crate::config::BLOCK_KIB_REFUSED;

/// This build's block size in KiB.
pub const BLOCK_KIB: usize = BLOCK_BYTES >> 10;

/// `SHARDSWEEP_BLOCK_KIB` in the environment, if it is set (not blank) to anything but this
/// build's block size (read as `build.rs` reads it: blanks around it and a `k`/`K` after it
/// allowed). Does not allocate.
pub fn block_kib_differs() -> Option<&'static [u8]> {
    // SAFETY: a NUL-terminated name; getenv does not allocate, and the string it returns is
    // read at once (the process does not change its environment while it starts).
    let p = unsafe { libc::getenv(c"SHARDSWEEP_BLOCK_KIB".as_ptr()) };
    if p.is_null() {
        return None;
    }
    // SAFETY: getenv returned a NUL-terminated string that lives as long as the environment.
    let value: &'static [u8] = unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes();
    if names_this_block_size(value) {
        None
    } else {
        Some(value)
    }
}

/// Whether `value` is blank or names [`BLOCK_KIB`].
fn names_this_block_size(value: &[u8]) -> bool {
    let t = value.trim_ascii();
    if t.is_empty() {
        return true;
    }
    let t = t.strip_suffix(b"k").or_else(|| t.strip_suffix(b"K")).unwrap_or(t).trim_ascii();
    let mut n = 0usize;
    for &c in t {
        if !c.is_ascii_digit() || n > 1 << 20 {
            return false;
        }
        n = n * 10 + (c - b'0') as usize;
    }
    !t.is_empty() && n == BLOCK_KIB
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_block_size_is_accepted_in_the_forms_build_rs_reads() {
        let kib = BLOCK_KIB.to_string();
        for v in [kib.clone(), format!(" {kib} "), format!("{kib}k"), format!("{kib}K"), String::new(), "  ".into()] {
            assert!(names_this_block_size(v.as_bytes()), "{v:?} refused with {BLOCK_KIB} KiB blocks");
        }
    }

    #[test]
    fn another_block_size_or_garbage_is_refused() {
        let other = if BLOCK_KIB == 4 { "64" } else { "4" };
        for v in [other, "48", "k", "64 KiB", "-64", "99999999999999999999"] {
            assert!(!names_this_block_size(v.as_bytes()), "{v:?} accepted with {BLOCK_KIB} KiB blocks");
        }
        assert!(BLOCK_KIB_REFUSED.contains(&format!("this build has {BLOCK_KIB} KiB blocks")));
    }
}
