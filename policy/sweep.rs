//! The oracle the core's sweep asks about every cell: is the object in it marked? It maps the
//! cell to the object reference exactly as `native_ms`'s block sweep does and clears the VO bits
//! of a dead cell. Marks are cleared either in bulk before the next trace (eager sweeping with a
//! side mark bit: `ShardSweepSpace::prepare` zeroes the chunks' mark bits, as `native_ms` does)
//! or by the sweep, bit by bit, when they must outlive the GC (lazy sweeping) or live in the
//! object header. A side mark bit is read directly (its byte and shift), not through the generic
//! metadata accessor, which cost a call per cell.

use crate::util::constants::{LOG_MIN_OBJECT_SIZE, MIN_OBJECT_SIZE};
use crate::util::metadata::side_metadata::{address_to_meta_address, SideMetadataSpec};
use crate::util::metadata::MetadataSpec;
use crate::util::{Address, ObjectReference};
use crate::vm::{ObjectModel, VMBinding};
use std::sync::atomic::{AtomicU8, Ordering};

/// Whether cell address == object reference for cells of `cell_size` bytes (`native_ms`'s
/// condition for its simple sweep).
#[inline(always)]
fn cell_is_object<VM: VMBinding>(cell_size: usize) -> bool {
    !VM::USE_ALLOCATION_OFFSET
        && VM::MAX_ALIGNMENT == VM::MIN_ALIGNMENT
        && cell_size % VM::MAX_ALIGNMENT == 0
        && VM::VMObjectModel::UNIFIED_OBJECT_REFERENCE_ADDRESS
}

/// Whether `object` is marked; if `TAKE`, also clears its mark.
#[inline(always)]
fn take_mark<VM: VMBinding, const TAKE: bool>(object: ObjectReference) -> bool {
    // Orderings (Relaxed throughout): the release phase starts after the trace has finished
    // (the scheduler's bucket barrier orders every mark before these loads); a lazy sweep runs
    // on the owner after the GC (the end of the stop orders it); a cleared bit is next read in
    // the next GC, after its stop.
    if let MetadataSpec::OnSide(side) = *VM::VMObjectModel::LOCAL_MARK_BIT_SPEC.as_spec() {
        if side.log_num_of_bits == 0 {
            let addr = object.to_raw_address();
            let meta = address_to_meta_address(&side, addr);
            // The bit's place in its byte, as mmtk's `meta_byte_lshift` computes it for 1-bit
            // metadata.
            let bit = 1u8 << ((addr.as_usize() >> side.log_bytes_in_region) & 7);
            // SAFETY: the side metadata of every block of the space is mapped when the block is
            // acquired (`try_map_metadata_space`) and stays mapped; a byte is a valid AtomicU8.
            let byte = unsafe { meta.as_ref::<AtomicU8>() };
            let marked = byte.load(Ordering::Relaxed) & bit != 0;
            if TAKE && marked {
                // Other bits of the byte belong to other cells of the same block (cells are at
                // least 8 bytes, a byte covers 64), swept by this thread: an atomic AND anyway.
                byte.fetch_and(!bit, Ordering::Relaxed);
            }
            return marked;
        }
    }
    if VM::VMObjectModel::LOCAL_MARK_BIT_SPEC.is_marked::<VM>(object, Ordering::Relaxed) {
        if TAKE {
            VM::VMObjectModel::LOCAL_MARK_BIT_SPEC.store_atomic::<VM, u8>(object, 0, None, Ordering::Relaxed);
        }
        true
    } else {
        false
    }
}

/// The mark bit's spec if it is a 1-bit side spec with one bit per `MIN_OBJECT_SIZE` bytes
/// (the brute-force sweep's granule).
#[inline(always)]
fn side_mark_per_min_object<VM: VMBinding>() -> Option<SideMetadataSpec> {
    match *VM::VMObjectModel::LOCAL_MARK_BIT_SPEC.as_spec() {
        MetadataSpec::OnSide(side) if side.log_num_of_bits == 0 && side.log_bytes_in_region == LOG_MIN_OBJECT_SIZE as usize => {
            Some(side)
        }
        _ => None,
    }
}

/// Whether any of the `n` mark bits of granules `g0..g0 + n` (granule = `MIN_OBJECT_SIZE`
/// bytes) is set; if `TAKE`, clears the set ones. Reads a metadata byte (8 granules) at a time.
#[inline(always)]
fn take_side_marks<const TAKE: bool>(side: &SideMetadataSpec, g0: usize, n: usize) -> bool {
    let (mut g, end) = (g0, g0 + n);
    let mut found = false;
    while g < end {
        let lo = g & 7;
        let hi = usize::min(8, lo + (end - g));
        let mask = ((1u16 << hi) - (1u16 << lo)) as u8;
        // SAFETY: `g` is a granule of a cell (or just around it) of a live block of the space,
        // whose side metadata is mapped (as in `take_mark`); a byte is a valid AtomicU8.
        // Orderings as in `take_mark`.
        let byte = unsafe {
            address_to_meta_address(side, Address::from_usize(g << LOG_MIN_OBJECT_SIZE)).as_ref::<AtomicU8>()
        };
        let bits = byte.load(Ordering::Relaxed) & mask;
        if bits != 0 {
            if !TAKE {
                return true;
            }
            found = true;
            byte.fetch_and(!bits, Ordering::Relaxed);
        }
        g += hi - lo;
    }
    found
}

