//! A thread-local heap (mimalloc's `mi_heap_t`): a direct table from small sizes to the current
//! block of their bin, a queue of blocks per bin, a full list kept off the search path, and the
//! delayed-free list through which remote frees wake full blocks.
//!
//! Work bounds of the slow path (RT-mimalloc's concern, seed 001; the constants and their sum
//! are in `bounded.rs`, and `tests/bounded.rs` checks them with the `step-count` counter):
//! * draining delayed frees: at most [`MAX_DRAIN`] cells per slow path, each O(1) (the rest wait
//!   on `delayed_rest` for the next slow path);
//! * queue search: at most [`MAX_SEARCH`] blocks, each collected (at most `MAX_COLLECT` remote
//!   frees) and either used, remembered as extendable, or moved to the full list (O(1)), so a
//!   block is skipped at most once between two frees into it;
//! * adoption: at most [`MAX_ADOPT`] abandoned blocks popped (O(1) each plus a collect);
//! * extension of one block by one page (O(cells in a page) ≤ 512 links, plus the choice of an
//!   idle resident page: at most one overlap test per page of the block);
//! * a retired resident block or a fresh block: one call to the block source plus
//!   O(pages per block) header set-up.
//! No step walks a list whose length is not bounded by these constants or by a block's cells.

use crate::block::{empty_block, Block, BlockState, OwnerHeap};
use crate::bounds::{MAX_ADOPT, MAX_DRAIN, MAX_SEARCH};
use crate::cell::Cell;
use crate::config::{DIRECT_SLOTS, LOG_WORD_BYTES, MAX_DIRECT_BYTES, MAX_SMALL_BYTES, WORD_BYTES};
use crate::shared::Shared;
use crate::size_class::{bin_bytes, bin_of, BIN_COUNT};
use crate::sync::{AtomicPtr, Ordering};
use crate::thread_free::{Delay, PushOutcome};
use std::ptr;

mod lazy;

/// An intrusive doubly-linked list of blocks (owner only).
#[derive(Clone, Copy)]
struct Queue {
    first: *mut Block,
    last: *mut Block,
    len: usize,
}

impl Queue {
    const EMPTY: Queue = Queue {
        first: ptr::null_mut(),
        last: ptr::null_mut(),
        len: 0,
    };

    /// # Safety: `b` is a live block on no list.
    unsafe fn push_front(&mut self, b: *mut Block) {
        // SAFETY: the caller owns `b` and the blocks of this queue.
        unsafe {
            (*b).prev = ptr::null_mut();
            (*b).next = self.first;
            if self.first.is_null() {
                self.last = b;
            } else {
                (*self.first).prev = b;
            }
        }
        self.first = b;
        self.len += 1;
    }

    /// # Safety: `b` is on this queue.
    unsafe fn remove(&mut self, b: *mut Block) {
        // SAFETY: the caller owns the queue's blocks.
        unsafe {
            let (p, n) = ((*b).prev, (*b).next);
            if p.is_null() {
                self.first = n
            } else {
                (*p).next = n
            }
            if n.is_null() {
                self.last = p
            } else {
                (*n).prev = p
            }
            (*b).next = ptr::null_mut();
            (*b).prev = ptr::null_mut();
        }
        self.len -= 1;
    }

    /// Detaches and returns the first block, or null.
    fn pop_front(&mut self) -> *mut Block {
        let b = self.first;
        if !b.is_null() {
            // SAFETY: `b` is on this queue.
            unsafe { self.remove(b) };
        }
        b
    }

    fn blocks(&self) -> Vec<*mut Block> {
        let mut v = Vec::with_capacity(self.len);
        let mut b = self.first;
        while !b.is_null() {
            v.push(b);
            // SAFETY: blocks of an owned queue are live.
            b = unsafe { (*b).next };
        }
        v
    }
}

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
    direct: [*mut Block; DIRECT_SLOTS],
    queues: [Queue; BIN_COUNT],
    full: Queue,
    /// Cells freed by other threads into this heap's full blocks (pushed lock-free, taken whole).
    xdelayed: AtomicPtr<Cell>,
    /// Delayed frees taken from `xdelayed` and not yet handled (a drain handles at most
    /// [`MAX_DRAIN`]; owner only).
    delayed_rest: *mut Cell,
    shared: &'static Shared,
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
}

