//! `impostor`: a check plugin that looks like a toolvet check but speaks
//! another contract, one cargo feature per fixture:
//!
//! - `swapped-decision` (`tests/hostile/wit-swapped`): `decision` has its
//!   `allow` and `deny` cases swapped, so the deny it returns would read as
//!   an allow under the real contract;
//! - `host-v9` (`tests/hostile/wit-host9`): exports the real
//!   `toolvet:check/check@0.1.0` but imports `toolvet:check/host@9.0.0`;
//! - `rc-contract` (`tests/hostile/wit-rc`): the whole contract at the
//!   pre-release version `0.1.0-rc.1`.
//!
//! Each must be refused at load as incompatible, naming the cause.

#[cfg(feature = "swapped-decision")]
wit_bindgen::generate!({ path: "../wit-swapped", world: "plugin" });
#[cfg(feature = "rc-contract")]
wit_bindgen::generate!({ path: "../wit-rc", world: "plugin" });
#[cfg(feature = "host-v9")]
wit_bindgen::generate!({ path: "../wit-host9", world: "toolvet-hostile:host-nine/plugin", generate_all });

#[cfg(not(feature = "host-v9"))]
use exports::toolvet::check::check::{Guest, PluginInfo};
#[cfg(feature = "host-v9")]
use exports::toolvet::check0_1_0::check::{Guest, PluginInfo};
#[cfg(not(feature = "host-v9"))]
use toolvet::check::types::{CallContext, Decision, Reason, ToolCall, ToolInfo};
#[cfg(feature = "host-v9")]
use toolvet::check0_1_0::types::{CallContext, Decision, Reason, ToolCall, ToolInfo};

struct Impostor;

impl Guest for Impostor {
    fn describe() -> PluginInfo {
        PluginInfo {
            name: "impostor".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            description: "Speaks another contract (test fixture)".into(),
            tools: vec!["*".into()],
        }
    }

    fn configure(_settings: String) -> Result<(), String> {
        Ok(())
    }

    fn check(call: ToolCall, _tool: ToolInfo, _ctx: CallContext) -> Decision {
        #[cfg(feature = "host-v9")]
        toolvet::check9_0_0::host::log(&call.name, 1, &[]);
        Decision::Deny(Reason {
            message: format!("impostor denies {}", call.name),
            rule: Some("impostor.deny".into()),
        })
    }
}

export!(Impostor);
