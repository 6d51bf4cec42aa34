//! The plugin development kit for toolvet checks written in Rust.
//!
//! A check is one type that implements [`Check`]: it is built from its
//! settings once per instance ([`Check::new`]) and then vets tool calls
//! ([`Check::check`]). [`export_check!`] turns that type into a component
//! implementing the `toolvet:check/plugin` world (`wit/check.wit`).
//!
//! ```no_run
//! use serde::Deserialize;
//! use toolvet_pdk::{Check, CheckResult, Context, Decision, PluginInfo, ToolCall, ToolInfo};
//!
//! #[derive(Deserialize, Default)]
//! #[serde(deny_unknown_fields, default)]
//! struct Settings {
//!     blocked_words: Vec<String>,
//! }
//!
//! struct NoBadWords(Settings);
//!
//! impl Check for NoBadWords {
//!     type Settings = Settings;
//!
//!     fn info() -> PluginInfo {
//!         PluginInfo::new("no-bad-words", env!("CARGO_PKG_VERSION"), "Denies calls containing blocked words")
//!     }
//!
//!     fn new(settings: Settings) -> Result<Self, String> {
//!         Ok(Self(settings))
//!     }
//!
//!     fn check(&self, call: &ToolCall, _tool: &ToolInfo, _ctx: &Context) -> CheckResult {
//!         Ok(match self.0.blocked_words.iter().find(|w| call.arguments.contains(w.as_str())) {
//!             Some(w) => Decision::deny("words.blocked", format!("the arguments contain `{w}`")),
//!             None => Decision::Allow,
//!         })
//!     }
//! }
//!
//! toolvet_pdk::export_check!(NoBadWords);
//! ```
//!
//! The same type compiles natively too, so a check's logic can be unit
//! tested and benchmarked without a WebAssembly runtime.
//!
//! Besides the contract's types, the kit holds what most checks need:
//!
//! - [`Globs`] / [`GlobList`]: tool-name (and argument-name) glob lists
//!   with the host's matching rules (ASCII case ignored, `*` crosses `/`);
//! - [`Action`]: a decision named in the settings (`action = "escalate"`);
//! - [`Key`]: the path of a setting in an error message
//!   (`settings.rules[0].tools: empty glob`);
//! - [`json`]: walking the arguments with the path of every value
//!   (`arguments.headers.Authorization`).
//!
//! # Errors inside `check`
//!
//! [`Check::check`] returns a [`CheckResult`], so `?` works on anything
//! that converts into an [`Error`] (a `String`, e.g. from
//! [`ToolCall::args`]). An `Err` **fails closed**: the component answers
//! **deny**, with the error's rule (default [`ERROR_RULE`],
//! `check.error`) and its message, which the model reads (e.g.
//! `arguments.path: invalid type: integer, expected a string`). A deny, not
//! a trap, because most errors are a malformed call the model can fix, and
//! a trap would hand the decision to the check's `on_error`, which an
//! operator may have set to `allow`. A panic still traps; the host then
//! applies `on_error`.
//!
//! # Control characters: refused before the check runs
//!
//! Before [`Check::check`] sees a call, the kit looks at the tool name,
//! every key and string of the arguments and the context's attributes, and
//! denies the call (rule [`CONTROL_CHARACTER_RULE`],
//! `input.control-character`, naming the argument, the byte offset and the
//! character, escaped) when one holds a control character other than tab
//! and newline; a carriage return is accepted only in a CRLF line end. A
//! check never has to handle `r\0m -rf ~` (bash drops the NUL and runs
//! `rm -rf ~`) or a path cut at a NUL: see [`input`] for the rule and why.
//! Both the component ([`export_check!`]) and [`Check::decide`] go through
//! [`vet`], which applies it; the Python and JavaScript kits apply the same
//! rule.

#![warn(missing_docs)]

pub mod globs;
pub mod input;
pub mod json;
pub mod settings;

