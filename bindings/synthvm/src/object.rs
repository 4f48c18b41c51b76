//! The synthvm object layout.
//!
//! Every object starts at its `ObjectReference` (reference == object start == header) and is
//! 8-byte aligned.  Layout, in 64-bit words:
//!
//! ```text
//! word 0   hash word: a 64-bit identity hash chosen by the mutator at allocation time.
//!          Copying collectors may overwrite it with a forwarding pointer in the *from-space*
//!          copy only (LOCAL_FORWARDING_POINTER_SPEC is in the header at bit 0), exactly as a
//!          JVM overwrites its mark word.  The live copy always keeps the hash.
//! word 1   meta word:  bits  0..24  total object size in 8-byte words (>= 2)
//!                      bits 24..47  number of reference fields
//!                      bits 47..58  owner: the mutator that allocated the object, 0 = the main
//!                                   thread (boot), tid + 1 for mutator thread tid (1..=1024)
//!                      bits 58..64  tag = MAGIC | kind (MAGIC = 0b1010 in the top 4 bits)
//! words 2 .. 2+nrefs          reference fields (raw addresses, 0 = null)
//! remaining words             payload, filled with a pattern derived from the hash
//! ```
//!
//! The owner costs nothing on the allocation path: it is OR-ed into the meta word that is
//! written anyway (the `Mu` keeps it pre-shifted).  Checksums (`object_sum`) leave it out, so
//! they do not depend on which thread allocated an object.
//!
//! The payload pattern makes every object self-checking: `check_object` recomputes it, so
//! a stale, torn or overwritten object is detected without any side table.

use mmtk::util::{Address, ObjectReference};

/// Header size in bytes (hash word + meta word).
pub const HEADER_BYTES: usize = 16;
/// The tag (top 6 bits of the meta word) is `MAGIC | kind`: magic in its top 4 bits.
pub const MAGIC: u64 = 0b10_1000;
const SIZE_SHIFT: u32 = 0;
const SIZE_MASK: u64 = (1 << 24) - 1;
const NREFS_SHIFT: u32 = 24;
const NREFS_MASK: u64 = (1 << 23) - 1;
/// Position of the owner field in the meta word.
pub const OWNER_SHIFT: u32 = 47;
/// Owner field width (11 bits): 0 = main thread, tid + 1 for mutator `tid` (tid <= 1023).
pub const OWNER_MASK: u64 = (1 << 11) - 1;
const TAG_SHIFT: u32 = 58;
/// Largest object synthvm will ever allocate (sanity bound for checks; fits the 24-bit word count).
pub const MAX_OBJECT_BYTES: usize = 64 << 20;
const _: () = assert!((MAX_OBJECT_BYTES as u64 >> 3) <= SIZE_MASK);

/// What an object models (purely informational, kept in the tag byte).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// A plain Java-like object: some reference fields plus some primitive fields.
    Plain = 0,
    /// A reference array (all fields are references, payload empty).
    RefArray = 1,
    /// A byte array / primitive array (no references).
    Bytes = 2,
    /// A char array (the backing store of a string).
    Chars = 3,
}

impl Kind {
    fn from_bits(b: u64) -> Option<Kind> {
        match b {
            0 => Some(Kind::Plain),
            1 => Some(Kind::RefArray),
            2 => Some(Kind::Bytes),
            3 => Some(Kind::Chars),
            _ => None,
        }
    }
}

/// Total object size in bytes for `nrefs` reference fields and `payload` payload bytes.
#[inline(always)]
pub const fn object_size(nrefs: usize, payload: usize) -> usize {
    (HEADER_BYTES + nrefs * 8 + payload + 7) & !7
}