// SAFETY: a heap is used by one thread at a time (its owner, or a GC worker while the owner
// is stopped); other threads touch only `xdelayed`, atomically.
unsafe impl Send for Heap {}

impl Heap {
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
                zero_cells: shared.settings.zero_cells,
                slow_bins: 0,
                free_at_sweep: [ptr::null_mut(); BIN_COUNT],
                unswept: [Queue::EMPTY; BIN_COUNT],
                lazy_is_live: None,
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

    /// Allocates a cell of at least `size` bytes, 8-byte aligned (1 ..= `MAX_SMALL_BYTES`).
    /// Null if memory is exhausted (the source is empty or the budget vetoed a page).
    /// Panics on a zero or oversized size.
    #[inline(always)]
    pub fn alloc(&mut self, size: usize) -> *mut u8 {
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
            return self.alloc_generic(bin_of(size));
        }
        self.alloc_medium(size)
    }

    /// Allocates from bin `bin` directly (the caller computed the bin, e.g. for alignment).
    pub fn alloc_bin(&mut self, bin: usize) -> *mut u8 {
        assert!((1..BIN_COUNT).contains(&bin), "invalid bin {bin}");
        let b = self.queues[bin].first;
        if !b.is_null() {
            // SAFETY: queued blocks are live and owned.
            let c = unsafe { (*b).pop() };
            if !c.is_null() {
                return c;
            }
        }
        self.alloc_generic(bin)
    }

    #[inline(never)]
    fn alloc_medium(&mut self, size: usize) -> *mut u8 {
        assert!(size != 0, "shardsweep: zero-sized allocation request");
        assert!(
            size <= MAX_SMALL_BYTES,
            "shardsweep: allocation of {size} bytes exceeds the largest small size {MAX_SMALL_BYTES}; large objects go to the large-object path"
        );
        self.alloc_bin(bin_of(size))
    }

    /// The generic slow path (mimalloc's `_mi_malloc_generic`): temporal cadence happens here.
    /// Tells the budget how it ended (see [`crate::PageBudget::slow_path_done`]).
    #[inline(never)]
    fn alloc_generic(&mut self, bin: usize) -> *mut u8 {
        let p = self.alloc_generic_inner(bin);
        self.shared.budget.slow_path_done(!p.is_null());
        p
    }

    fn alloc_generic_inner(&mut self, bin: usize) -> *mut u8 {
        crate::steps::add(1);
        self.slow_bins |= 1 << bin;
        if !self.unswept[bin].first.is_null() {
            // Only under a garbage collector's lazy sweep: never in the standalone (or bounded)
            // mode, which has no GC.
            // Lazy sweeping: the owner sweeps the bin's blocks before using any of them.
            self.sweep_unswept_bin(bin);
        }
        self.drain_delayed();
        let shared = self.shared;
        let zero = shared.settings.zero_cells;
        // Memory order: a free cell on a page already charged (ours, then an abandoned block's)
        // before an idle resident page of a block we hold (ours or adopted) before a fresh page
        // of a block we hold before a retired block still resident before a fresh block.
        // mimalloc extends the first extendable block it meets; under page accounting that
        // charges a new page while listed cells on charged pages wait, so the search only
        // remembers it. The budget counts resident pages: an idle page costs nothing, a fresh
        // one costs one.
        // 1. Search the bin's queue (bounded) for a block with a free cell.
        let mut extendable: *mut Block = ptr::null_mut();
        let mut reusable: *mut Block = ptr::null_mut();
        let mut b = self.queues[bin].first;
        let mut searched = 0;
        while !b.is_null() && searched < MAX_SEARCH {
            crate::steps::add(1);
            // SAFETY: queued blocks are live and owned by this heap.
            unsafe {
                let next = (*b).next;
                (*b).collect();
                if (*b).has_free() {
                    return self.use_block(bin, b);
                }
                if !(*b).can_extend() {
                    self.to_full(b);
                } else {
                    if extendable.is_null() {
                        extendable = b;
                    }
                    if reusable.is_null() && (*b).can_extend_resident() {
                        reusable = b;
                    }
                }
                b = next;
            }
            searched += 1;
        }
        if !b.is_null() {
            crate::steps::limited(crate::steps::Limit::Search);
        }
        // 2. Adopt abandoned blocks of this bin (bounded): one with a free cell is used at once;
        // one that can only extend is kept (queued) as a candidate for step 3.
        for i in 0..=MAX_ADOPT {
            if i == MAX_ADOPT {
                crate::steps::limited(crate::steps::Limit::Adopt);
                break;
            }
            crate::steps::add(1);
            let Some(b) = shared.adopt(bin) else { break };
            // SAFETY: popping made us the owner.
            unsafe {
                self.take_ownership(b);
                (*b).collect();
                (*b).state = BlockState::Queued;
                self.queues[bin].push_front(b);
                if (*b).has_free() {
                    return self.use_block(bin, b);
                }
                if !(*b).can_extend() {
                    self.to_full(b);
                } else {
                    if extendable.is_null() {
                        extendable = b;
                    }
                    if reusable.is_null() && (*b).can_extend_resident() {
                        reusable = b;
                    }
                }
            }
        }
        // 3. List the cells of an idle resident page of a block we hold (no new page).
        if !reusable.is_null() {
            // SAFETY: `reusable` is queued and owned by this heap.
            unsafe {
                if (*reusable).extend(shared.budget, zero) {
                    return self.use_block(bin, reusable);
                }
            }
        }
        // 4. Charge one more page of a block we hold.
        if !extendable.is_null() {
            // SAFETY: `extendable` is queued and owned by this heap.
            unsafe {
                if !(*extendable).extend(shared.budget, zero) {
                    return ptr::null_mut(); // the budget vetoed a page: time to collect
                }
                return self.use_block(bin, extendable);
            }
        }
        // 5. A retired block whose pages are still resident (the source's, if it keeps them):
        // its pages cost nothing, but a new block spreads the bin's cells over one more header.
        if let Some(b) = shared.resident_block(bin) {
            // SAFETY: the block is ours.
            unsafe {
                self.take_ownership(b);
                (*b).state = BlockState::Queued;
                self.queues[bin].push_front(b);
                if (*b).extend(shared.budget, zero) {
                    return self.use_block(bin, b);
                }
                return ptr::null_mut();
            }
        }
        // 6. A fresh block.
        let Some(b) = shared.fresh_block(bin) else {
            return ptr::null_mut();
        };
        // SAFETY: the fresh block is ours.
        unsafe {
            self.take_ownership(b);
            (*b).state = BlockState::Queued;
            self.queues[bin].push_front(b);
            if !(*b).extend(shared.budget, zero) {
                return ptr::null_mut();
            }
            self.use_block(bin, b)
        }
    }

    /// Makes `b` (queued, with a free cell) the bin's current block and pops from it.
    unsafe fn use_block(&mut self, bin: usize, b: *mut Block) -> *mut u8 {
        // SAFETY: `b` is on this bin's queue and owned.
        unsafe {
            if self.queues[bin].first != b {
                self.queues[bin].remove(b);
                self.queues[bin].push_front(b);
            }
            self.set_direct(bin);
            (*b).pop()
        }
    }

    /// Points the direct slots of `bin` at its current block.
    fn set_direct(&mut self, bin: usize) {
        let lo_bytes = if bin == 1 { 0 } else { bin_bytes(bin - 1) + 1 };
        let hi_bytes = bin_bytes(bin);
        if lo_bytes > MAX_DIRECT_BYTES {
            return;
        }
        let first = if self.queues[bin].first.is_null() {
            empty_block()
        } else {
            self.queues[bin].first
        };
        let lo = lo_bytes.div_ceil(WORD_BYTES);
        // The bin's slots are only ever written together, here: if one already points at
        // `first`, all do (mimalloc's `mi_heap_queue_first_update` also skips that case). Most
        // calls find the current block unchanged (a slow path that refilled it, `to_full` of
        // another block).
        if self.direct[lo] == first {
            return;
        }
        let hi = (hi_bytes / WORD_BYTES).min(DIRECT_SLOTS - 1);
        crate::steps::add(hi + 1 - lo);
        for w in lo..=hi {
            self.direct[w] = first;
        }
    }

    /// # Safety: the caller owns `b`, which is on no list.
    unsafe fn take_ownership(&mut self, b: *mut Block) {
        // SAFETY: per the contract.
        unsafe {
            // Release: a remote freer on the delayed path reads the heap with Acquire.
            (*b).xheap.store(self.id(), Ordering::Release);
            // A fresh block is in NoDelayed and an adopted one in Never: no freer is on the
            // delayed path (Freeing), so this never waits.
            let set = (*b).xthread_free.set_delay_nowait(Delay::NoDelayed, true);
            debug_assert!(set);
        }
    }

    /// Moves `b` to the full list, where remote frees wake it through the delayed list. If a
    /// remote freer is still on the delayed path of the block's previous full spell (`Freeing`),
    /// the block stays queued instead (no wait): a later search sees it again.
    ///
    /// # Safety: `b` is queued in this heap.
    unsafe fn to_full(&mut self, b: *mut Block) {
        // SAFETY: per the contract.
        unsafe {
            if !(*b).xthread_free.set_delay_nowait(Delay::UseDelayed, false) {
                return;
            }
            let bin = (*b).bin();
            self.queues[bin].remove(b);
            (*b).state = BlockState::Full;
            self.full.push_front(b);
            self.set_direct(bin);
        }
    }

    /// # Safety: `b` is in this heap's full list.
    unsafe fn unfull(&mut self, b: *mut Block) {
        // SAFETY: per the contract.
        unsafe {
            self.full.remove(b);
            // Never waits: a freer still in `Freeing` sets NoDelayed itself.
            (*b).xthread_free.set_delay_nowait(Delay::NoDelayed, false);
            (*b).state = BlockState::Queued;
            let bin = (*b).bin();
            // At the back: the current block stays current.
            if self.queues[bin].first.is_null() {
                self.queues[bin].push_front(b);
                self.set_direct(bin);
            } else {
                let q = &mut self.queues[bin];
                (*b).next = ptr::null_mut();
                (*b).prev = q.last;
                (*q.last).next = b;
                q.last = b;
                q.len += 1;
            }
        }
    }

    /// Frees `p`, a cell returned by some heap of the same instance, from this thread.
    ///
    /// # Safety
    /// `p` was allocated from this instance, is freed once, and is not used afterwards.
    #[inline(always)]
    pub unsafe fn free(&mut self, p: *mut u8) {
        let b = Block::of(p);
        // SAFETY: `p` lies in a live block of this instance (contract).
        unsafe {
            debug_assert!(
                (*b).is_live_header(),
                "shardsweep: free of {p:?}: not a shardsweep block (foreign pointer)"
            );
            debug_assert!(
                (*b).cell_index(p).is_some(),
                "shardsweep: free of {p:?}: not the start of a cell"
            );
            #[cfg(debug_assertions)]
            debug_assert!(
                (*b).xheap.load(Ordering::Relaxed) != self.id() || !is_listed(b, p),
                "shardsweep: double free of {p:?}"
            );
            // The fast path, like mimalloc's: one test that the block is ours and in its queue
            // (Relaxed: only this thread ever stores its own heap into xheap), then a push.
            if (*b).xheap.load(Ordering::Relaxed) == self.id()
                && (*b).state == BlockState::Queued
                && !self.zero_cells
            {
                let c = p as *mut Cell;
                (*c).next = (*b).local_free;
                (*b).local_free = c;
                (*b).used -= 1;
                if (*b).used == 0 {
                    self.block_emptied(b);
                }
                return;
            }
            self.free_slow(b, p);
        }
    }

    /// Frees `p` when the fast path does not apply: zeroed mode, a full block, a remote block.
    #[inline(never)]
    unsafe fn free_slow(&mut self, b: *mut Block, p: *mut u8) {
        // SAFETY: `p` is an allocated cell of the live block `b` (the caller's contract).
        unsafe {
            if self.zero_cells {
                ptr::write_bytes(p, 0, (*b).cell_size());
            }
            if (*b).xheap.load(Ordering::Relaxed) == self.id() {
                self.free_owned(b, p);
            } else {
                free_remote(b, p);
            }
        }
    }

    /// # Safety: `b` is owned by this heap and `p` an allocated cell of it.
    unsafe fn free_owned(&mut self, b: *mut Block, p: *mut u8) {
        // SAFETY: per the contract.
        unsafe {
            let empty = (*b).free_local(p);
            if (*b).state == BlockState::Full {
                self.unfull(b);
            }
            if empty {
                self.block_emptied(b);
            }
        }
    }

    /// A queued block of this heap just became empty: keep it if it is its bin's current block
    /// (mimalloc's retire delay), give it back otherwise.
    ///
    /// # Safety: `b` is queued in this heap with `used == 0`.
    #[cold]
    unsafe fn block_emptied(&mut self, b: *mut Block) {
        crate::steps::add(1);
        // SAFETY: per the contract.
        unsafe {
            let bin = (*b).bin();
            if self.queues[bin].first != b {
                self.queues[bin].remove(b);
                (*b).collect();
                if (*b).used() == 0 {
                    self.shared.give_up_empty(b);
                } else {
                    self.queues[bin].push_front(b);
                    self.set_direct(bin);
                }
            }
        }
    }

    /// Frees at most [`MAX_DRAIN`] of the cells other threads pushed onto this heap's delayed
    /// list (remote frees into full blocks); the rest wait on `delayed_rest` for the next slow
    /// path. Work: at most `MAX_DRAIN` cells, each O(1) plus the direct slots of its bin.
    fn drain_delayed(&mut self) {
        if self.delayed_rest.is_null() {
            // Relaxed check first: the common case is an empty list, one load.
            if self.xdelayed.load(Ordering::Relaxed).is_null() {
                return;
            }
            // Acquire: pairs with the freers' Release pushes.
            self.delayed_rest = self.xdelayed.swap(ptr::null_mut(), Ordering::Acquire);
        }
        let mut c = self.delayed_rest;
        let mut n = 0;
        while !c.is_null() && n < MAX_DRAIN {
            crate::steps::add(1);
            // SAFETY: cells on the delayed list are allocated cells of blocks this heap owns
            // (a heap is only abandoned after every freer left the delayed path, and after
            // `drain_delayed_all`).
            unsafe {
                let next = (*c).next;
                let b = Block::of(c as *const u8);
                self.free_owned(b, c as *mut u8);
                c = next;
            }
            n += 1;
        }
        if !c.is_null() {
            crate::steps::limited(crate::steps::Limit::Drain);
        }
        self.delayed_rest = c;
    }

    /// Frees every delayed cell (sweeps, thread exit: not on an allocation's path).
    fn drain_delayed_all(&mut self) {
        loop {
            self.drain_delayed();
            // Relaxed: a hint; the next drain's swap acquires.
            if self.delayed_rest.is_null() && self.xdelayed.load(Ordering::Relaxed).is_null() {
                return;
            }
        }
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

    /// Sweeps every block of this heap (stop-the-world: the owner is stopped, the caller has
    /// exclusive access). Empty blocks go back to the source; full ones to the full list;
    /// partly used ones to their bin's queue, unless the bin was idle since the previous sweep
    /// and `abandon_idle_bins` is set, in which case they are abandoned for other threads.
    pub fn sweep(&mut self, is_live: &mut dyn FnMut(*mut u8) -> bool) -> SweepStats {
        assert!(
            !self.has_unswept(),
            "shardsweep: a lazy sweep must be finished (Heap::finish_sweep) before the next GC marks"
        );
        self.drain_delayed_all();
        let mut stats = SweepStats::default();
        let idle = self.idle_bins();
        // Detach every list, then walk them (no allocation: this may run inside the global
        // allocator of a standalone build).
        let mut detached = [Queue::EMPTY; BIN_COUNT + 1];
        detached[..BIN_COUNT].copy_from_slice(&self.queues);
        detached[BIN_COUNT] = self.full;
        self.queues = [Queue::EMPTY; BIN_COUNT];
        self.full = Queue::EMPTY;
        for q in detached.iter_mut() {
            loop {
                let b = q.pop_front();
                if b.is_null() {
                    break;
                }
                // SAFETY: we have exclusive access to the heap and its blocks; `b` is on no list.
                unsafe { self.sweep_one(b, is_live, idle[(*b).bin()], &mut stats) };
            }
        }
        self.slow_bins = 0;
        for bin in 1..BIN_COUNT {
            self.set_direct(bin);
            let first = self.queues[bin].first;
            // SAFETY: queued blocks are live and owned.
            self.free_at_sweep[bin] = if first.is_null() {
                ptr::null_mut()
            } else {
                unsafe { (*first).free }
            };
        }
        stats
    }

    /// The bins to abandon at this sweep: every bin with `abandon_all_partial`; with
    /// `abandon_idle_bins`, those whose slow path did not run and whose current block's free
    /// list did not move since the previous sweep.
    pub(crate) fn idle_bins(&self) -> [bool; BIN_COUNT] {
        let mut idle = [false; BIN_COUNT];
        if self.shared.settings.abandon_all_partial {
            idle[1..].fill(true);
            return idle;
        }
        if !self.shared.settings.abandon_idle_bins {
            return idle;
        }
        for (bin, idle) in idle.iter_mut().enumerate().skip(1) {
            let first = self.queues[bin].first;
            // SAFETY: queued blocks are live and owned.
            let free_now = if first.is_null() {
                ptr::null_mut()
            } else {
                unsafe { (*first).free }
            };
            *idle = self.slow_bins & (1 << bin) == 0 && free_now == self.free_at_sweep[bin];
        }
        idle
    }

    /// Gives up every block: empty ones to the source, the rest to the abandoned stacks (a
    /// thread exits). The heap is empty afterwards and may be dropped.
    pub fn abandon_all(&mut self) {
        // Abandoned blocks must be swept: finish a pending lazy sweep first.
        self.finish_sweep();
        // No allocation here: this runs in thread teardown of a standalone global allocator.
        // First stop delayed frees into this heap (waits out freers on the delayed path)...
        for q in self.queues.iter().chain(std::iter::once(&self.full)) {
            let mut b = q.first;
            while !b.is_null() {
                // SAFETY: owned blocks.
                unsafe {
                    (*b).xthread_free.set_delay(Delay::Never, true);
                    b = (*b).next;
                }
            }
        }
        // ...then take what they delivered.
        self.drain_delayed_all();
        self.direct = [empty_block(); DIRECT_SLOTS];
        for i in 0..=BIN_COUNT {
            loop {
                let b = if i < BIN_COUNT {
                    self.queues[i].pop_front()
                } else {
                    self.full.pop_front()
                };
                if b.is_null() {
                    break;
                }
                // SAFETY: owned blocks, now on no list.
                unsafe {
                    (*b).collect_all();
                    if (*b).used() == 0 {
                        self.shared.give_up_empty(b);
                    } else {
                        self.shared.abandon(b);
                    }
                }
            }
        }
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

/// Frees `p` (a cell of `b`) from a thread that does not own `b`: a lock-free push onto the
/// block's thread-free list, or, if the block is full, onto its owner heap's delayed list.
///
/// # Safety
/// `p` is an allocated cell of the live block `b`, freed once.
pub unsafe fn free_remote(b: *mut Block, p: *mut u8) {
    crate::steps::add(1);
    // SAFETY: per the contract.
    unsafe {
        if (*b).xthread_free.push(p as *mut Cell) == PushOutcome::MustDelay {
            // The state is Freeing: the owner cannot abandon the heap until we end it, so the
            // heap pointer stays valid. Acquire: pairs with `take_ownership`'s Release.
            let heap = (*b).xheap.load(Ordering::Acquire).cast::<Heap>();
            // A block in UseDelayed is in its owner's full list, and the owner clears xheap
            // only after moving the block to Never, which waits for this Freeing to end.
            debug_assert!(!heap.is_null(), "delayed free into an abandoned block");
            let c = p as *mut Cell;
            let mut head = (*heap).xdelayed.load(Ordering::Relaxed);
            loop {
                (*c).next = head;
                // Release: the link happens-before the owner's Acquire swap.
                match (*heap).xdelayed.compare_exchange_weak(
                    head,
                    c,
                    Ordering::Release,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => break,
                    Err(now) => {
                        crate::steps::retry();
                        head = now
                    }
                }
            }
            (*b).xthread_free.end_delayed_freeing();
        }
    }
}

/// Whether `p` is on `b`'s free or local-free list (debug double-free check; O(capacity)).
#[cfg(debug_assertions)]
unsafe fn is_listed(b: *mut Block, p: *mut u8) -> bool {
    // SAFETY: owned block; listed cells hold links.
    unsafe {
        for mut c in [(*b).free, (*b).local_free] {
            while !c.is_null() {
                if c as *mut u8 == p {
                    return true;
                }
                c = (*c).next;
            }
        }
    }
    false
}
