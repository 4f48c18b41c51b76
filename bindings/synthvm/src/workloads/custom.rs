//! `custom`: a workload described by a small key = value file (see README.md and
//! `workloads/example.wl`).
//!
//! Model: each thread allocates its share of `work` objects.  Each object's size is drawn from
//! `sizes`, its lifetime (measured in the thread's own allocations) from `lifetimes`.  An
//! object with lifetime 0 dies at once; an object of lifetime class L (weight share f) is put
//! in a ring of about L*f slots, so it is overwritten, on average, L allocations later.
//! With `large_from = B`, objects of B bytes and more take their lifetime from
//! `large_lifetimes` instead (a JVM program's buffers and arrays live differently from its
//! small objects); each ring is then sized by its group's share of the allocations.
//! `refs_percent` of the objects get 1-4 reference fields pointing at other live objects.
//! `shared_kib` of long-lived data drawn from the same size distribution is built at boot
//! and reachable from a global root.  With `thread_keep = K`, each thread first allocates K
//! objects of every size in `thread_keep_sizes` (default `sizes`; size by size, K in a row) and keeps them, reachable from a
//! per-thread global root, until the end of the run (replaced by its next iteration's): a
//! thread's long-lived state, laid out like data allocated at a thread's start.
//! `boot_garbage_kib` of objects drawn from `boot_garbage_sizes` (default: `sizes`) are
//! allocated at boot, before the shared data, and dropped at once: what a program leaves dead
//! after its start-up (a JVM's class loading, an index read in through large buffers), which
//! the first GC frees; with `boot_keep_every = N` every N-th of them is kept instead, for the
//! whole run: long-lived data scattered among start-up garbage (a JVM's index, read in among
//! the garbage of parsing it), so that after the first GC its cells pin sparsely used pages.
//! `thread_open_kib` does the same per thread at the start of each iteration (objects from
//! `thread_open_sizes`, default `sizes`; every `thread_open_keep_every`-th kept until the
//! thread's next iteration): a thread opening its reader and searcher, a few long-lived objects
//! among the garbage of building them.  Everything is checked against Rust-side expected hashes.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{share, Params, Size, Workload};
use crate::object::{self, Kind};
use crate::rng::{Rng, Weighted};
use crate::runtime::{alloc_global_root, GlobalRoot, Mu};

#[derive(Clone, Debug)]
pub struct Spec {
    pub name: String,
    pub sizes: Vec<(u64, usize)>,
    pub lifetimes: Vec<(u64, u64)>,
    pub refs_percent: u64,
    pub work: u64,
    pub shared_kib: u64,
    pub thread_keep: u64,
    /// (weight, size) as `sizes`: the sizes `thread_keep` keeps (weights unused).
    pub thread_keep_sizes: Vec<(u64, usize)>,
    pub threads: Option<usize>,
    pub boot_garbage_kib: u64,
    /// (weight, size) as `sizes`.
    pub boot_garbage_sizes: Vec<(u64, usize)>,
    /// Objects of this many bytes and more draw their lifetime from `large_lifetimes` (0: off).
    pub large_from: u64,
    /// (weight, lifetime) as `lifetimes`.
    pub large_lifetimes: Vec<(u64, u64)>,
    /// Keep every N-th boot garbage object for the whole run (0: keep none).
    pub boot_keep_every: u64,
    pub thread_open_kib: u64,
    /// (weight, size) as `sizes`.
    pub thread_open_sizes: Vec<(u64, usize)>,
    /// Keep every N-th object of a thread's opening allocation for its iteration (0: none).
    pub thread_open_keep_every: u64,
}

fn parse_pairs(key: &str, v: &str) -> Result<Vec<(u64, u64)>, String> {
    let mut out = Vec::new();
    for item in v
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
    {
        let (a, b) = item
            .split_once(':')
            .ok_or_else(|| format!("{}: expected value:weight, got '{}'", key, item))?;
        let a: u64 = a
            .trim()
            .parse()
            .map_err(|_| format!("{}: bad number '{}'", key, a))?;
        let b: u64 = b
            .trim()
            .parse()
            .map_err(|_| format!("{}: bad weight '{}'", key, b))?;
        out.push((a, b));
    }
    if out.is_empty() || out.iter().all(|p| p.1 == 0) {
        return Err(format!("{}: empty distribution", key));
    }
    Ok(out)
}

