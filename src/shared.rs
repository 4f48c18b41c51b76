//! What all heaps of one allocator instance share: the block source, the page budget, the OS
//! interface, the settings, and the per-bin stacks of abandoned blocks.

use crate::block::{Adopt, Block, BlockState, MarkBitmap, ReuseOrder, Spill, SweepResult};
use crate::block_stack::BlockStack;
use crate::budget::{Accounting, PageBudget};
use crate::no_cell::{Charging, NoCell};
use crate::os::{BlockSource, OsMemory};
use crate::size_class::BIN_COUNT;
use crate::sync::{AtomicUsize, Ordering};
use crate::thread_free::Delay;
use std::ptr::NonNull;

/// Settings of an allocator instance.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Page or whole-block charging.
    pub accounting: Accounting,
    /// Cells handed out must read as zero (garbage-collected mode: the VM expects zeroed
    /// objects). Fresh pages are zero from the OS; swept cells are zeroed by the sweep.
    pub zero_cells: bool,
    /// Bins of a heap that saw no allocation since the previous sweep are abandoned to the
    /// global stacks at the sweep, so other threads can use their free cells (no stranding).
    pub abandon_idle_bins: bool,
    /// Every partly used block is abandoned at a sweep, whatever its bin's activity (as MMTk's
    /// stock MarkSweep gives every block list back at each GC): the most sharing, the least
    /// stranding, at the price of re-adopting blocks after every GC.
    pub abandon_all_partial: bool,
    /// The order in which a sweep lists a block's free cells ([`ReuseOrder`]).
    pub reuse: ReuseOrder,
    /// Whether an extension charges the page its last cell spills into ([`Spill`]).
    pub spill: Spill,
    /// What a heap takes from an abandoned block: all of it, or a lease of a page's worth of
    /// its free cells ([`Adopt`]). `Lease` is for garbage-collected mode only (a sweep reclaims
    /// the leased cells a heap did not hand out); the malloc front end adopts blocks.
    pub adopt: Adopt,
    /// Garbage-collected mode: a bin's current block hands its whole free list to the bin's
    /// lease as it becomes current (`heap/lease.rs`), so that every small-size pop is from a
    /// lease head at a fixed place in the heap ([`crate::jit_layout::LEASE_HEADS`]: the JIT's
    /// pop, one load shorter and without the `used` count). The malloc front end keeps `false`.
    pub lease_current: bool,
    /// Lend runs of free cells of at least this many bytes to larger requests (`block/lend.rs`);
    /// 0 = off. Garbage-collected mode with an eager sweep only, with `hole_live` set.
    pub lend_holes: usize,
    /// Whether any object in a lent run is live (the embedder's marks): see [`crate::Lend`].
    pub hole_live: Option<fn(*mut u8, usize) -> bool>,
    /// The embedder's side mark bitmap, which sweeps read instead of asking their oracle about
    /// each cell ([`MarkBitmap`]). Only where the oracle has no effect but its answer (it
    /// neither clears marks nor touches dead cells) and the bitmap agrees with it.
    pub marks: Option<MarkBitmap>,
    /// Pages with dead cells that one listing of a block's unlisted cells takes, at most
    /// (`block/unlisted.rs`; 1 to the pages of a block, 0 taken as 1). Each listing is a slow path, and under
    /// a JIT a call into the runtime: four pages list 16 KiB of cells per call instead of 4.
    pub listing_pages: usize,
    /// Pages an extension slow path extends a block by, at most, while the budget's room
    /// allows ([`crate::lease_pages`]: down to one page near the limit). 1: a page per slow path
    /// (the malloc front end). More: fewer slow paths (under a JIT, calls into the runtime), at
    /// the price of up to that many pages charged ahead per (heap, size class) pair.
    pub extension_pages: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            accounting: Accounting::Page,
            zero_cells: false,
            abandon_idle_bins: true,
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
        }
    }
}

