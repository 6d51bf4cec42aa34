//! The facts stage: what a call does (its [`Effects`]) and what its
//! arguments are for (their [`Role`]s), whatever the tool is called.
//!
//! The host derives [`ToolFacts`] once per call, before selection, and
//! hands them to every `toolvet:check@0.2.0` check in `tool-info.facts`
//! (0.1.0 checks never see them). Checks then judge tools they were never
//! taught by name: a shell command is a shell command whether the tool is
//! `bash`, Cursor's `run_terminal_cmd` or a cron tool's `command`.
//!
//! Where the facts come from, in order (the first that knows the tool
//! gives its effects; the caller can add to them, never take away):
//!
//! 1. the tool catalog ([`catalog::Catalog`]): the tools agents really
//!    expose, each from its project's own definition, with the source and
//!    commit it was read from (`crates/toolvet/catalog/`);
//! 2. inference (`infer.rs`) from the tool's name (its verbs: `delete`,
//!    `send`, `transfer`, `merge`), its declared description and JSON
//!    Schema, and the argument names and values;
//! 3. the caller's declaration: `tool.tags` naming an effect add it.
//!
//! A tool that calls another one named in its arguments (Cline's
//! `use_mcp_tool`: a catalog entry's `wraps`) makes a call the host vets
//! as if it were made directly ([`FactFinder::wrapped_calls`]), at most
//! three wrappers deep.
//!
//! Roles are always found for the arguments the call really has: the
//! catalog's entry names some, and inference names the rest. This lives in
//! the core, not in a check, so that one owner knows what a call does and
//! every check (Rust, Python, JavaScript) reads the same facts through the
//! contract; `toolvet explain` prints them.

pub mod catalog;
pub(crate) mod infer;

use crate::bindings::wit;
use serde::{Deserialize, Serialize};

/// What an argument is for, whatever the tool calls it (the contract's
/// `role`, `wit/check-0.2/check.wit`). Written in kebab case
/// (`shell-command`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// A command line run by a shell.
    ShellCommand,
    /// Program text run by an interpreter.
    SourceCode,
    /// A path on the file system.
    FilePath,
    /// A URL fetched or sent to.
    Url,
    /// A host name or address connected to.
    Host,
    /// Text sent or published.
    OutboundContent,
    /// Who receives what is sent.
    Recipient,
    /// An amount of money or of a token.
    Amount,
    /// The currency or token of an amount.
    Currency,
    /// A source repository.
    Repository,
    /// A branch or other reference of a repository.
    Branch,
    /// A cloud or cluster resource.
    CloudResource,
    /// The environment a change goes to.
    Environment,
    /// A query run against a data store.
    Query,
}

impl Role {
    /// Every role, in the contract's order.
    pub const ALL: [Role; 14] = [
        Role::ShellCommand,
        Role::SourceCode,
        Role::FilePath,
        Role::Url,
        Role::Host,
        Role::OutboundContent,
        Role::Recipient,
        Role::Amount,
        Role::Currency,
        Role::Repository,
        Role::Branch,
        Role::CloudResource,
        Role::Environment,
        Role::Query,
    ];

    /// The role's name as written in policies and catalogs:
    /// `shell-command`.
    pub fn name(self) -> &'static str {
        match self {
            Role::ShellCommand => "shell-command",
            Role::SourceCode => "source-code",
            Role::FilePath => "file-path",
            Role::Url => "url",
            Role::Host => "host",
            Role::OutboundContent => "outbound-content",
            Role::Recipient => "recipient",
            Role::Amount => "amount",
            Role::Currency => "currency",
            Role::Repository => "repository",
            Role::Branch => "branch",
            Role::CloudResource => "cloud-resource",
            Role::Environment => "environment",
            Role::Query => "query",
        }
    }

    /// The role named `name` (as [`Role::name`] writes it).
    pub fn from_name(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == name)
    }

    pub(crate) fn to_wit(self) -> wit::Role {
        match self {
            Role::ShellCommand => wit::Role::ShellCommand,
            Role::SourceCode => wit::Role::SourceCode,
            Role::FilePath => wit::Role::FilePath,
            Role::Url => wit::Role::Url,
            Role::Host => wit::Role::Host,
            Role::OutboundContent => wit::Role::OutboundContent,
            Role::Recipient => wit::Role::Recipient,
            Role::Amount => wit::Role::Amount,
            Role::Currency => wit::Role::Currency,
            Role::Repository => wit::Role::Repository,
            Role::Branch => wit::Role::Branch,
            Role::CloudResource => wit::Role::CloudResource,
            Role::Environment => wit::Role::Environment,
            Role::Query => wit::Role::Query,
        }
    }

    pub(crate) fn from_wit(role: wit::Role) -> Role {
        Role::ALL
            .into_iter()
            .find(|r| r.to_wit() == role)
            .expect("every contract role has a host role")
    }
}

