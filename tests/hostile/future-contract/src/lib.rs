//! `future-contract`: a plugin built against an imagined incompatible future
//! contract, `toolvet:check@0.3.0` (`tests/hostile/wit-future`: `check`
//! lost its `tool-info` argument and returns `result<decision, string>`). It
//! imports `toolvet:check/host@0.3.0` and exports `toolvet:check/check@0.3.0`;
//! a host of 0.1 and 0.2 must refuse it at load and say the contract is incompatible.

wit_bindgen::generate!({ path: "../wit-future", world: "plugin" });

use exports::toolvet::check::check::{Guest, PluginInfo};
use toolvet::check::host::{Level, log};
use toolvet::check::types::{CallContext, Decision, ToolCall};

struct Future;

impl Guest for Future {
    fn describe() -> PluginInfo {
        PluginInfo {
            name: "future-contract".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            description: "Built against toolvet:check@0.3.0 (test fixture)".into(),
            tools: vec!["*".into()],
        }
    }

    fn configure(_settings: String) -> Result<(), String> {
        Ok(())
    }

    fn check(call: ToolCall, _ctx: CallContext) -> Result<Decision, String> {
        log(Level::Info, &format!("future-contract saw {}", call.name));
        Ok(Decision::Allow)
    }
}

export!(Future);