/// The shared part of an allocator instance. Lives for the program (`&'static`): heaps and
/// blocks point at it.
pub struct Shared {
    pub(crate) source: &'static dyn BlockSource,
    pub(crate) budget: &'static dyn PageBudget,
    pub(crate) os: &'static dyn OsMemory,
    pub(crate) settings: Settings,
    /// Partly used (or full) blocks that no heap owns, per bin.
    pub(crate) abandoned: [BlockStack; BIN_COUNT],
    /// 1: an emptied block stays with its size class, its free list whole, on the bin's
    /// abandoned stack, instead of going back to the block source (bounded mode with a profile:
    /// RT-mimalloc-pag's disabled page free). Set once, at a bounded initialisation.
    xkeep_emptied: AtomicUsize,
    /// Lent runs by block, and the holes lent at the last sweep and not yet taken (`lend.rs`).
    holes: std::sync::Mutex<Holes>,
}

/// The lent runs of every block that has some, and the pool of holes to take.
struct Holes {
    by_block: Option<std::collections::HashMap<usize, Vec<(u32, u32)>>>,
    pool: Vec<(usize, usize)>,
}

impl Shared {
    /// An instance over the given source, budget and OS interface.
    pub const fn new(
        source: &'static dyn BlockSource,
        budget: &'static dyn PageBudget,
        os: &'static dyn OsMemory,
        settings: Settings,
    ) -> Shared {
        Shared {
            source,
            budget,
            os,
            settings,
            abandoned: [const { BlockStack::new() }; BIN_COUNT],
            xkeep_emptied: AtomicUsize::new(0),
            holes: std::sync::Mutex::new(Holes { by_block: None, pool: Vec::new() }),
        }
    }

    /// From now on emptied blocks stay with their size class (see `xkeep_emptied`).
    pub(crate) fn keep_emptied_blocks(&self) {
        // Relaxed: set at a bounded initialisation, published with the mode (`bounded.rs`).
        self.xkeep_emptied.store(1, Ordering::Relaxed);
    }

    /// Gives up an empty block: back to the source, or, when emptied blocks stay with their
    /// size class, onto its bin's abandoned stack with its free list whole. Work: O(1) and one
    /// stack push.
    ///
    /// # Safety
    /// As for [`Shared::release_block`].
    pub(crate) unsafe fn give_up_empty(&self, block: *mut Block) {
        // Relaxed: see `keep_emptied_blocks`.
        // SAFETY: per the contract.
        unsafe {
            if self.xkeep_emptied.load(Ordering::Relaxed) != 0 {
                self.abandon(block);
            } else {
                self.release_block(block);
            }
        }
    }

    /// Takes up to `n` fresh blocks of `bin` from the source, lists every cell of each (a
    /// complete extension) and abandons them to the bin's stack, where heaps adopt them before
    /// they extend a block of their own: RT-mimalloc-pag's profile-driven pre-initialisation.
    /// Returns the blocks prepared (fewer if the source or the budget ran out). Initialisation
    /// only: O(n × cells per block).
    pub(crate) fn preextend(&self, bin: usize, n: usize) -> usize {
        for i in 0..n {
            let mut charging = Charging::new(self.budget);
            let Ok(b) = self.fresh_block(bin, 0, &mut charging) else {
                return i;
            };
            // SAFETY: the fresh block is ours alone until abandoned.
            unsafe {
                while (*b).can_extend() {
                    if (*b)
                        .extend(&mut charging, self.settings.zero_cells, self.settings.spill)
                        .is_err()
                    {
                        self.abandon(b);
                        return i + 1;
                    }
                }
                self.abandon(b);
            }
        }
        n
    }