pub use globs::{GlobList, Globs};
pub use input::CONTROL_CHARACTER_RULE;
pub use settings::{Action, Key};

use serde::de::DeserializeOwned;
use serde_json::Value;
use std::cell::OnceCell;

#[doc(hidden)]
#[allow(missing_docs)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "wit",
        world: "plugin",
        pub_export_macro: true,
        export_macro_name: "__export_plugin_world",
        default_bindings_module: "toolvet_pdk::bindings",
    });
}

/// Re-exported so a check crate needs no direct dependency to use them.
pub use serde;
pub use serde_json;

/// What a plugin says about itself (the WIT `plugin-info`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginInfo {
    /// Short machine name, e.g. `shell-guard`.
    pub name: String,
    /// The plugin's version, usually `env!("CARGO_PKG_VERSION")`.
    pub version: String,
    /// One-line description.
    pub description: String,
    /// Tool-name globs the check applies to unless the host config says
    /// otherwise. Default `["*"]`.
    pub tools: Vec<String>,
}

impl PluginInfo {
    /// Info for a plugin that applies to every tool (`tools = ["*"]`).
    pub fn new(name: &str, version: &str, description: &str) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            description: description.into(),
            tools: vec!["*".into()],
        }
    }

    /// Set the default tool-name globs.
    pub fn tools(mut self, globs: &[&str]) -> Self {
        self.tools = globs.iter().map(|g| g.to_string()).collect();
        self
    }
}

/// One proposed tool call.
#[derive(Debug, Clone, Default)]
pub struct ToolCall {
    /// The framework's call id (may be empty).
    pub id: String,
    /// The tool's name, e.g. `bash`.
    pub name: String,
    /// The arguments as JSON object text.
    pub arguments: String,
    parsed: OnceCell<Value>,
}

impl ToolCall {
    /// A call with the given tool name and JSON arguments text.
    pub fn new(name: impl Into<String>, arguments: impl Into<String>) -> Self {
        Self {
            id: String::new(),
            name: name.into(),
            arguments: arguments.into(),
            parsed: OnceCell::new(),
        }
    }

    /// The arguments deserialised into `T`.
    ///
    /// Keys `T` does not declare are skipped (serde's default), so a tool
    /// that gains a parameter does not break the check; put
    /// `#[serde(deny_unknown_fields)]` on `T` (and on each nested struct)
    /// to make them errors. The Python and JavaScript kits follow the same
    /// rule (`call.args(T, strict=True)`, `call.args(fields, { strict: true })`).
    ///
    /// # Errors
    /// A message naming the path of the offending field (e.g.
    /// `arguments.path: invalid type: integer, expected a string`).
    pub fn args<T: DeserializeOwned>(&self) -> Result<T, String> {
        from_json_text(&self.arguments, "arguments")
    }

    /// The arguments as a JSON value, parsed once and cached. An object;
    /// `Value::Null` if the text is not JSON (the host never sends that).
    pub fn json(&self) -> &Value {
        self.parsed
            .get_or_init(|| serde_json::from_str(&self.arguments).unwrap_or(Value::Null))
    }

    /// The string argument `key`, if present and a string.
    pub fn str_arg(&self, key: &str) -> Option<&str> {
        self.json().get(key).and_then(Value::as_str)
    }
}

/// What the agent's owner declared about the tool (the WIT `tool-info`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolInfo {
    /// Free-text description.
    pub description: Option<String>,
    /// Declared risk: `low`, `medium` or `high` by convention.
    pub risk: Option<String>,
    /// The owner asked for a person to approve every call.
    pub requires_approval: bool,
    /// Free-form labels.
    pub tags: Vec<String>,
    /// JSON Schema text of the parameters.
    pub parameters_schema: Option<String>,
}

/// What happened to an earlier call of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Allowed and ran.
    Allowed,
    /// Denied; did not run.
    Denied,
    /// Escalated, not yet answered.
    Escalated,
    /// Escalated, approved by a person, ran.
    Approved,
    /// Escalated, rejected by a person, did not run.
    Rejected,
}

