//! Large allocations (no small size class fits): one private mapping each, with a 16-byte
//! header just below the returned pointer holding the mapping's base and length, so `free` and
//! `malloc_usable_size` need no layout.
//!
//! In bounded mode (`SHARDSWEEP_BOUNDED`) the "mapping" is a slot of the standalone allocator's
//! pre-mapped large pool (`Standalone::alloc` with a page-aligned layout: at most 256 KiB, null
//! when the class's pool is empty), marked by [`POOL`] in the length word: no `mmap` or
//! `munmap` after the initialisation.

use shardsweep::Standalone;
use std::alloc::Layout;
use std::ptr;

const PAGE: usize = 4096;
/// Bytes of the header below a large pointer: base and length.
const HEADER: usize = 16;
/// Bit of the header's length (a multiple of the page size otherwise): the memory is a slot of
/// the bounded mode's large pool, given back with `Standalone::dealloc`.
const POOL: usize = 1;

/// Maps `size` bytes aligned to `align` (a power of two); null on failure.
pub fn alloc(size: usize, align: usize) -> *mut u8 {
    let align = align.max(HEADER);
    // Room for the header below an `align`-aligned pointer: at most `align` bytes when
    // `align <= PAGE` (the mapping is page-aligned), else `align` more to find one.
    let slack = if align <= PAGE { align } else { 2 * align };
    let Some(len) = size
        .checked_add(slack)
        .and_then(|n| n.checked_add(PAGE - 1))
        .map(|n| n & !(PAGE - 1))
    else {
        return ptr::null_mut();
    };
    if Standalone::is_bounded() {
        let Ok(l) = Layout::from_size_align(len, PAGE) else {
            return ptr::null_mut();
        };
        let b = Standalone::alloc(l);
        if b.is_null() {
            return b;
        }
        return place(b as usize, len | POOL, size, align);
    }
    // SAFETY: an anonymous private mapping; no existing memory is affected.
    let base = unsafe {
        libc::mmap(
            ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return ptr::null_mut();
    }
    place(base as usize, len, size, align)
}

/// Writes the header into the memory at `b` (`len & !POOL` bytes) and returns the user pointer.
fn place(b: usize, len: usize, size: usize, align: usize) -> *mut u8 {
    let user = (b + HEADER + align - 1) & !(align - 1);
    debug_assert!(user + size <= b + (len & !POOL));
    let hdr = (user - HEADER) as *mut usize;
    // SAFETY: the header lies inside the fresh memory, below `user`, and is 8-aligned.
    unsafe {
        hdr.write(b);
        hdr.add(1).write(len);
    }
    user as *mut u8
}

/// The mapping's base and length, from the header below `p`.
///
/// # Safety
/// `p` came from [`alloc`] and is live.
unsafe fn header(p: *mut u8) -> (usize, usize) {
    let hdr = (p as usize - HEADER) as *const usize;
    // SAFETY: written by `alloc` just below `p` (contract).
    unsafe { (hdr.read(), hdr.add(1).read()) }
}

/// Usable bytes at `p`: up to the end of its mapping.
///
/// # Safety
/// As for [`header`].
pub unsafe fn usable(p: *mut u8) -> usize {
    // SAFETY: forwarded contract.
    let (base, len) = unsafe { header(p) };
    base + (len & !POOL) - p as usize
}

/// Whether `p` may hold old contents (a slot of the bounded mode's pool, not a fresh mapping).
///
/// # Safety
/// As for [`header`].
pub unsafe fn reused(p: *mut u8) -> bool {
    // SAFETY: forwarded contract.
    unsafe { header(p).1 & POOL != 0 }
}

/// Unmaps the allocation at `p`.
///
/// # Safety
/// `p` came from [`alloc`] and is freed once.
pub unsafe fn free(p: *mut u8) {
    // SAFETY: forwarded contract.
    let (base, len) = unsafe { header(p) };
    if len & POOL != 0 {
        // SAFETY: a pool slot from `Standalone::alloc` with this layout, freed once (contract).
        return unsafe {
            Standalone::dealloc(
                base as *mut u8,
                Layout::from_size_align_unchecked(len & !POOL, PAGE),
            )
        };
    }
    // SAFETY: the whole mapping made by `alloc`; nothing else points into it (contract).
    unsafe { libc::munmap(base as *mut libc::c_void, len) };
}
