//! # shardsweep — the allocator core
//!
//! A native Rust port of mimalloc's per-block sharded free lists (Leijen, Zorn, de Moura,
//! MSR-TR-2019-18) with one change that matters to a garbage collector: memory is charged and
//! given back per 4 KiB OS page, not per block. It is VM-agnostic (no dependency on MMTk): the
//! MMTk space in `policy/` wraps it, and [`standalone`] turns it into a malloc.
//!
//! Layers, one concept per file:
//! * [`config`] — `LOG_BLOCK_BYTES` (build time) and everything derived from it;
//! * [`size_class`] — mimalloc's bin rule as `const fn`s;
//! * [`block`] — a block and its three free lists (`free`, `local_free`, `xthread_free`), lazy
//!   page-at-a-time extension, page charging, the sweep primitive;
//! * [`heap`] — thread-local heaps (direct table, bin queues, full list, delayed free);
//! * [`shared`] — what heaps share: block source, page budget, OS, abandoned blocks;
//! * [`budget`], [`os`] — the traits through which an embedder counts and vetoes pages and
//!   gives them back to the OS;
//! * [`standalone`] — malloc-like use over the core's own mappings, and a `GlobalAlloc`;
//! * [`bounded`] — the standalone allocator's bounded (real-time) mode, and [`steps`], the
//!   debug counter of each operation's work that checks its bound.
//!
//! See `ARCHITECTURE.md` for the design and the invariants.
#![warn(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod bounds;
pub mod cell;
pub mod steps;
pub(crate) mod sync;
pub mod thread_free;

#[cfg(not(loom))]
pub mod block;
#[cfg(not(loom))]
pub(crate) mod block_stack;
#[cfg(not(loom))]
pub mod budget;
#[cfg(not(loom))]
pub mod config;
#[cfg(not(loom))]
pub mod gc;
#[cfg(not(loom))]
pub mod heap;
#[cfg(not(loom))]
pub mod malloc;
#[cfg(not(loom))]
pub mod os;
#[cfg(not(loom))]
pub mod page_mask;
#[cfg(not(loom))]
pub mod shared;
#[cfg(not(loom))]
pub mod size_class;

#[cfg(not(loom))]
pub use {
    block::{Block, BlockState, SweepResult},
    budget::{Accounting, CountingBudget, PageBudget},
    config::*,
    gc::AbandonedBatch,
    heap::{Heap, SweepStats},
    malloc::arena::ArenaSource,
    malloc::bounded::BoundedSettings,
    malloc::standalone::{ShardSweepAlloc, Standalone},
    os::{os_calls, Advice, BlockSource, Madvise, OsCalls, OsMemory},
    page_mask::PageMask,
    shared::{Settings, Shared},
    size_class::{bin_bytes, bin_of, BIN_COUNT, MAX_BIN},
};
