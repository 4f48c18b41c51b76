//! The shardsweep allocator: one per mutator, in the MarkSweep plan's free-list slot
//! (`AllocatorSelector::FreeList`, `util/alloc/allocators.rs`; chosen by the seam in
//! `marksweepspace/mod.rs`). It owns a boxed core [`Heap`]; the struct itself has the stock
//! `FreeListAllocator`'s size (asserted at compile time) and `#[repr(C)]` prefix (`tls`,
//! `space`, `context`), so bindings that mirror `Allocators` in C++ (mmtk-openjdk) keep working.

use super::space::ShardSweepSpace;
use super::settings::SweepMode;
use super::sweep;
use crate::policy::space::Space;
use crate::util::alloc::allocator::{self, AllocatorContext};
use crate::util::alloc::Allocator;
use crate::util::{Address, VMMutatorThread, VMThread};
use crate::vm::{Collection, VMBinding};
use shardsweep::{bin_of, Heap, NoCell, MAX_DIRECT_BYTES, MAX_SMALL_BYTES};
use std::ptr::NonNull;
use std::sync::Arc;

/// A mutator's allocator in the shardsweep space.
#[repr(C)]
pub struct ShardSweepAllocator<VM: VMBinding> {
    /// [`VMThread`] associated with this allocator instance.
    pub tls: VMThread,
    space: &'static ShardSweepSpace<VM>,
    context: Arc<AllocatorContext<VM>>,
    /// The core heap (boxed: it is ~1.5 KiB and must not move). Null after the mutator is
    /// destroyed.
    heap: *mut Heap,
    /// Pads the struct to the stock `FreeListAllocator`'s size (four boxed block lists).
    _reserved: [usize; 3],
}

// SAFETY: the heap is used by its mutator, or by one GC worker while the mutator is stopped
// (the release packet of this mutator); ownership moves with the mutator like the stock
// allocator's boxed block lists.
unsafe impl<VM: VMBinding> Send for ShardSweepAllocator<VM> {}

impl<VM: VMBinding> ShardSweepAllocator<VM> {
    /// The layout promise: as big as the stock allocator (56 bytes on 64-bit targets).
    const SAME_SIZE_AS_STOCK: () = assert!(
        std::mem::size_of::<Self>() == std::mem::size_of::<crate::util::alloc::free_list_allocator::FreeListAllocator<VM>>()
    );

    /// Where a JIT's fast path finds the heap (`fastpath.rs`; the core's own offsets are
    /// `shardsweep::jit_layout`).
    pub(crate) const HEAP_OFFSET: usize = std::mem::offset_of!(Self, heap);
    /// After `tls`, `space` and `context`, as the design in `bindings/openjdk/README.md` says.
    const HEAP_AT_24: () = assert!(Self::HEAP_OFFSET == 24);

    pub(crate) fn new(tls: VMThread, space: &'static ShardSweepSpace<VM>, context: Arc<AllocatorContext<VM>>) -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::SAME_SIZE_AS_STOCK;
        #[allow(clippy::let_unit_value)]
        let () = Self::HEAP_AT_24;
        let mut boxed = Heap::new_boxed(space.shared());
        // The heap hands its mutator to the page resource with each fresh block it asks for.
        boxed.set_thread(tls.0.to_address().as_usize());
        let heap = Box::into_raw(boxed);
        space.register_heap(heap);
        ShardSweepAllocator { tls, space, context, heap, _reserved: [0; 3] }
    }

    #[inline(always)]
    fn heap(&mut self) -> &mut Heap {
        debug_assert!(!self.heap.is_null(), "allocation by a destroyed mutator");
        // SAFETY: the heap lives until `on_mutator_destroy`, and `&mut self` is exclusive.
        unsafe { &mut *self.heap }
    }

    /// The bytes a request needs in a cell (its size, padded for its alignment).
    #[inline(always)]
    fn cell_bytes(size: usize, align: usize) -> usize {
        let bytes = allocator::get_maximum_aligned_size::<VM>(size, align);
        debug_assert!(bytes <= MAX_SMALL_BYTES, "{bytes} bytes exceed the space's largest cell {MAX_SMALL_BYTES}");
        bytes
    }

    /// The core's fast path: a cell of the current block of the request's size class, or null.
    #[inline(always)]
    fn pop_cell(&mut self, size: usize, align: usize) -> *mut u8 {
        let bytes = Self::cell_bytes(size, align);
        let heap = self.heap();
        if bytes <= MAX_DIRECT_BYTES {
            heap.pop(bytes)
        } else {
            heap.pop_bin(bin_of(bytes))
        }
    }

    /// The core's whole path, fast then slow: a cell, or why there is none.
    fn alloc_cell(&mut self, size: usize, align: usize) -> Result<NonNull<u8>, NoCell> {
        let bytes = Self::cell_bytes(size, align);
        let heap = self.heap();
        if bytes <= MAX_DIRECT_BYTES {
            heap.try_alloc(bytes)
        } else {
            heap.try_alloc_bin(bin_of(bytes))
        }
    }

    /// Mutator prepare hook (nothing to do: marks are cleared by the previous sweep; a lazy
    /// sweep is finished by the space's prepare packets, which run even when the plan skips
    /// this hook).
    pub(crate) fn prepare(&mut self) {}

