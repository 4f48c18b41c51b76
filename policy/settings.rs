//! Runtime settings of the space, read once from the environment when the space is created.
//! Like MMTk's own options (`util/options.rs`: each `MMTK_*` variable parsed and validated when
//! the options are built), every variable is parsed and validated together, before the space
//! exists. Unlike MMTk, which warns and keeps the default, an invalid value ends the process
//! with one line on stderr naming the valid values and exit status 2 (a usage error, as
//! synthvm's `--help` documents): a study run with a mistyped setting must not measure the
//! default instead. The line reads the same under any binding (synthvm, mmtk-openjdk):
//!
//! ```text
//! shardsweep: SHARDSWEEP_ACCOUNTING=bytes: invalid accounting mode "bytes": valid values are page, block
//! ```
//!
//! Only the values in the table are accepted (no aliases).
//!
//! | Variable                       | Values                     | Default    |
//! |--------------------------------|----------------------------|------------|
//! | `SHARDSWEEP_ACCOUNTING`        | `page`, `block`            | `page`     |
//! | `SHARDSWEEP_COUNT`             | `resident`, `in-use`       | `resident` |
//! | `SHARDSWEEP_IDLE_CAP`          | `off`, `0` to `100` (percent of the heap; with the in-use count only) | `off` |
//! | `SHARDSWEEP_IDLE_MARGIN`       | `0` to `100` (percent of the heap; with the resident count only) | `12` (`0` with `in-use`) |
//! | `SHARDSWEEP_IDLE_MARGIN_ROOM`  | `0` to `100` (percent of the heap the last GC left free; with a margin only) | `50` (`0` without a margin) |
//! | `SHARDSWEEP_SWEEP`             | `eager`, `lazy`            | `eager`    |
//! | `SHARDSWEEP_ADVICE`            | `dontneed`, `free`, `keep` | `dontneed` |
//! | `SHARDSWEEP_PURGE`             | `gc`, `pressure`, `now`    | `gc`       |
//! | `SHARDSWEEP_DECAY`             | GCs, `0` = off             | `0`        |
//! | `SHARDSWEEP_ABANDON_IDLE`      | `1`, `0`                   | `1`        |
//! | `SHARDSWEEP_ABANDON_ALL`       | `1`, `0`                   | `1` with eager sweeping, `0` with lazy |
//! | `SHARDSWEEP_CHECK_ACCOUNTING`  | `0`, `1`                   | `1` in debug builds, else `0` |
//! | `SHARDSWEEP_CHECK_RECLAIM`     | `0`, `1`                   | `0`        |
//! | `SHARDSWEEP_ZERO`              | `space`, `binding`, `poison` | `binding` when the binding sets MMTk's `binding_zeroes_objects` (mmtk-openjdk does), else `space` |
//! | `SHARDSWEEP_REUSE`             | `address`, `densest`, `sparsest` | `address`  |
//! | `SHARDSWEEP_HOLES`             | `0` (off), or bytes 256 to 65536 | `0`        |
//! | `SHARDSWEEP_SPILL`             | `charge`, `defer`                | `charge`   |
//! | `SHARDSWEEP_ADOPT`             | `headroom`, `lease`, `block`     | `headroom` |
//! | `SHARDSWEEP_LISTING_PAGES`     | `1` to the pages of a block      | `4` (a block's pages if fewer) |
//! | `SHARDSWEEP_EXTENSION_PAGES`   | `1` to the pages of a block      | `4` (a block's pages if fewer) |
//! | `SHARDSWEEP_POLL_PAGES`        | `1` to `64`                      | `8`        |
//!
//! The block size is a build-time setting of the core (`SHARDSWEEP_BLOCK_KIB`), and so is the
//! largest object the space serves (`SHARDSWEEP_MAX_OBJECT_BYTES`, `mod.rs`): either given at
//! run time with another value than the build's is refused the same way (one line, exit 2).

use shardsweep::{Accounting, Adopt, Advice, ReuseOrder, Spill};

/// Who sweeps a mutator's blocks after a GC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SweepMode {
    /// GC workers sweep every heap in the release phase, in parallel (one packet per mutator).
    Eager,
    /// The owner sweeps a size class's blocks in its slow path before it next uses them; what is
    /// left is swept by GC workers in the next GC's prepare phase, before marking.
    Lazy,
}

