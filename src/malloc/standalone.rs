//! Standalone mode: the core as a malloc-like allocator over memory it maps itself, usable from
//! any thread and as a Rust `#[global_allocator]` ([`ShardSweepAlloc`]), so that the port can be
//! checked against real mimalloc's behaviour and speed.
//!
//! Small requests (up to [`MAX_SMALL_BYTES`], alignment up to 128) go to the calling thread's
//! heap; larger ones are mapped directly, like mimalloc's huge pages. Nothing here allocates
//! through the global allocator, so it can be the global allocator.
//!
//! Bounded mode (`bounded.rs`: `SHARDSWEEP_BOUNDED` or [`Standalone::init_bounded`]): the
//! declared blocks, thread heaps and large mappings are mapped and pre-faulted at
//! initialisation; afterwards the arena hands out blocks up to its limit only, keeps emptied
//! blocks resident (no purge), heaps come from a fixed pool and large requests from a fixed
//! pool, and every exhaustion returns null instead of asking the OS.

use super::arena::{ArenaSource, ARENA_BYTES};
use super::bounded::{self, BoundedSettings, MAX_BOUNDED_THREADS};
use super::large_cache::LargeCache;
use super::large_cache::CLASSES;
use super::purge_delay::purge_delay_ms;
use crate::block::{Adopt, Block, ReuseOrder, Spill};
use crate::block_stack::BlockStack;
use crate::budget::{Accounting, CountingBudget};
use crate::config::PAGE_BYTES;
use crate::heap::Heap;
use crate::os::{map_aligned, prefault, unmap, Advice, Madvise, OsMemory};
use crate::shared::{Settings, Shared};
use crate::size_class::bin_for_aligned;
use crate::sync::{AtomicUsize, Ordering};
use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell as StdCell;
use std::ptr;

/// The standalone OS interface: `madvise(MADV_DONTNEED)`, and empty blocks are kept resident
/// for the purge delay (`SHARDSWEEP_PURGE_DELAY_MS`, 0 = dropped at once).
pub struct StandaloneOs;

impl OsMemory for StandaloneOs {
    unsafe fn release_pages(&self, addr: *mut u8, len: usize) {
        // SAFETY: forwarded contract.
        unsafe { DONTNEED.release_pages(addr, len) }
    }
    fn released_pages_are_zero(&self) -> bool {
        DONTNEED.released_pages_are_zero()
    }
    fn keeps_retired_blocks(&self) -> bool {
        // Bounded mode never gives pages back after initialisation.
        bounded::is_on() || purge_delay_ms() > 0
    }
}

static DONTNEED: Madvise = Madvise {
    advice: Advice::DontNeed,
};

static LARGE: LargeCache = LargeCache::new();
static ARENA: ArenaSource = ArenaSource::keeping(ARENA_BYTES, &BUDGET, &OS);
static BUDGET: CountingBudget = CountingBudget::unlimited();
static OS: StandaloneOs = StandaloneOs;
static SHARED: Shared = Shared::new(
    &ARENA,
    &BUDGET,
    &OS,
    Settings {
        accounting: Accounting::Page,
        zero_cells: false,
        abandon_idle_bins: false,
        abandon_all_partial: false,
        reuse: ReuseOrder::Address,
        spill: Spill::Charge,
        adopt: Adopt::Block,
        lease_current: false,
        lend_holes: 0,
        hole_live: None,
        marks: None,
        listing_pages: 1,
        extension_pages: 1,
    },
);

/// Mappings of dropped thread heaps, kept for the next thread (mimalloc caches thread data the
/// same way): short-lived threads would otherwise map and unmap a heap each. The heap itself is
/// dropped (its blocks abandoned) before its memory is cached; only the memory is reused.
static HEAP_CACHE: [AtomicUsize; 8] = [const { AtomicUsize::new(0) }; 8];

/// Bounded mode: the pre-mapped, pre-faulted heap memory, one slot per declared thread (more
/// slots for heaps made before the initialisation). Taken with a swap, given back with a
/// compare-exchange: at most `MAX_BOUNDED_THREADS` slots scanned, at thread start and exit only.
static HEAP_POOL: [AtomicUsize; MAX_BOUNDED_THREADS] =
    [const { AtomicUsize::new(0) }; MAX_BOUNDED_THREADS];

