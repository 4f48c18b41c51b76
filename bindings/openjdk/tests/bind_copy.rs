//! What the JVM does with a mutator, replayed in Rust: `MMTkMutatorContext::bind`
//! (mmtk-openjdk `openjdk/mmtkMutator.cpp`) copies `sizeof(MMTkMutatorContext)` bytes out of the
//! `Box<Mutator>` that `bind_mutator` returns into the thread's own field and from then on passes
//! the copy's address to every call into MMTk (`alloc`, `post_alloc`, `flush_mutator`,
//! `destroy_mutator`). The boxed original is leaked. So the mutator, and the shardsweep
//! allocator in it, must work after a bitwise move, and allocation must work before collection
//! is initialised (the JVM allocates while it boots). MarkSweep's default allocator is a
//! free-list one (tag 5); in a shardsweep build mmtk reports its fast path
//! (`AllocatorInfo::FreeList`) and half of the allocations below pop inline through the copy, as
//! our patched JIT does; stock MarkSweep reports none (the JIT calls the runtime).
//!
//! One MMTk instance per process, so this file holds a single test.

use mmtk::util::alloc::AllocatorInfo;
use mmtk::util::opaque_pointer::{OpaquePointer, VMMutatorThread, VMThread};
use mmtk::util::options::{GCTriggerSelector, PlanSelector};
use mmtk::util::{Address, ObjectReference};
use mmtk::{memory_manager, AllocationSemantics, Mutator, MMTKBuilder, MMTK};
use shardsweep_openjdk_contract::dummy::DummyVM as VM;
use shardsweep_openjdk_contract::{expected as e, jit_pop, selector_bytes};

/// The `Thread`'s field (`third_party_heap_mutator`, type `MMTkMutatorContext`): word-aligned
/// storage of the C++ size.
#[repr(C, align(8))]
struct ThreadField([u8; e::MUTATOR_SIZE]);