impl Spec {
    pub fn parse(text: &str) -> Result<Spec, String> {
        let mut kv = BTreeMap::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap().trim();
            if line.is_empty() {
                continue;
            }
            let (k, v) = line
                .split_once('=')
                .ok_or_else(|| format!("line {}: expected key = value", n + 1))?;
            let k = k.trim().to_string();
            let v = v.trim().trim_matches('"').to_string();
            if kv.insert(k.clone(), v).is_some() {
                return Err(format!("line {}: duplicate key '{}'", n + 1, k));
            }
        }
        let known = [
            "name",
            "sizes",
            "lifetimes",
            "refs_percent",
            "work",
            "shared_kib",
            "thread_keep",
            "thread_keep_sizes",
            "threads",
            "boot_garbage_kib",
            "boot_garbage_sizes",
            "boot_keep_every",
            "large_from",
            "large_lifetimes",
            "thread_open_kib",
            "thread_open_sizes",
            "thread_open_keep_every",
        ];
        if let Some(k) = kv.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(format!("unknown key '{}' (known: {})", k, known.join(", ")));
        }
        let num = |k: &str, d: u64| -> Result<u64, String> {
            match kv.get(k) {
                None => Ok(d),
                Some(v) => v
                    .replace('_', "")
                    .parse()
                    .map_err(|_| format!("{}: bad number '{}'", k, v)),
            }
        };
        let size_list = |key: &str, v: &str| -> Result<Vec<(u64, usize)>, String> {
            parse_pairs(key, v)?
                .into_iter()
                .map(|(s, w)| {
                    if !(object::HEADER_BYTES as u64..=(16 << 20)).contains(&s) {
                        Err(format!("{}: object size {} out of range 16..16M", key, s))
                    } else {
                        Ok((w, s as usize))
                    }
                })
                .collect()
        };
        let sizes = size_list("sizes", kv.get("sizes").ok_or("missing key 'sizes'")?)?;
        // A key holding sizes as `sizes` does, `sizes` itself when absent.
        let sizes_or_default = |key: &str| match kv.get(key) {
            None => Ok(sizes.clone()),
            Some(v) => size_list(key, v),
        };
        let boot_garbage_sizes = sizes_or_default("boot_garbage_sizes")?;
        let thread_open_sizes = sizes_or_default("thread_open_sizes")?;
        let lifetime_list = |key: &str| -> Result<Vec<(u64, u64)>, String> {
            Ok(
                parse_pairs(key, kv.get(key).map(|s| s.as_str()).unwrap_or("0:1"))?
                    .into_iter()
                    .map(|(l, w)| (w, l))
                    .collect(),
            )
        };
        let lifetimes = lifetime_list("lifetimes")?;
        let large_lifetimes = lifetime_list("large_lifetimes")?;
        let large_from = num("large_from", 0)?;
        if kv.contains_key("large_lifetimes") && large_from == 0 {
            return Err("large_lifetimes needs large_from (bytes)".into());
        }
        let refs_percent = num("refs_percent", 20)?;
        if refs_percent > 100 {
            return Err("refs_percent must be 0..100".into());
        }
        let threads = match kv.get("threads") {
            None => None,
            Some(_) => Some(num("threads", 1)? as usize),
        };
        let thread_keep_sizes = sizes_or_default("thread_keep_sizes")?;
        let thread_keep = num("thread_keep", 0)?;
        if thread_keep.saturating_mul(thread_keep_sizes.len() as u64) > 1 << 20 {
            return Err("thread_keep: too many kept objects per thread (limit 1M)".into());
        }
        Ok(Spec {
            name: kv.get("name").cloned().unwrap_or_else(|| "custom".into()),
            sizes,
            lifetimes,
            refs_percent,
            work: num("work", 1_000_000)?,
            shared_kib: num("shared_kib", 0)?,
            thread_keep,
            thread_keep_sizes,
            threads,
            boot_garbage_kib: num("boot_garbage_kib", 0)?,
            boot_garbage_sizes,
            large_from,
            large_lifetimes,
            boot_keep_every: num("boot_keep_every", 0)?,
            thread_open_kib: num("thread_open_kib", 0)?,
            thread_open_sizes,
            thread_open_keep_every: num("thread_open_keep_every", 0)?,
        })
    }
}