impl Outcome {
    /// Whether the call went on to run (`Allowed` or `Approved`).
    pub fn ran(self) -> bool {
        matches!(self, Outcome::Allowed | Outcome::Approved)
    }
}

/// An earlier call of the same run.
#[derive(Debug, Clone)]
pub struct PriorCall {
    /// The tool's name.
    pub name: String,
    /// The arguments as JSON object text.
    pub arguments: String,
    /// What happened to it.
    pub outcome: Outcome,
}

/// The run a call belongs to (the WIT `call-context`).
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// Agent name.
    pub agent: Option<String>,
    /// Run id.
    pub run_id: Option<String>,
    /// On whose behalf the agent acts.
    pub principal: Option<String>,
    /// Earlier calls of the run, oldest first.
    pub history: Vec<PriorCall>,
    /// Key/value attributes such as `cwd`.
    pub attributes: Vec<(String, String)>,
}

impl Context {
    /// The value of attribute `key` (first match), e.g. `ctx.attribute("cwd")`.
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// The usual body of [`Check::warm_up`]: vet each `(tool, arguments)`
/// call twice, with no context and as a coding agent's call (attribute
/// `cwd` = `/home/alice/project`), and drop the decisions (an `Err`
/// included).
pub fn warm_up_with<C: Check>(check: &C, calls: &[(&str, Value)]) {
    let agent = Context {
        agent: Some("coder".into()),
        run_id: Some("warm-up".into()),
        attributes: vec![("cwd".into(), "/home/alice/project".into())],
        ..Context::default()
    };
    for ctx in [&Context::default(), &agent] {
        for (tool, arguments) in calls {
            let call = ToolCall::new(*tool, arguments.to_string());
            let _ = check.check(&call, &ToolInfo::default(), ctx);
        }
    }
}

/// About 2 KB of the ordinary text an agent's arguments carry (prose,
/// numbers, paths, URLs, an e-mail address, a little code, log lines and
/// JSON), for
/// [`Check::warm_up`] calls that scan text: a regex engine's lazy states
/// for ordinary text are then built before the snapshot.
pub const WARM_UP_TEXT: &str = "Weekly report for the platform team, 2024-06-14.\n\
Shipped: the new billing export (PR #1842), retries for the webhook sender, and \
the migration of 12 services to the v2 API. The p99 latency of /api/orders fell \
from 840 ms to 310 ms after the index on orders(created_at) landed.\n\
Open issues: the nightly job in src/jobs/reconcile.py fails about once a week \
with `TimeoutError: read timed out (30.0s)`; see https://github.com/example/app/issues/311. \
Next week: rotate the staging certificates, review the on-call runbook and \
finish the dashboard at https://grafana.example.com/d/abc123/orders?orgId=1.\n\
Questions to ops@example.com or #platform. Thanks to Dana, Lee and Sam!\n\
fn total(items: &[Item]) -> u64 { items.iter().map(|i| i.price * i.qty).sum() }\n\
We agreed to keep the old endpoint for one more release, write down how the \
retry budget is shared between the workers, and ask the security team to look \
at the new upload path before it goes live. Most of the remaining work is in the \
tests: they should cover a missing header, an empty body, very large files and \
names with spaces or accents (café, Zoë).\n\
2024-06-14T09:12:03Z INFO server listening on 0.0.0.0:8080 (pid 4121)\n\
2024-06-14T09:12:07Z WARN slow query: 1.84s SELECT * FROM orders WHERE status = 'open'\n\
{\"id\": 9182, \"name\": \"Quarterly plan\", \"tags\": [\"q3\", \"planning\"], \"done\": false}\n";

/// Why a check denied or escalated a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    /// Shown to the model (deny) or the approver (escalate).
    pub message: String,
    /// Stable rule id, e.g. `shell.rm-root`.
    pub rule: Option<String>,
}

