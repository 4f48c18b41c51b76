// GITHUB-CI: MMTK_PLAN=MarkSweep

//! `AllocationOptions { at_safepoint: false }` filling the heap: allocations succeed until the
//! space's pages reach the heap size, then return null without blocking for a GC or reporting
//! out of memory (as `Space::not_acquiring`), and the heap limit bounds what was reserved.

use crate::util::alloc::allocator::AllocationOptions;
use crate::util::test_util::fixtures::*;
use super::{recording_vm, HEAP_BYTES, HEAP_PAGES};
use crate::util::test_util::mock_vm::*;
use crate::memory_manager;
use crate::AllocationSemantics;

#[test]
pub fn unsafe_point_full_heap() {
    with_mockvm(
        recording_vm,
        || {
            let mut fixture = MutatorFixture::create_with_heapsize(HEAP_BYTES);
            let unsafe_point = AllocationOptions { at_safepoint: false, ..Default::default() };
            let mut allocated = 0;
            let mut failed_at = None;
            for i in 0..4096 {
                let a = memory_manager::alloc_with_options(&mut fixture.mutator, 256, 8, 0, AllocationSemantics::Default, unsafe_point);
                if a.is_zero() {
                    failed_at = Some(i);
                    break;
                }
                allocated += 256;
            }
            let failed_at = failed_at.expect("1 MiB of 256-byte objects off a safepoint never failed in a 1 MiB heap");
            // Side metadata and the block headers count too: at least half the heap was served.
            assert!(allocated >= HEAP_BYTES / 2, "only {allocated} bytes served before the first null (allocation {failed_at})");
            let reserved = fixture.mmtk().get_plan().get_reserved_pages();
            assert!(reserved <= HEAP_PAGES, "{reserved} pages reserved in a {HEAP_PAGES}-page heap without overcommitting");
            read_mockvm(|mock| {
                assert!(!mock.block_for_gc.is_called(), "an allocation off a safepoint blocked for a GC");
                assert!(!mock.out_of_memory.is_called(), "an allocation off a safepoint reported out of memory");
            });
            // The next one fails too, at once (the GC it wants has not run).
            let a = memory_manager::alloc_with_options(&mut fixture.mutator, 256, 8, 0, AllocationSemantics::Default, unsafe_point);
            assert!(a.is_zero());
        },
        no_cleanup,
    )
}
