//! `lusearch`: a model of DaCapo lusearch's allocation behaviour (Lucene 2.4 searching a
//! prebuilt index with many threads).  See README.md for the distribution and its sources.
//!
//! * Boot: a shared, long-lived "index" (the dominant live data): term segments, each term a
//!   TermInfo with its text (String + char[]) and a postings byte array, plus stored documents
//!   (title and path strings).  Reached from a global root.
//! * Iteration: a FIXED total number of queries, split into contiguous blocks over the threads.
//!   Each query parses its text, builds per-term query/weight/scorer objects with a 1 KiB
//!   IndexInput buffer each, scans the postings into a 100-slot hit queue of ScoreDocs, renders
//!   the top 10 hits into strings through a growing StringBuilder, and publishes them in a
//!   shared results array.  Per-thread long-lived state (a searcher with a norms array and a
//!   64-entry term cache) is a few KiB.
//!
//! `lusearch-jvm` ([`Lusearch::new_jvm`]) is the same program with a JVM's allocation volume
//! and size spread: the stand-in's query count per size (1024 / 4096 / 16384), and after each
//! query's object skeleton, query-lived temporaries drawn from the size distribution a JVM
//! query thread allocates ([`super::jvm_sizes`]) up to [`jvm_sizes::BYTES_PER_QUERY`] bytes
//! per query (the skeleton's ~24 KiB included), and a per-thread reader state kept for the
//! whole iteration, shaped as what a stand-in query thread keeps live on the JVM
//! ([`JVM_LIVE_PER_THREAD`]). Fresh mutator threads every iteration, as both DaCapo lusearch
//! and the stand-in start new query threads per iteration.

use std::sync::Mutex;

use mmtk::util::ObjectReference;

use super::jvm_sizes::{self, JvmSizes};
use super::{new_string, share, string_sum, Params, Size, Workload};
use crate::object::{self, Kind};
use crate::rng::Rng;
use crate::runtime::{alloc_global_root, GlobalRoot, Mu};

const SEGMENT: usize = 1024;
const HITS: usize = 100; // the hit queue holds 10 * hitsPerPage, as lusearch asks for
const PAGE: usize = 10; // hits rendered and published per query
const TERM_CACHE: usize = 64;
const TERM_INDEX_INTERVAL: usize = 32;

pub struct Lusearch {
    p: Params,
    nterms: usize,
    ndocs: usize,
    queries: u64,
    index: GlobalRoot,
    results: GlobalRoot,
    index_sum: u64,
    /// Expected checksum of each thread's last published result (per iteration).
    published: Mutex<Vec<Option<u64>>>,
    /// `lusearch-jvm`: the JVM's size spread per query; `None` for `lusearch`.
    jvm: Option<JvmSizes>,
}

// Index object layout.
const IX_TERMS: usize = 0;
const IX_DOCS: usize = 1;
// TermInfo: [text, postings]
const TI_TEXT: usize = 0;
const TI_POSTINGS: usize = 1;
// Document: [title, path]

impl Lusearch {
    pub fn new(p: Params) -> Lusearch {
        let (nterms, ndocs, queries) = match p.size {
            Size::Small => (2048, 1024, 3000),
            Size::Default => (16384, 8192, 40000),
            Size::Large => (65536, 16384, 200000),
        };
        let threads = p.threads;
        Lusearch {
            p,
            nterms,
            ndocs,
            queries,
            index: alloc_global_root(),
            results: alloc_global_root(),
            index_sum: 0,
            published: Mutex::new(vec![None; threads]),
            jvm: None,
        }
    }

    /// `lusearch-jvm`: the same index, the stand-in's query counts, and each query topped up to
    /// a JVM query's bytes with the JVM's size spread.
    pub fn new_jvm(p: Params) -> Lusearch {
        let queries = p.size.pick(1024, 4096, 16384);
        Lusearch {
            queries,
            jvm: Some(JvmSizes::new()),
            ..Lusearch::new(p)
        }
    }

    fn index(&self) -> ObjectReference {
        self.index.get().expect("index root lost")
    }

    fn term(&self, i: usize) -> ObjectReference {
        let segs = object::load_ref(self.index(), IX_TERMS).expect("term segments lost");
        let seg = object::load_ref(segs, i / SEGMENT).expect("term segment lost");
        object::load_ref(seg, i % SEGMENT).expect("term lost")
    }

