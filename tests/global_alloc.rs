//! The core as this test binary's global allocator: ordinary Rust collections, threads and
//! strings run on it.

use shardsweep::ShardSweepAlloc;
use std::collections::{BTreeMap, HashMap};

#[global_allocator]
static A: ShardSweepAlloc = ShardSweepAlloc;

#[test]
fn std_collections_on_shardsweep() {
    let mut m = HashMap::new();
    let mut t = BTreeMap::new();
    for i in 0..50_000u64 {
        m.insert(i, format!("value-{i}"));
        t.insert(format!("k{i:08}"), vec![i; (i % 37) as usize]);
    }
    for i in (0..50_000u64).step_by(3) {
        m.remove(&i);
    }
    assert_eq!(m.get(&4).map(String::as_str), Some("value-4"));
    assert_eq!(t.get("k00000036").unwrap().len(), 36);
    let handles: Vec<_> = (0..4)
        .map(|k| {
            std::thread::spawn(move || {
                let v: Vec<String> = (0..20_000).map(|i| format!("{k}-{i}")).collect();
                v.iter().map(|s| s.len()).sum::<usize>()
            })
        })
        .collect();
    let total: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert!(total > 0);
    let big = vec![1u8; 10 << 20];
    assert_eq!(big.iter().map(|&b| b as usize).sum::<usize>(), 10 << 20);
}
