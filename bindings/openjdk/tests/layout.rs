//! The mutator-visible layout of the (patched) mmtk 0.33.0 against mmtk-openjdk's C++
//! mirror (`openjdk/mmtkMutator.hpp`). The expected figures and where they come from:
//! `contract/lib.rs` (`expected`) and README.md.

use std::mem::{align_of, offset_of, size_of};

use mmtk::util::alloc::{AllocatorSelector, FreeListAllocator};
use mmtk::Mutator;
use shardsweep_openjdk_contract::dummy::DummyVM as VM;
use shardsweep_openjdk_contract::{expected as e, selector_bytes};

/// mmtk-openjdk's start-up check: `FREE_LIST_ALLOCATOR_SIZE` (Rust: the `size_of` of
/// `mmtk::util::alloc::FreeListAllocator`, the stock allocator, which every build still has) ==
/// `sizeof(FreeListAllocator)` (C++).
#[test]
fn free_list_allocator_size_matches_the_cpp_mirror() {
    assert_eq!(size_of::<FreeListAllocator<VM>>(), e::FREE_LIST_ALLOCATOR_SIZE,
        "mmtk-openjdk would refuse to start: \"Unmatched free list allocator size\"");
    assert_eq!(align_of::<FreeListAllocator<VM>>(), e::FREE_LIST_ALLOCATOR_ALIGN);
    assert_eq!(offset_of!(FreeListAllocator<VM>, tls), e::FREE_LIST_ALLOCATOR_TLS_OFFSET);
}

/// The allocator in the free-list slots is the one under test (the shardsweep allocator under
/// the feature, a type of its own name; `tests/bind_copy.rs` checks which one a bound mutator
/// holds). Its size is the stride of the free-list array, which the C++ mirror sets to
/// `sizeof(FreeListAllocator)`: the seam's size assertion (`policy/allocator.rs`) keeps it so.
#[test]
fn free_list_slots_have_the_cpp_stride() {
    let at = Mutator::<VM>::get_allocator_base_offset;
    assert_eq!(at(AllocatorSelector::FreeList(1)) - at(AllocatorSelector::FreeList(0)), e::FREE_LIST_ALLOCATOR_SIZE,
        "the allocator in the free-list slots is not sizeof(FreeListAllocator) bytes");
}

#[test]
fn other_allocators_match_the_cpp_mirror() {
    use mmtk::util::alloc::*;
    assert_eq!(size_of::<BumpAllocator<VM>>(), e::BUMP_ALLOCATOR_SIZE);
    assert_eq!(size_of::<LargeObjectAllocator<VM>>(), e::LARGE_OBJECT_ALLOCATOR_SIZE);
    assert_eq!(size_of::<MallocAllocator<VM>>(), e::MALLOC_ALLOCATOR_SIZE);
    assert_eq!(size_of::<ImmixAllocator<VM>>(), e::IMMIX_ALLOCATOR_SIZE);
    assert_eq!(size_of::<MarkCompactAllocator<VM>>(), e::MARK_COMPACT_ALLOCATOR_SIZE);
}

/// Where each allocator array sits in the mutator (`Allocators` is crate-private in mmtk; its
/// public view is `Mutator::get_allocator_base_offset`, which mmtk computes with `offset_of!`).
#[test]
fn allocator_arrays_sit_where_the_cpp_mirror_has_them() {
    let at = Mutator::<VM>::get_allocator_base_offset;
    assert_eq!(at(AllocatorSelector::BumpPointer(0)), e::ALLOCATORS_BUMP_POINTER_OFFSET);
    assert_eq!(at(AllocatorSelector::BumpPointer(5)), e::ALLOCATORS_BUMP_POINTER_OFFSET + 5 * e::BUMP_ALLOCATOR_SIZE);
    assert_eq!(at(AllocatorSelector::LargeObject(0)), e::ALLOCATORS_LARGE_OBJECT_OFFSET);
    assert_eq!(at(AllocatorSelector::Malloc(0)), e::ALLOCATORS_MALLOC_OFFSET);
    assert_eq!(at(AllocatorSelector::Immix(0)), e::ALLOCATORS_IMMIX_OFFSET);
    for i in 0..e::MAX_FREE_LIST_ALLOCATORS {
        assert_eq!(at(AllocatorSelector::FreeList(i as u8)), e::free_list_allocator_offset(i), "free-list allocator {i}");
    }
    assert_eq!(at(AllocatorSelector::MarkCompact(0)), e::ALLOCATORS_MARK_COMPACT_OFFSET);
}

/// `MMTkMutatorContext::bind` copies `sizeof(MMTkMutatorContext)` bytes of the Rust `Mutator`.
#[test]
fn mutator_matches_mmtk_mutator_context() {
    assert_eq!(size_of::<Mutator<VM>>(), e::MUTATOR_SIZE,
        "the JVM copies exactly sizeof(MMTkMutatorContext) bytes of the Rust Mutator");
    assert_eq!(offset_of!(Mutator<VM>, barrier), e::MUTATOR_BARRIER_OFFSET);
    assert_eq!(offset_of!(Mutator<VM>, mutator_tls), e::MUTATOR_MUTATOR_TLS_OFFSET);
    assert_eq!(align_of::<Mutator<VM>>(), 8);
}

/// The selector the JIT reads: `{u8 tag, u8 index}`; tag 5 forces the slow path.
#[test]
fn allocator_selector_matches_mmtk_h() {
    assert_eq!(size_of::<AllocatorSelector>(), e::ALLOCATOR_SELECTOR_SIZE);
    assert_eq!(selector_bytes(AllocatorSelector::FreeList(1)), [e::TAG_FREE_LIST, 1]);
    assert_eq!(selector_bytes(AllocatorSelector::BumpPointer(3)), [e::TAG_BUMP_POINTER, 3]);
}