/// One effect class of the contract's `effects` flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Effect {
    /// Reads data.
    Read,
    /// Creates or changes data.
    Write,
    /// Deletes data.
    Delete,
    /// Runs code or commands.
    Execute,
    /// Sends a message to a person or system outside the run.
    OutboundMessage,
    /// Moves money or tokens.
    Payment,
    /// Makes something public, released or merged; changes visibility.
    Publish,
    /// Changes who may do what.
    PermissionChange,
    /// Changes what runs in an environment.
    Deploy,
}

impl Effect {
    /// Every effect, in the contract's order.
    pub const ALL: [Effect; 9] = [
        Effect::Read,
        Effect::Write,
        Effect::Delete,
        Effect::Execute,
        Effect::OutboundMessage,
        Effect::Payment,
        Effect::Publish,
        Effect::PermissionChange,
        Effect::Deploy,
    ];

    /// The effect's name as written in policies and catalogs:
    /// `outbound-message`.
    pub fn name(self) -> &'static str {
        match self {
            Effect::Read => "read",
            Effect::Write => "write",
            Effect::Delete => "delete",
            Effect::Execute => "execute",
            Effect::OutboundMessage => "outbound-message",
            Effect::Payment => "payment",
            Effect::Publish => "publish",
            Effect::PermissionChange => "permission-change",
            Effect::Deploy => "deploy",
        }
    }

    /// The effect named `name` (as [`Effect::name`] writes it).
    pub fn from_name(name: &str) -> Option<Effect> {
        Effect::ALL.into_iter().find(|e| e.name() == name)
    }

    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

/// A set of [`Effect`]s. Serialised as the list of their names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Effects(u16);

impl Effects {
    /// No effect.
    pub const NONE: Effects = Effects(0);

    /// Whether the set holds `effect`.
    pub fn contains(self, effect: Effect) -> bool {
        self.0 & effect.bit() != 0
    }

    /// Add `effect`.
    pub fn insert(&mut self, effect: Effect) {
        self.0 |= effect.bit();
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the two sets share an effect.
    pub fn intersects(self, other: Effects) -> bool {
        self.0 & other.0 != 0
    }

    /// Both sets' effects.
    pub fn union(self, other: Effects) -> Effects {
        Effects(self.0 | other.0)
    }

    /// The effects, in the contract's order.
    pub fn iter(self) -> impl Iterator<Item = Effect> {
        Effect::ALL.into_iter().filter(move |e| self.contains(*e))
    }

    pub(crate) fn to_wit(self) -> wit::Effects {
        let mut out = wit::Effects::empty();
        for e in self.iter() {
            out |= match e {
                Effect::Read => wit::Effects::READ,
                Effect::Write => wit::Effects::WRITE,
                Effect::Delete => wit::Effects::DELETE,
                Effect::Execute => wit::Effects::EXECUTE,
                Effect::OutboundMessage => wit::Effects::OUTBOUND_MESSAGE,
                Effect::Payment => wit::Effects::PAYMENT,
                Effect::Publish => wit::Effects::PUBLISH,
                Effect::PermissionChange => wit::Effects::PERMISSION_CHANGE,
                Effect::Deploy => wit::Effects::DEPLOY,
            };
        }
        out
    }

    pub(crate) fn from_wit(flags: wit::Effects) -> Effects {
        Effect::ALL
            .into_iter()
            .filter(|e| flags.contains(Effects::from_iter([*e]).to_wit()))
            .collect()
    }
}

impl FromIterator<Effect> for Effects {
    fn from_iter<I: IntoIterator<Item = Effect>>(iter: I) -> Self {
        let mut out = Effects::NONE;
        for e in iter {
            out.insert(e);
        }
        out
    }
}

impl Serialize for Effects {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(Effect::name))
    }
}

impl<'de> Deserialize<'de> for Effects {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let names = Vec::<String>::deserialize(d)?;
        names
            .iter()
            .map(|n| {
                Effect::from_name(n).ok_or_else(|| {
                    serde::de::Error::custom(format!(
                        "unknown effect `{n}` (one of: {})",
                        Effect::ALL.map(Effect::name).join(", ")
                    ))
                })
            })
            .collect()
    }
}