impl SweepMode {
    /// Parses `eager` or `lazy`.
    pub fn parse(s: &str) -> Result<SweepMode, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "eager" => Ok(SweepMode::Eager),
            "lazy" => Ok(SweepMode::Lazy),
            other => Err(format!(
                "invalid sweep mode {other:?}: valid values are eager, lazy"
            )),
        }
    }
}

/// Which pages the space reports to MMTk as used (the heap limit bounds them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// Every page that may be resident: pages in use and idle pages (given back by a sweep, not
    /// yet dropped) and kept empty blocks, less up to `SHARDSWEEP_IDLE_MARGIN` percent of the
    /// heap of idle ones. The heap limit plus the margin bounds the space's RSS; idle pages
    /// beyond the margin are dropped under pressure, at a GC's prepare and after a GC beyond
    /// the free room less an eighth of the heap, and are then faulted in again when reused.
    Resident,
    /// Pages in use only (holding listed or allocated cells, and block headers), as MMTk's
    /// other spaces count their blocks (a block back in their page resource stays resident,
    /// uncounted). Idle pages and kept empty blocks stay resident, uncounted, until the purge
    /// (`SHARDSWEEP_PURGE`) drops them, and are reused without page faults; the RSS may exceed
    /// the heap limit by them (by at most `SHARDSWEEP_IDLE_CAP` percent of it, when set).
    InUse,
}

impl Count {
    /// Parses `resident` or `in-use`.
    pub fn parse(s: &str) -> Result<Count, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "resident" => Ok(Count::Resident),
            "in-use" => Ok(Count::InUse),
            other => Err(format!("invalid count {other:?}: valid values are resident, in-use")),
        }
    }
}

/// Who makes a new object's memory read as zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Zeroing {
    /// The space: every cell it hands out reads as zero (it zeroes dead cells at the sweep and
    /// dirty pages when it lists their cells). Right for any binding.
    Space,
    /// The binding initialises every byte of what it allocates (HotSpot's `MemAllocator` clears
    /// an object's body, as it does in its own collectors' thread-local buffers, which are not
    /// zeroed either): the space skips its zeroing. Cells hold what was there.
    Binding,
    /// As `binding`, and the space fills every cell a sweep frees with 0xDB bytes, so that a
    /// binding that does not initialise what it allocates reads garbage at once (a test
    /// setting: the fill costs what zeroing does).
    Poison,
}

impl Zeroing {
    /// The default, from what the binding says through MMTk's option `binding_zeroes_objects`
    /// (seam: `util/options.rs`): `binding` when it initialises every object it allocates, as
    /// mmtk-openjdk says of HotSpot (`MemAllocator::mem_clear`, and the callers of its
    /// non-zeroing array allocation fill every element; checked on the JVM with `poison`:
    /// `bindings/openjdk/RESULTS-history.md`, "Who zeroes new objects"), else `space`: a
    /// binding that says nothing may rely on zeroed memory.
    pub fn default_for(binding_zeroes_objects: bool) -> Zeroing {
        if binding_zeroes_objects {
            Zeroing::Binding
        } else {
            Zeroing::Space
        }
    }

    /// Parses `space`, `binding` or `poison`.
    pub fn parse(s: &str) -> Result<Zeroing, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "space" => Ok(Zeroing::Space),
            "binding" => Ok(Zeroing::Binding),
            "poison" => Ok(Zeroing::Poison),
            other => Err(format!("invalid zeroing {other:?}: valid values are space, binding, poison")),
        }
    }
}

fn parse_bool(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" => Ok(true),
        "0" => Ok(false),
        other => Err(format!("invalid value {other:?}: valid values are 0, 1")),
    }
}

fn parse_hole_bytes(s: &str) -> Result<usize, String> {
    s.trim()
        .parse::<usize>()
        .ok()
        .filter(|&n| n == 0 || (256..=65536).contains(&n))
        .ok_or_else(|| format!("invalid hole size {s:?}: valid values are 0 (off) or 256 to 65536 bytes"))
}

