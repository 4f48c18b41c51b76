//! synthvm: a small, complete MMTk 0.33 VM binding running deterministic, multi-threaded GC
//! workloads under every MMTk plan.  See README.md.

// Every unsafe block says why it is sound, every unsafe fn what its caller must uphold.
#![warn(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

pub mod cli;
pub mod exit;
pub mod object;
pub mod rng;
pub mod runtime;
pub mod stats;
pub mod vm;
pub mod workloads;

use std::fmt::Write as _;
use std::sync::atomic::Ordering;
use std::time::Instant;

use runtime::Mu;
use workloads::{Params, Workload};

/// The features this build enables: synthvm's own (each but `shardsweep` forwards to the mmtk
/// feature of its name), then `mmtk/shardsweep` when the mmtk crate synthvm links was built
/// with the shardsweep space.  That one is a feature of the patched mmtk copy, enabled as
/// `--features mmtk/shardsweep`, not through a synthvm feature, so `cfg!` cannot see it: it is
/// read from mmtk's own build information ([`mmtk_has_shardsweep`]).
pub fn enabled_features() -> Vec<&'static str> {
    let mut v = Vec::new();
    if cfg!(feature = "shardsweep") {
        v.push("shardsweep");
    }
    if cfg!(feature = "sanity") {
        v.push("sanity");
    }
    if cfg!(feature = "vo_bit") {
        v.push("vo_bit");
    }
    if cfg!(feature = "malloc_mark_sweep") {
        v.push("malloc_mark_sweep");
    }
    if cfg!(feature = "extreme_assertions") {
        v.push("extreme_assertions");
    }
    if mmtk_has_shardsweep() {
        v.push("mmtk/shardsweep");
    }
    v
}

/// SHARDSWEEP_BLOCK_KIB as seen when synthvm was built (see build.rs).
pub const SHARDSWEEP_BLOCK_KIB: Option<&str> = option_env!("SHARDSWEEP_BLOCK_KIB");

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn make_workload(o: &cli::Options, threads: usize) -> Result<Box<dyn Workload>, String> {
    let p = Params {
        threads,
        seed: o.seed,
        size: o.size,
    };
    Ok(match o.workload.as_str() {
        "lusearch" => Box::new(workloads::lusearch::Lusearch::new(p)),
        "lusearch-jvm" => Box::new(workloads::lusearch::Lusearch::new_jvm(p)),
        "gcbench" => Box::new(workloads::gcbench::GcBench::new(p)),
        "fragger" => Box::new(workloads::fragger::Fragger::new(p)),
        "hog" => Box::new(workloads::hog::Hog::new(p)),
        "custom" => {
            let path = o.workload_file.as_deref().unwrap();
            let spec = load_spec(path)?;
            Box::new(workloads::custom::Custom::new(p, spec))
        }
        w => return Err(format!("unknown workload '{}'", w)),
    })
}

fn load_spec(path: &str) -> Result<workloads::custom::Spec, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read workload file '{}': {}", path, e))?;
    workloads::custom::Spec::parse(&text).map_err(|e| format!("workload file '{}': {}", path, e))
}

/// The `synthvm` program.  Never returns.
/// The shardsweep space's run-time settings (`policy/settings.rs`, `report.rs`, `global.rs`).
pub const SPACE_SETTINGS: [&str; 12] = [
    "SHARDSWEEP_ACCOUNTING",
    "SHARDSWEEP_SWEEP",
    "SHARDSWEEP_ADVICE",
    "SHARDSWEEP_PURGE",
    "SHARDSWEEP_DECAY",
    "SHARDSWEEP_ABANDON_IDLE",
    "SHARDSWEEP_ABANDON_ALL",
    "SHARDSWEEP_CHECK_ACCOUNTING",
    "SHARDSWEEP_CHECK_RECLAIM",
    "SHARDSWEEP_REPORT_PEAK",
    "SHARDSWEEP_REPORT_MUTATORS",
    "SHARDSWEEP_PRINT_SETTINGS",
];

/// Whether the mmtk crate was built with the shardsweep space (feature `shardsweep` of the
/// patched copy, enabled as `--features mmtk/shardsweep`, so not visible as a synthvm feature).
pub fn mmtk_has_shardsweep() -> bool {
    feature_listed(mmtk::build_info::MMTK_FEATURES, "shardsweep")
}