pub struct Custom {
    p: Params,
    spec: Spec,
    sizes: Weighted<usize>,
    work: u64,
    shared: GlobalRoot,
    shared_sum: u64,
    /// (lifetime, ring slots) per lifetime class: `lifetimes`' classes, then `large_lifetimes`'.
    classes: Vec<(u64, usize)>,
    lifetime_pick: Weighted<usize>,
    /// `large_from`: the pick among `large_lifetimes`' classes (indices into `classes`).
    large_pick: Option<Weighted<usize>>,
    /// `thread_keep`: per thread, the root of its kept objects and their checksum.
    kept: Vec<(GlobalRoot, AtomicU64)>,
    /// `thread_open_keep_every`: per thread, the root of the objects kept from its opening
    /// allocation and their checksum.
    opened: Vec<(GlobalRoot, AtomicU64)>,
    /// `boot_keep_every`: the boot garbage's kept objects and their checksum.
    boot_kept: GlobalRoot,
    boot_kept_sum: u64,
}

const CHUNK: usize = 1024;

impl Custom {
    pub fn new(p: Params, spec: Spec) -> Custom {
        let work = match p.size {
            Size::Small => (spec.work / 10).max(1),
            Size::Default => spec.work,
            Size::Large => spec.work * 10,
        };
        let (spec_keep, p_threads) = (spec.thread_keep, p.threads);
        let spec_open = spec.thread_open_kib > 0 && spec.thread_open_keep_every > 0;
        // The share (weight, out of `all`) of the allocations that are large.
        let all: u64 = spec.sizes.iter().map(|x| x.0).sum();
        let large: u64 = if spec.large_from > 0 {
            spec.sizes
                .iter()
                .filter(|x| x.1 as u64 >= spec.large_from)
                .map(|x| x.0)
                .sum()
        } else {
            0
        };
        let mut classes = Vec::new();
        // A class of lifetime l and weight w in a group of `share`/`all` of the allocations
        // gets about l * w/total * share/all ring slots: replaced, on average, l allocations later.
        let mut group = |list: &[(u64, u64)], share: u64| -> Vec<(u64, usize)> {
            let total_w: u64 = list.iter().map(|x| x.0).sum();
            let mut pick = Vec::new();
            for &(w, l) in list {
                let slots = if l == 0 || share == 0 {
                    0
                } else {
                    let v = l as u128 * w as u128 * share as u128 / (total_w as u128 * all as u128);
                    (v as usize).clamp(1, 1 << 20)
                };
                pick.push((w, classes.len()));
                classes.push((l, slots));
            }
            pick
        };
        let pick = group(&spec.lifetimes, all - large);
        let large_pick = if spec.large_from > 0 {
            Some(Weighted::new(&group(&spec.large_lifetimes, large)))
        } else {
            None
        };
        Custom {
            sizes: Weighted::new(&spec.sizes),
            lifetime_pick: Weighted::new(&pick),
            large_pick,
            p,
            spec,
            work,
            shared: alloc_global_root(),
            shared_sum: 0,
            classes,
            kept: if spec_keep > 0 {
                (0..p_threads)
                    .map(|_| (alloc_global_root(), AtomicU64::new(0)))
                    .collect()
            } else {
                Vec::new()
            },
            opened: if spec_open {
                (0..p_threads)
                    .map(|_| (alloc_global_root(), AtomicU64::new(0)))
                    .collect()
            } else {
                Vec::new()
            },
            boot_kept: alloc_global_root(),
            boot_kept_sum: 0,
        }
    }

    /// Allocates `target` bytes of objects drawn from `sizes`, no reference fields, and keeps
    /// every `keep_every`-th (0: none) in a chain of [`CHUNK`]-slot arrays `[next, obj...]`,
    /// so that the kept ones sit scattered among garbage. Returns the shadow-stack slot holding
    /// the chain's head (`None` if nothing was kept); the caller truncates it.
    fn scattered(
        &self,
        mu: &Mu,
        r: &mut Rng,
        sizes: &Weighted<usize>,
        target: usize,
        keep_every: u64,
    ) -> usize {
        let head = mu.push_opt(None);
        let mut bytes = 0usize;
        let (mut n, mut i) = (0u64, CHUNK);
        while bytes < target {
            let size = sizes.sample(r);
            let o = mu.alloc(
                Kind::Plain,
                0,
                size.saturating_sub(object::HEADER_BYTES),
                r.next_u64(),
            );
            bytes += object::size_of(o);
            n += 1;
            if keep_every == 0 || n % keep_every != 0 {
                continue;
            }
            let o = mu.push(o);
            if i == CHUNK {
                let c = mu.alloc(Kind::RefArray, CHUNK + 1, 0, r.next_u64());
                mu.write_ref(c, 0, mu.get_opt(head));
                mu.set(head, Some(c));
                i = 0;
            }
            mu.write_ref(mu.get(head), 1 + i, Some(mu.get(o)));
            mu.truncate(o);
            i += 1;
        }
        head
    }

