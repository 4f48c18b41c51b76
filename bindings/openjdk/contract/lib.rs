//! The layout contract between the shardsweep-patched `mmtk` 0.33.0 and mmtk-openjdk 0.33.
//!
//! The figures are those of mmtk-core 0.33.0's Rust types (what any binding of 0.33.0 must
//! mirror), checked against mmtk-openjdk's C++ mirror at the newest commit this project could
//! read, `e350a01` (master, 2025-09-22, which tracks mmtk-core after 0.31 and already has the
//! 0.33 layout: two Immix allocators). README.md says which tags a user builds and what was not
//! checked.
//!
//! mmtk-openjdk's C++ half keeps a hand-written mirror of MMTk's Rust `Mutator` in
//! `openjdk/mmtkMutator.hpp` (struct `MMTkMutatorContext`, which embeds `Allocators`, which
//! embeds two `FreeListAllocator`s). It relies on that mirror in three ways (see README.md for
//! the file and line of each):
//!
//! 1. `MMTkMutatorContext::bind` (`openjdk/mmtkMutator.cpp`, lines 8–14) refuses to start
//!    ("Unmatched free list allocator size") unless the Rust static `FREE_LIST_ALLOCATOR_SIZE`
//!    (`mmtk/src/lib.rs` line 139: `size_of::<mmtk::util::alloc::FreeListAllocator<OpenJDK<false>>>()`,
//!    mmtk's own stock type) equals the C++ `sizeof(FreeListAllocator)`; our allocator, in the
//!    free-list slots under its own name, has that size by a compile-time assertion;
//! 2. the same function then copies the whole Rust `Mutator` **by value** (`sizeof(MMTkMutatorContext)`
//!    bytes) out of the `Box` that `bind_mutator` returns into the `Thread`'s own field
//!    `third_party_heap_mutator`, and every later call into Rust passes the address of that copy.
//!    So `size_of::<Mutator<VM>>()` must equal `sizeof(MMTkMutatorContext)`, and a mutator (our
//!    allocator included) must survive a bitwise move;
//! 3. the JIT's allocation fast path (`mmtkBarrierSetAssembler_x86.cpp` lines 71–74 for C1 and
//!    the interpreter, `mmtkBarrierSetC2.cpp` lines 133–139 for C2) asks MMTk for the default
//!    allocator's `AllocatorSelector` and, for tag `TAG_FREE_LIST` (5, `openjdk/mmtk.h`), always
//!    takes the slow path; only bump-pointer, Immix and mark-compact allocators are read through
//!    the mirror (`cursor`/`limit`, `mmtkBarrierSet.cpp` lines 38–74). So no field *inside* our
//!    allocator is read by C++ code; its size and alignment, and the position of the free-list
//!    array inside `Allocators`, are.
//!
//! [`expected`] holds the figures of the C++ mirror on x86-64 (LP64), and the tests in
//! `tests/` compare them with the Rust types of the patched mmtk.

pub mod dummy;

/// What mmtk-openjdk's C++ mirror (`openjdk/mmtkMutator.hpp` at `e350a01`, the layout of
/// mmtk-core 0.33.0) expects on x86-64.
///
/// Each figure follows from the struct text (every member is a pointer-sized word, a 16-byte
/// `RustDynPtr {data, vtable}`, or a byte) with the LP64 C++ ABI; they were also printed with
/// `sizeof`/`offsetof` by g++ 12.2 on the header itself.
pub mod expected {
    /// `struct FreeListAllocator` (lines 72–80): `tls`, `space`, `context`, and four pointers
    /// to block lists (`available_blocks`, `available_blocks_stress`, `unswept_blocks`,
    /// `consumed_blocks`): 7 words. Checked at start-up against `FREE_LIST_ALLOCATOR_SIZE`.
    pub const FREE_LIST_ALLOCATOR_SIZE: usize = 56;
    pub const FREE_LIST_ALLOCATOR_ALIGN: usize = 8;
    /// First field of the mirror (`void* tls`); the Rust `pub tls` field.
    pub const FREE_LIST_ALLOCATOR_TLS_OFFSET: usize = 0;

