//! The space's own tests of MMTk API contracts, on mmtk's mock VM (feature `mock_test`), beside
//! mmtk 0.33.0's mock-VM suite (`scripts/test-mmtk-mock.sh` runs both). As mmtk's: one MMTk
//! instance per process, so one test per file, and each file run alone
//! (`cargo test --features mock_test,shardsweep --lib -- <file>`); a file's `GITHUB-CI:` header
//! names the plans it runs with, as in mmtk's suite.

mod mock_test_shardsweep_overcommit_past_heap;
mod mock_test_shardsweep_unsafe_point_full_heap;

use crate::util::test_util::mock_method::MockMethod;
use crate::util::test_util::mock_vm::MockVM;

/// Bytes of the tests' heap.
const HEAP_BYTES: usize = 1024 * 1024;
/// Pages of the tests' heap.
const HEAP_PAGES: usize = HEAP_BYTES >> crate::util::constants::LOG_BYTES_IN_PAGE;

/// A mock VM whose `block_for_gc` and `out_of_memory` are recorded, not a panic, so that a test
/// can assert that neither was called.
fn recording_vm() -> MockVM {
    MockVM { block_for_gc: MockMethod::new_default(), out_of_memory: MockMethod::new_default(), ..MockVM::default() }
}
