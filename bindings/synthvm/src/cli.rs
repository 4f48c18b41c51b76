//! Hand-written, DaCapo-like command line parser.

use mmtk::util::options::PlanSelector;

use crate::workloads::Size;

pub const USAGE: &str = "\
usage: synthvm [OPTIONS] WORKLOAD

WORKLOAD is one of: lusearch, lusearch-jvm, gcbench, fragger, hog, custom (custom needs
--workload-file FILE; a path to a workload file is accepted in place of WORKLOAD too).
lusearch-jvm is lusearch with a JVM's bytes and size classes per query (see README.md).

options:
  -t, --threads N        mutator threads (default 1; 1..1024)
  -n, --iterations N     iterations; the last one is timed, like DaCapo (default 1)
      --heap MiB         fixed heap size in MiB (also accepts a K/M/G suffix)
  -Xmx<N>[k|m|g]         same as --heap, Java style (e.g. -Xmx64m, -Xmx1g)
      --plan NAME        MMTk plan (default: MMTK_PLAN, else GenImmix): NoGC, SemiSpace,
                         GenCopy, Immix, GenImmix, StickyImmix, MarkSweep, MarkCompact,
                         PageProtect
      --seed N           random seed (default 1)
      --size S           small | default | large (default: default)
      --verify           also walk and check the whole reachable heap after every GC
      --workload-file F  description file for the custom workload
      --histogram        print the allocation size histogram (on stderr) at the end, then one
                         line per mutator thread: its mimalloc size classes and bytes
      --final-gc         after the last iteration force a full GC and report the used and
                         the live bytes after it (JSON final_gc_* fields)
      --late-exit        an exiting mutator thread leaves the thread list first and destroys
                         its MMTk mutator only after the next GC (as an OpenJDK thread can:
                         GCs in between do not see that mutator)
      --inline-alloc     allocate as a JIT's inline fast path does, from nothing but what
                         MMTk's AllocatorInfo reports for the default allocator (the free-list
                         fast path of a shardsweep build's MarkSweep): raw loads and stores,
                         the call into MMTk when the list is empty or the object too big; with
                         no such fast path every allocation calls MMTk (JSON inline_allocations)
      --compressed-layout
                         lay MMTk's spaces out as mmtk-openjdk does with compressed oops: from
                         1 GiB up to 4 GiB (32 GiB for larger heaps), discontiguous spaces that
                         take chunks from one shared pool (needs a heap of at most 32 GiB)
  -h, --help             this help

environment: MMTK_PLAN, MMTK_THREADS (GC threads), MMTK_GC_TRIGGER and the other MMTK_*
options are read by MMTk; SYNTHVM_GC_OVERHEAD_LIMIT=0 disables the GC overhead limit.
SHARDSWEEP_* settings are read by the shardsweep space (MarkSweep in a build with it): an
invalid value exits 2 with one line naming the valid values; a setting this build or plan
ignores is noted once on stderr.
On success prints a line containing PASSED, then one JSON line starting with {\"synthvm\":.
Exit status: 0 passed, 1 failed check, 2 usage error, 3 out of memory, 101 internal panic.";

#[derive(Clone, Debug)]
pub struct Options {
    pub workload: String,
    pub threads: Option<usize>,
    pub iterations: usize,
    pub heap_bytes: Option<usize>,
    pub plan: PlanSelector,
    pub seed: u64,
    pub size: Size,
    pub verify: bool,
    pub workload_file: Option<String>,
    pub histogram: bool,
    pub final_gc: bool,
    pub late_exit: bool,
    pub compressed_layout: bool,
    pub inline_alloc: bool,
}

pub enum Parsed {
    Run(Options),
    Help,
}

pub const PLANS: [(&str, PlanSelector); 9] = [
    ("NoGC", PlanSelector::NoGC),
    ("SemiSpace", PlanSelector::SemiSpace),
    ("GenCopy", PlanSelector::GenCopy),
    ("Immix", PlanSelector::Immix),
    ("GenImmix", PlanSelector::GenImmix),
    ("StickyImmix", PlanSelector::StickyImmix),
    ("MarkSweep", PlanSelector::MarkSweep),
    ("MarkCompact", PlanSelector::MarkCompact),
    ("PageProtect", PlanSelector::PageProtect),
];

pub const WORKLOADS: [&str; 6] = [
    "lusearch",
    "lusearch-jvm",
    "gcbench",
    "fragger",
    "hog",
    "custom",
];

pub fn parse_plan(s: &str) -> Option<PlanSelector> {
    PLANS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(s))
        .map(|(_, p)| *p)
}