fn parse_pages(s: &str) -> Result<usize, String> {
    let max = shardsweep::config::PAGES_PER_BLOCK;
    s.trim()
        .parse::<usize>()
        .ok()
        .filter(|&n| (1..=max).contains(&n))
        .ok_or_else(|| format!("invalid number of pages {s:?}: valid values are 1 to {max} (the pages of a block)"))
}

fn parse_poll_pages(s: &str) -> Result<usize, String> {
    s.trim()
        .parse::<usize>()
        .ok()
        .filter(|&n| (1..=MAX_POLL_PAGES).contains(&n))
        .ok_or_else(|| format!("invalid number of pages {s:?}: valid values are 1 to {MAX_POLL_PAGES}"))
}

fn parse_idle_cap(s: &str) -> Result<Option<usize>, String> {
    let t = s.trim().to_ascii_lowercase();
    if t == "off" {
        return Ok(None);
    }
    t.parse::<usize>()
        .ok()
        .filter(|&n| n <= 100)
        .map(Some)
        .ok_or_else(|| format!("invalid idle cap {s:?}: valid values are off, or 0 to 100 (percent of the heap)"))
}

/// A percentage, 0 to 100, of `of`; `what` names the setting in the error.
fn parse_percent(s: &str, what: &str, of: &str) -> Result<usize, String> {
    s.trim()
        .parse::<usize>()
        .ok()
        .filter(|&n| n <= 100)
        .ok_or_else(|| format!("invalid {what} {s:?}: valid values are 0 to 100 (percent of {of})"))
}

fn parse_idle_margin(s: &str) -> Result<usize, String> {
    parse_percent(s, "idle margin", "the heap")
}

fn parse_idle_margin_room(s: &str) -> Result<usize, String> {
    parse_percent(s, "idle margin room", "the heap a GC leaves free")
}

fn parse_gcs(s: &str) -> Result<usize, String> {
    s.trim()
        .parse::<usize>()
        .ok()
        .filter(|&n| n <= 1_000_000)
        .ok_or_else(|| format!("invalid number of GCs {s:?}: valid values are 0 (off) to 1000000"))
}

