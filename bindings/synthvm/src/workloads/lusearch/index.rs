//! The shared index `lusearch` searches, built at boot and reached from a global root: term
//! segments (each term a TermInfo with its text and a postings byte array) and stored
//! documents (title and path strings).

use mmtk::util::ObjectReference;

use super::Lusearch;
use crate::object::{self, Kind};
use crate::rng::Rng;
use crate::runtime::Mu;
use crate::workloads::new_string;

const SEGMENT: usize = 1024;

// Index object layout.
const IX_TERMS: usize = 0;
const IX_DOCS: usize = 1;
// TermInfo: [text, postings]
pub(super) const TI_TEXT: usize = 0;
pub(super) const TI_POSTINGS: usize = 1;
// Document: [title, path]

impl Lusearch {
    pub(super) fn index(&self) -> ObjectReference {
        self.index.get().expect("index root lost")
    }

    pub(super) fn term(&self, i: usize) -> ObjectReference {
        let segs = object::load_ref(self.index(), IX_TERMS).expect("term segments lost");
        let seg = object::load_ref(segs, i / SEGMENT).expect("term segment lost");
        object::load_ref(seg, i % SEGMENT).expect("term lost")
    }

    pub(super) fn doc(&self, i: usize) -> ObjectReference {
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

    pub(super) fn build_index(&mut self, mu: &Mu) -> Result<(), String> {
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

    pub(super) fn index_checksum(&self) -> Result<(u64, u64), String> {
        crate::workloads::tree_sum(self.index()).map_err(|e| format!("lusearch index: {}", e))
    }
}
