//! `gcbench`: Boehm's GCBench (Ellis, Kovac, Boehm), multi-threaded.
//!
//! Boot (main thread): a temporary "stretch" tree, then a long-lived tree and a long-lived
//! array of doubles, reached from global roots.  Iteration: for each depth from MIN_DEPTH to
//! the maximum in steps of two, GCBench's `NumIters(depth)` trees are built top-down
//! (Populate: parents first, so old objects get stores to young ones, exercising barriers)
//! and bottom-up (MakeTree); those iterations are split over the threads, so total work does
//! not depend on the thread count.  Each tree is checked (node count and checksum) before it
//! is dropped.  Nodes are two references plus an 8-byte payload (32 bytes here).

use mmtk::util::ObjectReference;

use super::{share, tree_sum, Params, Size, Workload};
use crate::object::{self, Kind};
use crate::rng::Rng;
use crate::runtime::{alloc_global_root, GlobalRoot, Mu};

const MIN_DEPTH: u32 = 4;

pub struct GcBench {
    p: Params,
    stretch: u32,
    long_lived: u32,
    max_depth: u32,
    array_len: usize,
    tree_root: GlobalRoot,
    array_root: GlobalRoot,
    tree_sum: u64,
    array_sum: u64,
}

fn tree_size(depth: u32) -> u64 {
    (1u64 << (depth + 1)) - 1
}

impl GcBench {
    pub fn new(p: Params) -> GcBench {
        let (stretch, long_lived, max_depth, array_len) = match p.size {
            Size::Small => (16, 14, 14, 125_000),
            Size::Default => (18, 16, 16, 500_000),
            Size::Large => (20, 18, 18, 2_000_000),
        };
        GcBench {
            p,
            stretch,
            long_lived,
            max_depth,
            array_len,
            tree_root: alloc_global_root(),
            array_root: alloc_global_root(),
            tree_sum: 0,
            array_sum: 0,
        }
    }

    fn num_iters(&self, depth: u32) -> u64 {
        2 * tree_size(self.stretch) / tree_size(depth)
    }
}

fn node_hash(r: &mut Rng) -> u64 {
    r.next_u64()
}

/// Bottom-up: children first.  Returns the root, unrooted.
fn make_tree(mu: &Mu, depth: u32, r: &mut Rng) -> ObjectReference {
    if depth == 0 {
        return mu.alloc(Kind::Plain, 2, 8, node_hash(r));
    }
    let d = mu.depth();
    let l = make_tree(mu, depth - 1, r);
    mu.push(l);
    let rt = make_tree(mu, depth - 1, r);
    mu.push(rt);
    let n = mu.alloc(Kind::Plain, 2, 8, node_hash(r));
    mu.write_ref(n, 0, Some(mu.get(d)));
    mu.write_ref(n, 1, Some(mu.get(d + 1)));
    mu.truncate(d);
    n
}

/// Top-down: the node (rooted at `slot`) exists, allocate and attach its children.
fn populate(mu: &Mu, depth: u32, slot: usize, r: &mut Rng) {
    if depth == 0 {
        return;
    }
    let l = mu.alloc(Kind::Plain, 2, 8, node_hash(r));
    mu.write_ref(mu.get(slot), 0, Some(l));
    let rt = mu.alloc(Kind::Plain, 2, 8, node_hash(r));
    mu.write_ref(mu.get(slot), 1, Some(rt));
    let n = mu.get(slot);
    let ls = mu.push(object::load_ref(n, 0).unwrap());
    populate(mu, depth - 1, ls, r);
    let n = mu.get(slot);
    mu.set(ls, Some(object::load_ref(n, 1).unwrap()));
    populate(mu, depth - 1, ls, r);
    mu.truncate(ls);
}

fn check_tree(o: ObjectReference, depth: u32, what: &str) -> Result<u64, String> {
    let (sum, n) = tree_sum(o).map_err(|e| format!("{}: {}", what, e))?;
    if n != tree_size(depth) {
        return Err(format!(
            "{}: {} nodes, expected {}",
            what,
            n,
            tree_size(depth)
        ));
    }
    Ok(sum)
}

impl Workload for GcBench {
    fn boot(&mut self, mu: &Mu) -> Result<(), String> {
        let mut r = Rng::derive(self.p.seed, 0x6CB, 0);
        // Stretch the heap with a temporary tree.
        let t = make_tree(mu, self.stretch, &mut r);
        check_tree(t, self.stretch, "stretch tree")?;
        // Long-lived tree, built top-down as in GCBench.
        let root = mu.alloc(Kind::Plain, 2, 8, node_hash(&mut r));
        let slot = mu.push(root);
        populate(mu, self.long_lived, slot, &mut r);
        self.tree_root.set(Some(mu.get(slot)));
        mu.truncate(slot);
        self.tree_sum = check_tree(
            self.tree_root.get().unwrap(),
            self.long_lived,
            "long-lived tree",
        )?;
        // Long-lived array of doubles.
        let a = mu.alloc(Kind::Bytes, 0, 8 * self.array_len, r.next_u64());
        self.array_root.set(Some(a));
        object::check_object(a)?;
        self.array_sum = object::object_sum(a);
        Ok(())
    }

    fn run_thread(&self, mu: &Mu, tid: usize, iter: usize) -> Result<(), String> {
        let mut depth = MIN_DEPTH;
        while depth <= self.max_depth {
            for i in share(self.num_iters(depth), self.p.threads, tid) {
                let mut r = Rng::derive(self.p.seed, ((iter as u64) << 8) | depth as u64, i);
                // Top-down.
                let n = mu.alloc(Kind::Plain, 2, 8, node_hash(&mut r));
                let slot = mu.push(n);
                populate(mu, depth, slot, &mut r);
                check_tree(mu.get(slot), depth, "top-down tree")
                    .map_err(|e| format!("thread {} depth {} #{}: {}", tid, depth, i, e))?;
                mu.truncate(slot);
                // Bottom-up.
                let t = make_tree(mu, depth, &mut r);
                check_tree(t, depth, "bottom-up tree")
                    .map_err(|e| format!("thread {} depth {} #{}: {}", tid, depth, i, e))?;
            }
            depth += 2;
        }
        Ok(())
    }

    fn verify(&self, _mu: &Mu, iter: usize) -> Result<(), String> {
        let t = self.tree_root.get().ok_or("long-lived tree root lost")?;
        if check_tree(t, self.long_lived, "long-lived tree")? != self.tree_sum {
            return Err(format!(
                "long-lived tree checksum changed after iteration {}",
                iter
            ));
        }
        let a = self.array_root.get().ok_or("long-lived array root lost")?;
        object::check_object(a)?;
        if object::object_sum(a) != self.array_sum {
            return Err(format!("long-lived array changed after iteration {}", iter));
        }
        Ok(())
    }
}