    fn doc(&self, i: usize) -> ObjectReference {
        let segs = object::load_ref(self.index(), IX_DOCS).expect("doc segments lost");
        let seg = object::load_ref(segs, i / SEGMENT).expect("doc segment lost");
        object::load_ref(seg, i % SEGMENT).expect("doc lost")
    }

    /// Postings length (bytes) by popularity: a few frequent terms with long postings, many rare
    /// terms with short ones.
    fn postings_bytes(&self, i: usize, r: &mut Rng) -> usize {
        let n = self.nterms;
        if i < n / 20 {
            r.range(512, 4096) as usize & !7
        } else if i < n * 3 / 10 {
            r.range(64, 512) as usize & !7
        } else {
            r.range(16, 64) as usize & !7
        }
    }

    fn build_index(&mut self, mu: &Mu) -> Result<(), String> {
        let seed = self.p.seed;
        let nseg_t = self.nterms.div_ceil(SEGMENT);
        let nseg_d = self.ndocs.div_ceil(SEGMENT);
        let ix = mu.alloc(Kind::Plain, 2, 16, seed ^ 0x1DE7);
        self.index.set(Some(ix));
        let segs = mu.alloc(Kind::RefArray, nseg_t, 0, seed ^ 0x5E65);
        mu.write_ref(self.index(), IX_TERMS, Some(segs));
        let segs = mu.alloc(Kind::RefArray, nseg_d, 0, seed ^ 0xD0C5);
        mu.write_ref(self.index(), IX_DOCS, Some(segs));
        for s in 0..nseg_t {
            let n = SEGMENT.min(self.nterms - s * SEGMENT);
            let seg = mu.alloc(Kind::RefArray, n, 0, seed ^ (s as u64) << 8 ^ 0x7E);
            let segs = object::load_ref(self.index(), IX_TERMS).unwrap();
            mu.write_ref(segs, s, Some(seg));
        }
        for s in 0..nseg_d {
            let n = SEGMENT.min(self.ndocs - s * SEGMENT);
            let seg = mu.alloc(Kind::RefArray, n, 0, seed ^ (s as u64) << 8 ^ 0xD0);
            let segs = object::load_ref(self.index(), IX_DOCS).unwrap();
            mu.write_ref(segs, s, Some(seg));
        }
        let d = mu.depth();
        for i in 0..self.nterms {
            let mut r = Rng::derive(seed, 0xB007, i as u64);
            let nchars = r.range(3, 14) as usize;
            let text = new_string(mu, nchars, r.next_u64());
            mu.push(text);
            let pb = self.postings_bytes(i, &mut r);
            let postings = mu.alloc(Kind::Bytes, 0, pb, r.next_u64());
            mu.push(postings);
            let ti = mu.alloc(Kind::Plain, 2, 16, r.next_u64());
            mu.write_ref(ti, TI_TEXT, Some(mu.get(d)));
            mu.write_ref(ti, TI_POSTINGS, Some(mu.get(d + 1)));
            mu.truncate(d);
            let segs = object::load_ref(self.index(), IX_TERMS).unwrap();
            let seg = object::load_ref(segs, i / SEGMENT).unwrap();
            mu.write_ref(seg, i % SEGMENT, Some(ti));
        }
        for i in 0..self.ndocs {
            let mut r = Rng::derive(seed, 0xD0C, i as u64);
            let title = new_string(mu, r.range(10, 60) as usize, r.next_u64());
            mu.push(title);
            let path = new_string(mu, r.range(15, 40) as usize, r.next_u64());
            mu.push(path);
            let doc = mu.alloc(Kind::Plain, 2, 8, r.next_u64());
            mu.write_ref(doc, 0, Some(mu.get(d)));
            mu.write_ref(doc, 1, Some(mu.get(d + 1)));
            mu.truncate(d);
            let segs = object::load_ref(self.index(), IX_DOCS).unwrap();
            let seg = object::load_ref(segs, i / SEGMENT).unwrap();
            mu.write_ref(seg, i % SEGMENT, Some(doc));
        }
        // The shared results array, one slot per thread.
        let res = mu.alloc(Kind::RefArray, self.p.threads, 0, seed ^ 0x8E5);
        self.results.set(Some(res));
        Ok(())
    }

    fn index_checksum(&self) -> Result<(u64, u64), String> {
        super::tree_sum(self.index()).map_err(|e| format!("lusearch index: {}", e))
    }
}

/// The per-query hit queue: a min-heap of ScoreDocs kept in a heap RefArray (rooted in the
/// shadow stack), mirrored by their keys on the Rust side for verification.
struct HitQueue {
    root: usize,
    keys: Vec<u64>,
}