/// Whether any object in `len` bytes from `start` is marked (a lent run, `shardsweep::Lend`):
/// reads the side mark bits of the range, a metadata byte at a time. Needs a 1-bit side mark per
/// `MIN_OBJECT_SIZE` bytes ([`holes_supported`]).
pub(super) fn range_marked<VM: VMBinding>(start: *mut u8, len: usize) -> bool {
    let side = side_mark_per_min_object::<VM>().expect("SHARDSWEEP_HOLES needs a side mark bit");
    take_side_marks::<false>(&side, start as usize >> LOG_MIN_OBJECT_SIZE, len >> LOG_MIN_OBJECT_SIZE)
}

/// Whether this binding's mark bit lets the space lend holes: one side bit per minimum object.
pub(super) fn holes_supported<VM: VMBinding>() -> bool {
    side_mark_per_min_object::<VM>().is_some()
}

/// Whether the mark bit is on the side (then an eager-sweeping space clears it in bulk).
pub(super) fn mark_bit_on_side<VM: VMBinding>() -> bool {
    matches!(*VM::VMObjectModel::LOCAL_MARK_BIT_SPEC.as_spec(), MetadataSpec::OnSide(_))
}

/// The side mark bitmap as the core's sweep reads it (`shardsweep::MarkBitmap`), when every cell
/// the core sweeps with it has its object at its start and the oracle would do nothing but answer:
/// a 1-bit side mark, `cell_is_object` for every cell size the bitmap serves (whose cells start
/// granules of at least the maximum alignment), no VO bits to clear, no poisoning, and
/// contiguous metadata (64-bit). The caller also needs the marks cleared in bulk.
pub(super) fn mark_bitmap<VM: VMBinding>(poisoning: bool) -> Option<shardsweep::MarkBitmap> {
    let MetadataSpec::OnSide(side) = *VM::VMObjectModel::LOCAL_MARK_BIT_SPEC.as_spec() else {
        return None;
    };
    let granule = 1usize << side.log_bytes_in_region;
    let simple = !VM::USE_ALLOCATION_OFFSET
        && VM::MAX_ALIGNMENT == VM::MIN_ALIGNMENT
        && granule % VM::MAX_ALIGNMENT == 0
        && VM::VMObjectModel::UNIFIED_OBJECT_REFERENCE_ADDRESS;
    let usable = side.log_num_of_bits == 0
        && simple
        && !poisoning
        && !cfg!(feature = "vo_bit")
        && cfg!(target_pointer_width = "64");
    usable.then_some(shardsweep::MarkBitmap { log_granule: side.log_bytes_in_region as u32, byte_of: mark_byte::<VM> })
}

/// The side metadata byte holding the mark of the granule at `addr` (`mark_bitmap`'s `byte_of`).
fn mark_byte<VM: VMBinding>(addr: usize) -> *const u8 {
    match *VM::VMObjectModel::LOCAL_MARK_BIT_SPEC.as_spec() {
        // SAFETY: `addr` is a granule of a block of the space (the core asks for its blocks only).
        MetadataSpec::OnSide(side) => address_to_meta_address(&side, unsafe { Address::from_usize(addr) }).to_ptr(),
        MetadataSpec::InHeader(_) => unreachable!("mark_bitmap offers a side mark only"),
    }
}

/// The sweeps' oracle: is the cell at `cell` live? Clears the VO bits of a dead cell, and the
/// mark of a live one unless `marks_cleared_in_bulk`.
pub(super) fn sweep_oracle<VM: VMBinding>(marks_cleared_in_bulk: bool) -> fn(*mut u8) -> bool {
    if marks_cleared_in_bulk {
        probe::<VM, false, true>
    } else {
        probe::<VM, true, true>
    }
}

/// `SHARDSWEEP_ZERO=poison`: the sweep fills each dead cell with [`POISON_BYTE`] (set once, when
/// the space creates its core instance, before any sweep).
static POISON: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The byte `SHARDSWEEP_ZERO=poison` fills freed cells with: a reference field read from such a
/// cell is 0xDBDB…, in no space.
pub(super) const POISON_BYTE: u8 = 0xDB;

/// Turns on the poisoning of freed cells (`SHARDSWEEP_ZERO=poison`).
pub(super) fn poison_freed_cells() {
    // Relaxed: set before the first GC, whose start orders it before every sweep.
    POISON.store(true, Ordering::Relaxed);
}

