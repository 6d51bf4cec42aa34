//! The peer-benchmark rule ([`bench_rule`]) as a toolvet check, built for
//! wasm32-wasip2 like the checks toolvet ships. It applies to every tool
//! (`tools = ["*"]`), as the Cedar policy and the Extism plugin do.

use serde::Deserialize;
use toolvet_pdk::{Check, CheckResult, Context, Decision, PluginInfo, ToolCall, ToolInfo};

/// No settings: the pattern is fixed, as in the Extism plugin and the Cedar
/// policy. An unknown key is an error.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {}

/// The check.
pub struct BenchRule;

impl Check for BenchRule {
    type Settings = Settings;

    fn info() -> PluginInfo {
        PluginInfo::new(
            "bench-rule",
            env!("CARGO_PKG_VERSION"),
            "Benchmark rule: denies bash commands containing `rm -rf`",
        )
    }

    fn new(_settings: Settings) -> Result<Self, String> {
        Ok(BenchRule)
    }

    fn check(&self, call: &ToolCall, _tool: &ToolInfo, _ctx: &Context) -> CheckResult {
        Ok(match bench_rule::check(&call.name, &call.arguments) {
            Some(reason) => Decision::deny(bench_rule::RULE, reason),
            None => Decision::Allow,
        })
    }
}

toolvet_pdk::export_check!(BenchRule);
