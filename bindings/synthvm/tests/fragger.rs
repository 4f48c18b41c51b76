//! fragger (small, --verify) under every plan with 1, 8 and 48 mutator threads.
mod common;
plan_tests!(&["fragger"], 16, 512);