    /// `boot_garbage_kib`: objects drawn from `boot_garbage_sizes`, dropped at once except
    /// every `boot_keep_every`-th, kept for the whole run.
    fn boot_garbage(&mut self, mu: &Mu) -> Result<(), String> {
        let target = self.spec.boot_garbage_kib as usize * 1024;
        if target == 0 {
            return Ok(());
        }
        let sizes = Weighted::new(&self.spec.boot_garbage_sizes);
        let mut r = Rng::derive(self.p.seed, 0xDEAD, 0);
        let head = self.scattered(mu, &mut r, &sizes, target, self.spec.boot_keep_every);
        if let Some(h) = mu.get_opt(head) {
            self.boot_kept_sum = super::tree_sum(h)?.0;
            self.boot_kept.set(Some(h));
        }
        mu.truncate(head);
        Ok(())
    }

    /// `thread_open_kib`: the thread's opening allocation; every `thread_open_keep_every`-th
    /// object is published in the thread's root until its next iteration.
    fn open(&self, mu: &Mu, tid: usize, iter: usize) -> Result<(), String> {
        let sizes = Weighted::new(&self.spec.thread_open_sizes);
        let mut r = Rng::derive(self.p.seed, 0x0BE7 + iter as u64, tid as u64);
        let target = self.spec.thread_open_kib as usize * 1024;
        let head = self.scattered(mu, &mut r, &sizes, target, self.spec.thread_open_keep_every);
        if let Some((g, s)) = self.opened.get(tid) {
            let h = mu.get_opt(head);
            let sum = match h {
                Some(h) => super::tree_sum(h)?.0,
                None => 0,
            };
            // Relaxed: read by `verify` on the main thread after joining this one (the join orders it).
            s.store(sum, Ordering::Relaxed);
            g.set(h);
        }
        mu.truncate(head);
        Ok(())
    }

    fn alloc_one(&self, mu: &Mu, r: &mut Rng) -> (mmtk::util::ObjectReference, u64) {
        let size = self.sizes.sample(r);
        let nrefs = if r.below(100) < self.spec.refs_percent {
            (r.range(1, 4) as usize).min((size - object::HEADER_BYTES) / 8)
        } else {
            0
        };
        let payload = size.saturating_sub(object::HEADER_BYTES + 8 * nrefs);
        let h = r.next_u64();
        (mu.alloc(Kind::Plain, nrefs, payload, h), h)
    }
}

impl Workload for Custom {
    fn boot(&mut self, mu: &Mu) -> Result<(), String> {
        self.boot_garbage(mu)?;
        let target = self.spec.shared_kib as usize * 1024;
        if target == 0 {
            return Ok(());
        }
        let mut r = Rng::derive(self.p.seed, 0xC057, 0);
        // A list of chunks: [next chunk, obj0, obj1, ...].
        let mut bytes = 0usize;
        let mut sum = 0u64;
        let head = mu.push_opt(None);
        let cur = mu.push_opt(None);
        let mut i = CHUNK;
        while bytes < target {
            if i == CHUNK {
                let c = mu.alloc(Kind::RefArray, CHUNK + 1, 0, r.next_u64());
                mu.write_ref(c, 0, mu.get_opt(head));
                mu.set(head, Some(c));
                mu.set(cur, Some(c));
                i = 0;
            }
            let (o, _) = self.alloc_one(mu, &mut r);
            bytes += object::size_of(o);
            mu.write_ref(mu.get(cur), 1 + i, Some(o));
            i += 1;
        }
        self.shared.set(mu.get_opt(head));
        mu.truncate(head);
        let (s, _) = super::tree_sum(self.shared.get().unwrap())?;
        sum ^= s;
        self.shared_sum = sum;
        Ok(())
    }

