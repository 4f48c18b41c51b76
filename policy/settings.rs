//! Runtime settings of the space, read once from the environment when the space is created.
//! An invalid value panics with a message that names the valid values.
//!
//! | Variable                | Values                     | Default    |
//! |-------------------------|----------------------------|------------|
//! | `SHARDSWEEP_ACCOUNTING` | `page`, `block`            | `page`     |
//! | `SHARDSWEEP_SWEEP`      | `eager` (`lazy`: not yet)  | `eager`    |
//! | `SHARDSWEEP_ADVICE`     | `dontneed`, `free`, `keep` | `dontneed` |
//!
//! The block size is a build-time setting of the core (`SHARDSWEEP_BLOCK_KIB`).

use shardsweep::{Accounting, Advice};

/// Who sweeps a mutator's blocks after a GC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SweepMode {
    /// GC workers sweep every heap in the release phase, in parallel (one packet per mutator).
    Eager,
    /// The owner sweeps its blocks when it next needs them (not implemented yet).
    Lazy,
}

impl SweepMode {
    /// Parses `eager` or `lazy`.
    pub fn parse(s: &str) -> Result<SweepMode, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "eager" => Ok(SweepMode::Eager),
            "lazy" => Ok(SweepMode::Lazy),
            other => Err(format!("invalid sweep mode {other:?}: valid values are eager, lazy")),
        }
    }
}

/// The space's settings.
#[derive(Clone, Copy, Debug)]
pub struct SpaceSettings {
    /// Page (shardsweep) or whole-block (stock-like) charging.
    pub accounting: Accounting,
    /// Eager or lazy sweeping.
    pub sweep: SweepMode,
    /// How pages with no allocated cell are given back to the OS.
    pub advice: Advice,
}

fn read<T>(var: &str, default: T, parse: fn(&str) -> Result<T, String>) -> T {
    match std::env::var(var) {
        Ok(s) if !s.trim().is_empty() => parse(&s).unwrap_or_else(|e| panic!("{var}: {e}")),
        _ => default,
    }
}

impl SpaceSettings {
    /// Reads the settings from the environment (panics on an invalid value).
    pub fn from_env() -> SpaceSettings {
        let s = SpaceSettings {
            accounting: read("SHARDSWEEP_ACCOUNTING", Accounting::Page, Accounting::parse),
            sweep: read("SHARDSWEEP_SWEEP", SweepMode::Eager, SweepMode::parse),
            advice: read("SHARDSWEEP_ADVICE", Advice::DontNeed, Advice::parse),
        };
        if s.sweep == SweepMode::Lazy {
            panic!("SHARDSWEEP_SWEEP=lazy is not implemented yet in the shardsweep space; valid values today: eager");
        }
        s
    }
}
