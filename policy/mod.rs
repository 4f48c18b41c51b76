//! The shardsweep space: a mark-sweep space for the MarkSweep plan whose allocator is the
//! `shardsweep` core (mimalloc's sharded free lists, charged and given back per 4 KiB page).
//! Selected by the cargo feature `shardsweep` (see `plan/marksweep/global.rs`).
//!
//! One concept per file:
//! * [`global`] — the space: SFT, `Space`, tracing, prepare/release, page-granular accounting;
//! * [`glue`] — the space as the core's `BlockSource` (its page resource) and `PageBudget`
//!   (its GC trigger);
//! * [`allocator`] — the per-mutator allocator that owns a boxed core `Heap`;
//! * [`fastpath`] — the allocator's fast path as a JIT compiles it (`AllocatorInfo::FreeList`);
//! * [`sweep`] — the mark-bit oracle handed to the core's sweep;
//! * [`region`] — the block as an MMTk `Region` (for the block page resource);
//! * [`settings`] — runtime settings read from the environment at space creation;
//! * `work` — GC work packets: abandoned blocks swept in parallel, lazy sweeps finished;
//! * `check` — end-of-GC self-checks (accounting, post-GC footprint), enabled by settings;
//! * `purge` — idle pages (given back, still resident and counted) are purged at the next GC,
//!   under pressure or at once (`SHARDSWEEP_PURGE`);
//! * `report` — the peak resident pages at exit (`SHARDSWEEP_REPORT_PEAK=1`).
//!
//! Ownership per GC phase:
//!
//! | Phase          | A mutator's heap (its blocks)          | Abandoned stacks (core)             | Page resource / spare blocks |
//! |----------------|----------------------------------------|-------------------------------------|------------------------------|
//! | Allocation     | owner allocates, charges pages         | heaps adopt blocks lock-free        | `acquire_block` (no GC poll) |
//! | GC - Prepare   | lazy: `FinishLazySweep` packet per heap | -                                  | spare blocks → page resource; deferred purges madvised |
//! | GC - Trace     | trace_object sets mark bits            | trace_object sets mark bits         | -                            |
//! | GC - Release   | plan `Release` packet: -               | detached; `SweepAbandoned` packets  | -                            |
//! |                | `ReleaseMutator`: `Heap::sweep` (lazy: `defer_sweep`); idle bins abandoned | receive idle bins | empty blocks returned |
//! | Mutator (lazy) | slow path sweeps a bin's unswept blocks before use | -                    | empty blocks → spare list    |
//! | GC - End       | checks (settings)                      | checks (settings)                   | `flush_all`                  |

#[cfg(feature = "malloc_mark_sweep")]
compile_error!("features `shardsweep` and `malloc_mark_sweep` both select the MarkSweep plan's space; enable at most one");
// Refused, not supported: as the non-moving space of other plans the space would need their
// prepare/release protocol and their log bits, which nothing here tests.
#[cfg(feature = "marksweep_as_nonmoving")]
compile_error!("feature `shardsweep` does not support `marksweep_as_nonmoving` (the native MarkSweep space as other plans' non-moving space); enable at most one of the two");

pub mod allocator;
pub mod fastpath;
pub mod region;
pub mod settings;
mod purge;
mod report;
pub mod space;
mod sweep;
mod work;
#[cfg(all(test, feature = "mock_test"))]
mod mock_tests;

pub use allocator::ShardSweepAllocator;
pub use space::ShardSweepSpace;

/// Largest object the space holds; larger ones go to the large-object space (the plan's
/// `max_non_los_default_alloc_bytes`). Derived from the core's block size
/// (`SHARDSWEEP_BLOCK_KIB` at build time): `shardsweep::MAX_SMALL_BYTES`, one eighth of a block
/// (8 KiB with 32 KiB blocks). A control for the memory
/// studies lowers it at build time: `SHARDSWEEP_MAX_OBJECT_BYTES`, a power of two from 512 to
/// the core's largest (e.g. 64 KiB blocks serving at most 512 B, as 4 KiB blocks do); any
/// other value fails the build with the valid range.
pub const MAX_OBJECT_SIZE: usize = max_object_size(option_env!("SHARDSWEEP_MAX_OBJECT_BYTES"));

/// `SHARDSWEEP_MAX_OBJECT_BYTES` parsed at compile time (see [`MAX_OBJECT_SIZE`]).
const fn max_object_size(setting: Option<&str>) -> usize {
    let Some(s) = setting else {
        return shardsweep::MAX_SMALL_BYTES;
    };
    let b = s.as_bytes();
    let mut v = 0usize;
    let mut i = 0;
    while i < b.len() {
        assert!(
            b[i].is_ascii_digit() && i < 9,
            "SHARDSWEEP_MAX_OBJECT_BYTES: valid values are powers of two from 512 to the core's MAX_SMALL_BYTES (one eighth of the block; 8 KiB with 32 KiB blocks)"
        );
        v = v * 10 + (b[i] - b'0') as usize;
        i += 1;
    }
    assert!(
        v.is_power_of_two() && v >= 512 && v <= shardsweep::MAX_SMALL_BYTES,
        "SHARDSWEEP_MAX_OBJECT_BYTES: valid values are powers of two from 512 to the core's MAX_SMALL_BYTES (one eighth of the block; 8 KiB with 32 KiB blocks)"
    );
    v
}
