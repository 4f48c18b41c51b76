//! The shardsweep standalone allocator behind the C allocation ABI, as a shared library:
//! `LD_PRELOAD=libshardsweep.so program` runs `program` on it.
//!
//! Small requests (a size class fits, alignment up to 128) are cells of the calling thread's
//! heap ([`Standalone`]); `free` tells them from large ones by the arena's address range, and
//! large ones are the standalone allocator's large allocations (its mapping cache) with their
//! base and length in a header ([`large`]). Requests of 16
//! bytes or more are 16-byte aligned, as glibc's are; smaller ones 8.

mod large;
mod reentry;

use libc::{c_int, c_void, size_t};
use shardsweep::size_class::bin_for_aligned;
use shardsweep::malloc::standalone::Standalone;
use std::alloc::Layout;
use std::ptr;

/// The alignment `malloc(size)` promises.
#[inline(always)]
fn natural_align(size: usize) -> usize {
    if size >= 16 {
        16
    } else {
        8
    }
}

/// Allocates `size` bytes aligned to `align` (a power of two); null on failure.
#[inline]
fn alloc(size: usize, align: usize) -> *mut u8 {
    let size = size.max(1);
    if bin_for_aligned(size, align).is_none() {
        return large::alloc(size, align);
    }
    // A small layout: `size <= MAX_SMALL_BYTES` and a valid power-of-two alignment.
    let Ok(layout) = Layout::from_size_align(size, align) else {
        return ptr::null_mut();
    };
    match reentry::enter(|| Standalone::alloc(layout)) {
        Ok(p) => p,
        Err(reentry::Heap::Use) => Standalone::alloc(layout),
        Err(reentry::Heap::Busy) => Standalone::alloc_detached(layout),
    }
}

/// Frees `p` (null, a small cell or a large mapping).
///
/// # Safety
/// `p` is null or a live pointer from this library, freed once.
#[inline]
unsafe fn release(p: *mut u8) {
    if p.is_null() {
        return;
    }
    if !Standalone::owns(p) {
        // SAFETY: not in the arena, so a large mapping of ours (contract).
        return unsafe { large::free(p) };
    }
    // SAFETY (all three): a live cell of ours (contract).
    match reentry::enter(|| unsafe { Standalone::free_cell(p) }) {
        Ok(()) => {}
        Err(reentry::Heap::Use) => unsafe { Standalone::free_cell(p) },
        Err(reentry::Heap::Busy) => unsafe { Standalone::free_cell_remote(p) },
    }
}

/// Usable bytes at the live pointer `p` (0 for null).
///
/// # Safety
/// As for [`release`], without the free.
unsafe fn usable(p: *mut u8) -> usize {
    if p.is_null() {
        0
    } else if Standalone::owns(p) {
        // SAFETY: a live cell (contract).
        unsafe { Standalone::cell_bytes(p) }
    } else {
        // SAFETY: a live large mapping (contract).
        unsafe { large::usable(p) }
    }
}

/// C `malloc`.
///
/// # Safety
/// Any size; the result is freed with this library's `free`.
#[no_mangle]
pub unsafe extern "C" fn malloc(size: size_t) -> *mut c_void {
    alloc(size, natural_align(size)) as *mut c_void
}

/// C `free`.
///
/// # Safety
/// `p` is null or from this library and live.
#[no_mangle]
pub unsafe extern "C" fn free(p: *mut c_void) {
    // SAFETY: forwarded contract.
    unsafe { release(p as *mut u8) }
}

/// C `calloc`: zeroed; null on overflow.
///
/// # Safety
/// As for `malloc`.
#[no_mangle]
pub unsafe extern "C" fn calloc(n: size_t, size: size_t) -> *mut c_void {
    let Some(total) = n.checked_mul(size) else {
        return ptr::null_mut();
    };
    let p = alloc(total, natural_align(total));
    // SAFETY (`reused`): a live large allocation of ours when not in the arena.
    if !p.is_null() && (Standalone::owns(p) || unsafe { large::reused(p) }) {
        // SAFETY: a cell or large allocation of at least `total` bytes (cells are not zeroed
        // by the core; cached large mappings and the bounded pool's slots are reused memory).
        unsafe { ptr::write_bytes(p, 0, total) };
    }
    p as *mut c_void
}

/// C `realloc`: in place when the new size fits the usable size and keeps at least half of
/// it; `realloc(p, 0)` frees `p` and returns null (glibc's behaviour).
///
/// # Safety
/// `p` is null or from this library and live.
#[no_mangle]
pub unsafe extern "C" fn realloc(p: *mut c_void, size: size_t) -> *mut c_void {
    let p = p as *mut u8;
    if p.is_null() {
        return alloc(size, natural_align(size)) as *mut c_void;
    }
    if size == 0 {
        // SAFETY: forwarded contract.
        unsafe { release(p) };
        return ptr::null_mut();
    }
    // SAFETY: live (contract).
    let old = unsafe { usable(p) };
    if size <= old && size >= old / 2 {
        return p as *mut c_void;
    }
    let q = alloc(size, natural_align(size));
    if !q.is_null() {
        // SAFETY: both live, distinct, and at least `min(old, size)` bytes long.
        unsafe {
            ptr::copy_nonoverlapping(p, q, old.min(size));
            release(p);
        }
    }
    q as *mut c_void
}

/// C `posix_memalign`: `EINVAL` unless `align` is a power of two multiple of the word size.
///
/// # Safety
/// `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn posix_memalign(
    out: *mut *mut c_void,
    align: size_t,
    size: size_t,
) -> c_int {
    if !align.is_power_of_two() || align % std::mem::size_of::<usize>() != 0 {
        return libc::EINVAL;
    }
    let p = alloc(size, align.max(natural_align(size)));
    if p.is_null() {
        return libc::ENOMEM;
    }
    // SAFETY: valid for a write (contract).
    unsafe { out.write(p as *mut c_void) };
    0
}

/// C11 `aligned_alloc` (any power-of-two alignment; null otherwise).
///
/// # Safety
/// As for `malloc`.
#[no_mangle]
pub unsafe extern "C" fn aligned_alloc(align: size_t, size: size_t) -> *mut c_void {
    if !align.is_power_of_two() {
        return ptr::null_mut();
    }
    alloc(size, align.max(natural_align(size))) as *mut c_void
}

/// Obsolete `memalign`, as `aligned_alloc`.
///
/// # Safety
/// As for `malloc`.
#[no_mangle]
pub unsafe extern "C" fn memalign(align: size_t, size: size_t) -> *mut c_void {
    // SAFETY: same contract.
    unsafe { aligned_alloc(align, size) }
}

/// Obsolete `valloc`: page-aligned.
///
/// # Safety
/// As for `malloc`.
#[no_mangle]
pub unsafe extern "C" fn valloc(size: size_t) -> *mut c_void {
    alloc(size, 4096) as *mut c_void
}

/// Obsolete `pvalloc`: page-aligned, size rounded up to pages.
///
/// # Safety
/// As for `malloc`.
#[no_mangle]
pub unsafe extern "C" fn pvalloc(size: size_t) -> *mut c_void {
    alloc(size.div_ceil(4096).max(1) * 4096, 4096) as *mut c_void
}

/// GNU `malloc_usable_size`.
///
/// # Safety
/// `p` is null or from this library and live.
#[no_mangle]
pub unsafe extern "C" fn malloc_usable_size(p: *mut c_void) -> size_t {
    // SAFETY: forwarded contract.
    unsafe { usable(p as *mut u8) }
}
