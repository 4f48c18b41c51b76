//! Dropping many page ranges in few system calls.
//!
//! Every `madvise(MADV_DONTNEED)` ends with a TLB shootdown: while another thread of the process
//! runs on another CPU (a GC worker during a GC, a mutator outside it), the kernel interrupts
//! that CPU and waits for it. On 2 cores that costs about 20 µs per call, whatever the length:
//! a GC's purge of idle pages, one call per run of idle pages in a block, made some 22,000
//! calls per lusearch run at 64 MiB and 24 threads (0.4 s of the GC's CPU).
//! `process_madvise(2)` on the process itself takes up to [`IOV_MAX`] ranges in one call, and
//! Linux 6.16 flushes the TLB once per call (the same test measured 0.5 µs per range; Linux
//! 6.13 first allows any advice on one's own process). So a [`DropBatch`] collects the ranges
//! a stop-the-world pass drops and makes them at [`DropBatch::flush`] in one call per
//! [`IOV_MAX`] ranges. Where the kernel refuses (older kernels: `EINVAL` or `ENOSYS`; a seccomp
//! filter: `EPERM`), it falls back to one `madvise` per range, as before, and remembers that.
//!
//! Until the flush the ranges are still resident with their old contents: a batch is for a
//! pass whose dropped pages nobody can touch before it flushes (the world stopped, or blocks
//! held exclusively until then).

use crate::config::PAGE_BYTES;
use crate::os::{Advice, OsMemory};
#[cfg(all(target_os = "linux", not(miri)))]
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// The most ranges one `process_madvise` call takes (`UIO_MAXIOV`).
pub const IOV_MAX: usize = 1024;

/// Drops page ranges at [`DropBatch::flush`] (or when the batch is dropped), in one
/// `process_madvise` call per [`IOV_MAX`] ranges where the kernel allows it.
///
/// As an [`OsMemory`], `drop_pages` collects a range (MADV_DONTNEED), and `release_pages`
/// collects one with the batch's release advice (`free`: MADV_FREE; `keep`: nothing).
pub struct DropBatch {
    /// The release advice (`release_pages`); `drop_pages` always drops.
    advice: Advice,
    /// Ranges to drop and ranges to release (address, length), in the order given.
    ranges: Mutex<Ranges>,
}

#[derive(Default)]
struct Ranges {
    dontneed: Vec<(usize, usize)>,
    free: Vec<(usize, usize)>,
}

impl DropBatch {
    /// An empty batch whose `release_pages` follows `advice`.
    pub fn new(advice: Advice) -> DropBatch {
        DropBatch { advice, ranges: Mutex::new(Ranges::default()) }
    }

    /// Makes every collected drop and release. Returns the system calls made.
    pub fn flush(&self) -> usize {
        self.advise_collected(true)
    }

    /// The ranges collected and not yet flushed.
    pub fn pending(&self) -> usize {
        let r = self.ranges.lock().unwrap_or_else(|e| e.into_inner());
        r.dontneed.len() + r.free.len()
    }

    /// [`DropBatch::flush`] without `process_madvise`: one `madvise` per range (the fallback,
    /// for tests).
    #[doc(hidden)]
    pub fn flush_one_by_one(&self) -> usize {
        self.advise_collected(false)
    }

    /// Takes the collected ranges and advises them (`advise_all`). Returns the system calls.
    fn advise_collected(&self, batched: bool) -> usize {
        let mut r = self.ranges.lock().unwrap_or_else(|e| e.into_inner());
        let (dontneed, free) = (std::mem::take(&mut r.dontneed), std::mem::take(&mut r.free));
        drop(r);
        // SAFETY: each range was given to `drop_pages` / `release_pages`, whose callers
        // guaranteed it holds no live data and that nobody touches it before the flush.
        unsafe {
            advise_all(&dontneed, libc::MADV_DONTNEED, batched) + advise_all(&free, libc::MADV_FREE, batched)
        }
    }

    fn push(&self, free: bool, addr: *mut u8, len: usize) {
        debug_assert!(addr as usize % PAGE_BYTES == 0 && len % PAGE_BYTES == 0 && len > 0);
        let mut r = self.ranges.lock().unwrap_or_else(|e| e.into_inner());
        let list = if free { &mut r.free } else { &mut r.dontneed };
        // Adjacent ranges (the runs of neighbouring blocks) merge into one.
        match list.last_mut() {
            Some((a, l)) if *a + *l == addr as usize => *l += len,
            _ => list.push((addr as usize, len)),
        }
    }
}

impl Drop for DropBatch {
    fn drop(&mut self) {
        self.flush();
    }
}

impl OsMemory for DropBatch {
    unsafe fn release_pages(&self, addr: *mut u8, len: usize) {
        match self.advice {
            Advice::DontNeed => self.push(false, addr, len),
            Advice::Free => self.push(true, addr, len),
            Advice::Keep => {}
        }
    }

