//! `patch-version`: a well-behaved plugin built against `toolvet:check@0.1.5`
//! (`tests/hostile/wit-patch`: wit/check.wit with only the patch version
//! bumped). The contract says the host accepts any 0.1.x plugin, so it must
//! load and answer like any check: it logs one line and allows every call.

wit_bindgen::generate!({ path: "../wit-patch", world: "plugin" });

use exports::toolvet::check::check::{Guest, PluginInfo};
use toolvet::check::host::{Level, log};
use toolvet::check::types::{CallContext, Decision, ToolCall, ToolInfo};

struct Patch;

impl Guest for Patch {
    fn describe() -> PluginInfo {
        PluginInfo {
            name: "patch-version".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            description: "Built against toolvet:check@0.1.5 (test fixture)".into(),
            tools: vec!["*".into()],
        }
    }

    fn configure(_settings: String) -> Result<(), String> {
        Ok(())
    }

    fn check(call: ToolCall, _tool: ToolInfo, _ctx: CallContext) -> Decision {
        log(Level::Info, &format!("patch-version saw {}", call.name));
        Decision::Allow
    }
}

export!(Patch);
