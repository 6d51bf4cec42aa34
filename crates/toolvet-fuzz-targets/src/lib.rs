//! The property each toolvet fuzz target checks, as one function per
//! target taking any bytes: `run` returns when the property holds and
//! panics when it does not.
//!
//! Two drivers call these functions:
//! - `fuzz/` (cargo-fuzz, its own workspace): one libFuzzer binary per
//!   target, for coverage-guided runs (`bash fuzz/run.sh`);
//! - this crate's test `tests/corpus.rs`, in `cargo test --workspace`:
//!   every seed in `fuzz/corpus/<target>/` (committed; a fixed crash goes
//!   there) and every crash a local run saved in `fuzz/artifacts/<target>/`,
//!   each with its prefixes and a fixed set of byte mutations, so the
//!   targets cannot rot and a fixed crash stays fixed, without an
//!   instrumented build.
//!
//! `ticket_parse` reaches code that is not public and lives in the core
//! (`toolvet::fuzzing::ticket`, with its own corpus replay there).

pub mod call_json;
pub mod egress_url;
pub mod hook_payload;
pub mod mcp_message;
pub mod path_normalize;
pub mod policy_toml;
pub mod result_json;
pub mod serve_body;
pub mod shell_analyze;

/// A target's property: returns when it holds for the input, panics when
/// it does not.
pub type Property = fn(&[u8]);

/// Every target in this crate: its name (the binary in `fuzz/`, the folder
/// under `fuzz/corpus/`) and its property.
pub const TARGETS: &[(&str, Property)] = &[
    ("policy_toml", policy_toml::run),
    ("call_json", call_json::run),
    ("shell_analyze", shell_analyze::run),
    ("path_normalize", path_normalize::run),
    ("egress_url", egress_url::run),
    ("hook_payload", hook_payload::run),
    ("mcp_message", mcp_message::run),
    ("serve_body", serve_body::run),
    ("result_json", result_json::run),
];

/// The inputs a committed seed is replayed as, in `tests/corpus.rs` here and
/// in the front ends' own seed replays (libtoolvet's JSON boundary):
/// `input`, every prefix of it, and 64 copies with one byte changed (at
/// positions and to values from a fixed xorshift sequence, so a failure
/// reproduces).
pub fn variants(input: &[u8]) -> Vec<Vec<u8>> {
    let mut out = vec![input.to_vec()];
    out.extend((0..input.len()).map(|n| input[..n].to_vec()));
    if !input.is_empty() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64 ^ input.len() as u64;
        for _ in 0..64 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut changed = input.to_vec();
            let at = (state % input.len() as u64) as usize;
            changed[at] = (state >> 32) as u8;
            out.push(changed);
        }
    }
    out
}
