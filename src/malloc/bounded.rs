//! Bounded (real-time) mode of the standalone allocator, as RT-mimalloc does it (Giannessi,
//! Biondi, Biasci; seed 001): the program declares its memory, the allocator reserves and
//! pre-faults it at initialisation, and afterwards no allocation or free maps, unmaps, madvises,
//! locks or yields, and every step of a slow path is bounded by a constant.
//!
//! | RT-mimalloc (Table V) | shardsweep bounded mode |
//! |---|---|
//! | profile-driven initialisation of segments / pages | the declared bytes of blocks pre-faulted (`MADV_POPULATE_WRITE`, or touched; `MADV_HUGEPAGE` asked for first), the thread heaps' memory pre-mapped in a pool of [`BoundedSettings::threads`] slots, [`BoundedSettings::large_bytes`] of large objects pre-mapped, split evenly over the large classes (16, 32, 64, 128, 256 KiB) |
//! | `mi_segment_free` / `_mi_page_free` disabled | an emptied block keeps its pages (no `madvise`, no purge) and goes to the arena's stack of resident blocks, from which any heap re-initialises it in O(pages per block) |
//! | free-list extension limited to 2 blocks (-seg) / complete at init (-pag) | one OS page of cells per extension (≤ [`MAX_EXTEND_LINKS`](crate::bounds::MAX_EXTEND_LINKS) links) on pre-faulted memory: see below; or, with a profile ([`BoundedSettings::profile`]), complete at init as -pag, emptied blocks kept in their class |
//! | `pages_direct` updated through one pointer | direct-table slots of one bin rewritten, ≤ [`MAX_DIRECT_SPAN`](crate::bounds::MAX_DIRECT_SPAN) |
//! | `_mi_heap_collect_retired` disabled | no retire sweep: empty blocks are handed back as they empty, O(1) |
//!
//! Extension: RT-mimalloc-pag pre-extends every page of the profile at init, which needs a
//! per-size-class profile; -seg links 2 blocks per call, which made sh8benchN 64 % slower in
//! their Table VIII. A shardsweep block is extended one OS page at a time (the unit of page
//! charging), so an extension already links a constant number of cells (4 KiB / cell size ≤ 512)
//! and needs no profile; the memory being pre-faulted, it costs no page fault either.
//!
//! Settings: `SHARDSWEEP_BOUNDED=<MiB>[,<threads>[,<large MiB>]]` (read once with `getenv` at the first
//! allocation; an invalid value is one line on stderr and exit status 2) or, in code,
//! [`super::standalone::Standalone::init_bounded`]. Exhaustion is reported, never served by the OS: a small
//! request when every declared block is in use, a large one when its class's pool is empty (or
//! it is larger than [`super::large_cache::MAX_CACHED_BYTES`], or more than page-aligned), and
//! the first allocation of a thread when all heap slots are taken, return null.
//!
//! What is *not* bounded (none is part of an allocation or a free): initialisation (O(declared
//! bytes)); thread exit (its heap abandons its blocks: O(blocks owned), and it waits out a remote
//! freer that is between two instructions of the delayed-free handshake); the first allocation
//! of a thread registers a thread-local destructor through the Rust runtime, which in glibc takes
//! the loader lock once per thread (RT-mimalloc also pre-initialises at thread creation: an RT
//! thread allocates once before its periodic work).
//!
//! Lock-free is not wait-free: the compare-exchange loops on the shared words (a block's
//! remote-free word, a heap's delayed list, the block stacks) retry only when another thread
//! completed an operation on the same word between this thread's load and its compare-exchange.
//! The per-operation bound below is on the work *excluding* those retries; each retry costs
//! O(1), and their number per operation is bounded by the operations of other threads on that
//! word during it (with P processors and no preemption inside the few-instruction window, at
//! most P − 1 per attempt). `tests/bounded.rs` counts both and reports the retries it saw.

use crate::sync::{AtomicUsize, Ordering};

