//! The peer-benchmark rule ([`bench_rule`]) as an Extism plugin
//! (wasm32-unknown-unknown core module, extism-pdk).
//!
//! Export `check`: the input is the tool name, a newline, then the
//! arguments' JSON text (the cheapest framing for the host to build); the
//! output is empty to allow, or the deny reason.

use extism_pdk::{FnResult, plugin_fn};

/// Vet one call; see the crate docs for the input and output framing.
#[plugin_fn]
pub fn check(input: String) -> FnResult<String> {
    let (tool, arguments) = input.split_once('\n').unwrap_or((input.as_str(), "{}"));
    Ok(bench_rule::check(tool, arguments)
        .unwrap_or_default()
        .to_string())
}