    fn run_thread(&self, mu: &Mu, tid: usize, iter: usize) -> Result<(), String> {
        if self.spec.thread_open_kib > 0 {
            self.open(mu, tid, iter)?;
        }
        if self.spec.thread_keep > 0 {
            self.keep(mu, tid, iter)?;
        }
        let nslots: usize = self.classes.iter().map(|c| c.1).sum();
        let mut offsets = Vec::new();
        let mut off = 0;
        for c in &self.classes {
            offsets.push(off);
            off += c.1;
        }
        let mut cursor = vec![0usize; self.classes.len()];
        let mut expect = vec![0u64; nslots];
        let mut r = Rng::derive(self.p.seed, 0xC0DE + iter as u64, tid as u64);
        let ring = mu.alloc(Kind::RefArray, nslots.max(1), 0, r.next_u64());
        let ring_root = mu.push(ring);
        let range = share(self.work, self.p.threads, tid);
        let check_every = ((range.end - range.start) / 8).max(1);
        for (k, _) in range.enumerate() {
            let (o, h) = self.alloc_one(mu, &mut r);
            let nrefs = object::nrefs_of(o);
            for f in 0..nrefs {
                if nslots > 0 {
                    let t = object::load_ref(mu.get(ring_root), r.below(nslots as u64) as usize);
                    mu.write_ref(o, f, t);
                }
            }
            let c = match &self.large_pick {
                Some(lp) if object::size_of(o) as u64 >= self.spec.large_from => lp.sample(&mut r),
                _ => self.lifetime_pick.sample(&mut r),
            };
            let slots = self.classes[c].1;
            if slots > 0 {
                let s = offsets[c] + cursor[c];
                cursor[c] = (cursor[c] + 1) % slots;
                mu.write_ref(mu.get(ring_root), s, Some(o));
                expect[s] = h;
            }
            if (k as u64 + 1) % check_every == 0 {
                let ring = mu.get(ring_root);
                object::check_object(ring)?;
                for (s, &h) in expect.iter().enumerate() {
                    if h == 0 {
                        continue;
                    }
                    let o = object::load_ref(ring, s)
                        .ok_or_else(|| format!("thread {}: slot {} lost", tid, s))?;
                    object::check_object(o).map_err(|e| format!("thread {}: {}", tid, e))?;
                    for f in 0..object::nrefs_of(o) {
                        if let Some(t) = object::load_ref(o, f) {
                            object::check_header(t)
                                .map_err(|e| format!("thread {}: {}", tid, e))?;
                        }
                    }
                    if object::hash_of(o) != h {
                        return Err(format!("thread {}: slot {} holds the wrong object", tid, s));
                    }
                }
            }
        }
        mu.truncate(ring_root);
        Ok(())
    }

    fn verify(&self, _mu: &Mu, iter: usize) -> Result<(), String> {
        for (tid, (root, sum)) in self.opened.iter().enumerate() {
            let s = match root.get() {
                Some(a) => super::tree_sum(a)?.0,
                None => 0,
            };
            // Relaxed: stored by thread `tid`, which the caller joined before `verify`.
            if s != sum.load(Ordering::Relaxed) {
                return Err(format!(
                    "thread {}'s objects kept from its opening changed after iteration {}",
                    tid, iter
                ));
            }
        }
        if let Some(h) = self.boot_kept.get() {
            if super::tree_sum(h)?.0 != self.boot_kept_sum {
                return Err(format!(
                    "boot data kept among garbage changed after iteration {}",
                    iter
                ));
            }
        }
        for (tid, (root, sum)) in self.kept.iter().enumerate() {
            if let Some(a) = root.get() {
                let (s, _) = super::tree_sum(a)?;
                // Relaxed: stored by thread `tid`, which the caller joined before `verify`.
                if s != sum.load(Ordering::Relaxed) {
                    return Err(format!(
                        "thread {}'s kept objects changed after iteration {}",
                        tid, iter
                    ));
                }
            }
        }
        if let Some(h) = self.shared.get() {
            let (s, _) = super::tree_sum(h)?;
            if s != self.shared_sum {
                return Err(format!(
                    "shared data checksum changed after iteration {}",
                    iter
                ));
            }
        }
        Ok(())
    }
}

