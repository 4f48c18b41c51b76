//! Large allocations (no small size class fits): a page-aligned large allocation of the
//! standalone allocator ([`Standalone::alloc`] with a page-aligned layout: the same path as the
//! Rust `GlobalAlloc`'s, so the C ABI gets the large-mapping cache, and in bounded mode the
//! pre-mapped large pool), with a 16-byte header just below the returned pointer holding the
//! allocation's base and length, so `free` and `malloc_usable_size` need no layout.

use shardsweep::malloc::large_cache::MAX_CACHED_BYTES;
use shardsweep::Standalone;
use std::alloc::Layout;
use std::ptr;

const PAGE: usize = 4096;
/// Bytes of the header below a large pointer: base and length.
const HEADER: usize = 16;

/// `size` bytes aligned to `align` (a power of two); null on failure.
pub fn alloc(size: usize, align: usize) -> *mut u8 {
    let align = align.max(HEADER);
    // Room for the header below an `align`-aligned pointer: at most `align` bytes when
    // `align <= PAGE` (the allocation is page-aligned), else `align` more to find one.
    let Some(slack) = (if align <= PAGE { Some(align) } else { align.checked_mul(2) }) else {
        return ptr::null_mut();
    };
    let Some(len) = size
        .checked_add(slack)
        .and_then(|n| n.checked_add(PAGE - 1))
        .map(|n| n & !(PAGE - 1))
    else {
        return ptr::null_mut();
    };
    let Ok(layout) = Layout::from_size_align(len, PAGE) else {
        return ptr::null_mut();
    };
    let b = Standalone::alloc(layout);
    if b.is_null() {
        return b;
    }
    let user = (b as usize + HEADER + align - 1) & !(align - 1);
    debug_assert!(user + size <= b as usize + len);
    let hdr = (user - HEADER) as *mut usize;
    // SAFETY: the header lies inside the allocation, below `user` (at least HEADER bytes of
    // slack), word-aligned (`user` is at least 16-aligned).
    unsafe {
        hdr.write(b as usize);
        hdr.add(1).write(len);
    }
    user as *mut u8
}

/// The base and length of the allocation at `p`.
///
/// # Safety
/// `p` came from [`alloc`] and was not freed.
unsafe fn header(p: *mut u8) -> (usize, usize) {
    let hdr = (p as usize - HEADER) as *const usize;
    // SAFETY: written by `alloc` just below `p` (contract).
    unsafe { (hdr.read(), hdr.add(1).read()) }
}

/// Usable bytes at `p`: up to the end of its allocation.
///
/// # Safety
/// As for [`header`].
pub unsafe fn usable(p: *mut u8) -> usize {
    // SAFETY: forwarded contract.
    let (base, len) = unsafe { header(p) };
    base + len - p as usize
}

/// Whether `p` may hold old contents: a size the large-mapping cache (or the bounded pool)
/// serves; larger allocations are always fresh mappings, which read as zero.
///
/// # Safety
/// As for [`header`].
pub unsafe fn reused(p: *mut u8) -> bool {
    // SAFETY: forwarded contract.
    unsafe { header(p).1 <= MAX_CACHED_BYTES }
}

/// Frees the allocation at `p`.
///
/// # Safety
/// `p` came from [`alloc`] and is freed once.
pub unsafe fn free(p: *mut u8) {
    // SAFETY: forwarded contract.
    let (base, len) = unsafe { header(p) };
    // SAFETY: `base` came from `Standalone::alloc` with this layout (`alloc`), freed once.
    unsafe { Standalone::dealloc(base as *mut u8, Layout::from_size_align_unchecked(len, PAGE)) }
}