/// Thread heaps pre-mapped by default in bounded mode.
pub const DEFAULT_BOUNDED_THREADS: usize = 64;
/// Largest number of thread heaps a bounded instance may declare.
pub const MAX_BOUNDED_THREADS: usize = 256;
/// Largest declared size (MiB): the arena's address space.
pub const MAX_BOUNDED_MIB: usize = super::arena::ARENA_BYTES >> 20;
/// Divisor of the declared MiB that gives the large pool's default size (a quarter).
pub const DEFAULT_LARGE_SHARE: usize = 4;

/// Bound of a large allocation or free in bounded mode: one pop or push of a class's pool.
pub const LARGE_STEP_BOUND: usize = 1;

/// What a program declares for bounded mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoundedSettings {
    /// Bytes of blocks (small objects) reserved and pre-faulted, rounded up to whole blocks.
    pub bytes: usize,
    /// Thread heaps pre-mapped: at most this many threads allocate at once.
    pub threads: usize,
    /// Bytes of large objects (above the small size classes, up to 256 KiB) pre-mapped, split
    /// evenly over the five large classes (at least one object per class).
    pub large_bytes: usize,
    /// RT-mimalloc-pag's profile, optional: `(size in bytes, blocks)` pairs. At initialisation
    /// that many blocks of each size's class are taken from the declared blocks and their free
    /// lists built whole, and from then on an emptied block stays with its class (on the class's
    /// abandoned stack) instead of going back to the arena: while the profile covers the
    /// program's peak per class, no allocation extends a block (`tests/bounded_profile.rs`).
    /// Empty: blocks are extended a page at a time at run time and emptied blocks serve any class.
    pub profile: &'static [(usize, usize)],
}

impl BoundedSettings {
    /// `mib` MiB of blocks for up to `threads` threads, and a quarter of that for large
    /// objects.
    pub const fn mib(mib: usize, threads: usize) -> BoundedSettings {
        BoundedSettings {
            bytes: mib << 20,
            threads,
            large_bytes: (mib << 20) / DEFAULT_LARGE_SHARE,
            profile: &[],
        }
    }
    /// The same with RT-mimalloc-pag's profile (see [`BoundedSettings::profile`]).
    pub const fn with_profile(self, profile: &'static [(usize, usize)]) -> BoundedSettings {
        BoundedSettings { profile, ..self }
    }
    /// The same with `mib` MiB of large objects.
    pub const fn with_large_mib(self, mib: usize) -> BoundedSettings {
        BoundedSettings {
            large_bytes: mib << 20,
            ..self
        }
    }
}

const WHY: &str = "valid values are <MiB>[,<threads>[,<large MiB>]] with MiB 1 to 65536, threads \
                   1 to 256 (default 64), large MiB 1 to 65536 (default MiB/4), e.g. 256 or 256,8";

/// Parses `<MiB>[,<threads>[,<large MiB>]]` (decimal digits only).
pub fn parse_bounded(s: &[u8]) -> Result<BoundedSettings, &'static str> {
    fn number(s: &[u8], max: usize) -> Result<usize, &'static str> {
        let s = s.trim_ascii();
        if s.is_empty() || s.len() > 6 || !s.iter().all(u8::is_ascii_digit) {
            return Err(WHY);
        }
        let v = s.iter().fold(0usize, |v, d| v * 10 + (d - b'0') as usize);
        if v == 0 || v > max {
            return Err(WHY);
        }
        Ok(v)
    }
    let mut parts = s.splitn(3, |&c| c == b',');
    let mib = number(parts.next().unwrap_or(b""), MAX_BOUNDED_MIB)?;
    let threads = match parts.next() {
        Some(t) => number(t, MAX_BOUNDED_THREADS)?,
        None => DEFAULT_BOUNDED_THREADS,
    };
    let s = BoundedSettings::mib(mib, threads);
    match parts.next() {
        Some(l) => Ok(s.with_large_mib(number(l, MAX_BOUNDED_MIB)?)),
        None => Ok(s),
    }
}

/// `XMODE` values.
const UNREAD: usize = 0;
const OFF: usize = 1;
const STARTING: usize = 2;
const ON: usize = 3;

/// The process's mode: UNREAD until the environment was read, then OFF, STARTING (one thread
/// initialises) or ON.
static XMODE: AtomicUsize = AtomicUsize::new(UNREAD);