/// Caches the dead heap mapping `h` (in bounded mode in the heap pool), or unmaps it if the
/// cache is full.
///
/// # Safety
/// `h` is a heap mapping of `HEAP_MAP_BYTES` whose heap was dropped; nothing refers to it.
unsafe fn retire_heap_memory(h: *mut Heap) {
    let pool: &[AtomicUsize] = if bounded::is_on() { &HEAP_POOL } else { &[] };
    for s in pool.iter().chain(HEAP_CACHE.iter()) {
        // Release: our writes to the memory happen-before the next owner's `Acquire` swap;
        // Relaxed on failure: the slot was taken, nothing read.
        if s.compare_exchange(0, h as usize, Ordering::Release, Ordering::Relaxed)
            .is_ok()
        {
            return;
        }
    }
    // SAFETY: the whole heap mapping, unused (contract).
    unsafe { unmap(h as *mut u8, HEAP_MAP_BYTES) };
}

/// A cached heap mapping, or a fresh one; null if mapping fails. In bounded mode a slot of the
/// heap pool, or null when every slot is taken (never a mapping).
fn heap_memory() -> *mut Heap {
    let bounded = bounded::is_on();
    let slots: &[AtomicUsize] = if bounded { &HEAP_POOL } else { &HEAP_CACHE };
    for s in slots {
        // Relaxed peek; the Acquire swap (pairs with `retire_heap_memory`'s Release) decides.
        if s.load(Ordering::Relaxed) != 0 {
            let h = s.swap(0, Ordering::Acquire);
            if h != 0 {
                return h as *mut Heap;
            }
        }
    }
    if bounded {
        return ptr::null_mut();
    }
    map_aligned(HEAP_MAP_BYTES, PAGE_BYTES) as *mut Heap
}

/// The bounded initialisation (once per process, by the thread that claimed it): the arena's
/// limit and pre-faulting, the heap pool, the large pool. Maps only here.
fn init_bounded_now(s: BoundedSettings) {
    ARENA.make_bounded(s.bytes);
    if !s.profile.is_empty() {
        SHARED.keep_emptied_blocks();
        for &(size, blocks) in s.profile {
            if let Some(bin) = bin_for_aligned(size.max(1), 8) {
                SHARED.preextend(bin, blocks);
            }
        }
    }
    // Without memory for the pools, bounded mode has fewer (or no) slots: an allocation that
    // needs one returns null, as on exhaustion.
    let heaps = map_aligned(s.threads * HEAP_MAP_BYTES, PAGE_BYTES);
    let threads = if heaps.is_null() { 0 } else { s.threads };
    // SAFETY: a fresh mapping of ours that nobody else uses yet (empty when it failed).
    unsafe { prefault(heaps, threads * HEAP_MAP_BYTES) };
    let mut next = 0;
    for slot in HEAP_POOL.iter() {
        if next == threads {
            break;
        }
        // Relaxed: published with the bounded mode (`bounded::finish`, Release); a heap made
        // before the initialisation may have been cached in a slot already (kept).
        if slot.load(Ordering::Relaxed) == 0 {
            slot.store(heaps as usize + next * HEAP_MAP_BYTES, Ordering::Relaxed);
            next += 1;
        }
    }
    for c in 0..CLASSES {
        let bytes = LargeCache::class_bytes(c);
        let n = (s.large_bytes / CLASSES / bytes).max(1);
        let m = map_aligned(n * bytes, PAGE_BYTES);
        if m.is_null() {
            continue; // this class's pool stays empty: its requests return null
        }
        // SAFETY: a fresh mapping of ours that nobody else uses yet.
        unsafe { prefault(m, n * bytes) };
        for i in (0..n).rev() {
            // SAFETY: page-aligned slots of the fresh mapping, never unmapped; the stack's link
            // is a word of the slot (`BlockStack` needs 4 KiB alignment and mapped memory).
            unsafe { LARGE_POOL[c].push((m as usize + i * bytes) as *mut Block) };
        }
        // Relaxed: published with the bounded mode (`bounded::finish`, Release).
        LARGE_POOL_RANGE[c][0].store(m as usize, Ordering::Relaxed);
        LARGE_POOL_RANGE[c][1].store(n * bytes, Ordering::Relaxed);
    }
}

