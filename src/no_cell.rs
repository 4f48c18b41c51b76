//! Why the core has no cell for a request: the answer every failing step of the allocation slow
//! path returns ([`crate::Heap::try_alloc`]), so that an embedder acts on it in one place (the
//! MMTk space: wait for the collection it asked for, or force one and then report out of
//! memory; the malloc front end: return null). Nothing travels beside the call stack.

/// Why an allocation got no cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoCell {
    /// The page budget refused a page ([`crate::PageBudget::try_charge`] returned `false`): for a
    /// garbage-collected embedder the budget has requested a collection, after which the same
    /// request may succeed.
    Refused,
    /// The block source has no block ([`crate::BlockSource::acquire_block`] returned `None`):
    /// out of memory or of address space.
    NoMemory,
}

/// The pages one allocation slow path charged, counted as it charges them (a value on its
/// stack): a slow path that charged pages and then handed out a cell is an allocation that
/// needed new memory and succeeded ([`crate::PageBudget::allocated_after_charge`]); one that
/// charged a header page and was then refused its cells' pages is not.
pub struct Charging<'a> {
    budget: &'a dyn crate::PageBudget,
    pages: usize,
}

impl<'a> Charging<'a> {
    /// Nothing charged yet.
    pub fn new(budget: &'a dyn crate::PageBudget) -> Charging<'a> {
        Charging { budget, pages: 0 }
    }
    /// Charges `pages` (none: `Ok`), or [`NoCell::Refused`] if the budget vetoes.
    #[inline]
    pub fn charge(&mut self, pages: usize) -> Result<(), NoCell> {
        if pages == 0 {
            return Ok(());
        }
        if !self.budget.try_charge(pages) {
            return Err(NoCell::Refused);
        }
        self.pages += pages;
        Ok(())
    }
    /// [`Charging::charge`] for `pages` of which `fresh` are not resident yet: the budget is
    /// told of the fresh pages first ([`crate::PageBudget::note_resident`]), so that a trigger
    /// polled by the charge sees them, and told again if it refuses.
    #[inline]
    pub fn charge_fresh(&mut self, pages: usize, fresh: usize) -> Result<(), NoCell> {
        if fresh > 0 {
            self.budget.note_resident(fresh as isize);
        }
        let r = self.charge(pages);
        if r.is_err() && fresh > 0 {
            self.budget.note_resident(-(fresh as isize));
        }
        r
    }
    /// The pages charged so far.
    pub fn pages(&self) -> usize {
        self.pages
    }
    /// The budget charged.
    pub fn budget(&self) -> &'a dyn crate::PageBudget {
        self.budget
    }
}
