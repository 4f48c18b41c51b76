//! Usage errors of the standalone allocator's environment settings (`SHARDSWEEP_PURGE_DELAY_MS`,
//! `SHARDSWEEP_BOUNDED`): one line on stderr, then exit status 2, as every setting of the
//! project reports a bad value. Called from inside the allocator, so it must not allocate.

/// Prints `shardsweep: NAME=VALUE: WHAT: WHY` on stderr and ends the process with status 2,
/// without allocating.
#[cold]
pub(crate) fn invalid_setting(name: &str, value: &[u8], what: &str, why: &str) -> ! {
    let parts: [&[u8]; 8] = [
        b"shardsweep: ",
        name.as_bytes(),
        b"=",
        value,
        b": ",
        what.as_bytes(),
        b": ",
        why.as_bytes(),
    ];
    for p in parts.iter().chain(std::iter::once(&&b"\n"[..])) {
        // SAFETY: writes `p.len()` readable bytes to stderr; a short write only shortens the line.
        unsafe { libc::write(2, p.as_ptr().cast(), p.len()) };
    }
    // SAFETY: ends the process at once (no destructors: we are inside the allocator).
    unsafe { libc::_exit(2) }
}