/// Bounded mode: the pre-mapped large objects of each large class, on a lock-free stack (a
/// free slot's word at `Block::xstack_next`'s offset is its link), and each class's mapping
/// (base, bytes).
static LARGE_POOL: [BlockStack; CLASSES] = [const { BlockStack::new() }; CLASSES];
static LARGE_POOL_RANGE: [[AtomicUsize; 2]; CLASSES] =
    [const { [AtomicUsize::new(0), AtomicUsize::new(0)] }; CLASSES];

/// Whether `p` is a slot of the bounded large pool of class `c`.
fn in_large_pool(c: usize, p: usize) -> bool {
    // Relaxed: set at the bounded initialisation, published with the mode.
    let base = LARGE_POOL_RANGE[c][0].load(Ordering::Relaxed);
    p.wrapping_sub(base) < LARGE_POOL_RANGE[c][1].load(Ordering::Relaxed)
}

/// Bytes of memory for a heap, rounded to pages.
const HEAP_MAP_BYTES: usize = std::mem::size_of::<Heap>().div_ceil(PAGE_BYTES) * PAGE_BYTES;

struct HeapSlot(StdCell<*mut Heap>);

impl Drop for HeapSlot {
    fn drop(&mut self) {
        let h = self.0.replace(ptr::null_mut());
        if !h.is_null() {
            // SAFETY: the heap was made by `local_heap` on this thread; it is dropped once.
            unsafe {
                ptr::drop_in_place(h);
                retire_heap_memory(h);
            }
            // The blocks just abandoned, and older ones, may have been emptied by other
            // threads' frees: give those back (not in bounded mode: no block goes back there).
            if !bounded::is_on() {
                SHARED.release_empty_abandoned();
            }
        }
    }
}

thread_local! {
    static HEAP: HeapSlot = const { HeapSlot(StdCell::new(ptr::null_mut())) };
}

/// Runs `f` with this thread's heap, creating it on first use. `None` while the thread is
/// being torn down (its heap is gone); `f(None)` in bounded mode when every heap slot is taken.
#[inline(always)]
fn with_heap<R>(f: impl FnOnce(Option<&mut Heap>) -> R) -> Option<R> {
    HEAP.try_with(|slot| {
        let mut h = slot.0.get();
        if h.is_null() {
            h = new_heap();
            if h.is_null() {
                return f(None); // bounded mode: every heap slot is taken
            }
            slot.0.set(h);
        }
        // SAFETY: the heap is this thread's own; no other reference to it is live.
        f(Some(unsafe { &mut *h }))
    })
    .ok()
}

/// A new heap, or null in bounded mode when the heap pool is exhausted. The first call of the
/// process reads `SHARDSWEEP_BOUNDED` (and initialises bounded mode if it is set).
#[cold]
fn new_heap() -> *mut Heap {
    // The first call of the process reads the bounded setting (the heap's memory depends on it).
    bounded::ensure_read(init_bounded_now);
    let h = heap_memory();
    if h.is_null() {
        // Bounded mode with every heap slot taken, or no memory to map a heap: the caller
        // answers null (a panic in a global allocator is undefined behaviour).
        return h;
    }
    // SAFETY: fresh memory of the right size that never moves.
    unsafe { Heap::init_in_place(h, &SHARED) };
    h
}

/// The standalone allocator's entry points.
pub struct Standalone;

impl Standalone {
    /// Allocates `layout`; null if out of memory. Panics on a zero size.
    #[inline]
    pub fn alloc(layout: Layout) -> *mut u8 {
        let size = layout.size();
        assert!(size != 0, "shardsweep: zero-sized allocation request");
        if layout.align() <= 8 && size <= crate::config::MAX_SMALL_BYTES {
            return with_heap(|h| h.map_or(ptr::null_mut(), |h| h.alloc(size)))
                .unwrap_or_else(|| Self::alloc_orphan(layout));
        }
        match bin_for_aligned(size, layout.align()) {
            Some(bin) => with_heap(|h| h.map_or(ptr::null_mut(), |h| h.alloc_bin(bin)))
                .unwrap_or_else(|| Self::alloc_orphan(layout)),
            None => Self::alloc_large(layout),
        }
    }

