//! Where blocks come from and how pages go back to the OS (many ranges at once: `drop_batch.rs`).

use crate::config::{BLOCK_BYTES, PAGE_BYTES};
use crate::sync::{AtomicUsize, Ordering};
use std::ptr::NonNull;

/// System calls the core made, by kind, since the process started: the bounded mode's "no
/// system call after initialisation" is checked with these (`tests/bounded.rs`). Every `mmap`,
/// `munmap` and `madvise` of the core goes through this file (`process_madvise` through
/// `drop_batch.rs`, counted as `madvise`); yields go through `sync.rs`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OsCalls {
    /// `mmap` calls.
    pub mmap: usize,
    /// `munmap` calls.
    pub munmap: usize,
    /// `madvise` calls (dropping pages, or pre-faulting them at a bounded initialisation).
    pub madvise: usize,
    /// `sched_yield` calls (spin-waits: the delayed-free handshake at a heap's abandonment).
    pub yields: usize,
}

// Relaxed counters: statistics, they order no other memory.
static XMMAP: AtomicUsize = AtomicUsize::new(0);
static XMUNMAP: AtomicUsize = AtomicUsize::new(0);
static XMADVISE: AtomicUsize = AtomicUsize::new(0);

/// The system calls made so far (a snapshot of Relaxed counters: exact once the threads that
/// made them are joined).
pub fn os_calls() -> OsCalls {
    OsCalls {
        mmap: XMMAP.load(Ordering::Relaxed),
        munmap: XMUNMAP.load(Ordering::Relaxed),
        madvise: XMADVISE.load(Ordering::Relaxed),
        yields: crate::sync::yields(),
    }
}

/// How a page that no allocated cell overlaps is given back to the OS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advice {
    /// `madvise(MADV_DONTNEED)`: freed at once, reads back as zeros.
    DontNeed,
    /// `madvise(MADV_FREE)`: freed lazily under memory pressure; content undefined until then.
    Free,
    /// Keep the page resident (accounting only).
    Keep,
}

impl Advice {
    /// Parses `dontneed`, `free` or `keep` (no aliases: a study run with a mistyped setting
    /// must not measure something else).
    pub fn parse(s: &str) -> Result<Advice, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "dontneed" => Ok(Advice::DontNeed),
            "free" => Ok(Advice::Free),
            "keep" => Ok(Advice::Keep),
            other => Err(format!(
                "invalid page advice {other:?}: valid values are dontneed, free, keep"
            )),
        }
    }
}

/// Gives pages back to the OS. Tests implement it to observe what is given back.
pub trait OsMemory: Sync {
    /// Gives back `len` bytes at `addr` (page-aligned, whole pages, inside one block).
    ///
    /// # Safety
    /// No live data may be in the range.
    unsafe fn release_pages(&self, addr: *mut u8, len: usize);
    /// Whether released pages read back as zeros (so they need no zeroing before reuse). This
    /// also says whether `release_pages` dropped them from the RSS at once: pages that do not
    /// read back as zero may still be resident, and the core keeps counting them ("idle"
    /// pages) until they are reused or dropped with [`OsMemory::drop_pages`].
    fn released_pages_are_zero(&self) -> bool;
    /// Drops `len` bytes at `addr` from the RSS at once; they read back as zero afterwards.
    /// The default is `madvise(MADV_DONTNEED)`, whatever the release advice. A
    /// [`crate::DropBatch`] defers the drop to its flush, before which its caller lets nobody
    /// read or reuse the range.
    ///
    /// # Safety
    /// No live data may be in the range (page-aligned, whole pages, inside one block).
    unsafe fn drop_pages(&self, addr: *mut u8, len: usize) {
        // SAFETY: per the contract.
        unsafe { madvise(addr, len, libc::MADV_DONTNEED) }
    }
    /// Whether retired (empty) blocks keep their resident pages, counted, when they go back to
    /// the block source, for the embedder to reuse or drop later ([`crate::Block::drop_retired`]);
    /// `false` (the default): the core drops them at once.
    fn keeps_retired_blocks(&self) -> bool {
        false
    }
}

