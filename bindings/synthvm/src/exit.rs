//! Process-wide termination paths.  Any thread (mutator or GC worker) may end the run; the
//! first one to do so wins and every later attempt (e.g. a GC worker panicking because the
//! process is going down) parks forever instead of printing a second, misleading verdict.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Exit status for a detected corruption / failed check.
pub const EXIT_FAILED: i32 = 1;
/// Exit status for a usage error (unknown option, plan, workload...).
pub const EXIT_USAGE: i32 = 2;
/// Exit status for an out-of-memory (heap too small).
pub const EXIT_OOM: i32 = 3;
/// Exit status for an unexpected panic (a bug in synthvm or mmtk).
pub const EXIT_PANIC: i32 = 101;

/// Set by the first thread to end the process.  `Relaxed` everywhere: the `swap` alone picks a
/// single winner (all read-modify-writes of one atomic are totally ordered), and the flag
/// publishes no data: a loser only parks.  `is_exiting` is a shortcut: a thread that misses
/// the flag there still loses at the `swap` in `terminate`.
static EXITING: AtomicBool = AtomicBool::new(false);

pub fn is_exiting() -> bool {
    // Relaxed: see `EXITING`.
    EXITING.load(Ordering::Relaxed)
}

/// Print `msg` (one or more lines) on stderr and end the process with `code`, without running
/// destructors or waiting for other threads (they may be blocked inside a GC); see [`leave`].
pub fn terminate(code: i32, msg: &str) -> ! {
    // Relaxed: see `EXITING`.
    if EXITING.swap(true, Ordering::Relaxed) {
        // Somebody else is already ending the process.
        loop {
            std::thread::park();
        }
    }
    // Whatever the main thread printed so far must not be lost.
    let _ = std::io::stdout().flush();
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{}", msg);
    let _ = err.flush();
    drop(err);
    leave(code)
}

/// Ends the process with `code` without waiting for other threads (GC workers never return)
/// and without running Rust destructors, but with the C `atexit` handlers, through which a
/// space may report at exit (shardsweep's `SHARDSWEEP_REPORT_PEAK`).
pub fn leave(code: i32) -> ! {
    // SAFETY: `exit` runs the atexit handlers and ends every thread; no Rust destructor runs.
    unsafe { libc::exit(code) }
}

/// The out-of-memory verdict.  The message always contains "Out of memory".
pub fn out_of_memory(detail: &str) -> ! {
    terminate(
        EXIT_OOM,
        &format!(
            "synthvm: Out of memory: {} (plan {}, heap {})",
            detail,
            crate::runtime::plan_name(),
            crate::runtime::heap_description()
        ),
    )
}

/// A failed check: corruption, wrong checksum, bad header.
pub fn failed(what: &str) -> ! {
    terminate(EXIT_FAILED, &format!("synthvm: FAILED: {}", what))
}

/// Install a panic hook so a panic in any thread (including MMTk's GC workers, which would
/// otherwise die silently and leave the mutators blocked forever) ends the process promptly.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        if is_exiting() {
            loop {
                std::thread::park();
            }
        }
        let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
            s.to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "(non-string panic payload)".to_string()
        };
        let loc = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let thread = std::thread::current();
        let tname = thread.name().unwrap_or("<unnamed>");
        // NoGC cannot collect: when its heap is full MMTk schedules a GC that NoGC refuses.
        // That is the NoGC flavour of "heap too small".
        if msg.contains("GC triggered in nogc") {
            out_of_memory("the NoGC heap is exhausted");
        }
        // MMTk reports some resource exhaustion as panics; keep the OOM contract for them.
        if msg.contains("Out of memory") || msg.contains("out of memory") {
            out_of_memory(&format!("{} (thread '{}' at {})", msg, tname, loc));
        }
        let bt = std::backtrace::Backtrace::capture();
        terminate(
            EXIT_PANIC,
            &format!(
                "synthvm: FAILED: panic in thread '{}' at {}: {}\n{}",
                tname, loc, msg, bt
            ),
        );
    }));
}