    /// Frees `p`, allocated with `layout` by [`Standalone::alloc`], from any thread.
    ///
    /// # Safety
    /// `p` came from `alloc(layout)` and is freed once.
    #[inline]
    pub unsafe fn dealloc(p: *mut u8, layout: Layout) {
        // The same decision as `alloc`, from the layout: no address-range check on the way.
        if layout.align() > 8 || layout.size() > crate::config::MAX_SMALL_BYTES {
            // SAFETY: forwarded contract.
            return unsafe { Self::dealloc_other(p, layout) };
        }
        debug_assert!(
            ARENA.contains(p),
            "shardsweep: free of {p:?}: not allocated by shardsweep (foreign pointer)"
        );
        let done = with_heap(|h| match h {
            // SAFETY: `p` is an allocated cell of a live arena block (contract).
            Some(h) => unsafe { h.free(p) },
            // SAFETY: as above; without a heap (bounded mode, every heap slot taken) it is
            // freed as a foreign thread would.
            None => unsafe { Heap::free_remote(Block::of(p), p) },
        });
        if done.is_none() {
            // SAFETY: as above.
            unsafe { Heap::free_remote(Block::of(p), p) };
        }
    }

    /// Frees an aligned small cell or a large mapping.
    ///
    /// # Safety
    /// As for [`Standalone::dealloc`].
    #[cold]
    unsafe fn dealloc_other(p: *mut u8, layout: Layout) {
        if bin_for_aligned(layout.size(), layout.align()).is_none() {
            debug_assert!(
                !ARENA.contains(p),
                "shardsweep: large free of {p:?} inside the arena"
            );
            if let Some(c) = LargeCache::class(layout.size(), layout.align()) {
                crate::steps::add(1);
                if in_large_pool(c, p as usize) {
                    // SAFETY: a slot of the pool, freed once (contract), page-aligned, mapped
                    // for the life of the process.
                    unsafe { LARGE_POOL[c].push(p as *mut Block) };
                    return;
                }
                if LARGE.put(c, p as usize) {
                    return;
                }
                // SAFETY: a cached-class mapping is exactly its class's size (`alloc_large`).
                unsafe { unmap(p, LargeCache::class_bytes(c)) };
                return;
            }
            // SAFETY: large allocations are whole mappings of this size (contract).
            unsafe { unmap(p, Self::large_bytes(layout)) };
            return;
        }
        let done = with_heap(|h| match h {
            // SAFETY: `p` is an allocated cell of a live arena block (contract).
            Some(h) => unsafe { h.free(p) },
            // SAFETY: as above; without a heap (bounded mode, every heap slot taken) it is
            // freed as a foreign thread would.
            None => unsafe { Heap::free_remote(Block::of(p), p) },
        });
        if done.is_none() {
            // SAFETY: as above.
            unsafe { Heap::free_remote(Block::of(p), p) };
        }
    }

    fn large_bytes(layout: Layout) -> usize {
        layout.size().div_ceil(PAGE_BYTES) * PAGE_BYTES
    }

    #[cold]
    fn alloc_large(layout: Layout) -> *mut u8 {
        // Any alignment `Layout` allows: `map_aligned` over-maps by the alignment and trims
        // (null when that does not fit the address space).
        let bounded = bounded::ensure_read(init_bounded_now);
        if let Some(c) = LargeCache::class(layout.size(), layout.align()) {
            crate::steps::add(1);
            if bounded {
                // The class's pool, or null when it is empty.
                return LARGE_POOL[c]
                    .pop()
                    .map_or(ptr::null_mut(), |b| b as *mut u8);
            }
            let p = LARGE.take(c);
            if p != 0 {
                return p as *mut u8;
            }
            return map_aligned(LargeCache::class_bytes(c), PAGE_BYTES);
        }
        if bounded {
            return ptr::null_mut(); // larger than the pool's classes
        }
        map_aligned(Self::large_bytes(layout), layout.align().max(PAGE_BYTES))
    }

    /// An allocation on a thread whose heap is gone (during TLS teardown): a short-lived heap.
    #[cold]
    fn alloc_orphan(layout: Layout) -> *mut u8 {
        let h = new_heap();
        if h.is_null() {
            return ptr::null_mut(); // bounded mode: every heap slot is taken
        }
        // SAFETY: a fresh heap used only here; its blocks are abandoned when it is dropped.
        unsafe {
            let p = match bin_for_aligned(layout.size(), layout.align()) {
                Some(bin) => (*h).alloc_bin(bin),
                None => ptr::null_mut(),
            };
            ptr::drop_in_place(h);
            retire_heap_memory(h);
            p
        }
    }

    /// Whether `p` lies in the standalone arena, that is, is a small cell this mode handed out
    /// (large allocations are separate mappings). For allocators that must free without a
    /// layout, such as the C ABI (`bindings/capi`).
    #[inline]
    pub fn owns(p: *const u8) -> bool {
        ARENA.contains(p)
    }