/// One check's answer about one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// The call may run as far as this check is concerned.
    Allow,
    /// No opinion.
    Abstain,
    /// The call must not run.
    Deny(Reason),
    /// A person must approve the call first.
    Escalate(Reason),
}

impl Decision {
    /// A deny with a rule id and a message for the model.
    pub fn deny(rule: &str, message: impl Into<String>) -> Self {
        Decision::Deny(Reason {
            message: message.into(),
            rule: Some(rule.into()),
        })
    }

    /// An escalate with a rule id and a message for the approver.
    pub fn escalate(rule: &str, message: impl Into<String>) -> Self {
        Decision::Escalate(Reason {
            message: message.into(),
            rule: Some(rule.into()),
        })
    }

    /// The decision's name: `allow`, `abstain`, `deny` or `escalate`.
    pub fn kind(&self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Abstain => "abstain",
            Decision::Deny(_) => "deny",
            Decision::Escalate(_) => "escalate",
        }
    }

    /// The rule id, for deny and escalate.
    pub fn rule(&self) -> Option<&str> {
        match self {
            Decision::Deny(r) | Decision::Escalate(r) => r.rule.as_deref(),
            _ => None,
        }
    }

    /// Severity order used to keep the strongest of several findings:
    /// abstain < allow < escalate < deny.
    pub fn severity(&self) -> u8 {
        match self {
            Decision::Abstain => 0,
            Decision::Allow => 1,
            Decision::Escalate(_) => 2,
            Decision::Deny(_) => 3,
        }
    }

    /// The more severe of `self` and `other` (the first on a tie).
    pub fn max(self, other: Decision) -> Decision {
        if other.severity() > self.severity() {
            other
        } else {
            self
        }
    }
}

/// The rule id of a deny made from an [`Error`] without a rule of its own.
pub const ERROR_RULE: &str = "check.error";

/// Why a check could not vet a call. The kit answers it as a deny (see
/// the crate docs, "Errors inside `check`").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The rule id of the deny; [`ERROR_RULE`] when `None`.
    pub rule: Option<String>,
    /// What went wrong, for the model: name the argument and what would
    /// be accepted.
    pub message: String,
}

impl Error {
    /// An error with the default rule [`ERROR_RULE`].
    pub fn new(message: impl Into<String>) -> Self {
        Error {
            rule: None,
            message: message.into(),
        }
    }

    /// An error reported under `rule`, e.g. `shell.unparseable`.
    pub fn with_rule(rule: &str, message: impl Into<String>) -> Self {
        Error {
            rule: Some(rule.into()),
            message: message.into(),
        }
    }

    /// The deny this error fails closed to.
    pub fn into_decision(self) -> Decision {
        Decision::Deny(Reason {
            message: self.message,
            rule: Some(self.rule.unwrap_or_else(|| ERROR_RULE.into())),
        })
    }
}

impl From<String> for Error {
    fn from(message: String) -> Self {
        Error::new(message)
    }
}

