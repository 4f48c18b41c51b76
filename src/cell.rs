//! A free cell: while on a free list, its first word links to the next free cell.

/// A free cell of a block. Only the first word is ours; the rest of the cell is the user's.
#[repr(C)]
pub struct Cell {
    /// Next free cell of the same list, or null.
    pub next: *mut Cell,
}
