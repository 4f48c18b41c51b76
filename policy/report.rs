//! The space's peak resident pages, printed once at process exit when `SHARDSWEEP_REPORT_PEAK=1`
//! (the experiment scripts set it and record the figure beside the process's peak RSS):
//!
//! `shardsweep: peak resident pages <N> (<KiB> KiB)` on stderr.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

static PEAK: OnceLock<&'static AtomicUsize> = OnceLock::new();

extern "C" fn print_peak() {
    if let Some(peak) = PEAK.get() {
        // Relaxed: read at exit, after every mutator and GC thread has stopped allocating.
        let pages = peak.load(Ordering::Relaxed);
        eprintln!(
            "shardsweep: peak resident pages {pages} ({} KiB)",
            pages * shardsweep::PAGE_BYTES / 1024
        );
    }
}

/// Registers the exit report of `peak` (once per process; the first space wins).
pub(super) fn register_peak_report(peak: &'static AtomicUsize) {
    let wanted = std::env::var("SHARDSWEEP_REPORT_PEAK").is_ok_and(|v| v.trim() == "1");
    if wanted && PEAK.set(peak).is_ok() {
        // SAFETY: `print_peak` is an `extern "C" fn()` that neither unwinds nor calls `exit`.
        unsafe { libc::atexit(print_peak) };
    }
}
