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
//!
//! This file is the workload's driver (construction, each thread's run, the checks after each
//! iteration); `index` builds the shared index, `query` runs one query (with the hit queue of
//! `hit_queue`), and `jvm` holds what `lusearch-jvm` adds.

mod hit_queue;
mod index;
mod jvm;
mod query;

pub use jvm::{
    jvm_thread_state_bytes, jvm_thread_state_keep, jvm_thread_state_shape_alloc,
    JVM_LIVE_PER_THREAD,
};

use std::sync::Mutex;

use super::jvm_sizes::{self, JvmSizes};
use super::{new_string, share, string_sum, Params, Size, Workload};
use crate::object::{self, Kind};
use crate::rng::Rng;
use crate::runtime::{alloc_global_root, GlobalRoot, Mu};
use index::TI_TEXT;
use query::result_sum;

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