pub fn plan_name(p: PlanSelector) -> &'static str {
    PLANS
        .iter()
        .find(|(_, q)| *q == p)
        .map(|(n, _)| *n)
        .unwrap_or("?")
}

/// Parse a size: plain number = `default_unit` bytes, or a number with a k/m/g suffix.
fn parse_size(s: &str, default_unit: usize) -> Option<usize> {
    let s = s.trim();
    let (num, unit) = match s.chars().last()? {
        'k' | 'K' => (&s[..s.len() - 1], 1usize << 10),
        'm' | 'M' => (&s[..s.len() - 1], 1 << 20),
        'g' | 'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, default_unit),
    };
    let n: usize = num.parse().ok()?;
    let b = n.checked_mul(unit)?;
    if b == 0 {
        None
    } else {
        Some(b)
    }
}

fn num<T: std::str::FromStr>(opt: &str, v: &str) -> Result<T, String> {
    v.parse::<T>()
        .map_err(|_| format!("invalid value '{}' for {}", v, opt))
}

pub fn parse(args: &[String]) -> Result<Parsed, String> {
    let mut o = Options {
        workload: String::new(),
        threads: None,
        iterations: 1,
        heap_bytes: None,
        plan: PlanSelector::GenImmix,
        seed: 1,
        size: Size::Default,
        verify: false,
        workload_file: None,
        histogram: false,
        final_gc: false,
        late_exit: false,
        compressed_layout: false,
        inline_alloc: false,
    };
    let mut plan: Option<PlanSelector> = None;
    let mut workload: Option<String> = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        // --opt=value form
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a, None),
        };
        let takes_value = matches!(
            name,
            "-t" | "--threads"
                | "-n"
                | "--iterations"
                | "--heap"
                | "--plan"
                | "--seed"
                | "--size"
                | "--workload-file"
        );
        let value = if takes_value {
            match inline {
                Some(v) => Some(v),
                None => {
                    if i >= args.len() {
                        return Err(format!("option {} needs a value", name));
                    }
                    i += 1;
                    Some(args[i - 1].clone())
                }
            }
        } else {
            if inline.is_some() {
                return Err(format!("option {} takes no value", name));
            }
            None
        };
        let v = value.as_deref().unwrap_or("");
        match name {
            "-h" | "--help" => return Ok(Parsed::Help),
            "-t" | "--threads" => {
                let t: usize = num(name, v)?;
                if !(1..=1024).contains(&t) {
                    return Err(format!("thread count {} out of range 1..1024", t));
                }
                o.threads = Some(t);
            }
            "-n" | "--iterations" => {
                let n: usize = num(name, v)?;
                if n == 0 {
                    return Err("iterations must be at least 1".into());
                }
                o.iterations = n;
            }
            "--heap" => {
                o.heap_bytes = Some(
                    parse_size(v, 1 << 20).ok_or_else(|| format!("invalid heap size '{}'", v))?,
                )
            }
            "--plan" => {
                plan = Some(parse_plan(v).ok_or_else(|| {
                    format!(
                        "unknown plan '{}' (expected one of: {})",
                        v,
                        PLANS.iter().map(|p| p.0).collect::<Vec<_>>().join(", ")
                    )
                })?)
            }
            "--seed" => o.seed = num(name, v)?,
            "--size" => {
                o.size = Size::parse(v).ok_or_else(|| {
                    format!("unknown size '{}' (expected small, default or large)", v)
                })?
            }
            "--verify" => o.verify = true,
            "--histogram" => o.histogram = true,
            "--final-gc" => o.final_gc = true,
            "--late-exit" => o.late_exit = true,
            "--compressed-layout" => o.compressed_layout = true,
            "--inline-alloc" => o.inline_alloc = true,
            "--workload-file" => o.workload_file = Some(v.to_string()),
            _ if name.starts_with("-Xmx") => {
                let s = &name[4..];
                if !s.ends_with(['k', 'K', 'm', 'M', 'g', 'G']) {
                    return Err(format!(
                        "invalid heap size '{}' (use e.g. -Xmx64m or -Xmx1g)",
                        a
                    ));
                }
                o.heap_bytes =
                    Some(parse_size(s, 1).ok_or_else(|| format!("invalid heap size '{}'", a))?);
            }
            _ if name.starts_with('-') && name.len() > 1 => {
                return Err(format!("unknown option '{}' (see --help)", a))
            }
            _ => {
                if workload.is_some() {
                    return Err(format!("unexpected argument '{}' (only one WORKLOAD)", a));
                }
                workload = Some(a.to_string());
            }
        }
    }
    if o.compressed_layout && o.heap_bytes.is_some_and(|b| b > 32 << 30) {
        return Err("--compressed-layout needs a heap of at most 32 GiB (use e.g. --heap 1024)".into());
    }
    let Some(w) = workload else {
        return Err(format!(
            "no WORKLOAD given (expected one of: {})",
            WORKLOADS.join(", ")
        ));
    };
    if WORKLOADS.contains(&w.as_str()) {
        o.workload = w;
    } else if w.contains('/') || w.ends_with(".wl") || w.ends_with(".toml") {
        if o.workload_file.is_some() {
            return Err("both a workload file and --workload-file given".into());
        }
        o.workload = "custom".into();
        o.workload_file = Some(w);
    } else {
        return Err(format!(
            "unknown workload '{}' (expected one of: {})",
            w,
            WORKLOADS.join(", ")
        ));
    }
    if o.workload == "custom" && o.workload_file.is_none() {
        return Err("the custom workload needs --workload-file FILE".into());
    }
    if o.workload != "custom" && o.workload_file.is_some() {
        return Err("--workload-file is only for the custom workload".into());
    }
    o.plan = match plan {
        Some(p) => p,
        None => match std::env::var("MMTK_PLAN") {
            Ok(s) => parse_plan(&s).ok_or_else(|| format!("unknown plan '{}' in MMTK_PLAN", s))?,
            Err(_) => PlanSelector::GenImmix,
        },
    };
    Ok(Parsed::Run(o))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    fn ok(a: &[&str]) -> Options {
        match parse(&args(a)) {
            Ok(Parsed::Run(o)) => o,
            Ok(Parsed::Help) => panic!("help"),
            Err(e) => panic!("{}", e),
        }
    }

    #[test]
    fn heap_forms() {
        assert_eq!(ok(&["--heap", "64", "lusearch"]).heap_bytes, Some(64 << 20));
        assert_eq!(
            ok(&["--heap=1536K", "lusearch"]).heap_bytes,
            Some(1536 << 10)
        );
        assert_eq!(ok(&["-Xmx64m", "lusearch"]).heap_bytes, Some(64 << 20));
        assert_eq!(ok(&["-Xmx64M", "lusearch"]).heap_bytes, Some(64 << 20));
        assert_eq!(ok(&["-Xmx2g", "lusearch"]).heap_bytes, Some(2 << 30));
        assert!(parse(&args(&["-Xmx64", "lusearch"])).is_err());
        assert!(parse(&args(&["--heap", "0", "lusearch"])).is_err());
    }

    #[test]
    fn plans_and_workloads() {
        for (n, p) in PLANS {
            assert_eq!(ok(&["--plan", n, "gcbench"]).plan, p);
            assert_eq!(ok(&["--plan", &n.to_lowercase(), "gcbench"]).plan, p);
            assert_eq!(plan_name(p), n);
        }
        assert!(parse(&args(&["--plan", "G1", "gcbench"])).is_err());
        assert!(parse(&args(&["dacapo"])).is_err());
        let o = ok(&[
            "-t", "48", "-n", "3", "--seed", "9", "--size", "large", "--verify", "fragger",
        ]);
        assert_eq!(
            (o.threads, o.iterations, o.seed, o.size, o.verify),
            (Some(48), 3, 9, Size::Large, true)
        );
        assert!(!o.final_gc);
        assert!(ok(&["--final-gc", "gcbench"]).final_gc);
        assert!(ok(&["--late-exit", "gcbench"]).late_exit);
        assert!(!ok(&["gcbench"]).late_exit);
        assert!(ok(&["--compressed-layout", "gcbench"]).compressed_layout);
        assert!(!ok(&["gcbench"]).compressed_layout);
        assert!(ok(&["--inline-alloc", "gcbench"]).inline_alloc);
        assert!(!ok(&["gcbench"]).inline_alloc);
        assert!(ok(&["--compressed-layout", "--heap", "32768", "gcbench"]).compressed_layout);
        let e = parse(&args(&["--compressed-layout", "--heap", "32769", "gcbench"])).err().unwrap();
        assert!(e.contains("at most 32 GiB"), "{e}");
        assert!(parse(&args(&["--final-gc=1", "gcbench"])).is_err());
        let o = ok(&["x/y.wl"]);
        assert_eq!(
            (o.workload.as_str(), o.workload_file.as_deref()),
            ("custom", Some("x/y.wl"))
        );
    }
}
