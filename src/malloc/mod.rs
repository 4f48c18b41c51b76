//! The standalone malloc front end, above the allocator core: the core over memory it maps
//! itself ([`standalone`], with its block source [`arena`]), as a `malloc` and a Rust
//! `#[global_allocator]`; large requests through a per-class mapping cache ([`large_cache`]);
//! emptied blocks kept for a purge delay ([`purge_delay`]); and the bounded (real-time) mode
//! ([`bounded`]). Nothing in the core refers to this module.

pub mod arena;
pub mod bounded;
pub mod large_cache;
pub mod purge_delay;
pub mod standalone;
mod usage;
