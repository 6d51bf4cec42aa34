//! toolvet's end-to-end tests that share the machine with others well, in
//! one test binary: each file here was a binary of its own, and every one
//! linked the whole host, ~15 s of CPU each in a release build (`cargo
//! test --release --workspace --timings`, 2026-12-06). The tests that load
//! the machine on purpose or hold it to wall-clock figures
//! (`deadline_under_load`, `hostile_check`, `hostile_guests`,
//! `hostile_load`, `load`, `overload`) stay binaries of their own beside
//! this one, so they never run beside these; so does `hooks`, whose cold
//! hook processes meet the example policy's 100 ms deadlines only without
//! other tests starting processes or compiling components on the same
//! cores (its tests take turns for the same reason).
//!
//! One file: `cargo test --release -p toolvet-tests --test all tool_facts::`.

mod approvals;
mod bad_inputs;
mod case_files;
mod cli_containment;
mod combine_props;
mod contract_02;
mod embedding;
mod host_attributes;
mod host_scope;
mod policy;
mod shipped_results;
mod snapshots;
mod state_paths;
mod tool_facts;