impl HitQueue {
    fn swap(&mut self, mu: &Mu, i: usize, j: usize) {
        self.keys.swap(i, j);
        let arr = mu.get(self.root);
        let a = object::load_ref(arr, i);
        let b = object::load_ref(arr, j);
        mu.write_ref(arr, i, b);
        mu.write_ref(arr, j, a);
    }

    fn sift_up(&mut self, mu: &Mu, mut i: usize) {
        while i > 0 {
            let p = (i - 1) / 2;
            if self.keys[p] <= self.keys[i] {
                break;
            }
            self.swap(mu, p, i);
            i = p;
        }
    }

    fn sift_down(&mut self, mu: &Mu, mut i: usize) {
        let n = self.keys.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let c = if r < n && self.keys[r] < self.keys[l] {
                r
            } else {
                l
            };
            if self.keys[i] <= self.keys[c] {
                break;
            }
            self.swap(mu, i, c);
            i = c;
        }
    }

    fn competitive(&self, key: u64) -> bool {
        self.keys.len() < HITS || key > self.keys[0]
    }

    /// Insert a ScoreDoc that is rooted at shadow-stack slot `sd_root`.
    fn insert(&mut self, mu: &Mu, sd_root: usize, key: u64) {
        let sd = mu.get(sd_root);
        let arr = mu.get(self.root);
        if self.keys.len() < HITS {
            let i = self.keys.len();
            self.keys.push(key);
            mu.write_ref(arr, i, Some(sd));
            self.sift_up(mu, i);
        } else {
            self.keys[0] = key;
            mu.write_ref(arr, 0, Some(sd));
            self.sift_down(mu, 0);
        }
    }

    fn verify(&self, mu: &Mu) -> Result<(), String> {
        let arr = mu.get(self.root);
        object::check_object(arr)?;
        for (i, &k) in self.keys.iter().enumerate() {
            let sd =
                object::load_ref(arr, i).ok_or_else(|| format!("hit queue slot {} is null", i))?;
            object::check_object(sd)?;
            if object::hash_of(sd) != k {
                return Err(format!(
                    "hit queue slot {} holds ScoreDoc {:#x}, expected {:#x}",
                    i,
                    object::hash_of(sd),
                    k
                ));
            }
        }
        Ok(())
    }
}

// Per-thread searcher state, rooted at the bottom of the thread's shadow stack.
const S_SEARCHER: usize = 0; // Plain [norms, termcache, buf, buf2, norms2, termindex]
const S_NORMS: usize = 1;
const S_TERMCACHE: usize = 2;

impl Workload for Lusearch {
    fn boot(&mut self, mu: &Mu) -> Result<(), String> {
        self.build_index(mu)?;
        let (sum, n) = self.index_checksum()?;
        self.index_sum = sum;
        let _ = n;
        Ok(())
    }

