//! # shardsweep — the allocator core
//!
//! A native Rust port of mimalloc's per-block sharded free lists (Leijen, Zorn, de Moura,
//! MSR-TR-2019-18) with one change that matters to a garbage collector: memory is charged and
//! given back per 4 KiB OS page, not per block. It is VM-agnostic (no dependency on MMTk): the
//! MMTk space in `policy/` wraps it, and [`malloc`] turns it into a malloc.
//!
//! Layers, one concept per file, each referring only to those below it (`tests/layers.rs`
//! checks that no file of `src/` imports in a circle and that the core never names `malloc`):
//! * the floor: [`config`] (`LOG_BLOCK_BYTES`, chosen at build time, and everything derived
//!   from it), [`size_class`] (mimalloc's bin rule as `const fn`s), [`bounds`] (the work bound
//!   of every slow-path step), [`steps`] (the debug counter that checks them), [`cell`],
//!   [`page_mask`], and the atomics shim `sync`;
//! * the core: [`thread_free`] (the remote-free word), [`budget`] and [`os`] (the traits
//!   through which an embedder counts and vetoes pages, supplies blocks and gives pages back to
//!   the OS), [`no_cell`] (why an allocation has no cell), [`block`] (a block, its three free
//!   lists, page-at-a-time extension and charging, its sweep), [`shared`] (what heaps share:
//!   block source, budget, abandoned blocks), [`heap`] (a thread's heap: fast path, the slow
//!   path as named steps, free, queues, sweep, abandonment), [`gc`] (a collector's sweep of
//!   abandoned blocks);
//! * the malloc front end, [`malloc`]: the core over its own mappings as a malloc and a
//!   `GlobalAlloc`, its large-mapping cache, purge delay and bounded (real-time) mode.
//!
//! See `ARCHITECTURE.md` for the design and the invariants.
#![warn(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]
#![deny(unsafe_op_in_unsafe_fn)]

#[cfg(not(loom))]
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
pub mod build_setting;
#[cfg(not(loom))]
pub mod config;
#[cfg(not(loom))]
pub mod drop_batch;
#[cfg(not(loom))]
pub mod footprint;
#[cfg(not(loom))]
pub mod gc;
#[cfg(not(loom))]
pub mod heap;
#[cfg(not(loom))]
pub mod jit_layout;
#[cfg(not(loom))]
pub mod malloc;
#[cfg(not(loom))]
pub mod no_cell;
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
    block::{
        lease_cells, lease_cells_in, lease_pages, Adopt, Block, BlockState, Lend, Lent, MarkBitmap, ReuseOrder, Spill, SweepResult,
        LEASE_BYTES, LEASE_SHARE_BINS,
    },
    budget::{Accounting, CountingBudget, Headroom, PageBudget},
    config::*,
    drop_batch::DropBatch,
    footprint::{Footprint, HOLE_SIZES},
    gc::AbandonedBatch,
    heap::{Heap, SweepStats},
    malloc::arena::ArenaSource,
    malloc::bounded::BoundedSettings,
    malloc::standalone::{ShardSweepAlloc, Standalone},
    no_cell::{Charging, NoCell},
    os::{os_calls, Advice, BlockSource, Madvise, OsCalls, OsMemory},
    page_mask::PageMask,
    shared::{Settings, Shared},
    size_class::{bin_bytes, bin_of, BIN_COUNT, MAX_BIN},
};