impl From<&str> for Error {
    fn from(message: &str) -> Self {
        Error::new(message)
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// What [`Check::check`] returns: a decision, or an [`Error`] that fails
/// closed to a deny.
pub type CheckResult = Result<Decision, Error>;

/// A check: built from settings once per instance, then asked about calls.
pub trait Check: Sized + 'static {
    /// The check's settings, deserialised from the JSON object the host
    /// passes to `configure` (`{}` when the config has none). Use
    /// `#[serde(deny_unknown_fields, default)]` so a typo is an error that
    /// names the key.
    type Settings: DeserializeOwned;

    /// Name, version, description and default tool globs.
    fn info() -> PluginInfo;

    /// Build the check from its settings.
    ///
    /// # Errors
    /// A message naming the offending setting, e.g.
    /// `settings.roots[0]: must be an absolute path`.
    fn new(settings: Self::Settings) -> Result<Self, String>;

    /// Vet one tool call.
    ///
    /// # Errors
    /// Anything that keeps the check from deciding; the component answers
    /// it as a deny with the error's rule (see [`Error`]).
    fn check(&self, call: &ToolCall, tool: &ToolInfo, ctx: &Context) -> CheckResult;

    /// Build now whatever the check would otherwise build lazily on its
    /// first call: `OnceLock` tables, caches, the regex engines' lazy DFA
    /// states. The usual way is to vet a few typical calls and drop the
    /// decisions. The component calls it at the end of `configure`; under
    /// per-call isolation the host snapshots the instance after
    /// `configure`, so what this builds is in every fresh instance instead
    /// of being built again by each one's first call. It must leave no
    /// state that changes a later decision (a cache of pure results is
    /// fine). It costs its time once per snapshot, and once per instance
    /// where there is no snapshot (reused instances, `preinitialize =
    /// false`). Default: nothing.
    fn warm_up(&self) {}

    /// What the component answers ([`vet`]): the kit's refusal of control
    /// characters, else [`Check::check`] with an `Err` turned into its
    /// deny. What tests and benchmarks compare.
    fn decide(&self, call: &ToolCall, tool: &ToolInfo, ctx: &Context) -> Decision {
        vet(self, call, tool, ctx)
    }

    /// Build the check from settings JSON text, as the host's `configure`
    /// does.
    ///
    /// # Errors
    /// Invalid JSON or a setting of the wrong shape, with its path
    /// (`settings.allow[2]: invalid type: ...`), or [`Check::new`]'s error.
    fn from_settings_json(settings: &str) -> Result<Self, String> {
        let text = if settings.trim().is_empty() {
            "{}"
        } else {
            settings
        };
        Self::new(from_json_text(text, "settings")?)
    }
}

/// What the component answers about `call`: the kit's deny when the call
/// holds a refused control character ([`input`]), else the check's
/// decision, with an `Err` turned into its deny ([`Error::into_decision`]).
/// [`export_check!`] calls this, not an overridable method, so no check
/// can skip the input rule.
pub fn vet<C: Check>(check: &C, call: &ToolCall, tool: &ToolInfo, ctx: &Context) -> Decision {
    if let Some(refused) = input::refusal(call, ctx) {
        return refused;
    }
    check
        .check(call, tool, ctx)
        .unwrap_or_else(Error::into_decision)
}

/// Deserialise JSON text into `T`, naming the failing path under `root`
/// (`arguments.files[2].path: invalid type: integer `7`, expected a
/// string`). The host wrote this text (from the agent's call or the
/// policy's TOML), so serde's "at line 1 column 18" would point into text
/// nobody reading the message has seen: it is left out, and the path says
/// where.
fn from_json_text<T: DeserializeOwned>(text: &str, root: &str) -> Result<T, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let message = without_position(e.inner());
        if path == "." {
            format!("{root}: {message}")
        } else {
            format!("{root}.{path}: {message}")
        }
    })
}

/// A serde_json error's message without its " at line L column C".
fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&position) {
        Some(message) => message.to_string(),
        None => text,
    }
}

/// Log through the host (`toolvet:check/host.log`). Natively (unit tests,
/// benchmarks) the line goes to stderr.
pub mod log {
    #[cfg(target_arch = "wasm32")]
    fn write(level: crate::bindings::toolvet::check::host::Level, message: &str) {
        crate::bindings::toolvet::check::host::log(level, message);
    }

    macro_rules! level_fn {
        ($name:ident, $level:ident) => {
            #[doc = concat!("Log `message` at ", stringify!($name), " level.")]
            pub fn $name(message: &str) {
                #[cfg(target_arch = "wasm32")]
                write(
                    crate::bindings::toolvet::check::host::Level::$level,
                    message,
                );
                #[cfg(not(target_arch = "wasm32"))]
                eprintln!("[{}] {message}", stringify!($name));
            }
        };
    }
    level_fn!(debug, Debug);
    level_fn!(info, Info);
    level_fn!(warn, Warn);
    level_fn!(error, Error);
}

