//! The shardsweep standalone allocator behind the C allocation ABI, as a `cdylib` that can be
//! `LD_PRELOAD`ed under any dynamically linked program (as `libmimalloc.so` can):
//!
//! ```sh
//! cargo build --release -p shardsweep-capi
//! LD_PRELOAD=target/release/libshardsweep_capi.so python3 -c 'print(sum(range(10**6)))'
//! ```
//!
//! C's `free` and `realloc` get no size, so the two kinds of allocation must be told apart by
//! the pointer alone:
//! * **small** (up to `MAX_SMALL_BYTES`, alignment up to 128): a cell of the arena, which
//!   [`Standalone::owns`] recognises by address; its usable size is its cell size;
//! * **large**: a mapping of its own, with a [`LargeHeader`] in the 16 bytes before the pointer
//!   (mapping base, mapping bytes and a magic word) so that `free` can unmap it.
//!
//! A pointer that is neither (one handed out by the dynamic loader's start-up allocator before
//! this library was bound, say) is left alone by `free` rather than corrupting anything.

use shardsweep::config::MAX_SMALL_BYTES;
use shardsweep::os::{map_aligned, unmap};
use shardsweep::size_class::bin_for_aligned;
use shardsweep::Standalone;
use std::alloc::Layout;
use std::cell::Cell;
use std::ffi::{c_int, c_void};
use std::ptr;

/// The alignment `malloc` guarantees (glibc's on x86-64 and aarch64: 16 bytes).
const MIN_ALIGN: usize = 16;
/// OS page bytes (large mappings are whole pages).
const OS_PAGE: usize = 4096;
/// Marks a [`LargeHeader`] (the low bits differ from any address).
const LARGE_MAGIC: usize = 0x5348_5357_4C41_5247; // "SHSWLARG"

/// In the 16 bytes before a large allocation's pointer (the pointer is at least 16-aligned).
#[repr(C)]
struct LargeHeader {
    /// The mapping's bytes; the mapping's base is `ptr - offset`.
    map_bytes: usize,
    /// `offset << 16 | (LARGE_MAGIC & 0xffff)`: the pointer's offset in the mapping, checked.
    tagged_offset: usize,
}

const _: () = assert!(std::mem::size_of::<LargeHeader>() == MIN_ALIGN);

fn tag(offset: usize) -> usize {
    (offset << 16) | (LARGE_MAGIC & 0xffff)
}

/// Whether a request of `size` bytes aligned to `align` is served from the arena.
fn is_small(size: usize, align: usize) -> bool {
    size <= MAX_SMALL_BYTES && bin_for_aligned(size.max(1), align).is_some()
}