/// The space's settings.
#[derive(Clone, Copy, Debug)]
pub struct SpaceSettings {
    /// Page (shardsweep) or whole-block (stock-like) charging.
    pub accounting: Accounting,
    /// Whether idle pages count as used (`SHARDSWEEP_COUNT`).
    pub count: Count,
    /// With `SHARDSWEEP_COUNT=in-use`: at the end of each GC, the idle pages (and kept empty
    /// blocks) beyond this percentage of the heap size are dropped (`SHARDSWEEP_IDLE_CAP`;
    /// `None`, `off`: kept until the purge). Idle pages are not counted, but with eager sweeping
    /// they only become fewer between two GCs, so the space's RSS stays within the heap limit
    /// plus the cap; with lazy sweeping a mutator's sweep may add idle pages between GCs.
    pub idle_cap: Option<usize>,
    /// With `SHARDSWEEP_COUNT=resident`: idle pages (and kept empty blocks) up to this
    /// percentage of the heap size are not counted; those beyond it are
    /// (`SHARDSWEEP_IDLE_MARGIN`, default 12; `0`: all are). The space's resident pages then stay within
    /// the heap limit plus the margin, while up to the margin idle pages wait for their reuse
    /// without taking room from the pages in use (and without a page fault when reused).
    pub idle_margin: usize,
    /// With an idle margin: between two GCs the margin is at least this percentage of the heap
    /// the last GC left free (its size less the pages in use after it, the large-object space's
    /// and the side metadata's included; `SHARDSWEEP_IDLE_MARGIN_ROOM`, default 50; `0`: the
    /// margin is `idle_margin` alone). A tight heap (less than a quarter free) keeps
    /// `idle_margin`'s margin, so the minimum heap and the RSS there do not move; a roomy one
    /// lets more idle pages wait for their size class's reuse instead of being dropped and
    /// faulted back in (`bindings/openjdk/results/mmtk-0.33/margin-room/`). The space's
    /// resident pages stay within the heap limit plus the margin: at most 1.5 times the limit.
    pub idle_margin_room: usize,
    /// Eager or lazy sweeping.
    pub sweep: SweepMode,
    /// How idle pages are purged (purge.rs). Default `dontneed`: dropped from the RSS and the
    /// heap count. `free` (MADV_FREE) lets the kernel take them under memory pressure only, so
    /// they stay counted (they may be resident) until reused, decayed or dropped under the
    /// budget's pressure; `keep` leaves them resident and counted.
    pub advice: Advice,
    /// When idle pages are purged: at the next GC if still idle (`gc`), only under pressure
    /// (`pressure`), or at the sweep (`now`); see `purge.rs`.
    pub purge: super::purge::Purge,
    /// With `free` and deferred purging: GCs after which a page still unused since its
    /// MADV_FREE is given MADV_DONTNEED (`purge.rs`); 0 = never.
    pub decay: usize,
    /// At a sweep, abandon the partly used blocks of size classes the mutator did not use since
    /// the previous GC, so other threads adopt them (no stranding).
    pub abandon_idle: bool,
    /// Abandon every partly used block at each sweep (`SHARDSWEEP_ABANDON_ALL`), as stock
    /// MarkSweep's `FreeListAllocator::release` does: after a GC every thread takes blocks with
    /// free cells from the shared pools, so no thread keeps partly used blocks it will not fill
    /// before the next GC (a descheduled thread holds none). Default with eager sweeping.
    /// Measured (experiments/README.md, commands there): time-default at 2x, 24 threads, GC
    /// count 81 before (7e17afe) and 65 after (2207261); together with the core's memory-ordered
    /// slow path, minheap-full's 48-thread minimum went from 17 (2026-11-21) to 15 MiB. Lazy
    /// sweeping defaults to `0`: abandoning every block sweeps it at the GC, leaving nothing to
    /// defer.
    pub abandon_all: bool,
    /// At the end of every GC, check that the space's used pages are the core's charged pages
    /// plus side metadata, and that the charge is the sum over every block (walked).
    pub check_accounting: bool,
    /// At the end of every GC, check that each swept block is charged exactly for its header
    /// and the pages of its live cells, and report the post-GC footprint against live data.
    pub check_reclaim: bool,
    /// Who zeroes new objects' memory (`SHARDSWEEP_ZERO`).
    pub zero: Zeroing,
    /// The order in which a sweep lists a block's free cells (`SHARDSWEEP_REUSE`): address
    /// order; the pages with the largest share of live cells first, so that a mutator needing
    /// fewer cells than a block offers leaves its sparse pages to drain; or the smallest share
    /// first, so that what a mutator allocates between GCs lies on few pages (controls of issue
    /// 20's; `bindings/openjdk/RESULTS.md`).
    pub reuse: ReuseOrder,
    /// Lend runs of free cells of at least this many bytes to larger requests
    /// (`SHARDSWEEP_HOLES`, `shardsweep::Lend`); 0 = off. Eager sweeping with a side mark bit
    /// only.
    pub holes: usize,
    /// Whether an extension charges the page a page's last cell spills into, or sets the cell
    /// aside until that page is charged (`SHARDSWEEP_SPILL`, `shardsweep::Spill`).
    pub spill: Spill,
    /// What a mutator takes from a partly used block no mutator holds: all of it, a lease of a
    /// page's worth of its free cells, or a lease sized by the heap's room left
    /// (`SHARDSWEEP_ADOPT`, `shardsweep::Adopt`).
    pub adopt: Adopt,
    /// Pages with dead cells that one listing of a swept block's unlisted cells takes, at most
    /// (`SHARDSWEEP_LISTING_PAGES`, `shardsweep::Settings::listing_pages`): each listing is a
    /// call from the JIT's code into the runtime.
    pub listing_pages: usize,
    /// Pages an extension slow path extends a block by while the heap has room
    /// (`SHARDSWEEP_EXTENSION_PAGES`, `shardsweep::Settings::extension_pages`): each slow path
    /// is a call from the JIT's code into the runtime.
    pub extension_pages: usize,
    /// Pages charged per poll of MMTk's GC trigger while the heap has room for twice as many
    /// (`SHARDSWEEP_POLL_PAGES`, `space/budget.rs`); near a full heap every charge polls.
    pub poll_pages: usize,
}

