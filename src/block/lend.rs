//! Lending holes (`Settings::lend_holes`, off by default; garbage-collected mode, eager sweep):
//! a sweep that leaves a run of consecutive free cells of at least `min_bytes` on pages it keeps
//! charged takes the run off the free list and lends it, whole, to requests of larger size
//! classes, which bump-allocate objects in it ([`crate::Heap`]'s slow path, before it charges a
//! page). The block counts a lent run's cells as used. At the next sweep the run is asked about
//! as a whole ([`Lend::is_live`]: is any object in it marked?): if so it stays lent ("pinned",
//! its pages charged), else its cells are free again like any dead cell. What it buys: the free
//! memory of small classes that their own requests do not take back (the footprint report's
//! `holes_small`) serves the larger requests that would charge new pages.

/// What a sweep needs to lend holes: the runs this block lent at the previous sweep (cell index
/// ranges `[a, b)`), which it replaces by the runs lent now, pinned ones first.
pub struct Lend<'a> {
    /// The smallest run lent, in bytes.
    pub min_bytes: usize,
    /// Whether any object in `len` bytes from `start` is live (its mark set).
    pub is_live: fn(*mut u8, usize) -> bool,
    /// In: the runs lent at the previous sweep. Out: the pinned ones, then the new ones.
    pub runs: &'a mut Vec<(u32, u32)>,
    /// Out: where the new runs start in `runs`.
    pub new_from: usize,
}

/// What lending holds at a stop-the-world point ([`crate::Shared::lent`]), for the footprint
/// report: `bytes` = every byte the pool and the heaps' holes have not handed out
/// (`pool` + [`crate::Heap::hole_left`] summed over the heaps) + what they handed out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lent {
    /// Lent runs, pinned and new.
    pub runs: usize,
    /// Bytes of the cells of every lent run.
    pub bytes: usize,
    /// Bytes of the holes lent at the last sweep that no heap has taken yet.
    pub pool: usize,
}