/// Counts one `madvise` (or `process_madvise`) call made elsewhere in the core (`drop_batch.rs`).
#[cfg(all(target_os = "linux", not(miri)))]
pub(crate) fn count_madvise() {
    XMADVISE.fetch_add(1, Ordering::Relaxed);
}

/// `madvise` over whole pages of ours.
///
/// # Safety
/// The range is mapped by us and holds no live data.
pub(crate) unsafe fn madvise(addr: *mut u8, len: usize, advice: libc::c_int) {
    debug_assert!(addr as usize % PAGE_BYTES == 0 && len % PAGE_BYTES == 0);
    XMADVISE.fetch_add(1, Ordering::Relaxed);
    // SAFETY: the caller guarantees the range is ours and holds no live data; madvise on a
    // mapped private anonymous range only drops its contents.
    let rc = unsafe { libc::madvise(addr.cast(), len, advice) };
    debug_assert_eq!(rc, 0, "madvise({addr:?}, {len}, {advice}) failed");
}

/// The real thing: `madvise` with a configurable advice.
#[derive(Debug)]
pub struct Madvise {
    /// The advice used.
    pub advice: Advice,
}

impl OsMemory for Madvise {
    unsafe fn release_pages(&self, addr: *mut u8, len: usize) {
        let advice = match self.advice {
            Advice::DontNeed => libc::MADV_DONTNEED,
            Advice::Free => libc::MADV_FREE,
            Advice::Keep => return,
        };
        // SAFETY: the caller guarantees the range is ours and holds no live data.
        unsafe { madvise(addr, len, advice) };
    }
    fn released_pages_are_zero(&self) -> bool {
        self.advice == Advice::DontNeed
    }
}

/// A supply of whole, block-aligned blocks.
///
/// # Safety
/// Implementations must return distinct, `BLOCK_BYTES`-aligned, readable and writable ranges of
/// `BLOCK_BYTES` bytes that stay mapped until released.
pub unsafe trait BlockSource: Sync {
    /// A block; `true` with it if all its bytes are known to be zero. `None` if exhausted (the
    /// allocation fails with [`crate::NoCell::NoMemory`]). `thread` is the allocating heap's
    /// thread word ([`crate::Heap::set_thread`]; 0 if the embedder set none), for a source that
    /// must tell its VM who takes memory (the MMTk space passes it to its page resource).
    fn acquire_block(&self, thread: usize) -> Option<(NonNull<u8>, bool)>;
    /// A retired block whose pages the source kept resident (see
    /// [`OsMemory::keeps_retired_blocks`]), if any: the slow path takes it before it touches a
    /// fresh page. The default has none.
    fn acquire_resident_block(&self) -> Option<NonNull<u8>> {
        None
    }
    /// Takes back a block that [`BlockSource::acquire_block`] (with its `zeroed` answer) or
    /// [`BlockSource::acquire_resident_block`] (`zeroed == false`) handed out and the core did
    /// not initialise (the budget vetoed it): its bytes are as they were handed out. The default
    /// is `release_block`.
    ///
    /// # Safety
    /// As for `release_block`.
    unsafe fn release_unused_block(&self, block: NonNull<u8>, zeroed: bool) {
        let _ = zeroed;
        // SAFETY: per the contract.
        unsafe { self.release_block(block) }
    }
    /// Takes a block back. Its header is retired (see [`crate::Block::retire`]); its pages were
    /// dropped unless the OS interface keeps retired blocks.
    ///
    /// # Safety
    /// `block` came from `acquire_block` of this source and is not used afterwards.
    unsafe fn release_block(&self, block: NonNull<u8>);
}