    /// Mutator release hook, on a GC worker: sweep this mutator's blocks (eager), or sweep its
    /// idle size classes and leave the rest to the mutator's slow path (lazy). An emergency
    /// collection (MMTk's last attempt before out of memory) always sweeps eagerly, so the
    /// space's page count is exact when MMTk decides whether the heap is really full.
    pub(crate) fn release(&mut self) {
        if self.heap.is_null() {
            return;
        }
        self.space.note_released(self.heap);
        if super::report::mutator_report_enabled() {
            super::report::sample_mutator(self.heap());
        }
        let eager = self.space.settings().sweep == SweepMode::Eager || self.context.state.is_emergency_collection();
        let mut oracle = self.space.sweep_oracle();
        if eager {
            self.heap().sweep(&mut oracle);
        } else {
            self.heap().defer_sweep(oracle, &mut |cell| sweep::is_marked::<VM>(cell));
        }
    }
}

impl<VM: VMBinding> Allocator<VM> for ShardSweepAllocator<VM> {
    fn get_tls(&self) -> VMThread {
        self.tls
    }

    fn get_space(&self) -> &'static dyn Space<VM> {
        self.space
    }

    fn get_context(&self) -> &AllocatorContext<VM> {
        &self.context
    }

    /// The fast path, inline: one branch and a pop; anything else is MMTk's slow path.
    #[inline(always)]
    fn alloc(&mut self, size: usize, align: usize, offset: usize) -> Address {
        let cell = self.pop_cell(size, align);
        if cell.is_null() {
            return self.alloc_slow(size, align, offset);
        }
        allocator::align_allocation::<VM>(Address::from_mut_ptr(cell), align, offset)
    }

    /// One attempt of MMTk's slow-path loop (`alloc_slow_inline`, which retries after a GC and
    /// reports out of memory after an emergency one): the core's slow path, and the one place
    /// that acts on why it has no cell.
    fn alloc_slow_once(&mut self, size: usize, align: usize, offset: usize) -> Address {
        let options = self.context.get_alloc_options();
        let got = if options.allow_overcommit {
            super::space::budget::overcommitting(|| self.alloc_cell(size, align))
        } else {
            self.alloc_cell(size, align)
        };
        let why = match got {
            Ok(cell) => return allocator::align_allocation::<VM>(Address::from_mut_ptr(cell.as_ptr()), align, offset),
            Err(why) => why,
        };
        let tls = VMMutatorThread(self.tls);
        // As `Space::not_acquiring` (mmtk 0.33): an allocation that is not at a safepoint must
        // not block; it returns null and `alloc_slow_inline` gives up at once.
        let at_safepoint = options.at_safepoint;
        match why {
            // The budget refused a page: the GC trigger has requested a GC. Wait for it outside
            // the core, then let `alloc_slow_inline` retry (or report OOM after an emergency GC).
            NoCell::Refused => {
                if at_safepoint {
                    VM::VMCollection::block_for_gc(tls);
                }
            }
            // Out of virtual memory in the page resource: force a GC as `Space::acquire` does
            // when the page resource fails.
            NoCell::NoMemory => {
                if self.context.gc_trigger.is_collection_enabled() && self.context.state.is_initialized() {
                    self.space.get_gc_trigger().poll(true, Some(self.space.as_space()));
                    if at_safepoint {
                        VM::VMCollection::block_for_gc(tls);
                    }
                } else if options.allow_oom_call {
                    // `Allocator::out_of_memory` also records that this request has thrown.
                    self.out_of_memory(self.tls);
                }
            }
        }
        Address::ZERO
    }

    /// MMTk's precise stress test (`MMTK_PRECISE_STRESS`): a poll, then the slow path. As
    /// `Space::acquire`: a requested GC is waited for at a safepoint only, and an allocation
    /// that allows overcommitting goes on past it.
    fn alloc_slow_once_precise_stress(&mut self, size: usize, align: usize, offset: usize, need_poll: bool) -> Address {
        let options = self.context.get_alloc_options();
        if need_poll && self.space.get_gc_trigger().poll(false, Some(self.space.as_space())) && !options.allow_overcommit {
            if options.at_safepoint {
                VM::VMCollection::block_for_gc(VMMutatorThread(self.tls));
            }
            return Address::ZERO;
        }
        self.alloc_slow_once(size, align, offset)
    }

    fn does_thread_local_allocation(&self) -> bool {
        true
    }

    fn get_thread_local_buffer_granularity(&self) -> usize {
        shardsweep::PAGE_BYTES
    }

    fn on_mutator_destroy(&mut self) {
        if self.heap.is_null() {
            return;
        }
        // SAFETY: created by `Box::into_raw` in `new`; nulled so it is dropped once.
        let mut heap = unsafe { Box::from_raw(self.heap) };
        self.space.unregister_heap(self.heap);
        self.heap = std::ptr::null_mut();
        // Finishes a pending lazy sweep (with the previous GC's marks, still valid: nothing was
        // allocated in unswept blocks), then abandons.
        heap.abandon_all();
        drop(heap);
    }
}
