//! Self-checks at the end of every GC (stop-the-world), enabled by settings:
//!
//! * `SHARDSWEEP_CHECK_ACCOUNTING=1` (default in debug builds): **the kernel's count of the
//!   space's resident pages (`mincore` over every chunk of the space) is at most the pages the
//!   space reports to MMTk**, so the heap limit bounds its resident memory; the space's used
//!   pages (`reserved_pages`) are the core's resident pages plus their side metadata; the count
//!   equals the sum of `resident().count()` over every block of every heap and of the abandoned
//!   stacks (walked) plus the kept empty blocks (with `SHARDSWEEP_COUNT=in-use`: the sum of
//!   `charged().count()`, and the kernel's count is at most the blocks' resident pages instead);
//!   with `SHARDSWEEP_IDLE_MARGIN`, the pages in use plus the idle ones beyond the margin; under
//!   every count the resident pages the space notes are the blocks' resident pages;
//!   those blocks are exactly the live block headers
//!   found in the space's chunks (none leaked, none lost) and exactly the blocks the page
//!   resource has committed (plus spares and kept blocks); under block accounting every block is
//!   counted whole.
//! * `SHARDSWEEP_CHECK_RECLAIM=1`: after the sweep every block is charged exactly for its header page and the pages its live cells overlap
//!   (`charged == {0} ∪ allocated_pages()`: a dead cell spilling into a page no live cell needs
//!   is set aside by the core's sweep, so that page is given back), hence
//!   `charged(b) ≤ 1 + |S(b)|·(1 + ⌈(cell−1)/4 KiB⌉)` with `S(b)` the pages where a live cell of
//!   `b` starts (≤ 2 pages per such page for cells ≤ 4 KiB). It also reports the footprint
//!   against the live data: `bound_live = Σ_(owner,bin) ⌈live bytes/4 KiB⌉ + #(owner,bin) +
//!   #blocks` (one page per live (thread, size class) plus the header pages), where the owner of
//!   an abandoned block is "abandoned", and where the rest goes: `header_only` (header pages
//!   without a live cell), `quarter_full` (charged pages under 1/4 live), `waste_pages` (unused
//!   bytes of charged pages, in pages, for cells ≤ 256 B / ≤ 1 KiB / larger) and the abandoned
//!   blocks with their charged pages. A block a lazy sweep has not reached yet (accounted at
//!   the GC, lists not rebuilt) is checked against the marks instead: charged exactly for page 0
//!   and the pages of marked cells; it is left out of the footprint figures (`unswept=`).
//!
//! Each check prints one line to stderr per GC (`shardsweep-check ...`), and panics with the
//! reason on failure.

use super::ShardSweepSpace;
use crate::policy::marksweepspace::shardsweep::region::Block;
use crate::policy::marksweepspace::shardsweep::settings::SweepMode;
use crate::util::heap::PageResource;
use crate::util::linear_scan::Region;
use crate::util::object_enum::BlockMayHaveObjects;
use crate::policy::space::Space;
use crate::vm::VMBinding;
use shardsweep::{Accounting, Heap, PageBudget, PageMask, PAGE_BYTES};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;

impl<VM: VMBinding> ShardSweepSpace<VM> {
    /// Runs the enabled checks (end of GC, mutators stopped).
    pub(super) fn check_after_gc(&self) {
        let s = self.settings();
        if !(s.check_accounting || s.check_reclaim) {
            return;
        }
        let gc = self.gcs.fetch_add(1, Ordering::Relaxed) + 1;
        if s.check_accounting {
            match self.check_accounting() {
                Ok(line) => eprintln!("shardsweep-check accounting gc={gc} ok {line}"),
                Err(e) => panic!("shardsweep-check accounting gc={gc} FAILED: {e}"),
            }
        }
        if s.check_reclaim {
            match self.check_reclaim() {
                Ok(line) => eprintln!("shardsweep-check reclaim gc={gc} ok {line}"),
                Err(e) => panic!("shardsweep-check reclaim gc={gc} FAILED: {e}"),
            }
        }
    }