    fn run_thread(&self, mu: &Mu, tid: usize, iter: usize) -> Result<(), String> {
        let seed = self.p.seed;
        let base = mu.depth();
        // Per-thread IndexReader/IndexSearcher state, as each lusearch thread opens its own
        // reader: norms (one byte per document, two fields), the term index (every
        // TERM_INDEX_INTERVAL-th term's text and info, copied), a cache of recent terms and
        // two 1 KiB stream buffers.
        let mut tr = Rng::derive(seed, 0x5EA4 + iter as u64, tid as u64);
        let s = mu.alloc(Kind::Plain, 6, 32, tr.next_u64());
        mu.push(s);
        let norms = mu.alloc(Kind::Bytes, 0, self.ndocs, tr.next_u64());
        mu.push(norms);
        mu.write_ref(mu.get(base + S_SEARCHER), 0, Some(norms));
        let cache = mu.alloc(Kind::RefArray, TERM_CACHE, 0, tr.next_u64());
        mu.push(cache);
        mu.write_ref(mu.get(base + S_SEARCHER), 1, Some(cache));
        for k in 2..4 {
            let buf = mu.alloc(Kind::Bytes, 0, 1024, tr.next_u64());
            mu.write_ref(mu.get(base + S_SEARCHER), k, Some(buf));
        }
        let norms2 = mu.alloc(Kind::Bytes, 0, self.ndocs, tr.next_u64());
        mu.write_ref(mu.get(base + S_SEARCHER), 4, Some(norms2));
        let nidx = self.nterms.div_ceil(TERM_INDEX_INTERVAL);
        let tix = mu.alloc(Kind::RefArray, nidx, 0, tr.next_u64());
        mu.write_ref(mu.get(base + S_SEARCHER), 5, Some(tix));
        for j in 0..nidx {
            let text = object::load_ref(self.term(j * TERM_INDEX_INTERVAL), TI_TEXT).unwrap();
            let nchars =
                (object::payload_words(object::load_ref(text, 0).unwrap()) * 4).saturating_sub(2);
            let copy = new_string(mu, nchars.max(1), tr.next_u64());
            mu.push(copy);
            let info = mu.alloc(Kind::Plain, 1, 24, tr.next_u64());
            let dt = mu.depth();
            mu.write_ref(info, 0, Some(mu.get(dt - 1)));
            let tix = object::load_ref(mu.get(base + S_SEARCHER), 5).unwrap();
            mu.write_ref(tix, j, Some(info));
            mu.truncate(dt - 1);
        }
        let state_sum = |mu: &Mu| -> Result<u64, String> {
            let s = mu.get(base + S_SEARCHER);
            object::check_object(s)?;
            let mut acc = object::object_sum(s);
            for k in [0usize, 2, 3, 4, 5] {
                let c = object::load_ref(s, k).ok_or("searcher field lost")?;
                let (sum, _) = super::tree_sum(c)?;
                acc = object::mix(acc, sum);
            }
            Ok(acc)
        };
        // lusearch-jvm: the per-thread reader state a JVM thread keeps for the whole iteration,
        // with the JVM's size spread, scattered among garbage (see `jvm_thread_state`).
        let kept = match &self.jvm {
            Some(sizes) if jvm_thread_state_shape_alloc() && jvm_thread_state_bytes() > 0 => {
                Some(self.jvm_thread_state(mu, sizes, tid, iter)?)
            }
            Some(sizes) if !jvm_thread_state_shape_alloc() => {
                Some(self.jvm_thread_state_live(mu, sizes, tid, iter)?)
            }
            _ => None,
        };
        let state0 = state_sum(mu)?;
        let mut cache_slot = 0usize;
        let mut last = None;

        for q in share(self.queries, self.p.threads, tid) {
            let a0 = mu.allocated_bytes();
            let r = self.query(mu, base, q, &mut cache_slot, tid)?;
            if let Some(sizes) = &self.jvm {
                let done = (mu.allocated_bytes() - a0) as usize;
                self.jvm_temporaries(
                    mu,
                    sizes,
                    q,
                    jvm_sizes::BYTES_PER_QUERY.saturating_sub(done),
                )?;
            }
            last = Some(r);
            mu.poll();
        }
        // Check the long-lived per-thread state survived all the GCs.
        if let Some((slot, sum)) = kept {
            if super::tree_sum(mu.get(slot))?.0 != sum {
                return Err(format!("thread {}: JVM reader state checksum changed", tid));
            }
        }
        if state_sum(mu)? != state0 {
            return Err(format!("thread {}: searcher state checksum changed", tid));
        }
        let cache = mu.get(base + S_TERMCACHE);
        for i in 0..TERM_CACHE {
            if let Some(t) = object::load_ref(cache, i) {
                object::check_object(t)?;
                if let Some(text) = object::load_ref(t, 0) {
                    string_sum(text)?;
                }
            }
        }
        self.published.lock().unwrap()[tid] = last;
        mu.truncate(base);
        Ok(())
    }

    fn verify(&self, _mu: &Mu, iter: usize) -> Result<(), String> {
        let (sum, _) = self.index_checksum()?;
        if sum != self.index_sum {
            return Err(format!(
                "lusearch index checksum changed after iteration {}: {:#x} != {:#x}",
                iter, sum, self.index_sum
            ));
        }
        let res = self.results.get().ok_or("results root lost")?;
        object::check_object(res)?;
        let published = self.published.lock().unwrap();
        for (tid, exp) in published.iter().enumerate() {
            let got = object::load_ref(res, tid);
            match (exp, got) {
                (None, None) => {}
                (Some(e), Some(r)) => {
                    let s = result_sum(r)?;
                    if s != *e {
                        return Err(format!(
                            "published result of thread {} has checksum {:#x}, expected {:#x}",
                            tid, s, e
                        ));
                    }
                }
                (e, g) => {
                    return Err(format!(
                        "published result of thread {}: expected {}, found {}",
                        tid,
                        if e.is_some() { "a result" } else { "none" },
                        if g.is_some() { "one" } else { "none" }
                    ))
                }
            }
        }
        Ok(())
    }
}

