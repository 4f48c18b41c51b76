//! The guard against re-entry while a thread's heap is being set up: creating the heap
//! registers a thread-local destructor, and glibc and Rust's runtime allocate (`calloc`, a
//! `Vec` push) to record it, which comes back to this library's `malloc`. Those nested calls
//! must not touch the heap being set up; they are served by a short-lived detached heap.

use std::cell::Cell;

const UNSET: u8 = 0;
const SETTING_UP: u8 = 1;
const READY: u8 = 2;

thread_local! {
    // No destructor, so reading it registers nothing and never allocates.
    static STATE: Cell<u8> = const { Cell::new(UNSET) };
}

/// What the caller may do with the thread's heap.
pub enum Heap {
    /// Use it (it exists, or the thread is past its TLS teardown: the core handles that).
    Use,
    /// It is being set up below us: do not touch it.
    Busy,
}

/// Runs `first` (which uses the heap, creating it) with the guard up if this is the thread's
/// first call; says whether the caller may use the heap otherwise.
#[inline(always)]
pub fn enter<R>(first: impl FnOnce() -> R) -> Result<R, Heap> {
    let s = STATE.try_with(Cell::get).unwrap_or(READY);
    match s {
        READY => Err(Heap::Use),
        SETTING_UP => Err(Heap::Busy),
        _ => Ok(set_up(first)),
    }
}

#[cold]
fn set_up<R>(first: impl FnOnce() -> R) -> R {
    let _ = STATE.try_with(|c| c.set(SETTING_UP));
    let r = first();
    let _ = STATE.try_with(|c| c.set(READY));
    r
}