#[test]
fn mutator_works_after_the_jvm_copies_it() {
    let mut builder = MMTKBuilder::new_no_env_vars();
    builder.options.plan.set(PlanSelector::MarkSweep);
    builder.options.gc_trigger.set(GCTriggerSelector::FixedHeapSize(256 << 20));
    let mmtk: &'static MMTK<VM> = Box::leak(memory_manager::mmtk_init::<VM>(&builder));

    // The JIT's view: MarkSweep's default allocator is free-list allocator 0 -> slow path.
    let sel = memory_manager::get_allocator_mapping(mmtk, AllocationSemantics::Default);
    assert_eq!(selector_bytes(sel), [e::TAG_FREE_LIST, 0], "default allocator is {sel:?}");
    let max_non_los = mmtk.get_plan().constraints().max_non_los_default_alloc_bytes;
    eprintln!("MarkSweep: default allocator {sel:?}, max_non_los_default_alloc_bytes {max_non_los}");
    assert!(max_non_los >= 256, "max_non_los_default_alloc_bytes = {max_non_los}");

    // bind: copy out of the box, poison and leak the original.
    // SAFETY: an address used only as an opaque thread token, never dereferenced.
    let tls = VMMutatorThread(VMThread(OpaquePointer::from_address(unsafe { Address::from_usize(0x7e57_0000) })));
    let boxed = memory_manager::bind_mutator(mmtk, tls);
    let raw: *mut Mutator<VM> = Box::into_raw(boxed);
    let mut field = Box::new(ThreadField([0; e::MUTATOR_SIZE]));
    // SAFETY: `raw` is the leaked box of a mutator of exactly MUTATOR_SIZE bytes (asserted by the
    // contract), `field` has that many bytes, and the two do not overlap.
    unsafe {
        std::ptr::copy_nonoverlapping(raw as *const u8, field.0.as_mut_ptr(), e::MUTATOR_SIZE);
        std::ptr::write_bytes(raw as *mut u8, 0xA5, std::mem::size_of::<Mutator<VM>>());
    }
    // SAFETY: the bytes are a bitwise copy of a live mutator (the copy the binding's C++ side
    // makes), suitably aligned (`ThreadField`), and nothing else refers to them.
    let m: &mut Mutator<VM> = unsafe { &mut *(field.0.as_mut_ptr() as *mut Mutator<VM>) };
    assert_eq!(m.mutator_tls, tls);

    // The allocator in free-list slot 0 is the one under test: under feature `shardsweep` the
    // shardsweep allocator (its own type, not mmtk's `FreeListAllocator`), stock otherwise.
    // SAFETY: `sel` is the plan's default allocator, initialised by `bind_mutator`.
    let a = unsafe { m.allocator(sel) };
    let stock = a.downcast_ref::<mmtk::util::alloc::FreeListAllocator<VM>>().is_some();
    assert_eq!(stock, !cfg!(feature = "shardsweep"), "free-list slot 0 holds the stock allocator: {stock}");
    if cfg!(feature = "shardsweep") {
        // The space's largest object: block/8 (8 KiB with the default 64 KiB blocks).
        assert!(max_non_los <= 32 << 10, "max_non_los_default_alloc_bytes = {max_non_los}");
    }

    // The JIT's fast path, as mmtk reports it.
    let info = AllocatorInfo::new::<VM>(sel);
    let max_inline = match info {
        AllocatorInfo::FreeList { heap_pointer_offset, head_table, max_inline_bytes, cell_next_offset } => {
            assert!(cfg!(feature = "shardsweep"), "stock MarkSweep reports a free-list fast path: {info:?}");
            assert_eq!(
                (heap_pointer_offset, cell_next_offset),
                (e::FREE_LIST_HEAP_POINTER_OFFSET, e::FREE_LIST_CELL_NEXT_OFFSET),
                "{info:?}"
            );
            // The head table: a word per size in words, each a word-aligned offset in the heap,
            // the same for the sizes of one size class (so rising with the size).
            assert!(head_table != 0 && head_table % 8 == 0, "{info:?}");
            // SAFETY: the table has an entry per size in words up to `max_inline_bytes`.
            let heads: Vec<usize> = (8..=max_inline_bytes).step_by(8).map(|s| unsafe { *((head_table + s) as *const usize) }).collect();
            assert!(heads.iter().all(|&o| o % 8 == 0) && heads.windows(2).all(|w| w[0] <= w[1]), "{heads:?}");
            assert!(max_inline_bytes <= e::FREE_LIST_MAX_INLINE_BYTES_64K && max_inline_bytes <= max_non_los);
            if max_non_los == 8 << 10 {
                assert_eq!(max_inline_bytes, e::FREE_LIST_MAX_INLINE_BYTES_64K, "64 KiB blocks");
            }
            max_inline_bytes
        }
        other => {
            assert!(!cfg!(feature = "shardsweep"), "the shardsweep allocator reports no fast path: {other:?}");
            assert_eq!(other, AllocatorInfo::Unimplemented);
            0
        }
    };
    let mut inline = 0usize;

    // Allocate through the copy as MMTkMutatorContext::alloc does (align HeapWordSize, offset 0,
    // sizes >= max_non_los to the LOS), write every byte, then check nothing overlaps.
    let mut objs: Vec<(usize, usize)> = Vec::new();
    let mut sz = 16usize;
    for i in 0..20_000usize {
        let bytes = if i % 997 == 0 { max_non_los + 8 } else { 16 + (sz % (max_non_los.min(2048) - 16)) / 8 * 8 };
        sz = sz.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407) >> 3;
        let sem = if bytes >= max_non_los { AllocationSemantics::Los } else { AllocationSemantics::Default };
        // Every other small allocation as the JIT makes it, through the copy; the call on null.
        let fast = if i % 2 == 0 && sem == AllocationSemantics::Default && bytes <= max_inline {
            // SAFETY: `m` is the bound (copied) mutator only this thread uses, `info` its
            // default allocator's, `bytes` a multiple of 8 within its limit.
            unsafe { jit_pop(m as *mut Mutator<VM> as *mut u8, &info, bytes) }
        } else {
            Address::ZERO
        };
        let a = if fast.is_zero() {
            let a = memory_manager::alloc(m, bytes, 8, 0, sem);
            assert!(!a.is_zero(), "allocation {i} of {bytes} bytes failed");
            let obj = ObjectReference::from_raw_address(a).unwrap();
            memory_manager::post_alloc(m, obj, bytes, sem);
            a
        } else {
            inline += 1;
            fast
        };
        assert_eq!(a.as_usize() % 8, 0);
        let obj = ObjectReference::from_raw_address(a).unwrap();
        assert!(memory_manager::is_in_mmtk_spaces(obj));
        // SAFETY: a fresh object of `bytes` bytes that only this test uses.
        unsafe { std::ptr::write_bytes(a.to_mut_ptr::<u8>(), (i % 251) as u8, bytes) };
        objs.push((a.as_usize(), bytes));
    }
    for (i, &(a, bytes)) in objs.iter().enumerate() {
        let p = a as *const u8;
        // SAFETY: the live object of `bytes` bytes written above.
        assert!(unsafe { (0..bytes).all(|k| *p.add(k) == (i % 251) as u8) }, "object {i} was overwritten");
    }
    objs.sort();
    for w in objs.windows(2) {
        assert!(w[0].0 + w[0].1 <= w[1].0, "objects overlap: {w:?}");
    }
    if cfg!(feature = "shardsweep") {
        assert!(inline >= 2_000, "only {inline} of 20000 allocations popped inline");
    }
    eprintln!("{inline} of 20000 allocations popped inline");
    memory_manager::flush_mutator(m);
    memory_manager::destroy_mutator(m);
}