thread_local! {
    /// Set while this thread is inside the arena allocator. The first allocation of a thread
    /// creates its heap, whose thread-local slot registers its destructor with glibc, which
    /// calls `calloc`: that nested call must not enter the arena again (the slot is not yet
    /// initialised: it would register again, forever). No destructor, so reading it allocates
    /// nothing.
    static INSIDE: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` in the arena allocator unless this thread is already inside it (`None` then).
#[inline(always)]
fn guarded<R>(f: impl FnOnce() -> R) -> Option<R> {
    INSIDE.with(|inside| {
        if inside.replace(true) {
            return None;
        }
        let r = f();
        inside.set(false);
        Some(r)
    })
}

/// `size` bytes aligned to `align` (a power of two, at least 16): null if out of memory.
fn alloc(size: usize, align: usize) -> *mut u8 {
    let size = size.max(1);
    if is_small(size, align) {
        // Cells of the bins `bin_for_aligned` picks for an alignment of 16 are 16-aligned (what
        // glibc's malloc guarantees and vector code relies on).
        let Ok(layout) = Layout::from_size_align(size, align) else {
            return ptr::null_mut();
        };
        // A nested request (the heap's own set-up, see `INSIDE`) gets a mapping of its own.
        return guarded(|| Standalone::alloc(layout)).unwrap_or_else(|| alloc_large(size, align));
    }
    alloc_large(size, align)
}

#[cold]
fn alloc_large(size: usize, align: usize) -> *mut u8 {
    // The header sits in the `offset` bytes before the pointer; `offset` keeps the alignment.
    let offset = align.max(MIN_ALIGN);
    let Some(bytes) = size
        .checked_add(offset)
        .and_then(|b| b.checked_add(OS_PAGE - 1))
        .map(|b| b & !(OS_PAGE - 1))
    else {
        return ptr::null_mut();
    };
    if offset > (usize::MAX >> 17) {
        return ptr::null_mut();
    }
    let base = map_aligned(bytes, align.max(OS_PAGE));
    if base.is_null() {
        return ptr::null_mut();
    }
    // SAFETY: `base + offset` and the header before it lie in the fresh mapping of `bytes`
    // (`bytes >= size + offset`, `offset >= 16`); the header is 16-aligned (base is page-aligned
    // and offset a multiple of 16).
    unsafe {
        let p = base.add(offset);
        (p as *mut LargeHeader).sub(1).write(LargeHeader {
            map_bytes: bytes,
            tagged_offset: tag(offset),
        });
        p
    }
}

/// The header of the large allocation at `p`, if `p` is one.
///
/// # Safety
/// `p` is non-null, not in the arena, and was returned by this library's allocation functions
/// (or, for the foreign pointers `free` tolerates, has 16 readable bytes before it).
unsafe fn large_header(p: *mut u8) -> Option<(*mut u8, usize, usize)> {
    // SAFETY: the 16 bytes before a large pointer are its header (contract).
    let h = unsafe { (p as *const LargeHeader).sub(1).read() };
    if h.tagged_offset & 0xffff != LARGE_MAGIC & 0xffff {
        return None;
    }
    let offset = h.tagged_offset >> 16;
    if offset < MIN_ALIGN || (p as usize) < offset || h.map_bytes < offset {
        return None;
    }
    Some((p.wrapping_sub(offset), h.map_bytes, h.map_bytes - offset))
}

/// The usable bytes at `p` (0 for null or a pointer that is not ours).
///
/// # Safety
/// `p` is null or a live allocation of this library.
unsafe fn usable(p: *mut u8) -> usize {
    if p.is_null() {
        0
    } else if Standalone::owns(p) {
        // SAFETY: a live small cell (contract).
        unsafe { Standalone::cell_bytes(p) }
    } else {
        // SAFETY: a live large allocation (contract).
        unsafe { large_header(p) }.map_or(0, |(_, _, usable)| usable)
    }
}

/// # Safety
/// `p` is null or a live allocation of this library, freed once.
unsafe fn release(p: *mut u8) {
    if p.is_null() {
        return;
    }
    if Standalone::owns(p) {
        // SAFETY: a live small cell; any small layout routes an arena pointer to its cell's
        // free (the layout only chooses between the arena and a large mapping). A free nested
        // in the heap's set-up (never seen: glibc frees nothing there) would go remote.
        let layout = unsafe { Layout::from_size_align_unchecked(MIN_ALIGN, 8) };
        // SAFETY: as above.
        if guarded(|| unsafe { Standalone::dealloc(p, layout) }).is_none() {
            // SAFETY: as above; freeing as another thread would is valid from any thread.
            unsafe { shardsweep::heap::free_remote(shardsweep::block::Block::of(p), p) };
        }
        return;
    }
    // SAFETY: a large allocation of ours, or a foreign pointer (then the tag does not match).
    if let Some((base, bytes, _)) = unsafe { large_header(p) } {
        // SAFETY: the whole mapping `alloc_large` made; nothing refers to it any more.
        unsafe { unmap(base, bytes) };
    }
}

fn set_enomem() {
    // SAFETY: errno is this thread's own.
    unsafe { *libc::__errno_location() = libc::ENOMEM };
}

fn checked(p: *mut u8) -> *mut c_void {
    if p.is_null() {
        set_enomem();
    }
    p as *mut c_void
}

/// C `malloc`.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn malloc(size: usize) -> *mut c_void {
    checked(alloc(size, MIN_ALIGN))
}

/// C `free`.
///
/// # Safety
/// The C contract: `p` is null or a live allocation of this library, freed once.
#[no_mangle]
pub unsafe extern "C" fn free(p: *mut c_void) {
    // SAFETY: forwarded contract.
    unsafe { release(p as *mut u8) }
}

/// C `calloc`: zeroed (a reused cell may hold old bytes; a fresh mapping is zero already).
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn calloc(n: usize, size: usize) -> *mut c_void {
    let Some(bytes) = n.checked_mul(size) else {
        set_enomem();
        return ptr::null_mut();
    };
    let p = alloc(bytes, MIN_ALIGN);
    if !p.is_null() && Standalone::owns(p) {
        // SAFETY: a fresh cell of at least `bytes` bytes.
        unsafe { ptr::write_bytes(p, 0, bytes) };
    }
    checked(p)
}

/// C `realloc`: in place when the cell or mapping already has room.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn realloc(p: *mut c_void, size: usize) -> *mut c_void {
    let p = p as *mut u8;
    if p.is_null() {
        return checked(alloc(size, MIN_ALIGN));
    }
    // SAFETY: `p` is a live allocation of ours (contract).
    let have = unsafe { usable(p) };
    // Keep it if it fits and does not waste more than half (a shrink to a much smaller class
    // moves, as mimalloc's does).
    if size <= have && size >= have / 2 {
        return p as *mut c_void;
    }
    let q = alloc(size, MIN_ALIGN);
    if q.is_null() {
        set_enomem();
        return ptr::null_mut();
    }
    // SAFETY: both live and distinct; `min(have, size)` bytes are readable at `p`, writable at `q`.
    unsafe {
        ptr::copy_nonoverlapping(p, q, have.min(size));
        release(p);
    }
    q as *mut c_void
}

fn aligned(align: usize, size: usize) -> *mut u8 {
    if !align.is_power_of_two() {
        return ptr::null_mut();
    }
    alloc(size, align.max(MIN_ALIGN))
}

/// C `posix_memalign`.
///
/// # Safety
/// The C contract: `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn posix_memalign(out: *mut *mut c_void, align: usize, size: usize) -> c_int {
    if !align.is_power_of_two() || align % std::mem::size_of::<*mut c_void>() != 0 {
        return libc::EINVAL;
    }
    let p = aligned(align, size);
    if p.is_null() {
        return libc::ENOMEM;
    }
    // SAFETY: `out` is writable (contract).
    unsafe { *out = p as *mut c_void };
    0
}

/// C11 `aligned_alloc`.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn aligned_alloc(align: usize, size: usize) -> *mut c_void {
    checked(aligned(align, size))
}

/// `memalign` (obsolete, still used by some C libraries).
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn memalign(align: usize, size: usize) -> *mut c_void {
    checked(aligned(align, size))
}

/// `valloc`: page-aligned.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn valloc(size: usize) -> *mut c_void {
    checked(aligned(OS_PAGE, size))
}

/// `malloc_usable_size`.
///
/// # Safety
/// `p` is null or a live allocation of this library.
#[no_mangle]
pub unsafe extern "C" fn malloc_usable_size(p: *mut c_void) -> usize {
    // SAFETY: forwarded contract.
    unsafe { usable(p as *mut u8) }
}