impl Custom {
    /// `thread_keep`: allocate K objects of every size (K in a row per size, in `thread_keep_sizes` order),
    /// no reference fields, and publish them in a per-thread global root (replacing the previous
    /// iteration's).
    fn keep(&self, mu: &Mu, tid: usize, iter: usize) -> Result<(), String> {
        let k = self.spec.thread_keep as usize;
        let n = k * self.spec.thread_keep_sizes.len();
        let mut r = Rng::derive(self.p.seed, 0x4EE9 + iter as u64, tid as u64);
        let arr = mu.alloc(Kind::RefArray, n, 0, r.next_u64());
        let root = mu.push(arr);
        let mut i = 0;
        for &(_, size) in &self.spec.thread_keep_sizes {
            for _ in 0..k {
                let o = mu.alloc(Kind::Plain, 0, size - object::HEADER_BYTES, r.next_u64());
                mu.write_ref(mu.get(root), i, Some(o));
                i += 1;
            }
        }
        let (sum, _) = super::tree_sum(mu.get(root))?;
        let (g, s) = &self.kept[tid];
        // Relaxed: read by `verify` on the main thread after joining this one (the join orders it).
        s.store(sum, Ordering::Relaxed);
        g.set(Some(mu.get(root)));
        mu.truncate(root);
        Ok(())
    }

    pub fn name(&self) -> &str {
        &self.spec.name
    }
}

#[cfg(test)]
mod tests {
    use super::Spec;

    #[test]
    fn parses_the_example() {
        let s = Spec::parse(include_str!("../../workloads/example.wl")).unwrap();
        assert_eq!(s.name, "example-mixed");
        assert_eq!(s.work, 5_000_000);
        assert_eq!(s.threads, Some(4));
        assert_eq!(s.sizes[0], (30, 16));
    }

    #[test]
    fn rejects_bad_files() {
        assert!(Spec::parse("work = 5").is_err()); // no sizes
        assert!(Spec::parse("sizes = 16:1\nbogus = 1").is_err());
        assert!(Spec::parse("sizes = 8:1").is_err()); // smaller than a header
        assert!(Spec::parse("sizes = 16").is_err());
        assert!(Spec::parse("sizes = 16:1\nrefs_percent = 101").is_err());
        assert!(Spec::parse("sizes = 16:1\nsizes = 24:1").is_err());
        assert!(Spec::parse("sizes = 16:1, 24:3 # comment\nlifetimes = 0:1 10:1").is_ok());
        assert_eq!(
            Spec::parse("sizes = 16:1 24:1\nthread_keep = 3")
                .unwrap()
                .thread_keep,
            3
        );
        assert!(Spec::parse("sizes = 16:1\nthread_keep = 2000000").is_err());
        let k =
            Spec::parse("sizes = 16:1 24:1\nthread_keep = 2\nthread_keep_sizes = 32768:1").unwrap();
        assert_eq!(
            (k.thread_keep, k.thread_keep_sizes.clone()),
            (2, vec![(1, 32768)])
        );
        assert!(
            Spec::parse("sizes = 16:1\nthread_keep = 600000\nthread_keep_sizes = 16:1 24:1")
                .is_err()
        );
        let g = Spec::parse("sizes = 16:1\nboot_garbage_kib = 64\nboot_garbage_sizes = 16384:1")
            .unwrap();
        assert_eq!(
            (g.boot_garbage_kib, g.boot_garbage_sizes.clone()),
            (64, vec![(1, 16384)])
        );
        assert_eq!(
            Spec::parse("sizes = 24:1").unwrap().boot_garbage_sizes,
            vec![(1, 24)]
        );
        assert!(Spec::parse("sizes = 16:1\nboot_garbage_sizes = 8:1").is_err());
        let o = Spec::parse(
            "sizes = 16:1\nboot_keep_every = 9\nthread_open_kib = 64\nthread_open_sizes = 48:1\nthread_open_keep_every = 20",
        )
        .unwrap();
        assert_eq!(
            (
                o.boot_keep_every,
                o.thread_open_kib,
                o.thread_open_sizes.clone(),
                o.thread_open_keep_every
            ),
            (9, 64, vec![(1, 48)], 20)
        );
        assert_eq!(
            Spec::parse("sizes = 24:1").unwrap().thread_open_sizes,
            vec![(1, 24)]
        );
        assert!(Spec::parse("sizes = 16:1\nthread_open_sizes = 8:1").is_err());
        let l = Spec::parse("sizes = 16:1 4096:1\nlarge_from = 1024\nlarge_lifetimes = 0:3 100:1")
            .unwrap();
        assert_eq!(
            (l.large_from, l.large_lifetimes.clone()),
            (1024, vec![(3, 0), (1, 100)])
        );
        assert!(Spec::parse("sizes = 16:1\nlarge_lifetimes = 0:1").is_err()); // no large_from
    }
}