/// The payload word at index `i` for an object with hash `h`.
#[inline(always)]
pub fn pattern(h: u64, i: usize) -> u64 {
    h ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

#[inline(always)]
pub fn meta_word(size: usize, nrefs: usize, kind: Kind) -> u64 {
    ((size as u64 >> 3) << SIZE_SHIFT)
        | ((nrefs as u64) << NREFS_SHIFT)
        | ((MAGIC | kind as u64) << TAG_SHIFT)
}

/// The owner field for thread `id` (`usize::MAX` = the main thread), pre-shifted: OR it into a
/// meta word.
#[inline(always)]
pub const fn owner_bits(id: usize) -> u64 {
    ((id.wrapping_add(1) as u64) & OWNER_MASK) << OWNER_SHIFT
}

/// `SYNTHVM_TEST_SKIP_CLEAR=1`: a test hook that makes synthvm a binding that does not
/// initialise its objects' reference fields, relying on the space to hand out zeroed memory
/// (as a binding may when the space zeroes: `SHARDSWEEP_ZERO=space`, the default). With
/// `SHARDSWEEP_ZERO=poison` such a binding reads garbage, which `--verify` reports.
pub fn skips_clearing() -> bool {
    static SKIP: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SKIP.get_or_init(|| std::env::var("SYNTHVM_TEST_SKIP_CLEAR").is_ok_and(|v| v.trim() == "1"))
}

/// Initialise a freshly allocated cell.  References are nulled, payload filled; `owner` is
/// [`owner_bits`] of the allocating thread.
///
/// # Safety
/// `addr` must point to at least `size` writable bytes, 8-byte aligned, with `size` a multiple
/// of 8 of at least `HEADER_BYTES + 8 * nrefs` (as [`object_size`] computes it).
#[inline(always)]
pub unsafe fn init_object(
    addr: Address,
    size: usize,
    nrefs: usize,
    kind: Kind,
    hash: u64,
    owner: u64,
) {
    let p = addr.to_mut_ptr::<u64>();
    *p = hash;
    *p.add(1) = meta_word(size, nrefs, kind) | owner;
    let words = size / 8;
    let mut i = 2;
    if skips_clearing() {
        // A binding that relies on the space's zeroing leaves its reference fields as they are.
        i += nrefs;
    }
    while i < 2 + nrefs {
        *p.add(i) = 0;
        i += 1;
    }
    let mut j = 0;
    while i < words {
        *p.add(i) = pattern(hash, j);
        i += 1;
        j += 1;
    }
}

#[inline(always)]
fn word(o: ObjectReference, i: usize) -> u64 {
    // SAFETY: `o` is a synthvm object (every reference synthvm handles is to an object it
    // allocated and initialised, kept reachable by a root while in use), 8-byte aligned, and
    // callers index within it: the two header words, then its fields and payload words.
    unsafe { *o.to_raw_address().to_ptr::<u64>().add(i) }
}

#[inline(always)]
pub fn hash_of(o: ObjectReference) -> u64 {
    word(o, 0)
}

#[inline(always)]
pub fn size_of(o: ObjectReference) -> usize {
    (((word(o, 1) >> SIZE_SHIFT) & SIZE_MASK) << 3) as usize
}

#[inline(always)]
pub fn nrefs_of(o: ObjectReference) -> usize {
    ((word(o, 1) >> NREFS_SHIFT) & NREFS_MASK) as usize
}

/// The allocating thread: `None` for the main thread, `Some(tid)` for mutator thread `tid`.
#[inline(always)]
pub fn owner_of(o: ObjectReference) -> Option<usize> {
    let v = (word(o, 1) >> OWNER_SHIFT) & OWNER_MASK;
    v.checked_sub(1).map(|t| t as usize)
}

#[inline(always)]
pub fn tag_of(o: ObjectReference) -> u64 {
    word(o, 1) >> TAG_SHIFT
}

pub fn kind_of(o: ObjectReference) -> Option<Kind> {
    Kind::from_bits(tag_of(o) & 0x3)
}

/// Address of reference field `i`.
#[inline(always)]
pub fn ref_slot(o: ObjectReference, i: usize) -> Address {
    o.to_raw_address() + HEADER_BYTES + i * 8
}

/// Load reference field `i` (no read barrier is needed by any MMTk 0.33 plan).
#[inline(always)]
pub fn load_ref(o: ObjectReference, i: usize) -> Option<ObjectReference> {
    // SAFETY: `o` is a synthvm object and `i` one of its reference fields (callers index below
    // `nrefs_of(o)`): an aligned, initialised word inside the object.
    let a = unsafe { ref_slot(o, i).load::<Address>() };
    ObjectReference::from_raw_address(a)
}

/// Read payload word `i` (bounds are the caller's business; used by workloads to "read data").
#[inline(always)]
pub fn payload_word(o: ObjectReference, i: usize) -> u64 {
    word(o, 2 + nrefs_of(o) + i)
}

/// Number of payload words.
#[inline(always)]
pub fn payload_words(o: ObjectReference) -> usize {
    size_of(o) / 8 - 2 - nrefs_of(o)
}

/// Check the header is well formed (cheap).
pub fn check_header(o: ObjectReference) -> Result<(), String> {
    let a = o.to_raw_address();
    if a.as_usize() & 7 != 0 {
        return Err(format!("object {} is not 8-byte aligned", a));
    }
    let tag = tag_of(o);
    if tag & 0b11_1100 != MAGIC || Kind::from_bits(tag & 0x3).is_none() {
        return Err(format!(
            "object {} has a bad header tag {:#x} (meta word {:#018x}, hash word {:#018x})",
            a,
            tag,
            word(o, 1),
            word(o, 0)
        ));
    }
    let size = size_of(o);
    let nrefs = nrefs_of(o);
    if size < HEADER_BYTES
        || size % 8 != 0
        || size > MAX_OBJECT_BYTES
        || HEADER_BYTES + nrefs * 8 > size
    {
        return Err(format!(
            "object {} has an inconsistent header: size {} bytes, {} reference fields",
            a, size, nrefs
        ));
    }
    Ok(())
}

/// Full check: header plus payload pattern.
pub fn check_object(o: ObjectReference) -> Result<(), String> {
    check_header(o)?;
    let h = hash_of(o);
    let n = payload_words(o);
    for i in 0..n {
        let w = payload_word(o, i);
        if w != pattern(h, i) {
            return Err(format!(
                "object {} (size {}, {} refs, hash {:#x}) has corrupt payload word {}: {:#018x}, expected {:#018x}",
                o.to_raw_address(),
                size_of(o),
                nrefs_of(o),
                h,
                i,
                w,
                pattern(h, i)
            ));
        }
    }
    Ok(())
}

/// A 64-bit mixing step for graph checksums (order sensitive).
#[inline(always)]
pub fn mix(acc: u64, v: u64) -> u64 {
    let x = (acc ^ v).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    x ^ (x >> 31)
}

/// Identity checksum of one object: hash, size and shape (not its address, nor its owner).
#[inline(always)]
pub fn object_sum(o: ObjectReference) -> u64 {
    mix(hash_of(o), word(o, 1) & !(OWNER_MASK << OWNER_SHIFT))
}