    /// Leaks a new instance, for embedders that create one per process or per VM instance.
    pub fn leak(self) -> &'static Shared {
        Box::leak(Box::new(self))
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }
    /// The page budget.
    pub fn budget(&self) -> &'static dyn PageBudget {
        self.budget
    }

    /// Sweeps one block with this instance's settings (after collecting its remote frees).
    ///
    /// # Safety
    /// The caller owns `b` exclusively (stop-the-world, or its owner thread).
    pub(crate) unsafe fn sweep_block(
        &self,
        b: *mut Block,
        is_live: &mut dyn FnMut(*mut u8) -> bool,
        lend_new: bool,
    ) -> SweepResult {
        let s = self.settings;
        let Some(hole_live) = s.hole_live.filter(|_| s.lend_holes > 0) else {
            // SAFETY: per the contract.
            return unsafe {
                (*b).collect_all();
                (*b).sweep(is_live, s.zero_cells, s.reuse, s.accounting, self.budget, self.os, None, s.marks.as_ref())
            };
        };
        let mut runs = {
            let mut h = self.holes.lock().unwrap_or_else(|e| e.into_inner());
            h.by_block.as_mut().and_then(|m| m.remove(&(b as usize))).unwrap_or_default()
        };
        // New holes only where `lend_new` (a block no mutator took since the last GC: its free
        // cells were not asked for); the runs lent before are asked about in any case.
        let min_bytes = if lend_new { s.lend_holes } else { usize::MAX };
        let mut lend = crate::block::Lend { min_bytes, is_live: hole_live, runs: &mut runs, new_from: 0 };
        // SAFETY: per the contract.
        let r = unsafe {
            (*b).collect_all();
            (*b).sweep(is_live, s.zero_cells, s.reuse, s.accounting, self.budget, self.os, Some(&mut lend), s.marks.as_ref())
        };
        let new_from = lend.new_from;
        if !runs.is_empty() {
            // SAFETY: the block is ours (the contract); its cells are inside it.
            let at = |i: u32| unsafe { (*b).cell(i as usize) } as usize;
            let mut h = self.holes.lock().unwrap_or_else(|e| e.into_inner());
            for &(x, y) in &runs[new_from..] {
                h.pool.push((at(x), at(y)));
            }
            h.by_block.get_or_insert_with(Default::default).insert(b as usize, runs);
        }
        r
    }

    /// Forgets the holes not taken since the last sweep (the embedder calls it before a GC's
    /// sweeps: they lend again what is still free).
    pub fn clear_hole_pool(&self) {
        self.holes.lock().unwrap_or_else(|e| e.into_inner()).pool.clear();
    }

    /// What lending holds now ([`crate::block::Lent`]). Stop-the-world (no heap takes a hole
    /// meanwhile, no block is freed). Work: O(lent runs).
    pub fn lent(&self) -> crate::block::Lent {
        let h = self.holes.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = crate::block::Lent {
            pool: h.pool.iter().map(|&(a, b)| b - a).sum(),
            ..Default::default()
        };
        for (&b, runs) in h.by_block.iter().flatten() {
            // SAFETY: a block with lent runs is swept, not freed, while they are lent (a sweep
            // that frees it takes its entry first); the world is stopped (the contract).
            let cs = unsafe { (*(b as *const Block)).cell_size() };
            out.runs += runs.len();
            out.bytes += runs.iter().map(|&(x, y)| (y - x) as usize * cs).sum::<usize>();
        }
        out
    }

    /// A hole of at least `bytes` from the pool (`[start, end)`), among its last 16 entries.
    pub(crate) fn take_hole(&self, bytes: usize) -> Option<(usize, usize)> {
        let mut h = self.holes.lock().unwrap_or_else(|e| e.into_inner());
        let n = h.pool.len();
        let i = (n.saturating_sub(16)..n).rev().find(|&i| h.pool[i].1 - h.pool[i].0 >= bytes)?;
        Some(h.pool.swap_remove(i))
    }

    /// The accounting half of a deferred sweep of `b` (see [`Block::account`]), with the
    /// configured accounting, budget and OS. Returns the number of live cells.
    ///
    /// # Safety
    /// The caller owns `b` (stop-the-world, or its owner), which is on no list or on its owner's
    /// lists; its remote frees are collected here.
    pub(crate) unsafe fn account_block(
        &self,
        b: *mut Block,
        is_marked: &mut dyn FnMut(*mut u8) -> bool,
    ) -> u32 {
        // SAFETY: per the contract.
        unsafe {
            (*b).collect_all();
            (*b).account(is_marked, self.settings.accounting, self.budget, self.os)
        }
    }

    /// A fresh block from the source, initialised for `bin` on behalf of the heap of thread
    /// `thread` (the embedder's word, [`crate::Heap::set_thread`]). [`NoCell::NoMemory`] if the
    /// source has none, [`NoCell::Refused`] if the budget vetoes its charged pages (the block
    /// goes back to the source unused).
    pub(crate) fn fresh_block(
        &self,
        bin: usize,
        thread: usize,
        charging: &mut Charging,
    ) -> Result<*mut Block, NoCell> {
        let (start, zeroed) = self.source.acquire_block(thread).ok_or(NoCell::NoMemory)?;
        // SAFETY: the source hands out unused, block-aligned blocks.
        let block = unsafe {
            Block::init(
                start.as_ptr(),
                bin,
                zeroed,
                self.settings.accounting,
                charging,
            )
        };
        if block.is_err() {
            // SAFETY: the block came from this source and was not initialised.
            unsafe { self.source.release_unused_block(start, zeroed) };
        }
        block
    }

    /// A block the source kept resident after it was retired (see
    /// [`BlockSource::acquire_resident_block`]), initialised for `bin`: its resident pages are
    /// reused before fresh ones. `Ok(None)` if the source has none, [`NoCell::Refused`] if the
    /// budget vetoes.
    pub(crate) fn resident_block(
        &self,
        bin: usize,
        charging: &mut Charging,
    ) -> Result<Option<*mut Block>, NoCell> {
        let Some(start) = self.source.acquire_resident_block() else {
            return Ok(None);
        };
        // SAFETY: the source hands out unused, block-aligned blocks of ours.
        let block = unsafe {
            Block::init(
                start.as_ptr(),
                bin,
                false,
                self.settings.accounting,
                charging,
            )
        };
        if block.is_err() {
            // SAFETY: the block came from this source and was not initialised.
            unsafe { self.source.release_unused_block(start, false) };
        }
        block.map(Some)
    }

    /// Gives an empty block back to the source: retired, and its pages dropped and uncharged
    /// unless the OS interface keeps retired blocks resident for reuse
    /// ([`OsMemory::keeps_retired_blocks`]; they stay counted until dropped or reused).
    ///
    /// # Safety
    /// `block` is an empty block owned by the caller and on no list.
    pub(crate) unsafe fn release_block(&self, block: *mut Block) {
        // SAFETY: the caller owns the empty block.
        unsafe {
            Block::retire(block, self.budget);
            if !self.os.keeps_retired_blocks() {
                Block::drop_retired(block, self.budget, self.os);
            }
            self.source
                .release_block(NonNull::new_unchecked(block as *mut u8));
        }
    }

    /// Drops the idle pages of abandoned blocks, block by block, until at least `limit` pages
    /// are dropped (`usize::MAX`: every abandoned block's; an embedder whose budget is short:
    /// pages nobody uses before fresh ones are touched). Lock-free: each bin's stack is drained
    /// and pushed back; a concurrent adopter may find it empty meanwhile and take another block.
    /// Returns the pages dropped. Work: O(abandoned blocks) plus a system call per run of idle
    /// pages.
    pub fn drop_abandoned_idle(&self, limit: usize) -> usize {
        let mut dropped = 0;
        for stack in self.abandoned.iter() {
            if dropped >= limit {
                break;
            }
            let blocks = stack.drain();
            for &b in blocks.iter().rev() {
                // SAFETY: popping made us the block's exclusive holder until we push it back.
                unsafe {
                    if dropped < limit {
                        dropped += (*b).drop_idle(self.budget, self.os);
                    }
                    stack.push(b);
                }
            }
        }
        dropped
    }

    /// Gives back every abandoned block whose cells have all been freed since it was abandoned
    /// (remote frees into a block nobody owns: nothing else would collect them until a heap
    /// adopts it, and an adopter takes the blocks most recently abandoned first, so the older
    /// ones could stay resident for good). mimalloc frees such pages when the freeing thread
    /// empties them. Lock-free: each bin's stack is taken whole and the blocks still in use are
    /// pushed back in their order, in one compare-exchange each, without allocating. Not with
    /// `keep_emptied_blocks` (emptied blocks stay in their bin there). Returns the blocks given
    /// back. Work: O(abandoned blocks + the remote frees collected).
    pub fn release_empty_abandoned(&self) -> usize {
        // Relaxed: see `keep_emptied_blocks`.
        if self.xkeep_emptied.load(Ordering::Relaxed) != 0 {
            return 0;
        }
        let mut released = 0;
        for stack in self.abandoned.iter() {
            // No allocation here (thread teardown of a global allocator): the blocks kept are
            // re-linked into a chain, in their order, through their stack links.
            let (mut kept, mut last): (*mut Block, *mut Block) =
                (std::ptr::null_mut(), std::ptr::null_mut());
            let mut b = stack.take_all();
            while !b.is_null() {
                // SAFETY: taking the stack made us the blocks' exclusive holder (as an adopter);
                // a remote freer of an abandoned block (Delay::Never) only pushes onto its
                // thread-free list, so once every cell is collected back no freer touches it.
                unsafe {
                    // Relaxed: the link was published to `take_all`'s Acquire.
                    let next = (*b).xstack_next.load(Ordering::Relaxed) as *mut Block;
                    (*b).collect_all();
                    if (*b).used() == 0 {
                        self.release_block(b);
                        released += 1;
                    } else {
                        if kept.is_null() {
                            kept = b;
                        } else {
                            // Relaxed: published by `push_chain`'s Release.
                            (*last).xstack_next.store(b as usize, Ordering::Relaxed);
                        }
                        last = b;
                    }
                    b = next;
                }
            }
            if !kept.is_null() {
                // SAFETY: the kept blocks are ours, chained `kept ..= last`.
                unsafe { stack.push_chain(kept, last) };
            }
        }
        released
    }

    /// Abandons `block` (owned by the caller, on no list) to the global stack of its bin.
    ///
    /// # Safety
    /// As for [`BlockStack::push`].
    pub(crate) unsafe fn abandon(&self, block: *mut Block) {
        // SAFETY: the caller owns the block.
        unsafe {
            (*block).xthread_free.set_delay(Delay::Never, false);
            // Release: a remote freer that reads a null heap sees the block in Never state.
            (*block)
                .xheap
                .store(std::ptr::null_mut(), Ordering::Release);
            (*block).state = BlockState::Abandoned;
            (*block).next = std::ptr::null_mut();
            (*block).prev = std::ptr::null_mut();
            self.abandoned[(*block).bin()].push(block);
        }
    }

    /// Pops an abandoned block of `bin`, if any (the caller becomes its owner).
    pub(crate) fn adopt(&self, bin: usize) -> Option<*mut Block> {
        self.abandoned[bin].pop()
    }

    /// Number of abandoned blocks (a stop-the-world statistic; walks the stacks).
    pub fn abandoned_blocks(&self) -> usize {
        let mut n = 0;
        for s in self.abandoned.iter() {
            let v = s.drain();
            n += v.len();
            for b in v.into_iter().rev() {
                // SAFETY: we popped them and push them back unchanged.
                unsafe { s.push(b) };
            }
        }
        n
    }
}