/// `SHARDSWEEP_POLL_PAGES`' default: a poll per 32 KiB charged while the heap has room, as
/// often as Immix polls (per 32 KiB block); stock MarkSweep polls per 64 KiB block.
pub const DEFAULT_POLL_PAGES: usize = 8;

/// `SHARDSWEEP_POLL_PAGES`' largest value: a quarter of a megabyte charged without a poll.
pub const MAX_POLL_PAGES: usize = 64;

/// `SHARDSWEEP_LISTING_PAGES`' default: four pages, 16 KiB of cells per listing (a block's
/// pages if it has fewer).
pub const DEFAULT_LISTING_PAGES: usize = four_or_block_pages();

/// `SHARDSWEEP_EXTENSION_PAGES`' default: four pages while the heap has room (a block's pages
/// if it has fewer).
pub const DEFAULT_EXTENSION_PAGES: usize = four_or_block_pages();

const fn four_or_block_pages() -> usize {
    if shardsweep::config::PAGES_PER_BLOCK < 4 {
        shardsweep::config::PAGES_PER_BLOCK
    } else {
        4
    }
}

/// Exit status for an invalid setting: a usage error (synthvm's `--help`: 2).
pub const EXIT_USAGE: i32 = 2;

/// The value of `var` parsed, `default` if it is unset or empty; an invalid value is recorded
/// in `errors` (as `VAR=value: why`) and the default returned, so that every setting is checked.
fn read<T>(
    errors: &mut Vec<String>,
    var: &str,
    default: T,
    parse: fn(&str) -> Result<T, String>,
) -> T {
    match std::env::var(var) {
        Ok(s) if !s.trim().is_empty() => parse(&s).unwrap_or_else(|e| {
            errors.push(format!("{var}={s}: {e}"));
            default
        }),
        _ => default,
    }
}

