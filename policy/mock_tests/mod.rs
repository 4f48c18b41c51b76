//! The space's own tests of MMTk API contracts, on mmtk's mock VM (feature `mock_test`), beside
//! mmtk 0.33.0's mock-VM suite (`scripts/test-mmtk-mock.sh` runs both). As mmtk's: one MMTk
//! instance per process, so one test per file, and each file run alone
//! (`cargo test --features mock_test,shardsweep --lib -- <file>`); a file's `GITHUB-CI:` header
//! names the plans it runs with, as in mmtk's suite.

mod mock_test_shardsweep_overcommit_past_heap;
mod mock_test_shardsweep_unsafe_point_full_heap;