/// One argument value with the role found for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoleValue {
    /// What the value is for.
    pub role: Role,
    /// JSON Pointer (RFC 6901) into the arguments: `/command`, `/to/0`.
    pub pointer: String,
    /// The value as text: a string's content, other values as JSON text.
    pub value: String,
    /// For `source-code`, the language (`python`); for `shell-command`, the
    /// shell (`bash`, `cmd`), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dialect: Option<String>,
}

/// Where the facts about a tool came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FactSource {
    /// Catalog entries, `source/name@version`
    /// (`github-mcp-server/merge_pull_request@2026-12`); more than one when
    /// the name is ambiguous, their effects joined.
    Catalog(Vec<String>),
    /// Inferred: the words and values that led there
    /// (`name verb "delete": delete`).
    Inferred(Vec<String>),
    /// Declared by the caller (`tool.tags` naming effects), nothing else
    /// known.
    Declared,
}

/// What the host found a call does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolFacts {
    /// The effect classes.
    pub effects: Effects,
    /// The action cannot be undone (a delete without undo, a payment, a
    /// message sent, a publication).
    pub irreversible: bool,
    /// The call changes a protected target: production or another
    /// protected environment named, the `main` branch of a shared
    /// repository, or a tool whose every call does (the catalog's
    /// `protected_target`, a pull request's merge).
    pub protected_target: bool,
    /// Every argument value whose role was found, by pointer.
    pub roles: Vec<RoleValue>,
    /// Where the effects came from.
    pub source: FactSource,
    /// Why, in words a person and a model can act on: one entry per
    /// finding (`catalog github-mcp-server/merge_pull_request@2026-12`,
    /// `name verb "trash": delete`, `/environment = "production"`).
    pub reasons: Vec<String>,
}

impl ToolFacts {
    /// Whether the call has a value of `role`.
    pub fn has_role(&self, role: Role) -> bool {
        self.roles.iter().any(|r| r.role == role)
    }

    /// The contract's `tool-facts`.
    pub(crate) fn to_wit(&self) -> wit::ToolFacts {
        wit::ToolFacts {
            effects: self.effects.to_wit(),
            irreversible: self.irreversible,
            protected_target: self.protected_target,
            roles: self
                .roles
                .iter()
                .map(|r| wit::RoleValue {
                    role: r.role.to_wit(),
                    pointer: r.pointer.clone(),
                    value: r.value.clone(),
                    dialect: r.dialect.clone(),
                })
                .collect(),
            source: match &self.source {
                FactSource::Catalog(ids) => wit::FactSource::Catalog(ids.join(" ")),
                FactSource::Inferred(why) => wit::FactSource::Inferred(why.clone()),
                FactSource::Declared => wit::FactSource::Declared,
            },
        }
    }
}

/// How the host understood a call ([`crate::Host::explain`], `toolvet
/// explain`): its facts, and which checks vet it and why.
#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    /// The call's tool name.
    pub tool: String,
    /// What the call does.
    pub facts: ToolFacts,
    /// The checks that vet it, in policy order.
    pub checks: Vec<CheckRoute>,
    /// The calls it makes through a wrapping tool ([`FactFinder::wrapped_calls`]),
    /// each explained the same way; empty for any other tool.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub makes: Vec<Explanation>,
    /// Why a call it makes cannot be vetted (the host denies it), if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unvettable: Option<String>,
}

/// One check that vets a call, and what routed the call to it.
#[derive(Debug, Clone, Serialize)]
pub struct CheckRoute {
    /// The check's name in the policy.
    pub check: String,
    /// `tool name`, `role ROLE` or `effect EFFECT`: every route that
    /// matched.
    pub via: Vec<String>,
}

/// What the host knows about any call: the shipped catalog, with the
/// policy's own entries before it. Cheap to share (`Arc` inside).
#[derive(Debug, Clone)]
pub struct FactFinder {
    catalog: std::sync::Arc<catalog::Catalog>,
}

impl Default for FactFinder {
    fn default() -> Self {
        FactFinder {
            catalog: catalog::Catalog::shipped(),
        }
    }
}

impl FactFinder {
    /// A finder over `catalog`.
    pub fn new(catalog: std::sync::Arc<catalog::Catalog>) -> Self {
        FactFinder { catalog }
    }

    /// The catalog it reads.
    pub fn catalog(&self) -> &catalog::Catalog {
        &self.catalog
    }