/// Whether `feature` is in `list`, a build's features as mmtk's build info gives them (comma
/// separated, upper case, `-` as `_`: "DEFAULT, SHARDSWEEP").
fn feature_listed(list: &str, feature: &str) -> bool {
    list.split(',').any(|f| {
        f.trim()
            .replace('-', "_")
            .eq_ignore_ascii_case(&feature.replace('-', "_"))
    })
}

/// One line on stderr when a shardsweep setting is given to a build without the space (stock
/// mmtk). In a build with it, the space itself notes settings given to another plan (its seam in
/// `create_plan`, `policy/settings.rs`), for every binding.
fn warn_ignored_space_settings() {
    if mmtk_has_shardsweep() {
        return;
    }
    let given: Vec<String> = SPACE_SETTINGS
        .iter()
        .filter_map(|v| std::env::var(v).ok().map(|x| format!("{v}={x}")))
        .collect();
    if !given.is_empty() {
        eprintln!(
            "synthvm: note: ignored {}: this mmtk build has no shardsweep space (stock mmtk; build with --features mmtk/shardsweep)",
            given.join(" ")
        );
    }
}

pub fn run_main() -> ! {
    exit::install_panic_hook();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = match cli::parse(&args) {
        Ok(cli::Parsed::Help) => {
            println!("{}", cli::USAGE);
            std::process::exit(0);
        }
        Ok(cli::Parsed::Run(o)) => o,
        Err(e) => {
            eprintln!("synthvm: error: {}", e);
            std::process::exit(exit::EXIT_USAGE);
        }
    };
    // The custom workload may take its default thread count from its file.
    let threads = match (o.threads, o.workload.as_str()) {
        (Some(t), _) => t,
        (None, "custom") => match load_spec(o.workload_file.as_deref().unwrap()) {
            Ok(s) => s.threads.unwrap_or(1).clamp(1, 1024),
            Err(e) => {
                eprintln!("synthvm: error: {}", e);
                std::process::exit(exit::EXIT_USAGE);
            }
        },
        (None, _) => 1,
    };
    let mut workload = match make_workload(&o, threads) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("synthvm: error: {}", e);
            std::process::exit(exit::EXIT_USAGE);
        }
    };
    let wname = match o.workload.as_str() {
        "custom" => format!("custom({})", o.workload_file.as_deref().unwrap()),
        w => w.to_string(),
    };

    warn_ignored_space_settings();
    let t_start = Instant::now();
    runtime::init_heap(&runtime::HeapConfig {
        plan: o.plan,
        heap_bytes: o.heap_bytes,
        verify_after_gc: o.verify,
        histogram: o.histogram,
        final_gc: o.final_gc,
        late_exit: o.late_exit,
        compressed_layout: o.compressed_layout,
        inline_alloc: o.inline_alloc,
    });
    let plan = cli::plan_name(o.plan);
    println!(
        "===== synthvm {} starting: plan {}, heap {}, {} mutator thread(s), {} GC thread(s), size {}, seed {} =====",
        wname,
        plan,
        runtime::heap_description(),
        threads,
        runtime::gc_threads(),
        o.size.name(),
        o.seed
    );

    // The main thread is a mutator: it builds the shared data.
    let main_mu = Mu::attach(usize::MAX);
    if let Err(e) = workload.boot(&main_mu) {
        exit::failed(&format!("{} boot: {}", wname, e));
    }
    if std::env::var("SYNTHVM_TEST_CORRUPT").is_ok_and(|v| v == "1") && runtime::corrupt_for_test()
    {
        eprintln!("synthvm: SYNTHVM_TEST_CORRUPT: corrupted one object on purpose");
    }
    if let Err(e) = workload.verify(&main_mu, 0) {
        exit::failed(&format!("{} after boot: {}", wname, e));
    }
    stats::note_used(runtime::used_bytes());
    let boot_ms = t_start.elapsed().as_secs_f64() * 1e3;

    let workload: &dyn Workload = &*workload;
    let wn: &str = &wname;
    let mut last_ms = 0.0;
    let mut last_gc = stats::GcSnapshot::default();
    let mut last_allocs = 0u64;
    for iter in 0..o.iterations {
        let gc0 = stats::gc_snapshot();
        // Relaxed: a statistic; the previous iteration's threads added to it before they were
        // joined (see `stats`' "Orderings").
        let a0 = stats::ALLOC_COUNT.load(Ordering::Relaxed);
        let t0 = Instant::now();
        main_mu.native(|| {
            std::thread::scope(|s| {
                for tid in 0..threads {
                    std::thread::Builder::new()
                        .name(format!("mutator-{}", tid))
                        .spawn_scoped(s, move || {
                            let mu = Mu::attach(tid);
                            if let Err(e) = workload.run_thread(&mu, tid, iter) {
                                exit::failed(&format!("{}: {}", wn, e));
                            }
                            drop(mu);
                        })
                        .expect("cannot spawn a mutator thread");
                }
            });
        });
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        if let Err(e) = workload.verify(&main_mu, iter + 1) {
            exit::failed(&format!("{} after iteration {}: {}", wname, iter + 1, e));
        }
        stats::note_used(runtime::used_bytes());
        let gc1 = stats::gc_snapshot();
        last_gc = stats::GcSnapshot {
            count: gc1.count - gc0.count,
            nanos: gc1.nanos - gc0.nanos,
        };
        // Relaxed: as `a0`; this iteration's threads are joined.
        last_allocs = stats::ALLOC_COUNT.load(Ordering::Relaxed) - a0;
        last_ms = ms;
        if iter + 1 < o.iterations {
            println!(
                "===== synthvm {} completed warmup {} in {} msec =====",
                wname,
                iter + 1,
                ms.round() as u64
            );
        }
    }
    let final_used = runtime::used_bytes();
    stats::note_used(final_used);
    // --final-gc: every mutator thread has finished (their per-query garbage is dead); only the
    // workload's long-lived data is reachable.  The main thread is the only mutator and stays in
    // the VM after the GC, so nothing can run or move objects during the census.
    let final_gc = if o.final_gc {
        main_mu.collect_full();
        let used = runtime::used_bytes();
        Some((used, runtime::live_census()))
    } else {
        None
    };
    drop(main_mu);
    let total_ms = t_start.elapsed().as_secs_f64() * 1e3;
    println!(
        "===== synthvm {} PASSED in {} msec =====",
        wname,
        last_ms.round() as u64
    );

    if o.histogram {
        let h = stats::histogram::take();
        let total: u64 = h.values().sum();
        let bytes: u64 = h.iter().map(|(s, c)| *s as u64 * c).sum();
        eprintln!(
            "# allocation size histogram: size_bytes count percent_of_objects percent_of_bytes"
        );
        for (s, c) in &h {
            eprintln!(
                "{} {} {:.3} {:.3}",
                s,
                c,
                100.0 * *c as f64 / total as f64,
                100.0 * (*s as u64 * c) as f64 / bytes as f64
            );
        }
        eprintln!(
            "# {} distinct sizes, {} objects, {} bytes",
            h.len(),
            total,
            bytes
        );
        // Per mutator, in the order the threads finished (one line per thread per iteration).
        eprintln!(
            "# per-mutator size classes (bins 1..=48, <= 64 KiB; windows of 1 MiB of the thread's allocation): \
mutator objects bytes classes classes_per_MiB_mean classes_per_MiB_max windows share_gt_8k share_gt_64k"
        );
        for l in stats::class_profile::take() {
            eprintln!("{}", l);
        }
    }

    // The report's statistics: every mutator is done and no GC can start (no thread allocates),
    // and the last GC's writes are ordered before this by the safepoint handshake that resumed
    // this thread, the mutators' by their joins: Relaxed loads (see `stats`' "Orderings").
    let gc_ms = stats::GC_NANOS.load(Ordering::Relaxed) as f64 / 1e6;
    let peak = stats::PEAK_USED_BYTES.load(Ordering::Relaxed);
    let feats = enabled_features()
        .iter()
        .map(|f| json_str(f))
        .collect::<Vec<_>>()
        .join(",");
    let heap = runtime::heap_bytes();
    let last_gc_ms = last_gc.nanos as f64 / 1e6;
    let rate = if last_ms > 0.0 {
        last_allocs as f64 / (last_ms / 1e3) / threads as f64
    } else {
        0.0
    };
    let fg = |f: fn(usize, &runtime::LiveCensus) -> usize| -> String {
        final_gc
            .as_ref()
            .map(|(u, c)| f(*u, c).to_string())
            .unwrap_or_else(|| "null".into())
    };
    let mut j = String::new();
    let _ = write!(
        j,
        "{{\"synthvm\":{{\"status\":\"PASSED\",\"workload\":{},\"size\":{},\"seed\":{},\"threads\":{},\"iterations\":{},\
\"plan\":{},\"heap_mib\":{},\"heap_bytes\":{},\"gc_threads\":{},\"verify\":{},\"features\":[{}],\"shardsweep_block_kib\":{},\
\"mmtk_version\":\"0.33.0\",\"total_ms\":{:.3},\"boot_ms\":{:.3},\"mutator_ms\":{:.3},\"gc_ms\":{:.3},\"gc_count\":{},\
\"last_iteration_ms\":{:.3},\"last_iteration_mutator_ms\":{:.3},\"last_iteration_gc_ms\":{:.3},\"last_iteration_gc_count\":{},\
\"peak_used_bytes\":{},\"peak_used_pages\":{},\"peak_used_bytes_before_gc\":{},\"final_used_bytes\":{},\"page_bytes\":4096,\
\"peak_rss_kib\":{},\"allocations\":{},\"allocated_bytes\":{},\"last_iteration_allocations\":{},\"allocations_per_sec_per_thread\":{:.0},\"inline_allocations\":{},\
\"final_gc\":{},\"final_gc_used_bytes\":{},\"final_gc_live_bytes\":{},\"final_gc_live_objects\":{},\"final_gc_live_classes\":{},\
\"final_gc_live_small_bytes\":{},\"final_gc_small_limit\":{}}}}}",
        json_str(&o.workload),
        json_str(o.size.name()),
        o.seed,
        threads,
        o.iterations,
        json_str(plan),
        heap as f64 / (1u64 << 20) as f64,
        heap,
        runtime::gc_threads(),
        o.verify,
        feats,
        SHARDSWEEP_BLOCK_KIB.map(json_str).unwrap_or_else(|| "null".into()),
        total_ms,
        boot_ms,
        total_ms - gc_ms,
        gc_ms,
        stats::GC_COUNT.load(Ordering::Relaxed),
        last_ms,
        last_ms - last_gc_ms,
        last_gc_ms,
        last_gc.count,
        peak,
        peak >> 12,
        stats::PEAK_USED_BYTES_BEFORE_GC.load(Ordering::Relaxed),
        final_used,
        stats::peak_rss_kib(),
        stats::ALLOC_COUNT.load(Ordering::Relaxed),
        stats::ALLOC_BYTES.load(Ordering::Relaxed),
        last_allocs,
        rate,
        stats::INLINE_ALLOC_COUNT.load(Ordering::Relaxed),
        o.final_gc,
        fg(|u, _| u),
        fg(|_, c| c.bytes),
        fg(|_, c| c.objects),
        fg(|_, c| c.classes),
        fg(|_, c| c.small_bytes),
        fg(|_, c| c.small_limit),
    );
    println!("{}", j);
    use std::io::Write;
    let _ = std::io::stdout().flush();
    // GC worker threads never return; leave without waiting for them.
    exit::leave(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_list_parsing() {
        assert!(feature_listed("DEFAULT, SHARDSWEEP", "shardsweep"));
        assert!(feature_listed("SHARDSWEEP", "shardsweep"));
        assert!(feature_listed("DEFAULT,SANITY,SHARDSWEEP", "shardsweep"));
        assert!(!feature_listed("DEFAULT, SHARDSWEEP_X", "shardsweep"));
        assert!(!feature_listed("DEFAULT", "shardsweep"));
        assert!(!feature_listed("", "shardsweep"));
        assert!(feature_listed(
            "DEFAULT, MALLOC_MARK_SWEEP",
            "malloc_mark_sweep"
        ));
    }

    /// `mmtk/shardsweep` is reported exactly when the linked mmtk has the space (in a build
    /// without `--features mmtk/shardsweep` it is absent; `tests/features.rs` checks both
    /// against the space itself).
    #[test]
    fn enabled_features_name_mmtk_shardsweep() {
        assert_eq!(
            enabled_features().contains(&"mmtk/shardsweep"),
            mmtk_has_shardsweep()
        );
        assert_eq!(
            mmtk_has_shardsweep(),
            mmtk::build_info::MMTK_FEATURES
                .to_ascii_lowercase()
                .contains("shardsweep")
        );
    }
}