fn result_sum(r: ObjectReference) -> Result<u64, String> {
    object::check_object(r)?;
    let mut acc = object::object_sum(r);
    for i in 0..object::nrefs_of(r) {
        if let Some(s) = object::load_ref(r, i) {
            acc = object::mix(acc, string_sum(s)?);
        }
    }
    Ok(acc)
}

/// Which terms queries ask for: mostly frequent ones, as real query logs do.
fn pick_term(r: &mut Rng, nterms: usize) -> usize {
    let x = r.below(100);
    let n = nterms as u64;
    (if x < 40 {
        r.below(n / 20)
    } else if x < 80 {
        n / 20 + r.below(n * 3 / 10 - n / 20)
    } else {
        n * 3 / 10 + r.below(n - n * 3 / 10)
    }) as usize
}

/// Slots of the ring that keeps some of a query's JVM-sized temporaries alive for a while.
const JVM_RING: usize = 32;
/// Slots for the per-thread reader state of `lusearch-jvm`.
const JVM_STATE_SLOTS: usize = 8192;

/// Bytes of per-thread reader state `lusearch-jvm` keeps for a whole iteration:
/// `SYNTHVM_JVM_THREAD_STATE_KIB` (default 384, 0 = none). 384 KiB is the stand-in's per-thread
/// minimum-heap slope under shardsweep with 4 KiB blocks (0.38 MiB/thread,
/// bindings/openjdk/RESULTS.md), where block stranding is small: a measure of what a JVM
/// query thread keeps live.
pub fn jvm_thread_state_bytes() -> usize {
    std::env::var("SYNTHVM_JVM_THREAD_STATE_KIB")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(384)
        << 10
}

/// The shape of `lusearch-jvm`'s per-thread reader state: `SYNTHVM_JVM_THREAD_STATE_SHAPE`
/// = `live` (default): the live objects a stand-in query thread adds on the JVM
/// ([`JVM_LIVE_PER_THREAD`]); `alloc`: [`jvm_thread_state_bytes`] drawn from the allocation
/// size distribution (the shape measured in experiments/jfr-alloc/results/synthvm-minheap.md).
pub fn jvm_thread_state_shape_alloc() -> bool {
    std::env::var("SYNTHVM_JVM_THREAD_STATE_SHAPE").is_ok_and(|v| v == "alloc")
}

/// What one more query thread adds to the stand-in's live heap on JDK 17 (`jcmd
/// GC.class_histogram` at 24 threads minus at 1, divided by 23; experiments/jfr-alloc/results/
/// live-histogram-sample1.csv): (objects, smallest and largest size in bytes). Arrays only:
/// int[] of 19.9 KiB mean (17 per thread), byte[] of 2.4 KiB mean (56), long[] of 2.7 KiB (5);
/// the small objects (~60 per thread, 24–72 B) are left to `lusearch`'s own per-thread state.
/// The sizes are ranges around the measured means (the histogram gives means only). Another
/// sample (live-histogram.csv) caught no big int[]s: part of this is in-flight query data.
pub const JVM_LIVE_PER_THREAD: [(usize, usize, usize); 3] =
    [(17, 12 << 10, 28 << 10), (55, 1024, 3840), (5, 1536, 3840)];

/// `lusearch-jvm` keeps one in `SYNTHVM_JVM_THREAD_STATE_KEEP` (default 6, at least 1) of the
/// objects it allocates for the reader state; 1 keeps them all, packed in their blocks (the
/// control: the same live bytes without the scatter).
pub fn jvm_thread_state_keep() -> u64 {
    std::env::var("SYNTHVM_JVM_THREAD_STATE_KEEP")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(6)
        .max(1)
}