    /// The facts of `request`'s call: see the module documentation for the
    /// order. Never fails: arguments that are not an object (the host
    /// refuses those before) give no roles.
    pub fn facts(&self, request: &crate::CallRequest) -> ToolFacts {
        let arguments: serde_json::Value =
            serde_json::from_str(request.call.arguments.get()).unwrap_or_default();
        infer::derive(&self.catalog, &request.call.name, &arguments, &request.tool)
    }

    /// Whether a call to `tool` may make another call through a wrapping
    /// tool: a catalog entry with [`catalog::Wraps`], or, for a tool the
    /// catalog does not know, a name of the shape of one (`use_mcp_tool`,
    /// `call_tool`, `executeTool`: a verb `use`, `call`, `execute`,
    /// `invoke` or `run`, then `tool` or `mcp tool`).
    pub fn wraps(&self, tool: &str) -> bool {
        let entries = self.catalog.lookup(tool);
        entries.iter().any(|e| e.wraps.is_some()) || (entries.is_empty() && wrapper_by_name(tool))
    }

    /// The calls `request` makes through a wrapping tool (Cline's
    /// `use_mcp_tool`), each as the call the tool's server receives: the
    /// inner tool's name as its server defines it, its arguments (given as
    /// an object, or as JSON text read as strictly as a call's own), and
    /// `request`'s context with its history as [`FactFinder::unwrapped_history`]
    /// gives it. Empty for any other tool.
    ///
    /// # Errors
    /// A wrapped call that cannot be read, so cannot be vetted: no tool
    /// named, a name with white space, control or invisible characters
    /// (tool-name lists would not match it, and a client may trim it) or
    /// with letters that read as ASCII ones ([`crate::call`]'s rule), or
    /// arguments that are neither an object nor JSON text of one. The
    /// message names the wrapper and the argument.
    pub fn wrapped_calls(
        &self,
        request: &crate::CallRequest,
    ) -> Result<Vec<crate::CallRequest>, String> {
        let made = self.made(&request.call.name, request.call.arguments.get())?;
        Ok(made
            .into_iter()
            .map(|(name, arguments)| crate::CallRequest {
                call: crate::call::ToolCall {
                    id: request.call.id.clone(),
                    name,
                    arguments,
                },
                tool: crate::call::ToolInfo::default(),
                context: request.context.clone(),
                approval: None,
            })
            .collect())
    }

    /// `history` with every earlier call made through a wrapping tool
    /// written as the calls it made (same outcome), so checks that count or
    /// order a run's calls (spend so far, `only_after`, loops) see them as
    /// the tools that ran. One that cannot be read stays as it was.
    pub fn unwrapped_history<'h>(
        &self,
        history: &'h [crate::call::PriorCall],
    ) -> std::borrow::Cow<'h, [crate::call::PriorCall]> {
        if !history.iter().any(|p| self.wraps(&p.name)) {
            return std::borrow::Cow::Borrowed(history);
        }
        let mut out = Vec::with_capacity(history.len());
        for prior in history {
            match self.made(&prior.name, prior.arguments.get()) {
                Ok(made) if !made.is_empty() => {
                    out.extend(
                        made.into_iter()
                            .map(|(name, arguments)| crate::call::PriorCall {
                                name,
                                arguments,
                                outcome: prior.outcome,
                            }),
                    );
                }
                _ => out.push(prior.clone()),
            }
        }
        std::borrow::Cow::Owned(out)
    }

    /// The calls (tool name, arguments) a call to `tool` with `arguments`
    /// makes through a wrapping tool: see [`FactFinder::wrapped_calls`].
    fn made(
        &self,
        tool: &str,
        arguments: &str,
    ) -> Result<Vec<(String, Box<serde_json::value::RawValue>)>, String> {
        let entries = self.catalog.lookup(tool);
        let catalogued: Vec<&catalog::Wraps> =
            entries.iter().filter_map(|e| e.wraps.as_ref()).collect();
        let by_name = entries.is_empty() && wrapper_by_name(tool);
        if catalogued.is_empty() && !by_name {
            return Ok(Vec::new());
        }
        let outer = crate::display::visible(tool);
        let arguments: serde_json::Value = serde_json::from_str(arguments)
            .map_err(|e| format!("the arguments of `{outer}` cannot be read: {e}"))?;
        let inferred;
        let wrappers: Vec<&catalog::Wraps> = if by_name {
            match inferred_wraps(&arguments) {
                Some(w) => {
                    inferred = w;
                    vec![&inferred]
                }
                // Named like a tool caller, but no argument names a tool.
                None => return Ok(Vec::new()),
            }
        } else {
            catalogued
        };
        // The call's own keys were read strictly: no two fold alike.
        let named = |key: &str| {
            let key = crate::fold::fold(key);
            arguments
                .as_object()
                .and_then(|m| m.iter().find(|(k, _)| crate::fold::fold(k) == key))
        };
        let mut calls = Vec::new();
        for wraps in wrappers {
            let name = match named(&wraps.tool) {
                Some((_, serde_json::Value::String(t))) if !t.is_empty() => t.clone(),
                _ => {
                    return Err(format!(
                        "`{outer}` calls another tool, and `{}` does not name it",
                        wraps.tool
                    ));
                }
            };
            if name
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || crate::fold::invisible(c))
                || crate::call::read_as_ascii(&name)
            {
                return Err(format!(
                    "`{outer}` calls the tool {}, a name with white space, control or \
                     invisible characters, or one that could pass for another name",
                    crate::call::shown_name(&name)
                ));
            }
            let inner = match named(&wraps.arguments) {
                None | Some((_, serde_json::Value::Null)) => {
                    serde_json::Value::Object(serde_json::Map::new())
                }
                Some((_, v @ serde_json::Value::Object(_))) => v.clone(),
                Some((key, serde_json::Value::String(text))) => {
                    match crate::strict_json::parse_json_strict(text) {
                        Ok(v @ serde_json::Value::Object(_)) => v,
                        Ok(_) => {
                            return Err(format!(
                                "`{outer}`'s `{key}` is JSON text of something other than an \
                                 object of arguments"
                            ));
                        }
                        Err(e) => {
                            return Err(format!(
                                "`{outer}`'s `{key}` is not JSON text of the arguments: {e}"
                            ));
                        }
                    }
                }
                Some((key, _)) => {
                    return Err(format!(
                        "`{outer}`'s `{key}` is neither an object of arguments nor JSON text of one"
                    ));
                }
            };
            let arguments = serde_json::value::to_raw_value(&inner)
                .map_err(|e| format!("the arguments of `{outer}`'s call: {e}"))?;
            calls.push((name, arguments));
        }
        Ok(calls)
    }
}