    /// Every block: (owner heap or 0 for abandoned, block, whether a lazy sweep has not reached it).
    fn walk_blocks(&self) -> Vec<(usize, *mut shardsweep::Block, bool)> {
        let mut v = Vec::new();
        let Some(shared) = self.shared_if_created() else { return v };
        for &h in self.heaps.lock().unwrap().iter() {
            // SAFETY: registered heaps are alive; mutators are stopped.
            let heap = unsafe { &*(h as *const Heap) };
            let unswept: HashSet<usize> = heap.unswept_block_list().into_iter().map(|b| b as usize).collect();
            for b in heap.blocks() {
                v.push((h, b, unswept.contains(&(b as usize))));
            }
        }
        shared.for_each_abandoned(&mut |b| v.push((0, b as *const _ as *mut _, false)));
        v
    }

    /// The resident pages of each allocated chunk of the space, as the kernel reports them
    /// (`mincore`): (chunk start, one flag per page).
    fn resident_by_chunk(&self) -> Vec<(crate::util::Address, Vec<u8>)> {
        use crate::util::heap::chunk_map::Chunk;
        let mut v = Vec::new();
        // `all_chunks` yields only this space's allocated chunks.
        for chunk in self.chunk_map.all_chunks() {
            let mut flags = vec![0u8; Chunk::BYTES / PAGE_BYTES];
            // SAFETY: an allocated chunk of the space is mapped whole (the mmapper maps whole
            // chunks); `flags` has one byte per page of it.
            let rc = unsafe { libc::mincore(chunk.start().to_mut_ptr(), Chunk::BYTES, flags.as_mut_ptr()) };
            assert_eq!(rc, 0, "mincore of chunk {} failed", chunk.start());
            v.push((chunk.start(), flags));
        }
        v
    }