/// Fills the dead cell at `cell` with [`POISON_BYTE`] on the block's resident pages only: a page
/// the block does not hold resident (never touched, or dropped) must stay so, or the space would
/// hold memory it does not count (`SHARDSWEEP_CHECK_ACCOUNTING` compares with the kernel's count).
fn poison(cell: *mut u8, cell_size: usize) {
    use shardsweep::PAGE_BYTES;
    // SAFETY: the cell lies in a live block, whose header is readable.
    let block = unsafe { &*shardsweep::Block::of(cell) };
    let (base, resident) = (block.start() as usize, block.resident());
    let (mut off, end) = (cell as usize, cell as usize + cell_size);
    while off < end {
        let page = (off - base) / PAGE_BYTES;
        let stop = end.min(base + (page + 1) * PAGE_BYTES);
        if resident.contains(page) {
            // SAFETY: part of a dead cell of a live block, on a resident page of it, which the
            // core is about to list as free: nothing else reads or writes it (the core writes
            // its link word after this).
            unsafe { std::ptr::write_bytes(off as *mut u8, POISON_BYTE, stop - off) };
        }
        off = stop;
    }
}

/// Is the cell at `cell` live? Changes nothing (the lazy GC's accounting pass, whose answers the
/// owner's later sweep must repeat; the checks).
pub(super) fn is_marked<VM: VMBinding>(cell: *mut u8) -> bool {
    probe::<VM, false, false>(cell)
}

/// The oracle; `TAKE`: clear the mark of a live cell; `SWEEP`: clear the VO bits of a dead one.
#[inline(always)]
fn probe<VM: VMBinding, const TAKE: bool, const SWEEP: bool>(cell: *mut u8) -> bool {
    // SAFETY: the core only asks about cells of live blocks, whose header is readable.
    let cell_size = unsafe { (*shardsweep::Block::of(cell)).cell_size() };
    let start = Address::from_mut_ptr(cell);
    let live = if cell_is_object::<VM>(cell_size) {
        // SAFETY: a cell address is non-zero.
        take_mark::<VM, TAKE>(unsafe { ObjectReference::from_raw_address_unchecked(start) })
    } else if let Some(side) = side_mark_per_min_object::<VM>() {
        // The object may start anywhere in the cell: its mark is one of the cell's
        // `cell_size / MIN_OBJECT_SIZE` consecutive bits from the first possible reference's
        // (what the brute-force loop below probes one by one), read a byte at a time.
        let first = (start.as_usize() as isize + VM::VMObjectModel::OBJECT_REF_OFFSET_LOWER_BOUND) as usize;
        take_side_marks::<TAKE>(&side, first >> LOG_MIN_OBJECT_SIZE, cell_size >> LOG_MIN_OBJECT_SIZE)
    } else {
        // The object may start anywhere in the cell: look for a mark at every possible
        // reference (native_ms's brute-force sweep).
        let end = start + cell_size;
        let mut cursor = start;
        let mut found = false;
        while cursor < end {
            let r = (cursor.as_usize() as isize + VM::VMObjectModel::OBJECT_REF_OFFSET_LOWER_BOUND) as usize;
            // SAFETY: `r` is inside or just around a mapped cell, never zero.
            let object = unsafe { ObjectReference::from_raw_address_unchecked(Address::from_usize(r)) };
            if take_mark::<VM, TAKE>(object) {
                found = true;
                break;
            }
            cursor += MIN_OBJECT_SIZE;
        }
        found
    };
    #[cfg(feature = "vo_bit")]
    if SWEEP && !live {
        crate::util::metadata::vo_bit::bzero_vo_bit(start, cell_size);
    }
    // Relaxed: see `poison_freed_cells`.
    if SWEEP && !live && POISON.load(Ordering::Relaxed) {
        poison(cell, cell_size);
    }
    live
}

/// The bytes of the live object in the cell at `cell`, or `None` if the cell holds no marked
/// object (the footprint report, after marking and before the sweep; changes nothing).
pub(super) fn live_object_bytes<VM: VMBinding>(cell: *mut u8) -> Option<usize> {
    // SAFETY: the caller asks about cells of live blocks, whose header is readable.
    let cell_size = unsafe { (*shardsweep::Block::of(cell)).cell_size() };
    let start = Address::from_mut_ptr(cell);
    let object = if cell_is_object::<VM>(cell_size) {
        // SAFETY: a cell address is non-zero.
        let object = unsafe { ObjectReference::from_raw_address_unchecked(start) };
        take_mark::<VM, false>(object).then_some(object)?
    } else {
        // The object may start anywhere in the cell: the reference with a mark (as `probe`).
        let mut cursor = start;
        loop {
            if cursor >= start + cell_size {
                return None;
            }
            let r = (cursor.as_usize() as isize + VM::VMObjectModel::OBJECT_REF_OFFSET_LOWER_BOUND) as usize;
            // SAFETY: `r` is inside or just around a mapped cell, never zero.
            let object = unsafe { ObjectReference::from_raw_address_unchecked(Address::from_usize(r)) };
            if take_mark::<VM, false>(object) {
                break object;
            }
            cursor += MIN_OBJECT_SIZE;
        }
    };
    Some(VM::VMObjectModel::get_current_size(object))
}
