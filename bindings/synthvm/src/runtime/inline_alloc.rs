//! `--inline-alloc`: allocation as a JIT compiles it inline, from nothing but what MMTk's
//! `AllocatorInfo` reports for the default allocator. For the shardsweep space that is its
//! free-list fast path (`AllocatorInfo::FreeList`); the loads and stores below are the ones
//! mmtk-openjdk's patched interpreter, C1 and C2 emit (`bindings/openjdk/patches/`), at the
//! offsets MMTk gives, so a wrong offset corrupts the space's lists and its accounting check
//! (or the heap walk) fails. An empty list, a size beyond the fast path, or an allocator
//! without a fast path takes the call into MMTk, as the JIT's slow path does.

#[cfg(not(feature = "pristine"))]
use mmtk::util::alloc::AllocatorInfo;
use mmtk::util::Address;
#[cfg(not(feature = "pristine"))]
use mmtk::{memory_manager, AllocationSemantics};

#[cfg(not(feature = "pristine"))]
use super::heap::mmtk;
#[cfg(not(feature = "pristine"))]
use crate::vm::SynthVM;

/// The free-list fast path's offsets (`AllocatorInfo::FreeList`).
#[derive(Clone, Copy, Debug)]
pub struct FreeListPath {
    heap_pointer_offset: usize,
    head_table: usize,
    max_inline_bytes: usize,
    cell_next_offset: usize,
}

impl FreeListPath {
    /// What MMTk offers for the default allocator: `None` when it is not a free-list fast path
    /// (every allocation then calls MMTk).
    #[cfg(not(feature = "pristine"))]
    pub fn of_default_allocator() -> Option<FreeListPath> {
        let selector = memory_manager::get_allocator_mapping(mmtk(), AllocationSemantics::Default);
        match AllocatorInfo::new::<SynthVM>(selector) {
            AllocatorInfo::FreeList { heap_pointer_offset, head_table, max_inline_bytes, cell_next_offset } => {
                Some(FreeListPath { heap_pointer_offset, head_table, max_inline_bytes, cell_next_offset })
            }
            _ => None,
        }
    }

    /// Built against the unmodified mmtk crate, which has no free-list fast path.
    #[cfg(feature = "pristine")]
    pub fn of_default_allocator() -> Option<FreeListPath> {
        None
    }

    /// Whether an object of `size` bytes (a multiple of 8) takes the fast path.
    #[inline(always)]
    pub fn serves(&self, size: usize) -> bool {
        size <= self.max_inline_bytes
    }

    /// The JIT's sequence: a cell of `size` bytes popped from the mutator's free-list head of
    /// that size (its offset in the heap read from the static table), or zero (the caller then
    /// calls MMTk).
    ///
    /// # Safety
    /// `mutator` is the calling thread's bound MMTk mutator, not used by any other thread
    /// meanwhile; `size` is a multiple of 8 with `8 <= size` and `self.serves(size)`.
    #[inline(always)]
    pub unsafe fn pop(&self, mutator: *mut u8, size: usize) -> Address {
        debug_assert!(size >= 8 && size % 8 == 0 && self.serves(size));
        let heap = *(mutator.add(self.heap_pointer_offset) as *const *mut u8);
        let head = heap.add(*((self.head_table + size) as *const usize)) as *mut *mut u8;
        let cell = *head;
        if cell.is_null() {
            return Address::ZERO;
        }
        *head = *(cell.add(self.cell_next_offset) as *const *mut u8);
        Address::from_mut_ptr(cell)
    }
}