impl SpaceSettings {
    /// Reads and validates the settings from the environment: `Err` lists every invalid
    /// setting (`VAR=value: why`, naming the valid values). `binding_zeroes_objects` (MMTk's option
    /// of that name, set by the binding) picks the default zeroing.
    pub fn try_from_env(binding_zeroes_objects: bool) -> Result<SpaceSettings, Vec<String>> {
        let mut e = Vec::new();
        let sweep = read(
            &mut e,
            "SHARDSWEEP_SWEEP",
            SweepMode::Eager,
            SweepMode::parse,
        );
        let count = read(&mut e, "SHARDSWEEP_COUNT", Count::Resident, Count::parse);
        // The margin applies to the resident count: its default is 0 under `in-use`.
        let idle_margin = read(&mut e, "SHARDSWEEP_IDLE_MARGIN", if count == Count::Resident { 12 } else { 0 }, parse_idle_margin);
        let s = SpaceSettings {
            accounting: read(
                &mut e,
                "SHARDSWEEP_ACCOUNTING",
                Accounting::Page,
                Accounting::parse,
            ),
            sweep,
            count,
            idle_cap: read(&mut e, "SHARDSWEEP_IDLE_CAP", None, parse_idle_cap),
            idle_margin,
            // Widens a margin: its default is 0 without one.
            idle_margin_room: read(&mut e, "SHARDSWEEP_IDLE_MARGIN_ROOM", if idle_margin > 0 { 50 } else { 0 }, parse_idle_margin_room),
            advice: read(&mut e, "SHARDSWEEP_ADVICE", Advice::DontNeed, Advice::parse),
            purge: read(
                &mut e,
                "SHARDSWEEP_PURGE",
                super::purge::Purge::Gc,
                super::purge::Purge::parse,
            ),
            decay: read(&mut e, "SHARDSWEEP_DECAY", 0, parse_gcs),
            abandon_idle: read(&mut e, "SHARDSWEEP_ABANDON_IDLE", true, parse_bool),
            abandon_all: read(
                &mut e,
                "SHARDSWEEP_ABANDON_ALL",
                sweep == SweepMode::Eager,
                parse_bool,
            ),
            check_accounting: read(
                &mut e,
                "SHARDSWEEP_CHECK_ACCOUNTING",
                cfg!(debug_assertions),
                parse_bool,
            ),
            check_reclaim: read(&mut e, "SHARDSWEEP_CHECK_RECLAIM", false, parse_bool),
            zero: read(&mut e, "SHARDSWEEP_ZERO", Zeroing::default_for(binding_zeroes_objects), Zeroing::parse),
            reuse: read(&mut e, "SHARDSWEEP_REUSE", ReuseOrder::Address, ReuseOrder::parse),
            holes: read(&mut e, "SHARDSWEEP_HOLES", 0, parse_hole_bytes),
            spill: read(&mut e, "SHARDSWEEP_SPILL", Spill::Charge, Spill::parse),
            adopt: read(&mut e, "SHARDSWEEP_ADOPT", Adopt::Headroom, Adopt::parse),
            listing_pages: read(&mut e, "SHARDSWEEP_LISTING_PAGES", DEFAULT_LISTING_PAGES, parse_pages),
            extension_pages: read(&mut e, "SHARDSWEEP_EXTENSION_PAGES", DEFAULT_EXTENSION_PAGES, parse_pages),
            poll_pages: read(&mut e, "SHARDSWEEP_POLL_PAGES", DEFAULT_POLL_PAGES, parse_poll_pages),
        };
        // Build-time settings given at run time with another value than this build's would be
        // ignored (a study run that way compares nothing): refused.
        if let Some(v) = shardsweep::build_setting::block_kib_differs() {
            e.push(format!("SHARDSWEEP_BLOCK_KIB={}: {}", String::from_utf8_lossy(v), shardsweep::build_setting::BLOCK_KIB_REFUSED));
        }
        if let Ok(v) = std::env::var("SHARDSWEEP_MAX_OBJECT_BYTES") {
            if !v.trim().is_empty() && v.trim().parse::<usize>() != Ok(super::MAX_OBJECT_SIZE) {
                e.push(format!(
                    "SHARDSWEEP_MAX_OBJECT_BYTES={v}: a build-time setting: this build serves objects up to {} bytes (valid at run time: {}, or unset); for another limit build again with SHARDSWEEP_MAX_OBJECT_BYTES set (scripts/build-variants.sh)",
                    super::MAX_OBJECT_SIZE,
                    super::MAX_OBJECT_SIZE
                ));
            }
        }
        // A misspelt name (`SHARDSWEEP_ACOUNTING`) would leave its setting at the default unseen.
        for (var, value) in std::env::vars_os() {
            let Some(var) = var.to_str() else { continue };
            if var.starts_with("SHARDSWEEP_") && !VARIABLES.contains(&var) && !OTHER_VARIABLES.contains(&var) {
                e.push(format!(
                    "{var}={}: not a setting of the space; its settings are {}",
                    value.to_string_lossy(),
                    VARIABLES.join(", ")
                ));
            }
        }
        if let (Some(cap), Count::Resident) = (s.idle_cap, s.count) {
            e.push(format!("SHARDSWEEP_IDLE_CAP={cap}: caps uncounted idle pages, with SHARDSWEEP_COUNT=in-use only; valid values with SHARDSWEEP_COUNT=resident: off"));
        }
        if s.idle_margin > 0 && s.count == Count::InUse {
            e.push(format!("SHARDSWEEP_IDLE_MARGIN={}: leaves idle pages uncounted up to a margin, with SHARDSWEEP_COUNT=resident only; valid values with SHARDSWEEP_COUNT=in-use: 0", s.idle_margin));
        }
        if s.idle_margin_room > 0 && s.idle_margin == 0 {
            e.push(format!("SHARDSWEEP_IDLE_MARGIN_ROOM={}: widens the idle margin, with SHARDSWEEP_IDLE_MARGIN above 0 only; valid values with SHARDSWEEP_IDLE_MARGIN=0 or SHARDSWEEP_COUNT=in-use: 0", s.idle_margin_room));
        }
        if s.holes > 0 && s.sweep == SweepMode::Lazy {
            e.push(format!("SHARDSWEEP_HOLES={}: lends holes with eager sweeping only; valid values with SHARDSWEEP_SWEEP=lazy: 0", s.holes));
        }
        if s.holes > 0 && cfg!(feature = "vo_bit") {
            e.push(format!("SHARDSWEEP_HOLES={}: incompatible with the mmtk feature vo_bit; valid values with vo_bit: 0", s.holes));
        }
        // As mmtk's own `vo_bit = ["eager_sweeping"]`: a lazy sweep would leave dead objects'
        // VO bits set until their owner sweeps them.
        if s.sweep == SweepMode::Lazy && cfg!(feature = "vo_bit") {
            e.push("SHARDSWEEP_SWEEP=lazy: incompatible with the mmtk feature vo_bit (VO bits must be exact after a GC); valid values with vo_bit: eager".into());
        }
        if e.is_empty() {
            Ok(s)
        } else {
            Err(e)
        }
    }