/// Maps `bytes` of fresh anonymous memory aligned to `align` (a power of two >= page size).
/// Returns null on failure.
pub(crate) fn map_aligned(bytes: usize, align: usize) -> *mut u8 {
    // mmap's addresses are page-aligned: over-map (and trim) only for larger alignments.
    let len = if align <= PAGE_BYTES {
        bytes
    } else {
        match bytes.checked_add(align) {
            Some(len) => len,
            None => return std::ptr::null_mut(),
        }
    };
    XMMAP.fetch_add(1, Ordering::Relaxed);
    // SAFETY: an anonymous private mapping with no address hint has no preconditions.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return std::ptr::null_mut();
    }
    let start = p as usize;
    let aligned = (start + align - 1) & !(align - 1);
    // SAFETY: both trimmed ranges are parts of the mapping just made, unused by anyone.
    unsafe {
        if aligned > start {
            XMUNMAP.fetch_add(1, Ordering::Relaxed);
            libc::munmap(p, aligned - start);
        }
        let end = start + len;
        let tail = aligned + bytes;
        if end > tail {
            XMUNMAP.fetch_add(1, Ordering::Relaxed);
            libc::munmap(tail as *mut libc::c_void, end - tail);
        }
    }
    aligned as *mut u8
}

/// Unmaps what [`map_aligned`] mapped.
///
/// # Safety
/// `p .. p + bytes` was mapped by `map_aligned` and is not used afterwards.
pub(crate) unsafe fn unmap(p: *mut u8, bytes: usize) {
    XMUNMAP.fetch_add(1, Ordering::Relaxed);
    // SAFETY: the caller guarantees the range is a mapping of ours.
    unsafe { libc::munmap(p.cast(), bytes) };
}

/// Makes every page of `p .. p + bytes` (mapped by us, page-aligned) resident and writable
/// without changing its contents (`MADV_POPULATE_WRITE`, Linux 5.14), so that no later access
/// faults: the bounded mode's pre-faulting. Falls back to touching each page where the kernel
/// lacks it: reading and writing back one byte per page, which keeps the contents only if no
/// other thread writes the range meanwhile (the fallback's caller guarantees it).
///
/// # Safety
/// The range is mapped by us; on kernels without `MADV_POPULATE_WRITE` nobody else writes it
/// during the call.
pub(crate) unsafe fn prefault(p: *mut u8, bytes: usize) {
    debug_assert!(p as usize % PAGE_BYTES == 0 && bytes % PAGE_BYTES == 0);
    XMADVISE.fetch_add(1, Ordering::Relaxed);
    // SAFETY: populating a range of our mapping only makes its pages resident.
    let rc = unsafe { libc::madvise(p.cast(), bytes, libc::MADV_POPULATE_WRITE) };
    if rc == 0 {
        return;
    }
    let mut off = 0;
    while off < bytes {
        // SAFETY: inside our mapping; the byte is written back unchanged (contract).
        unsafe {
            let q = p.add(off);
            q.write_volatile(q.read_volatile());
        }
        off += PAGE_BYTES;
    }
}

/// Asks for transparent huge pages over `p .. p + bytes` (`MADV_HUGEPAGE`; the kernel's
/// `transparent_hugepage` setting `madvise` or `always` honours it): the bounded mode's
/// pre-faulted arena, so that its blocks cost fewer TLB misses. Harmless where refused.
///
/// # Safety
/// The range is mapped by us.
pub(crate) unsafe fn advise_huge(p: *mut u8, bytes: usize) {
    XMADVISE.fetch_add(1, Ordering::Relaxed);
    // SAFETY: advice only; the contents of the range are unchanged.
    unsafe { libc::madvise(p.cast(), bytes, libc::MADV_HUGEPAGE) };
}

const _: () = assert!(BLOCK_BYTES % PAGE_BYTES == 0);

#[cfg(test)]
mod advice_tests {
    use super::Advice;

    #[test]
    fn only_the_documented_values_parse() {
        assert_eq!(Advice::parse("dontneed"), Ok(Advice::DontNeed));
        assert_eq!(Advice::parse("FREE"), Ok(Advice::Free));
        assert_eq!(Advice::parse("keep"), Ok(Advice::Keep));
        for alias in ["madv_free", "madv_dontneed", "none", ""] {
            let e = Advice::parse(alias).unwrap_err();
            assert!(e.contains("valid values are dontneed, free, keep"), "{e}");
        }
    }
}