/// Whether bounded mode is on (after [`ensure_read`]). Relaxed: a thread that sees ON also
/// acquired the initialisation through [`ensure_read`] or [`start`] before its first allocation.
#[inline]
pub fn is_on() -> bool {
    XMODE.load(Ordering::Relaxed) == ON
}

/// Reads `SHARDSWEEP_BOUNDED` once (the first allocation of the process, on a cold path) and
/// initialises with `init` if it is set. Returns whether bounded mode is on.
pub(crate) fn ensure_read(init: fn(BoundedSettings)) -> bool {
    // Acquire: pairs with the Release store of ON, so the pools set up by `init` are visible.
    let m = XMODE.load(Ordering::Acquire);
    if m == ON || m == OFF {
        return m == ON;
    }
    if m == UNREAD {
        // The process's first allocation: a build-time setting in the environment that this
        // build does not have is refused here, once, as an invalid setting is.
        if let Some(v) = crate::build_setting::block_kib_differs() {
            super::usage::invalid_setting("SHARDSWEEP_BLOCK_KIB", v, "refused", crate::build_setting::BLOCK_KIB_REFUSED);
        }
        match from_env() {
            None => {
                // Relaxed: only UNREAD → OFF, nothing published.
                let _ = XMODE.compare_exchange(UNREAD, OFF, Ordering::Relaxed, Ordering::Relaxed);
            }
            Some(s) => {
                if start() {
                    init(s);
                    finish();
                    return true;
                }
            }
        }
    }
    wait_started()
}

/// Claims the initialisation (UNREAD or OFF → STARTING). False if someone else has it or bounded
/// mode is already on.
pub(crate) fn start() -> bool {
    for from in [UNREAD, OFF] {
        // Acquire on success: nothing to acquire yet, but orders our later init after the claim;
        // Relaxed on failure: we retry or give up.
        if XMODE
            .compare_exchange(from, STARTING, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            return true;
        }
    }
    false
}

/// Publishes the initialisation done by the thread that [`start`]ed it.
pub(crate) fn finish() {
    // Release: the pools and the arena limit happen-before any Acquire load that sees ON.
    XMODE.store(ON, Ordering::Release);
}

/// Waits (at initialisation only) for a concurrent [`start`] to [`finish`].
fn wait_started() -> bool {
    let backoff = crossbeam_utils::Backoff::new();
    loop {
        // Acquire: as in `ensure_read`.
        match XMODE.load(Ordering::Acquire) {
            ON => return true,
            OFF => return false,
            UNREAD => return false,
            _ => backoff.snooze(),
        }
    }
}

fn from_env() -> Option<BoundedSettings> {
    // SAFETY: a NUL-terminated name; getenv does not allocate, and the returned string is only
    // read before any other environment call of ours.
    let p = unsafe { libc::getenv(c"SHARDSWEEP_BOUNDED".as_ptr()) };
    if p.is_null() {
        return None;
    }
    // SAFETY: getenv returned a NUL-terminated string.
    let s = unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes();
    if s.trim_ascii().is_empty() {
        return None;
    }
    match parse_bounded(s) {
        Ok(v) => Some(v),
        Err(why) => {
            super::usage::invalid_setting("SHARDSWEEP_BOUNDED", s, "invalid declared memory", why)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_as_documented() {
        assert_eq!(parse_bounded(b"256"), Ok(BoundedSettings::mib(256, 64)));
        assert_eq!(parse_bounded(b" 64,8 "), Ok(BoundedSettings::mib(64, 8)));
        assert_eq!(
            parse_bounded(b"65536,256"),
            Ok(BoundedSettings::mib(65536, 256))
        );
        assert_eq!(
            parse_bounded(b"64,8,32"),
            Ok(BoundedSettings::mib(64, 8).with_large_mib(32))
        );
        assert_eq!(BoundedSettings::mib(64, 8).large_bytes, 16 << 20);
        for bad in [
            &b"0"[..],
            b"65537",
            b"64,0",
            b"64,257",
            b"64MiB",
            b"",
            b"64,",
            b"64,8,0",
            b"64,8,1,1",
            b",8",
            b"-1",
            b"1e3",
        ] {
            assert!(parse_bounded(bad).is_err(), "{bad:?}");
        }
    }
}
