//! A thread-local heap (mimalloc's `mi_heap_t`): a direct table from small sizes to the current
//! block of their bin, a queue of blocks per bin, a full list kept off the search path, and the
//! delayed-free list through which remote frees wake full blocks.
//!
//! One concept per file: the heap and its fast path here; the slow path as named steps
//! (`alloc.rs`); freeing, local and remote (`free.rs`); the bin queues and the full list
//! (`queue.rs`); the eager sweep (`sweep.rs`) and the lazy one (`lazy.rs`); giving up the blocks
//! at thread exit (`abandon.rs`).

use crate::block::{empty_block, Block, BlockState, OwnerHeap};
use crate::cell::Cell;
use crate::config::{DIRECT_SLOTS, LOG_WORD_BYTES, MAX_DIRECT_BYTES, MAX_SMALL_BYTES, WORD_BYTES};
use crate::no_cell::NoCell;
use crate::shared::Shared;
use crate::size_class::{bin_of, BIN_COUNT};
use crate::sync::{AtomicPtr, Ordering};
use queue::Queue;
use std::ptr::{self, NonNull};

mod abandon;
mod alloc;
mod free;
mod lazy;
mod lease;
mod queue;
mod sweep;

/// What a heap sweep did, for statistics and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SweepStats {
    /// Blocks swept.
    pub blocks: usize,
    /// Blocks found empty and given back.
    pub released: usize,
    /// Partly used blocks of idle bins abandoned to the global stacks.
    pub abandoned: usize,
    /// Live cells found.
    pub live_cells: usize,
    /// Blocks accounted at a lazy GC (their sweep deferred; see `Heap::defer_sweep`).
    pub accounted: usize,
}

/// A thread-local heap. It must not move once used (blocks point to it): create it with
/// [`Heap::new_boxed`] or in place with [`Heap::init_in_place`].
#[repr(C)]
pub struct Heap {
    /// Size in words → the current block of that size's bin (or the empty block).
    pub(crate) direct: [*mut Block; DIRECT_SLOTS],
    queues: [Queue; BIN_COUNT],
    full: Queue,
    /// Cells freed by other threads into this heap's full blocks (pushed lock-free, taken whole).
    xdelayed: AtomicPtr<Cell>,
    /// Delayed frees taken from `xdelayed` and not yet handled (a drain handles at most
    /// [`crate::bounds::MAX_DRAIN`]; owner only).
    delayed_rest: *mut Cell,
    shared: &'static Shared,
    /// The embedder's word for the thread that allocates through this heap
    /// ([`Heap::set_thread`]), handed to the block source with each fresh block it asks for.
    thread: usize,
    /// A copy of `shared.settings.zero_cells`, read on the free fast path.
    zero_cells: bool,
    /// Bins whose slow path ran since the last sweep.
    slow_bins: u64,
    /// Per bin, the first block's `free` right after the last sweep (idle-bin detection).
    free_at_sweep: [*mut Cell; BIN_COUNT],
    /// Lazy sweeping (see `heap/lazy.rs`): per bin, blocks not yet swept since the last GC. Off
    /// the queues, so no allocation path can pop from them before the owner sweeps them.
    unswept: [Queue; BIN_COUNT],
    /// The liveness oracle of the pending lazy sweep.
    lazy_is_live: Option<fn(*mut u8) -> bool>,
    /// The hole this heap bump-allocates larger requests in (`block/lend.rs`): next byte, end.
    hole: (usize, usize),
    /// Per bin, the lease this heap hands cells out from under `Adopt::Lease` (`lease.rs`): a
    /// placeholder header whose `free` lists the leased cells; the direct slots point at it
    /// while it has one.
    leases: [Block; BIN_COUNT],
}

// SAFETY: a heap is used by one thread at a time (its owner, or a GC worker while the owner
// is stopped); other threads touch only `xdelayed`, atomically.
unsafe impl Send for Heap {}

impl Heap {
    /// Offset of the leases (`[Block; BIN_COUNT]`) in a heap, for [`crate::jit_layout`].
    pub(crate) const LEASES: usize = std::mem::offset_of!(Heap, leases);