    /// `MAX_FREE_LIST_ALLOCATORS` (line 26), equal to mmtk's `allocators::MAX_FREE_LIST_ALLOCATORS`.
    pub const MAX_FREE_LIST_ALLOCATORS: usize = 2;

    /// `struct BumpAllocator` (lines 31–37): `tls`, `cursor`, `limit`, `RustDynPtr space`,
    /// `context` = 48 bytes; cursor at 8, limit at 16 (read by the JIT for bump-pointer plans).
    pub const BUMP_ALLOCATOR_SIZE: usize = 48;
    /// `struct LargeObjectAllocator` (lines 39–43): 3 words.
    pub const LARGE_OBJECT_ALLOCATOR_SIZE: usize = 24;
    /// `struct MallocAllocator` (lines 82–86): 3 words.
    pub const MALLOC_ALLOCATOR_SIZE: usize = 24;
    /// `struct ImmixAllocator` (lines 45–59): 5 words, 2 bytes (padded to 48), 2 words, a byte
    /// and 7 bytes of `_align`, a byte (padded to 80), a word = 88 bytes.
    pub const IMMIX_ALLOCATOR_SIZE: usize = 88;
    /// `struct MarkCompactAllocator` (lines 88–90): one `BumpAllocator`.
    pub const MARK_COMPACT_ALLOCATOR_SIZE: usize = 48;

    /// `MAX_IMMIX_ALLOCATORS` (line 25): 2 in mmtk-core 0.33.0 (1 in 0.31.0).
    pub const MAX_IMMIX_ALLOCATORS: usize = 2;

    /// `struct Allocators` (lines 92–99): 6 bump, 2 large-object, 1 malloc, 2 Immix,
    /// 2 free-list, 1 mark-compact allocators, in that order.
    pub const ALLOCATORS_BUMP_POINTER_OFFSET: usize = 0;
    pub const ALLOCATORS_LARGE_OBJECT_OFFSET: usize = 6 * BUMP_ALLOCATOR_SIZE; // 288
    pub const ALLOCATORS_MALLOC_OFFSET: usize =
        ALLOCATORS_LARGE_OBJECT_OFFSET + 2 * LARGE_OBJECT_ALLOCATOR_SIZE; // 336
    pub const ALLOCATORS_IMMIX_OFFSET: usize = ALLOCATORS_MALLOC_OFFSET + MALLOC_ALLOCATOR_SIZE; // 360
    pub const ALLOCATORS_FREE_LIST_OFFSET: usize = ALLOCATORS_IMMIX_OFFSET + MAX_IMMIX_ALLOCATORS * IMMIX_ALLOCATOR_SIZE; // 536
    pub const ALLOCATORS_MARK_COMPACT_OFFSET: usize =
        ALLOCATORS_FREE_LIST_OFFSET + MAX_FREE_LIST_ALLOCATORS * FREE_LIST_ALLOCATOR_SIZE; // 648
    pub const ALLOCATORS_SIZE: usize = ALLOCATORS_MARK_COMPACT_OFFSET + MARK_COMPACT_ALLOCATOR_SIZE; // 696

    /// `struct MMTkMutatorContext` (lines 108–114): `Allocators allocators`,
    /// `RustDynPtr barrier`, `void* mutator_tls`, `RustDynPtr plan`, `MutatorConfig config`
    /// (`MutatorConfig`, lines 101–106: two words and two `RustDynPtr` = 48 bytes).
    pub const MUTATOR_ALLOCATORS_OFFSET: usize = 0;
    pub const MUTATOR_BARRIER_OFFSET: usize = ALLOCATORS_SIZE; // 696
    pub const MUTATOR_MUTATOR_TLS_OFFSET: usize = MUTATOR_BARRIER_OFFSET + 16; // 712
    pub const MUTATOR_PLAN_OFFSET: usize = MUTATOR_MUTATOR_TLS_OFFSET + 8; // 720
    pub const MUTATOR_CONFIG_OFFSET: usize = MUTATOR_PLAN_OFFSET + 16; // 736
    pub const MUTATOR_SIZE: usize = MUTATOR_CONFIG_OFFSET + 48; // 784