    /// Usable bytes of the small cell `p` (its size class's cell size).
    ///
    /// # Safety
    /// `p` is a live cell returned by [`Standalone::alloc`] (`Standalone::owns(p)`).
    #[inline]
    pub unsafe fn cell_bytes(p: *const u8) -> usize {
        // SAFETY: `p` is a live cell, so its block's header is live (contract).
        unsafe { (*Block::of(p)).cell_size() }
    }

    /// Frees the small cell `p` without its layout, from any thread.
    ///
    /// # Safety
    /// `p` is a live cell returned by [`Standalone::alloc`] (`Standalone::owns(p)`), freed once.
    #[inline]
    pub unsafe fn free_cell(p: *mut u8) {
        let done = with_heap(|h| match h {
            // SAFETY: `p` is an allocated cell of a live arena block (contract).
            Some(h) => unsafe { h.free(p) },
            // SAFETY: as above; without a heap (bounded mode, every heap slot taken) it is
            // freed as a foreign thread would.
            None => unsafe { Heap::free_remote(Block::of(p), p) },
        });
        if done.is_none() {
            // SAFETY: as above.
            unsafe { Heap::free_remote(Block::of(p), p) };
        }
    }

    /// Frees the small cell `p` as a foreign thread would, without touching this thread's heap:
    /// for callers that must not create a heap (the C ABI while a thread's heap is being set up).
    ///
    /// # Safety
    /// As for [`Standalone::free_cell`].
    pub unsafe fn free_cell_remote(p: *mut u8) {
        // SAFETY: a cell of a live arena block (contract).
        unsafe { Heap::free_remote(Block::of(p), p) };
    }

    /// Allocates `layout` (small only: `bin_for_aligned` must find a bin) on a short-lived heap,
    /// never touching the calling thread's own: for callers that must not create a heap.
    /// Null if the request is not small.
    pub fn alloc_detached(layout: Layout) -> *mut u8 {
        Self::alloc_orphan(layout)
    }

    /// Turns bounded mode on (`bounded.rs`), as `SHARDSWEEP_BOUNDED` does at the first
    /// allocation: reserves and pre-faults `settings.bytes` of blocks beyond those already
    /// handed out, maps `settings.threads` heaps and the large pool. Call it early (before
    /// spawning the threads that allocate): heaps and large mappings made before keep their
    /// memory. Errors: invalid settings, or bounded mode already on.
    pub fn init_bounded(settings: BoundedSettings) -> Result<(), &'static str> {
        if settings.bytes == 0
            || settings.bytes > ARENA_BYTES
            || settings.threads == 0
            || settings.threads > MAX_BOUNDED_THREADS
        {
            return Err(
                "shardsweep: bounded settings out of range (1 MiB to 64 GiB, 1 to 256 threads)",
            );
        }
        // Reads the environment first: `SHARDSWEEP_BOUNDED` takes precedence.
        if bounded::ensure_read(init_bounded_now) || !bounded::start() {
            return Err("shardsweep: bounded mode is already on");
        }
        init_bounded_now(settings);
        bounded::finish();
        Ok(())
    }

    /// Whether bounded mode is on (reads `SHARDSWEEP_BOUNDED` first if no allocation did yet,
    /// and initialises bounded mode if it is set).
    pub fn is_bounded() -> bool {
        bounded::ensure_read(init_bounded_now)
    }

    /// Blocks the arena may still hand out fresh (bounded mode: what is left of the declared
    /// memory, besides emptied blocks kept for reuse).
    pub fn fresh_blocks_left() -> usize {
        ARENA.fresh_blocks_left()
    }

    /// Pages charged by all standalone heaps.
    pub fn charged_pages() -> usize {
        use crate::budget::PageBudget;
        BUDGET.charged()
    }
}

/// `#[global_allocator]` adapter: `static A: ShardSweepAlloc = ShardSweepAlloc;`.
pub struct ShardSweepAlloc;

// SAFETY: `Standalone` returns distinct, live, suitably aligned blocks of at least the
// requested size, or null; dealloc accepts exactly what alloc returned.
unsafe impl GlobalAlloc for ShardSweepAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Standalone::alloc(layout)
    }
    #[inline]
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        // SAFETY: forwarded contract.
        unsafe { Standalone::dealloc(p, layout) }
    }
}