    /// A new heap on the global allocator's heap.
    pub fn new_boxed(shared: &'static Shared) -> Box<Heap> {
        let mut b = Box::<Heap>::new_uninit();
        // SAFETY: `init_in_place` writes every field.
        unsafe {
            Heap::init_in_place(b.as_mut_ptr(), shared);
            b.assume_init()
        }
    }

    /// Initialises a heap at `at`.
    ///
    /// # Safety
    /// `at` is valid for writes of a `Heap` and will not move while the heap is used.
    pub unsafe fn init_in_place(at: *mut Heap, shared: &'static Shared) {
        // SAFETY: the caller provides writable memory for a Heap.
        unsafe {
            at.write(Heap {
                direct: [empty_block(); DIRECT_SLOTS],
                queues: [Queue::EMPTY; BIN_COUNT],
                full: Queue::EMPTY,
                xdelayed: AtomicPtr::new(ptr::null_mut()),
                delayed_rest: ptr::null_mut(),
                shared,
                thread: 0,
                zero_cells: shared.settings.zero_cells,
                slow_bins: 0,
                free_at_sweep: [ptr::null_mut(); BIN_COUNT],
                unswept: [Queue::EMPTY; BIN_COUNT],
                lazy_is_live: None,
                hole: (0, 0),
                leases: [const { Block::placeholder() }; BIN_COUNT],
            })
        }
    }

    /// This heap as its blocks' owner word (`Block::xheap`).
    #[inline(always)]
    fn id(&self) -> *mut OwnerHeap {
        self as *const Heap as *mut OwnerHeap
    }