/// Conversions between the WIT bindings and the kit's types, used by
/// [`export_check!`]. Not part of the public API.
#[doc(hidden)]
#[allow(missing_docs)]
pub mod __private {
    use super::*;
    use crate::bindings::exports::toolvet::check::check as wit_check;
    use crate::bindings::toolvet::check::types as wit;

    pub fn describe<C: Check>() -> wit_check::PluginInfo {
        let info = C::info();
        wit_check::PluginInfo {
            name: info.name,
            version: info.version,
            description: info.description,
            tools: info.tools,
        }
    }

    pub fn call(c: wit::ToolCall) -> ToolCall {
        ToolCall {
            id: c.id,
            name: c.name,
            arguments: c.arguments,
            parsed: OnceCell::new(),
        }
    }

    pub fn tool(t: wit::ToolInfo) -> ToolInfo {
        ToolInfo {
            description: t.description,
            risk: t.risk,
            requires_approval: t.requires_approval,
            tags: t.tags,
            parameters_schema: t.parameters_schema,
        }
    }

    pub fn context(c: wit::CallContext) -> Context {
        Context {
            agent: c.agent,
            run_id: c.run_id,
            principal: c.principal,
            history: c
                .history
                .into_iter()
                .map(|p| PriorCall {
                    name: p.name,
                    arguments: p.arguments,
                    outcome: match p.outcome {
                        wit::Outcome::Allowed => Outcome::Allowed,
                        wit::Outcome::Denied => Outcome::Denied,
                        wit::Outcome::Escalated => Outcome::Escalated,
                        wit::Outcome::Approved => Outcome::Approved,
                        wit::Outcome::Rejected => Outcome::Rejected,
                    },
                })
                .collect(),
            attributes: c.attributes,
        }
    }

    pub fn decision(d: Decision) -> wit::Decision {
        let reason = |r: Reason| wit::Reason {
            message: r.message,
            rule: r.rule,
        };
        match d {
            Decision::Allow => wit::Decision::Allow,
            Decision::Abstain => wit::Decision::Abstain,
            Decision::Deny(r) => wit::Decision::Deny(reason(r)),
            Decision::Escalate(r) => wit::Decision::Escalate(reason(r)),
        }
    }
}

