//! One `lusearch` query: parse, build the per-term query objects, score the postings into the
//! hit queue, render the top hits and publish them.

use mmtk::util::ObjectReference;

use super::hit_queue::{HitQueue, HITS};
use super::index::TI_POSTINGS;
use super::{Lusearch, S_NORMS, S_TERMCACHE, TERM_CACHE};
use crate::object::{self, Kind};
use crate::rng::Rng;
use crate::runtime::Mu;
use crate::workloads::{new_string, string_sum};

const PAGE: usize = 10; // hits rendered and published per query

pub(super) fn result_sum(r: ObjectReference) -> Result<u64, String> {
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

impl Lusearch {
    /// Run query `q`; returns the checksum of the result it published.
    pub(super) fn query(
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