    /// The shared instance.
    pub fn shared(&self) -> &'static Shared {
        self.shared
    }

    /// Tells the heap which thread allocates through it: an opaque word the block source
    /// receives with every fresh block the heap asks for (the MMTk space's mutator `VMThread`).
    pub fn set_thread(&mut self, thread: usize) {
        self.thread = thread;
    }

    /// The fast path (mimalloc's `mi_heap_malloc_small`): a cell of at least `size` bytes from
    /// the current block of its bin, or null if that block has no free cell (then
    /// [`Heap::try_alloc`] runs the slow path). One branch and a pop for sizes up to
    /// `MAX_DIRECT_BYTES`; a queue look-up first above. Panics on a zero or oversized size.
    #[inline(always)]
    pub fn pop(&mut self, size: usize) -> *mut u8 {
        if size.wrapping_sub(1) < MAX_DIRECT_BYTES {
            let block = self.direct[(size + WORD_BYTES - 1) >> LOG_WORD_BYTES];
            // SAFETY: direct slots point to live owned blocks or the never-written empty block,
            // whose `free` is null; a listed cell's first word is its link.
            unsafe {
                let cell = (*block).free;
                if !cell.is_null() {
                    (*block).free = (*cell).next;
                    (*block).used += 1;
                    // Handed-out cells never expose a link (and read as zero in zeroed mode).
                    (*cell).next = ptr::null_mut();
                    return cell as *mut u8;
                }
            }
            return ptr::null_mut();
        }
        self.pop_medium(size)
    }

    #[inline(never)]
    fn pop_medium(&mut self, size: usize) -> *mut u8 {
        self.pop_bin(Self::medium_bin(size))
    }

    fn medium_bin(size: usize) -> usize {
        assert!(size != 0, "shardsweep: zero-sized allocation request");
        assert!(
            size <= MAX_SMALL_BYTES,
            "shardsweep: allocation of {size} bytes exceeds the largest small size {MAX_SMALL_BYTES}; large objects go to the large-object path"
        );
        bin_of(size)
    }

    /// The fast path of bin `bin` (the caller computed the bin, e.g. for alignment): a cell of
    /// its current block, or null.
    #[inline]
    pub fn pop_bin(&mut self, bin: usize) -> *mut u8 {
        assert!((1..BIN_COUNT).contains(&bin), "invalid bin {bin}");
        let lease = &mut self.leases[bin];
        if !lease.free.is_null() {
            return lease.pop();
        }
        let b = self.queues[bin].first;
        if b.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: queued blocks are live and owned.
        unsafe { (*b).pop() }
    }

    /// A cell of at least `size` bytes, 8-byte aligned (1 ..= `MAX_SMALL_BYTES`): the fast path,
    /// then the slow path ([`NoCell`] says why there is none). Panics on a zero or oversized size.
    #[inline(always)]
    pub fn try_alloc(&mut self, size: usize) -> Result<NonNull<u8>, NoCell> {
        match NonNull::new(self.pop(size)) {
            Some(cell) => Ok(cell),
            None => self.alloc_generic(bin_of(size)),
        }
    }

    /// [`Heap::try_alloc`] for bin `bin`.
    pub fn try_alloc_bin(&mut self, bin: usize) -> Result<NonNull<u8>, NoCell> {
        match NonNull::new(self.pop_bin(bin)) {
            Some(cell) => Ok(cell),
            None => self.alloc_generic(bin),
        }
    }

    /// [`Heap::try_alloc`] as a malloc answers: null when there is no cell. The fast path is
    /// [`Heap::pop`]'s; only the slow path turns the reason into null.
    #[inline(always)]
    pub fn alloc(&mut self, size: usize) -> *mut u8 {
        let cell = self.pop(size);
        if !cell.is_null() {
            return cell;
        }
        self.alloc_slow(bin_of(size))
    }

    /// [`Heap::try_alloc_bin`] as a malloc answers: null when there is no cell.
    pub fn alloc_bin(&mut self, bin: usize) -> *mut u8 {
        let cell = self.pop_bin(bin);
        if !cell.is_null() {
            return cell;
        }
        self.alloc_slow(bin)
    }

    /// The slow path for the malloc answers.
    #[inline(never)]
    fn alloc_slow(&mut self, bin: usize) -> *mut u8 {
        match self.alloc_generic(bin) {
            Ok(cell) => cell.as_ptr(),
            Err(_) => ptr::null_mut(),
        }
    }

    /// The block `bin` allocates from next (its queue's first), if any: the block it is
    /// filling.
    pub fn current_block(&self, bin: usize) -> Option<*mut Block> {
        let b = self.queues[bin].first;
        (!b.is_null()).then_some(b)
    }

    /// Bytes left in the hole this heap bump-allocates larger requests in (`block/lend.rs`): lent
    /// memory taken from the pool and not yet used.
    pub fn hole_left(&self) -> usize {
        self.hole.1 - self.hole.0
    }

    /// Size classes whose slow path ran since this heap's last sweep: under a garbage collector,
    /// the classes the heap allocated from in the GC interval (all of them when every partly
    /// used block is abandoned at a GC, `Settings::abandon_all_partial`, the MMTk space's
    /// default: each class used after it starts with a slow path).
    pub fn busy_bins(&self) -> usize {
        self.slow_bins.count_ones() as usize
    }

    /// Number of blocks this heap owns (queued and full).
    pub fn owned_blocks(&self) -> usize {
        self.queues
            .iter()
            .chain(self.unswept.iter())
            .map(|q| q.len)
            .sum::<usize>()
            + self.full.len
    }

    /// Every block this heap owns.
    pub fn blocks(&self) -> Vec<*mut Block> {
        let mut v = self.full.blocks();
        for q in self.queues.iter().chain(self.unswept.iter()) {
            v.extend(q.blocks());
        }
        v
    }

    /// Checks every owned block's invariants and the queue structure.
    pub fn is_valid(&self) -> bool {
        for (bin, q) in self.queues.iter().enumerate() {
            for b in q.blocks() {
                // SAFETY: owned blocks.
                let ok = unsafe {
                    (*b).is_valid()
                        && (*b).bin() == bin
                        && (*b).state == BlockState::Queued
                        && (*b).xheap.load(Ordering::Relaxed) == self.id()
                };
                if !ok {
                    return false;
                }
            }
        }
        for (bin, q) in self.unswept.iter().enumerate() {
            for b in q.blocks() {
                // SAFETY: owned blocks.
                let ok = unsafe {
                    (*b).is_valid() && (*b).bin() == bin && (*b).state == BlockState::Unswept
                };
                if !ok {
                    return false;
                }
            }
        }
        self.full.blocks().into_iter().all(|b| {
            // SAFETY: owned blocks.
            unsafe { (*b).is_valid() && (*b).state == BlockState::Full }
        })
    }
}

impl Drop for Heap {
    fn drop(&mut self) {
        self.abandon_all();
    }
}