/// Export a [`Check`] implementation as the component's `toolvet:check`
/// interface. Use once per plugin crate, at the crate root.
///
/// The configured check lives for the instance: `configure` builds it from
/// the settings, and each `check` uses it. If `check` runs before
/// `configure` (a host bug), the check is built from `{}`; if that fails,
/// the call traps and the host applies the check's `on_error`.
#[macro_export]
macro_rules! export_check {
    ($ty:ty) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            use $crate::bindings::exports::toolvet::check::check as __wit_check;
            use $crate::bindings::toolvet::check::types as __wit;

            ::std::thread_local! {
                static __CONFIGURED: ::std::cell::RefCell<::std::option::Option<$ty>> =
                    const { ::std::cell::RefCell::new(None) };
            }

            struct __ToolvetPlugin;

            impl __wit_check::Guest for __ToolvetPlugin {
                fn describe() -> __wit_check::PluginInfo {
                    $crate::__private::describe::<$ty>()
                }

                fn configure(settings: ::std::string::String) -> ::std::result::Result<(), ::std::string::String> {
                    let built = <$ty as $crate::Check>::from_settings_json(&settings)?;
                    $crate::Check::warm_up(&built);
                    __CONFIGURED.with(|c| *c.borrow_mut() = Some(built));
                    Ok(())
                }

                fn check(call: __wit::ToolCall, tool: __wit::ToolInfo, ctx: __wit::CallContext) -> __wit::Decision {
                    __CONFIGURED.with(|c| {
                        let mut slot = c.borrow_mut();
                        if slot.is_none() {
                            let built = <$ty as $crate::Check>::from_settings_json("{}")
                                .unwrap_or_else(|e| panic!("check used before configure: {e}"));
                            *slot = Some(built);
                        }
                        let check = slot.as_ref().expect("configured above");
                        let decision = $crate::vet(
                            check,
                            &$crate::__private::call(call),
                            &$crate::__private::tool(tool),
                            &$crate::__private::context(ctx),
                        );
                        $crate::__private::decision(decision)
                    })
                }
            }

            $crate::bindings::__export_plugin_world!(__ToolvetPlugin with_types_in $crate::bindings);
        };
        // Natively the type is used by tests and benchmarks only; refer to
        // it so an unused check does not warn.
        #[cfg(not(target_arch = "wasm32"))]
        const _: () = {
            let _ = <$ty as $crate::Check>::from_settings_json;
            let _ = <$ty as $crate::Check>::decide;
        };
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Default, Debug)]
    #[serde(deny_unknown_fields, default)]
    struct Settings {
        roots: Vec<String>,
        limit: u32,
    }

    struct Probe(Settings);

    #[derive(Deserialize)]
    struct Fail {
        fail: String,
    }

    impl Check for Probe {
        type Settings = Settings;
        fn info() -> PluginInfo {
            PluginInfo::new("probe", "0.1.0", "test").tools(&["bash"])
        }
        fn new(settings: Settings) -> Result<Self, String> {
            if settings.limit > 10 {
                return Err("settings.limit: at most 10".into());
            }
            Ok(Self(settings))
        }
        fn check(&self, call: &ToolCall, _: &ToolInfo, ctx: &Context) -> CheckResult {
            if call.str_arg("fail").is_some() {
                let n: u32 = call
                    .args::<Fail>()?
                    .fail
                    .parse()
                    .map_err(|_| "arguments.fail: not a number")?;
                return Err(Error::with_rule("probe.fail", format!("failed with {n}")));
            }
            Ok(match call.str_arg("path") {
                Some(p) if self.0.roots.iter().any(|r| p.starts_with(r.as_str())) => {
                    Decision::Allow
                }
                Some(_) if ctx.attribute("cwd").is_some() => {
                    Decision::escalate("probe.outside", "outside")
                }
                Some(_) => Decision::deny("probe.outside", "outside"),
                None => Decision::Abstain,
            })
        }
    }

    #[test]
    fn settings_errors_name_the_key() {
        let e = Probe::from_settings_json(r#"{"roots": ["/w", 3]}"#)
            .err()
            .unwrap();
        assert!(
            e.starts_with("settings.roots[1]: invalid type: integer"),
            "{e}"
        );
        let e = Probe::from_settings_json(r#"{"root": []}"#).err().unwrap();
        assert_eq!(
            e,
            "settings.root: unknown field `root`, expected `roots` or `limit`"
        );
        let e = Probe::from_settings_json(r#"{"limit": 11}"#).err().unwrap();
        assert_eq!(e, "settings.limit: at most 10");
        assert!(Probe::from_settings_json("").is_ok(), "empty means {{}}");
    }

    #[test]
    fn typed_arguments_and_decisions() {
        #[derive(Deserialize, Debug)]
        struct Args {
            path: String,
        }
        let call = ToolCall::new("read_file", r#"{"path": 7}"#);
        let e = call.args::<Args>().unwrap_err();
        // The path says where; no parser position in text nobody wrote.
        assert_eq!(
            e,
            "arguments.path: invalid type: integer `7`, expected a string"
        );
        let e = ToolCall::new("read_file", r#"{"size": 1}"#)
            .args::<Args>()
            .unwrap_err();
        assert_eq!(e, "arguments: missing field `path`");
        // Unknown keys: skipped by default, an error when the type asks.
        let extra = ToolCall::new("read_file", r#"{"path": "/a", "encoding": "utf-8"}"#);
        assert_eq!(extra.args::<Args>().unwrap().path, "/a");
        #[derive(Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Strict {
            path: String,
        }
        assert_eq!(
            extra.args::<Strict>().unwrap_err(),
            "arguments.encoding: unknown field `encoding`, expected `path`"
        );
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct Nested {
            files: Vec<Args>,
        }
        let e = ToolCall::new("copy", r#"{"files": [{"path": "a"}, {"path": true}]}"#)
            .args::<Nested>()
            .unwrap_err();
        assert_eq!(
            e,
            "arguments.files[1].path: invalid type: boolean `true`, expected a string"
        );
        let probe = Probe::from_settings_json(r#"{"roots": ["/w"]}"#).unwrap();
        let ctx = Context::default();
        let run =
            |args: &str| probe.decide(&ToolCall::new("bash", args), &ToolInfo::default(), &ctx);
        assert_eq!(run(r#"{"path": "/w/a"}"#), Decision::Allow);
        assert_eq!(run(r#"{"path": "/etc"}"#).rule(), Some("probe.outside"));
        assert_eq!(run("{}"), Decision::Abstain);
        let strongest = Decision::Allow
            .max(Decision::escalate("a", "x"))
            .max(Decision::deny("b", "y"))
            .max(Decision::Abstain);
        assert_eq!(strongest.kind(), "deny");
        assert_eq!(Probe::info().tools, vec!["bash".to_string()]);
    }

    #[test]
    fn control_characters_are_refused_before_the_check_runs() {
        struct Never;
        impl Check for Never {
            type Settings = Settings;
            fn info() -> PluginInfo {
                PluginInfo::new("never", "0.1.0", "test")
            }
            fn new(_: Settings) -> Result<Self, String> {
                Ok(Never)
            }
            fn check(&self, call: &ToolCall, _: &ToolInfo, _: &Context) -> CheckResult {
                assert!(
                    !call.arguments.contains("\\u0000"),
                    "the kit refuses before the check runs"
                );
                Ok(Decision::Allow)
            }
        }
        let ctx = Context::default();
        let run =
            |args: &str| Never.decide(&ToolCall::new("bash", args), &ToolInfo::default(), &ctx);
        for (args, path) in [
            (r#"{"command": "r\u0000m -rf ~"}"#, "arguments.command"),
            (r#"{"command": "su\u0000do id"}"#, "arguments.command"),
            (
                r#"{"command": "terraform dest\u0000roy"}"#,
                "arguments.command",
            ),
            (
                r#"{"path": ".claude/settings.js\u0000on"}"#,
                "arguments.path",
            ),
        ] {
            let d = run(args);
            assert_eq!(d.rule(), Some(CONTROL_CHARACTER_RULE), "{args}");
            let Decision::Deny(r) = d else { panic!() };
            assert!(r.message.contains(&format!("`{path}`")), "{}", r.message);
        }
        assert_eq!(run(r#"{"command": "printf 'a\tb\n'"}"#), Decision::Allow);
        assert_eq!(
            run(r#"{"command": "ls\u001b[2J"}"#).rule(),
            Some(CONTROL_CHARACTER_RULE)
        );
        assert_eq!(run(r#"{"content": "del \u007f"}"#), Decision::Allow);
        assert_eq!(
            vet(
                &Never,
                &ToolCall::new("bash", r#"{"c": "\u0007"}"#),
                &ToolInfo::default(),
                &ctx
            )
            .rule(),
            Some(CONTROL_CHARACTER_RULE)
        );
    }

    #[test]
    fn errors_fail_closed_to_a_deny() {
        let probe = Probe::from_settings_json("{}").unwrap();
        let ctx = Context::default();
        let run =
            |args: &str| probe.decide(&ToolCall::new("bash", args), &ToolInfo::default(), &ctx);
        let d = run(r#"{"fail": "7"}"#);
        assert_eq!(d, Decision::deny("probe.fail", "failed with 7"));
        let d = run(r#"{"fail": "x"}"#);
        assert_eq!(
            d,
            Decision::deny(ERROR_RULE, "arguments.fail: not a number")
        );
        assert_eq!(
            Error::from("m".to_string()).into_decision().rule(),
            Some("check.error")
        );
    }
}
