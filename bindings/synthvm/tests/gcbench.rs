//! gcbench (small, --verify) under every plan with 1, 8 and 48 mutator threads.
mod common;
// 20 MiB: GenCopy at 48 threads needs ~13-14 MiB (4 of 6 runs out of memory at 12, none of 6
// at 14) and ran out of memory once at 16 while the test harness ran every plan at once on a
// loaded 2-core machine; a margin wider than that spread, still 7 (MarkSweep) to 21 (GenCopy)
// GCs per 48-thread run.
plan_tests!(&["gcbench"], 20, 512);