impl Lusearch {
    /// `lusearch-jvm`: allocate `bytes` bytes of temporaries with the JVM's size spread. Every
    /// 8th lives in a 32-slot ring until 32 later ones replace it (a query's buffers and
    /// collections); the rest die at once. Checked before they are dropped.
    fn jvm_temporaries(
        &self,
        mu: &Mu,
        sizes: &JvmSizes,
        q: u64,
        bytes: usize,
    ) -> Result<(), String> {
        let mut r = Rng::derive(self.p.seed, 0x7A5E, q);
        let d = mu.depth();
        let ring = mu.alloc(Kind::RefArray, JVM_RING, 0, r.next_u64());
        mu.push(ring);
        let mut done = 0usize;
        let mut k = 0usize;
        while done < bytes {
            let size = sizes.next(&mut r);
            let o = if size <= 48 {
                // Small objects with a reference field, as most small Java objects have.
                let nrefs = (size - object::HEADER_BYTES) / 8;
                mu.alloc(
                    Kind::Plain,
                    nrefs,
                    size - object::HEADER_BYTES - 8 * nrefs,
                    r.next_u64(),
                )
            } else {
                mu.alloc(Kind::Bytes, 0, size - object::HEADER_BYTES, r.next_u64())
            };
            debug_assert_eq!(object::size_of(o), size);
            done += size;
            if k % 8 == 0 {
                let ring = mu.get(d);
                mu.write_ref(ring, (k / 8) % JVM_RING, Some(o));
            }
            k += 1;
        }
        let ring = mu.get(d);
        object::check_object(ring)?;
        for i in 0..JVM_RING {
            if let Some(o) = object::load_ref(ring, i) {
                object::check_object(o).map_err(|e| format!("query {} temporaries: {}", q, e))?;
            }
        }
        mu.truncate(d);
        Ok(())
    }

    /// `lusearch-jvm`: open the thread's "reader": allocate JVM-sized objects and keep one in
    /// [`jvm_thread_state_keep`] (six) for the whole iteration, until
    /// [`jvm_thread_state_bytes`] are kept; the rest die at once, so the kept objects sit
    /// scattered over the size classes and over mostly-garbage blocks. Returns the
    /// shadow-stack slot of the array holding them and its checksum.
    fn jvm_thread_state(
        &self,
        mu: &Mu,
        sizes: &JvmSizes,
        tid: usize,
        iter: usize,
    ) -> Result<(usize, u64), String> {
        let target = jvm_thread_state_bytes();
        let keep = jvm_thread_state_keep();
        let mut r = Rng::derive(self.p.seed, 0x5EAD + iter as u64, tid as u64);
        let arr = mu.alloc(Kind::RefArray, JVM_STATE_SLOTS, 0, r.next_u64());
        let slot = mu.push(arr);
        let (mut kept, mut n) = (0usize, 0usize);
        while kept < target && n < JVM_STATE_SLOTS {
            let size = sizes.next(&mut r);
            let o = mu.alloc(Kind::Bytes, 0, size - object::HEADER_BYTES, r.next_u64());
            if r.below(keep) == 0 {
                mu.write_ref(mu.get(slot), n, Some(o));
                n += 1;
                kept += size;
            }
        }
        let (sum, _) = super::tree_sum(mu.get(slot))?;
        Ok((slot, sum))
    }

    /// `lusearch-jvm`, reader state of shape `live`: the objects of [`JVM_LIVE_PER_THREAD`] in
    /// a random order, each after five JVM-sized temporaries that die at once (the reader's
    /// opening garbage), kept for the whole iteration. Returns the shadow-stack slot of the
    /// array holding them and its checksum.
    fn jvm_thread_state_live(
        &self,
        mu: &Mu,
        sizes: &JvmSizes,
        tid: usize,
        iter: usize,
    ) -> Result<(usize, u64), String> {
        let mut r = Rng::derive(self.p.seed, 0x11FE + iter as u64, tid as u64);
        let mut want: Vec<(usize, usize)> = JVM_LIVE_PER_THREAD
            .iter()
            .flat_map(|&(n, lo, hi)| std::iter::repeat((lo, hi)).take(n))
            .collect();
        for i in (1..want.len()).rev() {
            want.swap(i, r.below(i as u64 + 1) as usize);
        }
        let arr = mu.alloc(Kind::RefArray, want.len(), 0, r.next_u64());
        let slot = mu.push(arr);
        for (n, &(lo, hi)) in want.iter().enumerate() {
            for _ in 0..5 {
                let size = sizes.next(&mut r);
                let _ = mu.alloc(Kind::Bytes, 0, size - object::HEADER_BYTES, r.next_u64());
            }
            let size = (r.range(lo as u64, hi as u64) as usize) & !7;
            let o = mu.alloc(Kind::Bytes, 0, size - object::HEADER_BYTES, r.next_u64());
            mu.write_ref(mu.get(slot), n, Some(o));
        }
        let (sum, _) = super::tree_sum(mu.get(slot))?;
        Ok((slot, sum))
    }