    /// Reads the settings from the environment; on an invalid value prints one line on stderr
    /// (`shardsweep: VAR=value: why; ...`) and exits with [`EXIT_USAGE`], no panic, no backtrace.
    pub fn from_env(binding_zeroes_objects: bool) -> SpaceSettings {
        SpaceSettings::try_from_env(binding_zeroes_objects).unwrap_or_else(|errors| {
            use std::io::Write;
            let _ = std::io::stdout().flush();
            eprintln!("shardsweep: {}", errors.join("; "));
            std::process::exit(EXIT_USAGE)
        })
    }
}

/// The space's run-time variables (`SpaceSettings::from_env`, `report.rs`, `global.rs`).
pub const VARIABLES: [&str; 25] = [
    "SHARDSWEEP_ACCOUNTING",
    "SHARDSWEEP_COUNT",
    "SHARDSWEEP_IDLE_CAP",
    "SHARDSWEEP_IDLE_MARGIN",
    "SHARDSWEEP_IDLE_MARGIN_ROOM",
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
    "SHARDSWEEP_REPORT_FOOTPRINT",
    "SHARDSWEEP_ZERO",
    "SHARDSWEEP_REUSE",
    "SHARDSWEEP_HOLES",
    "SHARDSWEEP_SPILL",
    "SHARDSWEEP_ADOPT",
    "SHARDSWEEP_LISTING_PAGES",
    "SHARDSWEEP_EXTENSION_PAGES",
    "SHARDSWEEP_POLL_PAGES",
    "SHARDSWEEP_PRINT_SETTINGS",
];

/// `SHARDSWEEP_*` variables that are not the space's and that a process with the space may have
/// in its environment: the build-time settings (checked against the build above), the standalone
/// allocator's, those the project's scripts read, and the JIT fast path's switch (read by the
/// binding's C++, `bindings/openjdk/`). Any other `SHARDSWEEP_*` name is refused.
pub const OTHER_VARIABLES: [&str; 14] = [
    "SHARDSWEEP_REPORT_DROPS",
    "SHARDSWEEP_BLOCK_KIB",
    "SHARDSWEEP_MAX_OBJECT_BYTES",
    "SHARDSWEEP_PURGE_DELAY_MS",
    "SHARDSWEEP_BOUNDED",
    "SHARDSWEEP_EXP_BIN_DIR",
    "SHARDSWEEP_MIRI",
    "SHARDSWEEP_MIRI_MODEL",
    "SHARDSWEEP_TEST_BOUNDED_CHILD",
    "SHARDSWEEP_JDK_STOCK",
    "SHARDSWEEP_JDK_SS4",
    "SHARDSWEEP_JDK_SS16",
    "SHARDSWEEP_JDK_SS64",
    "SHARDSWEEP_JDK_SS256",
];

/// Called by `create_plan` (seam): a plan other than MarkSweep never creates the space, so the
/// space's settings given to it are noted once on stderr, under any binding.
pub fn note_ignored_settings(plan: crate::util::options::PlanSelector) {
    if plan == crate::util::options::PlanSelector::MarkSweep {
        return;
    }
    let given: Vec<String> = VARIABLES
        .iter()
        .filter_map(|v| std::env::var(v).ok().map(|x| format!("{v}={x}")))
        .collect();
    if !given.is_empty() {
        eprintln!(
            "shardsweep: note: ignored {}: plan {plan:?} does not use the shardsweep space (only MarkSweep does)",
            given.join(" ")
        );
    }
}