    fn check_accounting(&self) -> Result<String, String> {
        // First what the kernel says, before this check reads any header (reading a page the
        // OS has not backed would map the zero page, which mincore counts).
        let chunks = self.resident_by_chunk();
        let os_resident: usize = chunks.iter().map(|(_, f)| f.iter().filter(|&&x| x & 1 != 0).count()).sum();
        let blocks = self.walk_blocks();
        let mut errs = Vec::new();
        let kept = self.kept.lock().unwrap().clone();
        let kept_pages = self.kept_pages();
        // SAFETY: walked blocks are live; the world is stopped.
        let resident_sum: usize = blocks.iter().map(|&(_, b, _)| unsafe { (*b).resident().count() }).sum::<usize>() + kept_pages;
        // SAFETY: as above.
        let in_use: usize = blocks.iter().map(|&(_, b, _)| unsafe { (*b).charged().count() }).sum();
        let charged = self.charged_pages();
        let distinct: HashSet<usize> = blocks.iter().map(|&(_, b, _)| b as usize).collect();
        // Counting resident pages the count is every resident page; counting pages in use
        // (`SHARDSWEEP_COUNT=in-use`) it is the pages in use, and the idle ones stay resident
        // uncounted. Either way the kernel's resident pages are at most the blocks' resident
        // pages (none leaked): under the resident count, at most what the space reports.
        // With an idle margin (`SHARDSWEEP_IDLE_MARGIN`) the core counts pages in use and the
        // trigger's count adds the idle pages beyond the margin, from the resident pages noted.
        let counts_idle = self.counts_idle();
        let core = self.pages.charged();
        let noted = self.resident_pages();
        if noted != resident_sum {
            errs.push(format!("the space notes {noted} resident pages but the blocks hold {resident_sum} ({kept_pages} in kept blocks)"));
        }
        if counts_idle && resident_sum != core {
            errs.push(format!("the space counts {core} resident pages but the blocks hold {resident_sum} ({kept_pages} in kept blocks)"));
        }
        if !counts_idle && in_use != core {
            errs.push(format!("the space counts {core} pages in use but the blocks have {in_use} charged"));
        }
        if let Some(margin) = self.idle_margin_pages() {
            let beyond = resident_sum.saturating_sub(in_use).saturating_sub(margin);
            if charged != in_use + beyond {
                errs.push(format!("the space counts {charged} pages, not the {in_use} in use plus the {beyond} idle beyond the margin of {margin}"));
            }
        }
        if os_resident > resident_sum {
            // Name a few pages the kernel holds that no block counts.
            let mut counted: HashSet<usize> = HashSet::new();
            let mut note = |b: usize, m: PageMask| {
                for (first, n) in m.runs() {
                    for p in first..first + n {
                        counted.insert(b + p * PAGE_BYTES);
                    }
                }
            };
            for &(_, b, _) in blocks.iter() {
                // SAFETY: as above.
                note(b as usize, unsafe { (*b).resident() });
            }
            for a in kept.iter() {
                // SAFETY: as above.
                note(a.as_usize(), unsafe { shardsweep::Block::retired_resident(a.to_ptr()) });
            }
            let mut extra = Vec::new();
            // Per block with uncounted pages: its uncounted and resident pages, and what holds it.
            let mut by_block: Vec<(usize, PageMask, PageMask)> = Vec::new();
            for (start, flags) in chunks.iter() {
                for (i, &f) in flags.iter().enumerate() {
                    let a = start.as_usize() + i * PAGE_BYTES;
                    let b = a & !(shardsweep::BLOCK_BYTES - 1);
                    let p = (a - b) / PAGE_BYTES;
                    if f & 1 != 0 && !counted.contains(&a) {
                        if extra.len() < 8 {
                            extra.push(format!("{a:#x} (page {p} of block {b:#x}{})",
                                if distinct.contains(&b) { ", live" } else { "" }));
                        }
                        match by_block.last_mut() {
                            Some((lb, m, _)) if *lb == b => *m = m.union(PageMask::page(p)),
                            _ => by_block.push((b, PageMask::page(p), PageMask::EMPTY)),
                        }
                    }
                }
            }
            for (b, _, os) in by_block.iter_mut() {
                let (start, flags) = chunks.iter().find(|(s, _)| s.as_usize() == *b & !(crate::util::heap::chunk_map::Chunk::BYTES - 1)).unwrap();
                let first = (*b - start.as_usize()) / PAGE_BYTES;
                for p in 0..shardsweep::BLOCK_BYTES / PAGE_BYTES {
                    if flags[first + p] & 1 != 0 {
                        *os = os.union(PageMask::page(p));
                    }
                }
            }
            let spare: HashSet<usize> = self.spare.lock().unwrap().iter().map(|a| a.as_usize()).collect();
            let kept_set: HashSet<usize> = kept.iter().map(|a| a.as_usize()).collect();
            let holders: Vec<String> = by_block.iter().take(8).map(|&(b, m, os)| {
                let on = if distinct.contains(&b) { "listed" } else if kept_set.contains(&b) { "kept" }
                    else if spare.contains(&b) { "spare" } else { "on no list" };
                // The header is read only where the kernel holds page 0 (else it reads the zero page).
                let header = if os.contains(0) {
                    // SAFETY: page 0 of a block of the space is resident; integer fields only; the
                    // world is stopped.
                    unsafe {
                        let h = b as *const shardsweep::Block;
                        format!("retired resident {:?}, live header {}", shardsweep::Block::retired_resident(h),
                            (*h).is_live_header())
                    }
                } else {
                    "header page not resident".to_string()
                };
                format!("block {b:#x} ({on}; {header}): uncounted {m:?} of resident {os:?}")
            }).collect();
            errs.push(format!(
                "the kernel reports {os_resident} resident pages in the space's chunks, more than the {resident_sum} its blocks hold (it reports {charged} to MMTk); uncounted: {}; {}",
                extra.join(", "), holders.join("; ")
            ));
        }
        let meta = self.estimate_side_meta_pages(charged);
        let used = self.reserved_pages();
        if used != charged + meta {
            errs.push(format!("space used pages {used} != resident {charged} + side metadata {meta}"));
        }
        if distinct.len() != blocks.len() {
            errs.push(format!("{} blocks listed twice", blocks.len() - distinct.len()));
        }
        let mut headers = 0;
        for (start, flags) in chunks.iter() {
            let chunk = crate::util::heap::chunk_map::Chunk::from_aligned_address(*start);
            for block in chunk.iter_region::<Block>() {
                // A live header's page is resident (it is in use): only those are read.
                let page0 = (block.start() - *start) / PAGE_BYTES;
                if flags[page0] & 1 != 0 && block.may_have_objects() {
                    headers += 1;
                    if !distinct.contains(&block.start().as_usize()) {
                        errs.push(format!("block {} has a live header but no heap or stack holds it", block.start()));
                    }
                }
            }
        }
        if headers != blocks.len() {
            errs.push(format!("{headers} live block headers in the chunks, {} blocks walked", blocks.len()));
        }
        let spare = self.spare.lock().unwrap().len();
        let committed = self.pr.committed_pages();
        if committed != (blocks.len() + spare + kept.len()) * Block::PAGES {
            errs.push(format!(
                "page resource committed {committed} pages, expected ({} blocks + {spare} spares + {} kept) x {}",
                blocks.len(),
                kept.len(),
                Block::PAGES
            ));
        }
        // The GC's end left at most the room `trim_idle_after_gc` keeps: counting resident pages,
        // the free room less an eighth of the heap (none when less than a quarter is free), plus
        // the idle margin if any; counting pages in use, the cap. None after a user-requested or emergency collection.
        // (`SHARDSWEEP_PURGE=now` does not trim: its sweeps drop idle pages as they go, so it
        // keeps less.)
        let idle = resident_sum.saturating_sub(in_use);
        if let Some(room) = self.idle_room(in_use) {
            if idle > room {
                let heap = self.get_gc_trigger().policy.get_current_heap_size_in_pages();
                errs.push(format!(
                    "{idle} idle pages left after the GC, more than the room of {room} ({heap} pages in the heap, {in_use} in use)"
                ));
            }
        }
        let whole = blocks.len() + if counts_idle { kept.len() } else { 0 };
        if self.settings().accounting == Accounting::Block && core != whole * Block::PAGES {
            errs.push(format!("block accounting: {core} pages counted for {whole} whole blocks"));
        }
        if errs.is_empty() {
            Ok(format!(
                "used_pages={used} resident={charged} in_use={in_use} idle={idle} os_resident={os_resident} meta={meta} blocks={} committed_blocks={} spare={spare} kept={}",
                blocks.len(),
                committed / Block::PAGES,
                kept.len()
            ))
        } else {
            Err(errs.join("; "))
        }
    }