    fn released_pages_are_zero(&self) -> bool {
        self.advice == Advice::DontNeed
    }

    unsafe fn drop_pages(&self, addr: *mut u8, len: usize) {
        self.push(false, addr, len);
    }
}

/// The process's pidfd and the pid it was opened for (`pid << 32 | fd`), 0 before the first
/// use; `u64::MAX` once the kernel refused `process_madvise` (fall back for good). A forked
/// child sees another pid and opens its own (the inherited pidfd names the parent).
#[cfg(all(target_os = "linux", not(miri)))]
static XPIDFD: AtomicU64 = AtomicU64::new(0);
#[cfg(all(target_os = "linux", not(miri)))]
const REFUSED: u64 = u64::MAX;

/// Advises every range, `IOV_MAX` at a time through `process_madvise` when `batched` and the
/// kernel allows it, else one `madvise` each. Returns the system calls made.
///
/// # Safety
/// Every range is page-aligned, mapped by us and holds no live data.
unsafe fn advise_all(ranges: &[(usize, usize)], advice: libc::c_int, batched: bool) -> usize {
    let mut calls = 0;
    let mut rest = ranges;
    if batched && ranges.len() > 1 {
        while !rest.is_empty() {
            let n = rest.len().min(IOV_MAX);
            // SAFETY: per the contract.
            match unsafe { process_madvise(&rest[..n], advice) } {
                Some(done) => {
                    calls += 1;
                    // A short count (the kernel stopped at a range it could not advise): the
                    // rest, from the first range not wholly done, go one by one.
                    let mut bytes = done;
                    let mut k = 0;
                    while k < n && bytes >= rest[k].1 {
                        bytes -= rest[k].1;
                        k += 1;
                    }
                    rest = &rest[k..];
                    if k < n {
                        break;
                    }
                }
                None => break,
            }
        }
    }
    for &(addr, len) in rest {
        // SAFETY: per the contract.
        unsafe { crate::os::madvise(addr as *mut u8, len, advice) };
        calls += 1;
    }
    calls
}

/// One `process_madvise` call over `ranges` (at most `IOV_MAX`) on this process: the bytes
/// advised, or `None` where the kernel refuses it (remembered: later calls fall back at once).
///
/// # Safety
/// As for [`advise_all`].
#[cfg(all(target_os = "linux", not(miri)))]
unsafe fn process_madvise(ranges: &[(usize, usize)], advice: libc::c_int) -> Option<usize> {
    let fd = pidfd()?;
    let iov: Vec<libc::iovec> =
        ranges.iter().map(|&(a, l)| libc::iovec { iov_base: a as *mut libc::c_void, iov_len: l }).collect();
    crate::os::count_madvise();
    // SAFETY: `iov` lists `ranges.len()` valid iovecs; the ranges are ours and hold no live
    // data (contract); the pidfd names this process, so only our own mappings are advised.
    let rc = unsafe {
        libc::syscall(libc::SYS_process_madvise, fd, iov.as_ptr(), iov.len(), advice, 0u32)
    };
    if rc < 0 {
        // Relaxed: a hint; a racing thread at worst makes one more refused call.
        XPIDFD.store(REFUSED, Ordering::Relaxed);
        return None;
    }
    Some(rc as usize)
}

#[cfg(not(all(target_os = "linux", not(miri))))]
unsafe fn process_madvise(_ranges: &[(usize, usize)], _advice: libc::c_int) -> Option<usize> {
    None
}

/// This process's pidfd (opened once per process), or `None` if refused before or now.
#[cfg(all(target_os = "linux", not(miri)))]
fn pidfd() -> Option<libc::c_int> {
    // Relaxed: the word carries its own data (pid and fd); no other memory is published.
    let cached = XPIDFD.load(Ordering::Relaxed);
    if cached == REFUSED {
        return None;
    }
    // SAFETY: getpid has no preconditions.
    let pid = unsafe { libc::getpid() } as u32;
    if cached != 0 && (cached >> 32) as u32 == pid {
        return Some(cached as u32 as libc::c_int);
    }
    // SAFETY: pidfd_open(pid, 0) only creates a file descriptor.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0u32) };
    if fd < 0 {
        XPIDFD.store(REFUSED, Ordering::Relaxed);
        return None;
    }
    let word = ((pid as u64) << 32) | (fd as u32 as u64);
    // Relaxed: as above. A racing opener's fd loses and is closed.
    match XPIDFD.compare_exchange(cached, word, Ordering::Relaxed, Ordering::Relaxed) {
        Ok(_) => Some(fd as libc::c_int),
        Err(now) => {
            // SAFETY: our own fd, used by nobody else.
            unsafe { libc::close(fd as libc::c_int) };
            if now == REFUSED || (now >> 32) as u32 != pid {
                None
            } else {
                Some(now as u32 as libc::c_int)
            }
        }
    }
}
