//! Walks of everything reachable from the roots (the global roots and every registered
//! thread's shadow stack): `--verify`'s check after each GC, `--final-gc`'s census, and the
//! corruption test hook.

use std::collections::HashSet;

use mmtk::memory_manager;
use mmtk::util::ObjectReference;

use super::{heap, roots, safepoint};
use crate::object;

/// The objects the global roots refer to, in slot order.
fn global_root_objects() -> impl Iterator<Item = ObjectReference> {
    roots::used_slots().iter().filter_map(roots::slot_object)
}

/// The objects the registered threads' shadow stacks refer to, thread by thread (in
/// registration order), bottom to top.
fn shadow_stack_objects() -> Vec<ObjectReference> {
    safepoint::with_threads(|threads| {
        let mut objects = Vec::new();
        for t in threads {
            // SAFETY: a registered context is alive while the registry is locked, and its
            // shadow stack is not written meanwhile: the callers run with the world stopped
            // or as the only mutator.
            let (stack, len) = unsafe { ((*t.0).roots, (*t.0).roots_len) };
            for i in 0..len {
                // SAFETY: `i` is below the depth, inside the shadow stack (as above).
                let v = unsafe { *stack.add(i) };
                objects.extend(roots::object_at(v));
            }
        }
        objects
    })
}

/// Walk all objects reachable from global roots and every thread's shadow stack, checking each
/// header and payload.  Only call it while the world is stopped (or single-threaded).
pub fn verify_heap() -> Result<usize, String> {
    let mut work: Vec<(ObjectReference, &'static str)> = Vec::new();
    work.extend(global_root_objects().map(|o| (o, "a global root")));
    work.extend(
        shadow_stack_objects()
            .into_iter()
            .map(|o| (o, "a thread's shadow stack")),
    );
    let mut seen: HashSet<usize> = HashSet::new();
    while let Some((o, from)) = work.pop() {
        if !seen.insert(o.to_raw_address().as_usize()) {
            continue;
        }
        if !memory_manager::is_in_mmtk_spaces(o) {
            return Err(format!(
                "reference {} (from {}) is not in any MMTk space",
                o, from
            ));
        }
        object::check_object(o).map_err(|e| format!("{} (reached from {})", e, from))?;
        for i in 0..object::nrefs_of(o) {
            if let Some(c) = object::load_ref(o, i) {
                work.push((c, "a heap object"));
            }
        }
    }
    Ok(seen.len())
}

/// What is reachable from the roots (`--final-gc`): see [`live_census`].
#[derive(Clone, Debug, Default)]
pub struct LiveCensus {
    /// Reachable objects and their bytes (sizes are multiples of 8 already).
    pub objects: usize,
    pub bytes: usize,
    /// Distinct (allocating thread, size class) pairs among reachable objects of at most
    /// `small_limit` bytes, size class = the shardsweep core's (mimalloc's) bin of the size.
    pub classes: usize,
    /// Bytes of the reachable objects of at most `small_limit` bytes.
    pub small_bytes: usize,
    /// min(`shardsweep::MAX_SMALL_BYTES`, the plan's largest non-LOS object).
    pub small_limit: usize,
}

/// Walk everything reachable from the global roots and every registered thread's shadow stack
/// (like [`verify_heap`]), counting objects, bytes and (owner, size class) pairs.  Only call it
/// while no GC can run (the caller is the only mutator and is in the VM, or the world is
/// stopped).
pub fn live_census() -> LiveCensus {
    let small_limit = shardsweep::MAX_SMALL_BYTES.min(heap::los_threshold());
    let mut work: Vec<ObjectReference> = global_root_objects().collect();
    work.extend(shadow_stack_objects());
    let mut seen: HashSet<usize> = HashSet::new();
    let mut pairs: HashSet<(Option<usize>, usize)> = HashSet::new();
    let mut c = LiveCensus {
        small_limit,
        ..Default::default()
    };
    while let Some(o) = work.pop() {
        if !seen.insert(o.to_raw_address().as_usize()) {
            continue;
        }
        let size = object::size_of(o);
        c.objects += 1;
        c.bytes += (size + 7) & !7;
        if size <= small_limit {
            c.small_bytes += size;
            pairs.insert((object::owner_of(o), shardsweep::bin_of(size)));
        }
        for i in 0..object::nrefs_of(o) {
            if let Some(t) = object::load_ref(o, i) {
                work.push(t);
            }
        }
    }
    c.classes = pairs.len();
    c
}

/// Test hook (SYNTHVM_TEST_CORRUPT=1): flip one payload word of the first object reachable from
/// the global roots that has a payload, to check that corruption is detected and reported.
pub fn corrupt_for_test() -> bool {
    let mut work: Vec<ObjectReference> = global_root_objects().collect();
    while let Some(o) = work.pop() {
        if object::payload_words(o) > 0 {
            let a = object::ref_slot(o, object::nrefs_of(o));
            // SAFETY: the first payload word of a live object (it has at least one), right
            // after its reference fields; the caller is the only mutator (at boot).
            unsafe { a.store::<u64>(a.load::<u64>() ^ 0x10) };
            return true;
        }
        for i in 0..object::nrefs_of(o) {
            if let Some(c) = object::load_ref(o, i) {
                work.push(c);
            }
        }
    }
    false
}
