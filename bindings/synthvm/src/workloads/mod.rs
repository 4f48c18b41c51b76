//! Workloads.  Each is deterministic for a given seed and `--size`, and its total work is
//! independent of the number of threads.

pub mod custom;
pub mod fragger;
pub mod gcbench;
pub mod hog;
pub mod jvm_sizes;
pub mod lusearch;

use mmtk::util::ObjectReference;

use crate::object::{self, Kind};
use crate::runtime::Mu;

/// `--size`
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Size {
    Small,
    Default,
    Large,
}

impl Size {
    pub fn name(self) -> &'static str {
        match self {
            Size::Small => "small",
            Size::Default => "default",
            Size::Large => "large",
        }
    }
    pub fn parse(s: &str) -> Option<Size> {
        match s {
            "small" => Some(Size::Small),
            "default" => Some(Size::Default),
            "large" => Some(Size::Large),
            _ => None,
        }
    }
    /// Pick one of three values.
    pub fn pick<T>(self, small: T, default: T, large: T) -> T {
        match self {
            Size::Small => small,
            Size::Default => default,
            Size::Large => large,
        }
    }
}

/// Everything a workload needs to know about the run.
#[derive(Clone, Debug)]
pub struct Params {
    pub threads: usize,
    pub seed: u64,
    pub size: Size,
}

pub trait Workload: Sync {
    /// Build the long-lived shared data on the main thread (which is a mutator).
    fn boot(&mut self, mu: &Mu) -> Result<(), String>;
    /// Thread `tid`'s share of iteration `iter`.  Runs on its own mutator thread.
    fn run_thread(&self, mu: &Mu, tid: usize, iter: usize) -> Result<(), String>;
    /// Check the shared data after iteration `iter` (main thread, all workers finished).
    fn verify(&self, mu: &Mu, iter: usize) -> Result<(), String>;
}

/// Split `total` work items over `threads` threads: the half-open range for `tid`.
pub fn share(total: u64, threads: usize, tid: usize) -> std::ops::Range<u64> {
    let t = threads as u64;
    let tid = tid as u64;
    let lo = total * tid / t;
    let hi = total * (tid + 1) / t;
    lo..hi
}

/// Allocate a Java-like string: a `String` object (one reference to its char array, 8 bytes
/// of fields) and a char array of `nchars` UTF-16 chars (4-byte length + 2 bytes/char).
/// Returns the String, unrooted.
pub fn new_string(mu: &Mu, nchars: usize, hash: u64) -> ObjectReference {
    let d = mu.depth();
    let chars = mu.alloc(
        Kind::Chars,
        0,
        4 + 2 * nchars,
        hash.rotate_left(17) ^ 0xC4A2,
    );
    mu.push(chars);
    let s = mu.alloc(Kind::Plain, 1, 8, hash);
    mu.write_ref(s, 0, Some(mu.get(d)));
    mu.truncate(d);
    s
}

/// Checksum of a string and its char array, checking both objects.
pub fn string_sum(s: ObjectReference) -> Result<u64, String> {
    object::check_object(s)?;
    let chars =
        object::load_ref(s, 0).ok_or_else(|| format!("string {} lost its char array", s))?;
    object::check_object(chars)?;
    Ok(object::mix(
        object::object_sum(s),
        object::object_sum(chars),
    ))
}

/// Checksum of the whole graph under `root` (depth-first, field order; objects reachable
/// twice are counted twice), checking every object.  For tree-shaped data.
pub fn tree_sum(root: ObjectReference) -> Result<(u64, u64), String> {
    let mut stack = vec![root];
    let mut acc = 0u64;
    let mut n = 0u64;
    while let Some(o) = stack.pop() {
        object::check_object(o)?;
        acc = object::mix(acc, object::object_sum(o));
        n += 1;
        for i in (0..object::nrefs_of(o)).rev() {
            if let Some(c) = object::load_ref(o, i) {
                stack.push(c);
            }
        }
    }
    Ok((acc, n))
}
