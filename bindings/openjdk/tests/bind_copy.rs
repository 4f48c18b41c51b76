//! What the JVM does with a mutator, replayed in Rust: `MMTkMutatorContext::bind`
//! (mmtk-openjdk `openjdk/mmtkMutator.cpp`) copies `sizeof(MMTkMutatorContext)` bytes out of the
//! `Box<Mutator>` that `bind_mutator` returns into the thread's own field and from then on passes
//! the copy's address to every call into MMTk (`alloc`, `post_alloc`, `flush_mutator`,
//! `destroy_mutator`). The boxed original is leaked. So the mutator, and the shardsweep
//! allocator in it, must work after a bitwise move, and allocation must work before collection
//! is initialised (the JVM allocates while it boots). The JIT never reads the free-list
//! allocator: MarkSweep's default allocator must be a free-list one (tag 5, always slow path).
//!
//! One MMTk instance per process, so this file holds a single test.

use mmtk::util::opaque_pointer::{OpaquePointer, VMMutatorThread, VMThread};
use mmtk::util::options::{GCTriggerSelector, PlanSelector};
use mmtk::util::{Address, ObjectReference};
use mmtk::{memory_manager, AllocationSemantics, Mutator, MMTKBuilder, MMTK};
use shardsweep_openjdk_contract::dummy::DummyVM as VM;
use shardsweep_openjdk_contract::{expected as e, selector_bytes};

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

    // Allocate through the copy as MMTkMutatorContext::alloc does (align HeapWordSize, offset 0,
    // sizes >= max_non_los to the LOS), write every byte, then check nothing overlaps.
    let mut objs: Vec<(usize, usize)> = Vec::new();
    let mut sz = 16usize;
    for i in 0..20_000usize {
        let bytes = if i % 997 == 0 { max_non_los + 8 } else { 16 + (sz % (max_non_los.min(2048) - 16)) / 8 * 8 };
        sz = sz.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407) >> 3;
        let sem = if bytes >= max_non_los { AllocationSemantics::Los } else { AllocationSemantics::Default };
        let a = memory_manager::alloc(m, bytes, 8, 0, sem);
        assert!(!a.is_zero(), "allocation {i} of {bytes} bytes failed");
        assert_eq!(a.as_usize() % 8, 0);
        let obj = ObjectReference::from_raw_address(a).unwrap();
        memory_manager::post_alloc(m, obj, bytes, sem);
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
    memory_manager::flush_mutator(m);
    memory_manager::destroy_mutator(m);
}