    /// Offset of free-list allocator `i` from the start of the mutator (what
    /// `Mutator::get_allocator_base_offset(AllocatorSelector::FreeList(i))` must return).
    pub const fn free_list_allocator_offset(i: usize) -> usize {
        MUTATOR_ALLOCATORS_OFFSET + ALLOCATORS_FREE_LIST_OFFSET + i * FREE_LIST_ALLOCATOR_SIZE
    }

    /// `struct AllocatorSelector { uint8_t tag; uint8_t index; }` (`openjdk/mmtk.h` lines 73–76)
    /// and `#define TAG_FREE_LIST 5` (line 83): the tag that makes C1, C2 and the interpreter
    /// take the slow path for every allocation.
    pub const ALLOCATOR_SELECTOR_SIZE: usize = 2;
    pub const TAG_BUMP_POINTER: u8 = 0;
    pub const TAG_FREE_LIST: u8 = 5;

    /// The free-list fast path mmtk reports for `FreeList(0)` in a shardsweep build
    /// (`AllocatorInfo::FreeList`, which our patch to mmtk-openjdk hands to its JIT through
    /// `mmtk_get_free_list_fastpath`): the heap pointer 24 bytes into the allocator (after `tls`,
    /// `space`, `context`), then the core's (`shardsweep::jit_layout`): the address of a static
    /// table of each size's list-head offset in the heap (`LEASE_HEADS`, a word per size in
    /// words, so indexed by the size in bytes; not a constant: checked by its entries), a cell's
    /// link at 0.
    pub const FREE_LIST_HEAP_POINTER_OFFSET: usize = free_list_allocator_offset(0) + 24; // 560
    pub const FREE_LIST_CELL_NEXT_OFFSET: usize = 0;
    /// The largest object it serves with 64 KiB blocks: the space's largest object, 8 KiB (every
    /// small size has a head); with 4 KiB blocks 512 B.
    pub const FREE_LIST_MAX_INLINE_BYTES_64K: usize = 8192;

    // The figures are consistent with the text of the header.
    // g++ 12.2 printed the same with sizeof/offsetof on the header at e350a01.
    const _: () = assert!(ALLOCATORS_FREE_LIST_OFFSET == 536);
    const _: () = assert!(ALLOCATORS_SIZE == 696);
    const _: () = assert!(MUTATOR_SIZE == 784);
}

/// The JIT's free-list pop (our patch to mmtk-openjdk: `eden_allocate` on x86-64, C2's
/// `expand_allocate`), at the offsets `info` gives: a cell of `size` bytes or zero.
///
/// # Safety
/// `mutator` is a bound mutator (or its bitwise copy) that no other thread uses; `info` is what
/// `AllocatorInfo::new` reported for its default allocator; `size` a multiple of 8 within
/// `max_inline_bytes`.
pub unsafe fn jit_pop(mutator: *mut u8, info: &mmtk::util::alloc::AllocatorInfo, size: usize) -> mmtk::util::Address {
    use mmtk::util::alloc::AllocatorInfo;
    let AllocatorInfo::FreeList { heap_pointer_offset, head_table, max_inline_bytes, cell_next_offset } = *info else {
        return mmtk::util::Address::ZERO;
    };
    assert!(size % 8 == 0 && size <= max_inline_bytes);
    let heap = *(mutator.add(heap_pointer_offset) as *const *mut u8);
    let head = heap.add(*((head_table + size) as *const usize)) as *mut *mut u8;
    let cell = *head;
    if cell.is_null() {
        return mmtk::util::Address::ZERO;
    }
    *head = *(cell.add(cell_next_offset) as *const *mut u8);
    mmtk::util::Address::from_mut_ptr(cell)
}

/// The raw bytes of an `AllocatorSelector` as the C++ side sees them (`{tag, index}`).
pub fn selector_bytes(s: mmtk::util::alloc::AllocatorSelector) -> [u8; 2] {
    const _: () = assert!(std::mem::size_of::<mmtk::util::alloc::AllocatorSelector>() == 2);
    // SAFETY: AllocatorSelector is `#[repr(C, u8)]` with u8 payloads: two initialised bytes
    // for every variant that carries an index (`None` has one; callers never pass it).
    unsafe { std::mem::transmute::<mmtk::util::alloc::AllocatorSelector, [u8; 2]>(s) }
}