/// Verbs of a tool name that, right before a last word `tool` (or `mcp
/// tool`), make a tool that
/// calls another one named in its arguments (`use_mcp_tool` under another
/// server's prefix, `call_tool`, `execute_tool`, `invokeTool`; review s22
/// F6), when the catalog does not know it.
const WRAPPER_VERBS: &[&str] = &["use", "call", "execute", "invoke", "run"];

/// Argument names (folded) of an inferred wrapper, in order of preference:
/// the inner tool's name (`name` is MCP's own `tools/call` shape), its
/// arguments, and its server.
const WRAPPED_TOOL_KEYS: &[&str] = &["tool_name", "toolname", "tool", "name"];
const WRAPPED_ARGUMENT_KEYS: &[&str] = &[
    "arguments",
    "args",
    "params",
    "parameters",
    "input",
    "tool_input",
    "toolinput",
    "tool_args",
    "toolargs",
];
const WRAPPED_SERVER_KEYS: &[&str] = &["server_name", "servername", "server", "mcp_server"];

/// Whether `tool`'s name has the shape of a tool that calls another one
/// ([`WRAPPER_VERBS`] then `tool` or `mcp tool`: not Replit's
/// `workflows_set_run_config_tool`).
fn wrapper_by_name(tool: &str) -> bool {
    let words = infer::words(tool);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let verb_before = |n: usize| {
        words.len() > n
            && words[words.len() - n..] == ["mcp", "tool"][2 - n..]
            && WRAPPER_VERBS.contains(&words[words.len() - n - 1])
    };
    verb_before(1) || verb_before(2)
}

/// The [`catalog::Wraps`] of a call to a tool named like a wrapper: the
/// first argument of each kind present, when one names a tool by a text.
fn inferred_wraps(arguments: &serde_json::Value) -> Option<catalog::Wraps> {
    let map = arguments.as_object()?;
    let present = |keys: &[&str], text: bool| {
        keys.iter().find_map(|k| {
            map.iter()
                .find(|(name, v)| crate::fold::fold(name) == *k && (!text || v.is_string()))
                .map(|(name, _)| name.clone())
        })
    };
    Some(catalog::Wraps {
        tool: present(WRAPPED_TOOL_KEYS, true)?,
        arguments: present(WRAPPED_ARGUMENT_KEYS, false).unwrap_or_else(|| "arguments".into()),
        server: present(WRAPPED_SERVER_KEYS, false),
    })
}

#[cfg(test)]
mod tests;