    /// Run query `q`; returns the checksum of the result it published.
    fn query(
        &self,
        mu: &Mu,
        base: usize,
        q: u64,
        cache_slot: &mut usize,
        tid: usize,
    ) -> Result<u64, String> {
        let mut r = Rng::derive(self.p.seed, 0x9E7, q);
        let d = mu.depth();

        // 1. Query text and parser state.
        let qtext = new_string(mu, r.range(8, 48) as usize, r.next_u64());
        mu.push(qtext); // d
        let parser = mu.alloc(Kind::Plain, 3, 24, r.next_u64());
        mu.push(parser); // d+1
        let tokbuf = mu.alloc(Kind::Chars, 0, 4 + 2 * 256, r.next_u64());
        mu.write_ref(mu.get(d + 1), 0, Some(tokbuf));
        let ts = mu.alloc(Kind::Plain, 2, 16, r.next_u64());
        mu.write_ref(mu.get(d + 1), 1, Some(ts));
        mu.write_ref(mu.get(d + 1), 2, Some(mu.get(d)));

        // 2. BooleanQuery with an ArrayList of clauses.
        let nterms = match r.below(100) {
            0..=29 => 1,
            30..=64 => 2,
            65..=89 => 3,
            _ => 4,
        };
        let bq = mu.alloc(Kind::Plain, 1, 8, r.next_u64());
        mu.push(bq); // d+2
        let clauses = mu.alloc(Kind::RefArray, 10, 0, r.next_u64());
        mu.write_ref(mu.get(d + 2), 0, Some(clauses));

        // 3. Hit queue.
        let hq = mu.alloc(Kind::RefArray, HITS + 1, 0, r.next_u64());
        let hq_root = mu.push(hq); // d+3
        let mut queue = HitQueue {
            root: hq_root,
            keys: Vec::with_capacity(HITS),
        };
        let scratch = mu.push_opt(None); // d+4: the current postings array
        let sd_root = mu.push_opt(None); // d+5: the ScoreDoc being inserted

        for t in 0..nterms {
            let ti = pick_term(&mut r, self.nterms);
            // Term text as parsed from the query, Term, TermQuery.
            let text = new_string(mu, r.range(3, 14) as usize, r.next_u64());
            mu.push(text);
            let term = mu.alloc(Kind::Plain, 2, 8, r.next_u64());
            let dt = mu.depth();
            mu.write_ref(term, 1, Some(mu.get(dt - 1)));
            mu.set(dt - 1, Some(term));
            let tq = mu.alloc(Kind::Plain, 2, 8, r.next_u64());
            mu.write_ref(tq, 0, Some(mu.get(dt - 1)));
            let clauses = object::load_ref(mu.get(d + 2), 0).unwrap();
            mu.write_ref(clauses, t, Some(tq));
            // The per-thread term cache keeps recent terms (medium-lived objects).
            let cache = mu.get(base + S_TERMCACHE);
            mu.write_ref(cache, *cache_slot, Some(mu.get(dt - 1)));
            *cache_slot = (*cache_slot + 1) % TERM_CACHE;
            mu.truncate(dt - 1);

            // Weight, scorer, its doc/freq buffers, an IndexInput clone with a fresh 1 KiB buffer.
            let w = mu.alloc(Kind::Plain, 1, 24, r.next_u64());
            mu.push(w);
            let sc = mu.alloc(Kind::Plain, 3, 32, r.next_u64());
            let dsc = mu.depth();
            mu.write_ref(sc, 0, Some(mu.get(dsc - 1)));
            mu.set(dsc - 1, Some(sc));
            let docs = mu.alloc(Kind::Bytes, 0, 4 + 4 * 32, r.next_u64());
            mu.write_ref(mu.get(dsc - 1), 1, Some(docs));
            let freqs = mu.alloc(Kind::Bytes, 0, 4 + 4 * 32, r.next_u64());
            mu.write_ref(mu.get(dsc - 1), 2, Some(freqs));
            let input = mu.alloc(Kind::Plain, 2, 24, r.next_u64());
            mu.push(input);
            let buf = mu.alloc(Kind::Bytes, 0, 4 + 1024, r.next_u64());
            mu.write_ref(mu.get(dsc), 0, Some(buf));

            // Occasionally a big temporary array (postings skip data, a grown buffer).
            if r.permille(40) {
                let bytes = [2048usize, 4096, 6144, 8192, 12288][r.below(5) as usize];
                let _ = mu.alloc(Kind::Bytes, 0, bytes, r.next_u64());
            }

            // 4. Score the postings into the hit queue.
            mu.set(
                scratch,
                Some(object::load_ref(self.term(ti), TI_POSTINGS).unwrap()),
            );
            let nwords = object::payload_words(mu.get(scratch));
            for k in 0..nwords {
                let wv = object::payload_word(mu.get(scratch), k);
                let norms = mu.get(base + S_NORMS);
                let doc = ((wv >> 20) % self.ndocs as u64) as u32;
                let nb =
                    object::payload_word(norms, (doc as usize / 8) % object::payload_words(norms));
                let score = ((wv & 0xFFFF) ^ (nb & 0xFF)) as u32;
                let key = ((score as u64) << 32) | doc as u64;
                // Short-lived temporaries: a field-less 16-byte object (an iterator step, a
                // lock) every 4th doc, a boxed value every 8th, a 40-byte TermDocs state every 16th.
                if k % 4 == 3 {
                    let _ = mu.alloc(Kind::Plain, 0, 0, wv);
                }
                if k % 8 == 5 {
                    let _ = mu.alloc(Kind::Plain, 0, 8, wv ^ 1);
                }
                if k % 16 == 9 {
                    let _ = mu.alloc(Kind::Plain, 1, 16, wv ^ 2);
                }
                if queue.competitive(key) {
                    let sd = mu.alloc(Kind::Plain, 0, 16, key);
                    mu.set(sd_root, Some(sd));
                    queue.insert(mu, sd_root, key);
                }
            }
            mu.truncate(dsc - 1);
        }
        mu.set(scratch, None);
        mu.set(sd_root, None);
        queue
            .verify(mu)
            .map_err(|e| format!("thread {} query {}: {}", tid, q, e))?;

        // 5. Render the top PAGE hits: stored fields, StringBuilder, toString.
        let mut order: Vec<usize> = (0..queue.keys.len()).collect();
        order.sort_by(|&a, &b| queue.keys[b].cmp(&queue.keys[a]));
        let nhits = order.len().min(PAGE);
        let result = mu.alloc(Kind::RefArray, PAGE, 0, r.next_u64());
        let res_root = mu.push(result);
        for (h, &qi) in order.iter().take(nhits).enumerate() {
            let doc = (queue.keys[qi] & 0xFFFF_FFFF) as usize;
            let dh = mu.depth();
            // Document with its field list, two Fields with fresh strings read from "disk".
            let document = mu.alloc(Kind::Plain, 1, 8, r.next_u64());
            mu.push(document);
            let fields = mu.alloc(Kind::RefArray, 4, 0, r.next_u64());
            mu.write_ref(mu.get(dh), 0, Some(fields));
            let mut out_len = 8usize;
            for f in 0..2 {
                let stored = object::load_ref(self.doc(doc), f).unwrap();
                let nchars = (object::payload_words(object::load_ref(stored, 0).unwrap()) * 4)
                    .saturating_sub(2)
                    .max(1);
                out_len += nchars;
                let field = mu.alloc(Kind::Plain, 2, 16, r.next_u64());
                mu.push(field);
                let v = new_string(mu, nchars, r.next_u64());
                let df = mu.depth();
                mu.write_ref(mu.get(df - 1), 1, Some(v));
                let fields = object::load_ref(mu.get(dh), 0).unwrap();
                mu.write_ref(fields, f, Some(mu.get(df - 1)));
                mu.truncate(df - 1);
            }
            // StringBuilder growing from 16 chars: (n + 1) * 2, as java.lang.AbstractStringBuilder.
            let sb = mu.alloc(Kind::Plain, 1, 8, r.next_u64());
            mu.push(sb);
            let mut cap = 16usize;
            loop {
                let arr = mu.alloc(Kind::Chars, 0, 4 + 2 * cap, r.next_u64());
                mu.write_ref(mu.get(dh + 1), 0, Some(arr));
                if cap >= out_len {
                    break;
                }
                cap = (cap + 1) * 2;
            }
            let line = new_string(mu, out_len, r.next_u64() ^ h as u64);
            let result = mu.get(res_root);
            mu.write_ref(result, h, Some(line));
            mu.truncate(dh);
        }

        // 6. Publish.
        let result = mu.get(res_root);
        let sum = result_sum(result).map_err(|e| format!("thread {} query {}: {}", tid, q, e))?;
        let results = self.results.get().unwrap();
        mu.write_ref(results, tid, Some(result));
        // Check the query's own objects before dropping them.
        for i in d..mu.depth() {
            if let Some(o) = mu.get_opt(i) {
                object::check_object(o)
                    .map_err(|e| format!("thread {} query {}: {}", tid, q, e))?;
            }
        }
        string_sum(mu.get(d)).map_err(|e| format!("thread {} query {}: {}", tid, q, e))?;
        mu.truncate(d);
        Ok(sum)
    }
}
