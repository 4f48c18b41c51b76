//! One scenario: large requests (above the small size classes) through the standalone mode's
//! cache of freed mappings, from several threads, freed on other threads: every object keeps its
//! contents while live, and reused mappings are never handed to two owners.

use shardsweep::malloc::standalone::Standalone;
use std::alloc::Layout;
use std::thread;

#[test]
fn large_mappings_are_reused_without_sharing() {
    let hs: Vec<_> = (0..4u8)
        .map(|t| {
            thread::spawn(move || {
                let mut live = Vec::new();
                for i in 0..400usize {
                    let size = 8193 + (i * 7919 + t as usize * 104_729) % (300 << 10);
                    let l = Layout::from_size_align(size, 8 << (i % 10)).unwrap();
                    let p = Standalone::alloc(l);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % l.align(), 0);
                    // SAFETY: `size` fresh bytes.
                    unsafe { std::ptr::write_bytes(p, t ^ i as u8, size) };
                    live.push((p as usize, l, t ^ i as u8));
                    if live.len() > 6 {
                        let (q, ql, v) = live.remove(i % 5);
                        // SAFETY: live and ours; contents checked before the free.
                        unsafe {
                            assert!((0..ql.size())
                                .step_by(4096)
                                .all(|k| *(q as *const u8).add(k) == v));
                            Standalone::dealloc(q as *mut u8, ql);
                        }
                    }
                }
                live
            })
        })
        .collect();
    // Freed on this thread: mappings of four threads go back to one cache.
    for (q, ql, v) in hs.into_iter().flat_map(|h| h.join().unwrap()) {
        // SAFETY: as above.
        unsafe {
            assert!((0..ql.size())
                .step_by(4096)
                .all(|k| *(q as *const u8).add(k) == v));
            Standalone::dealloc(q as *mut u8, ql);
        }
    }
}