    fn check_reclaim(&self) -> Result<String, String> {
        let blocks = self.walk_blocks();
        let page = self.settings().accounting == Accounting::Page;
        let mut errs = Vec::new();
        let (mut checked, mut skipped, mut charged_total, mut live_cells, mut live_bytes) = (0, 0, 0, 0, 0);
        // Footprint breakdown (page accounting): header pages without an allocated cell, charged
        // pages less than a quarter full, unused bytes of charged pages by cell size
        // (≤ 256 B, ≤ 1 KiB, larger), and the abandoned blocks.
        let (mut header_only, mut quarter_full, mut waste) = (0, 0, [0usize; 3]);
        let (mut abandoned, mut abandoned_pages) = (0, 0);
        let mut pairs: HashMap<(usize, usize), (usize, usize)> = HashMap::new(); // (owner, bin) -> (live bytes, blocks)
        for &(owner, b, unswept) in blocks.iter() {
            // SAFETY: live blocks, mutators stopped.
            let b = unsafe { &*b };
            if unswept {
                // Accounted at this GC, lists not yet rebuilt: the charge must already be page 0
                // plus the pages of marked cells (the marks stay until the owner sweeps).
                skipped += 1;
                if page {
                    let expect = b.live_pages(&mut |c| crate::policy::marksweepspace::shardsweep::sweep::is_marked::<VM>(c));
                    if b.charged() != expect {
                        errs.push(format!(
                            "unswept block {:p} (cell {} B): charged pages {:#x}, expected {:#x}",
                            b as *const _,
                            b.cell_size(),
                            b.charged().0,
                            expect.0
                        ));
                    }
                }
                continue;
            }
            checked += 1;
            let cs = b.cell_size();
            let charged = b.charged();
            charged_total += charged.count();
            live_cells += b.used();
            live_bytes += b.used() * cs;
            if page {
                let per_page = b.allocated_bytes_per_page();
                for p in charged.runs().flat_map(|(first, n)| first..first + n) {
                    let used = per_page[p] as usize;
                    if p == 0 && used == 0 {
                        header_only += 1;
                    }
                    let class = if cs <= 256 { 0 } else if cs <= 1024 { 1 } else { 2 };
                    waste[class] += PAGE_BYTES - used.min(PAGE_BYTES);
                    if used * 4 < PAGE_BYTES {
                        quarter_full += 1;
                    }
                }
                if owner == 0 {
                    abandoned += 1;
                    abandoned_pages += charged.count();
                }
            }
            let e = pairs.entry((owner, b.bin())).or_default();
            e.0 += b.used() * cs;
            e.1 += 1;
            if page {
                let starts = b.allocated_start_pages();
                // Exactly the header page and the pages live cells overlap.
                let expect = PageMask::page(0).union(b.allocated_pages());
                let bound = 1 + starts.count() * (1 + (cs - 1).div_ceil(PAGE_BYTES));
                if charged != expect || charged.count() > bound {
                    errs.push(format!(
                        "block {:p} (cell {cs} B, {} live): charged pages {:#x}, expected {:#x} (bound {bound})",
                        b as *const _,
                        b.used(),
                        charged.0,
                        expect.0
                    ));
                }
            }
        }
        errs.truncate(5);
        // The large-object space's free pages dropped at this GC's end (large_objects.rs).
        let los_free_resident = self.los_free_resident();
        if let Some(n) = los_free_resident.filter(|&n| n > 0) {
            errs.push(format!("large-object space: {n} free pages still resident after the drop"));
        }
        let live_pairs = pairs.values().filter(|(bytes, _)| *bytes > 0).count();
        let data_pages: usize = pairs.values().map(|(bytes, _)| bytes.div_ceil(PAGE_BYTES)).sum();
        let bound_live = data_pages + live_pairs + checked;
        let line = format!(
            "mode={} sweep={} blocks={checked} unswept={skipped} charged={charged_total} live_cells={live_cells} live_bytes={live_bytes} \
             live_pairs={live_pairs} data_pages={data_pages} bound_live={bound_live} block_pages={} space_used_pages={} \
             header_only={header_only} quarter_full={quarter_full} waste_pages={}/{}/{} abandoned={abandoned} abandoned_pages={abandoned_pages} \
             los_free_resident={}",
            if page { "page" } else { "block" },
            if self.settings().sweep == SweepMode::Lazy { "lazy" } else { "eager" },
            checked * Block::PAGES,
            self.reserved_pages(),
            waste[0] / PAGE_BYTES,
            waste[1] / PAGE_BYTES,
            waste[2] / PAGE_BYTES,
            los_free_resident.map_or("-".to_string(), |n| n.to_string()),
        );
        if errs.is_empty() {
            Ok(line)
        } else {
            Err(format!("{}; {line}", errs.join("; ")))
        }
    }
}
