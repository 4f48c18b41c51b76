// GITHUB-CI: MMTK_PLAN=MarkSweep

//! `AllocationOptions { allow_overcommit: true }` (mmtk's `mock_test_allocate_overcommit` asks
//! that it neither blocks for a GC nor reports out of memory): the space really goes past the
//! heap size, and later allocations that do not allow overcommitting and are not at a
//! safepoint then fail once the pages already charged are used (no block, no out of memory).

use crate::util::alloc::allocator::AllocationOptions;
use crate::util::test_util::fixtures::*;
use super::{recording_vm, HEAP_BYTES, HEAP_PAGES};
use crate::util::test_util::mock_vm::*;
use crate::AllocationSemantics;
use crate::memory_manager;

#[test]
pub fn overcommit_past_heap() {
    with_mockvm(
        recording_vm,
        || {
            let mut fixture = MutatorFixture::create_with_heapsize(HEAP_BYTES);
            let overcommit = AllocationOptions { allow_overcommit: true, ..Default::default() };
            // 2 MiB in 1 KiB objects: twice the heap.
            for i in 0..2048 {
                let a = memory_manager::alloc_with_options(&mut fixture.mutator, 1024, 8, 0, AllocationSemantics::Default, overcommit);
                assert!(!a.is_zero(), "overcommitting allocation {i} failed");
                // The cells are the space's and writable (page charged, not just counted).
                // SAFETY: `a` is a fresh 1 KiB cell of the space, word-aligned (align 8).
                unsafe { a.store::<usize>(i) };
            }
            let reserved = fixture.mmtk().get_plan().get_reserved_pages();
            assert!(reserved > HEAP_PAGES, "2 MiB allocated past a 1 MiB heap: {reserved} pages reserved, heap {HEAP_PAGES}");
            read_mockvm(|mock| {
                assert!(!mock.block_for_gc.is_called(), "an overcommitting allocation blocked for a GC");
                assert!(!mock.out_of_memory.is_called(), "an overcommitting allocation reported out of memory");
            });
            // Past the heap size, plain allocations off a safepoint get null as soon as the cells
            // of the pages already charged are used up (no new page is granted): within 256 KiB.
            let unsafe_point = AllocationOptions { at_safepoint: false, ..Default::default() };
            let served = (0..256)
                .take_while(|_| {
                    !memory_manager::alloc_with_options(&mut fixture.mutator, 1024, 8, 0, AllocationSemantics::Default, unsafe_point)
                        .is_zero()
                })
                .count();
            assert!(served < 256, "256 KiB more served past the heap size without overcommitting");
            read_mockvm(|mock| {
                assert!(!mock.block_for_gc.is_called(), "an allocation off a safepoint blocked for a GC");
                assert!(!mock.out_of_memory.is_called(), "an allocation off a safepoint reported out of memory");
            });
        },
        no_cleanup,
    )
}
