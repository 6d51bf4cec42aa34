//! The policy file, `toolvet.toml`: host limits and the list of checks.
//!
//! ```toml
//! [host]
//! default_timeout_ms = 100
//! default_memory_mb = 64
//! default_decision = "allow"
//!
//! [[check]]
//! name = "shell"
//! plugin = "plugins/shell_guard.wasm"   # relative to this file
//! tools = ["bash", "shell"]
//! on_error = "deny"
//! [check.settings]
//! protected_branches = ["main"]
//! ```
//!
//! Parsing ([`Policy::from_toml`]) rejects unknown keys, duplicate check
//! names, bad globs and out-of-range limits with a [`ConfigError`] that names
//! the file, the line, the check and the key. Whether plugin files exist and
//! whether their settings are valid is decided when loading
//! ([`crate::Host::load`]).

use crate::error::ConfigError;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use toml::Spanned;
use validation::{approval_settings, check_range, validate_host};

mod approvals;
mod validation;

pub(crate) use approvals::redact_url;
pub use approvals::{
    ApprovalSettings, DEFAULT_APPROVAL_TTL_S, DEFAULT_LABEL_TTL_S, KeySource, LedgerLocation,
    MAX_APPROVAL_TTL_S, MAX_LABEL_TTL_S,
};

/// Largest accepted per-check deadline, in ms. A check is on the hot path of
/// every tool call; a deadline above a minute is a configuration mistake.
pub const MAX_TIMEOUT_MS: u64 = 60_000;

/// Default of `[host] load_timeout_ms`: the deadline of `describe` and
/// `configure` at load, in ms.
pub(crate) const DEFAULT_LOAD_TIMEOUT_MS: u64 = 2_000;
/// Largest accepted per-check memory cap, in MiB (the 32-bit wasm limit is
/// 4096 MiB).
pub const MAX_MEMORY_MB: u64 = 4_096;

/// What a failing check (trap, timeout, out of memory, bad result, load
/// failure, overload) decides instead of its own answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum OnError {
    /// Deny the call (the default: a broken check never lets a call through).
    #[default]
    Deny,
    /// Ask a person.
    Escalate,
    /// Let the call through as far as this check is concerned: the failed
    /// check abstains, so the other checks and `default_decision` decide.
    Allow,
}

/// Whether a check's decision counts towards the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// The decision counts (default).
    #[default]
    Enforce,
    /// The check runs and is recorded but never changes the verdict.
    Monitor,
}

/// How a check's instances are used across calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Isolation {
    /// A fresh instance for every call: no state survives (default).
    #[default]
    PerCall,
    /// Warm instances are reused across calls (trusted, stateless checks
    /// only); an instance that failed is discarded.
    Reuse,
}

/// How the decisions of the enforcing checks combine into a verdict
/// (`[host] combine`, read by [`crate::verdict::combine`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, Default)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Combine {
    /// Any deny → deny; else any escalate → escalate; else any allow →
    /// allow; all abstain → `default_decision`.
    #[default]
    DenyOverrides,
}

/// The verdict when every applicable check abstains (or none applies).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DefaultDecision {
    /// Let the call run (default).
    #[default]
    Allow,
    /// Stop the call.
    Deny,
    /// Ask a person.
    Escalate,
}

/// The `[host]` table: limits and defaults for every check.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HostSettings {
    /// Deadline of one check on one call (instantiate + configure + check),
    /// in ms. Default 100.
    pub default_timeout_ms: u64,
    /// Linear-memory cap of one check instance, in MiB. Default 64.
    pub default_memory_mb: u64,
    /// Deadline of `describe` and of `configure` when a check loads, in
    /// ms; a check whose `timeout_ms` is longer gets that instead. Loading
    /// is slower than a call: language runtimes (Python, JavaScript)
    /// initialise on their first call. A plugin that does not answer in
    /// time fails to load (`describe failed: ... timed out`). Default
    /// 2,000 (1..=60,000).
    pub load_timeout_ms: u64,
    /// Combining algorithm. Default `deny-overrides`.
    pub combine: Combine,
    /// Verdict when all checks abstain. Default `allow`.
    pub default_decision: DefaultDecision,
    /// Load a policy that lists no checks while `default_decision` is
    /// `allow`, which lets every call through unvetted. Default false: such
    /// a policy (an emptied or truncated file among them) is refused at
    /// load, so a front end blocks instead of allowing everything.
    pub allow_without_checks: bool,
    /// JSON Lines decision log, relative to the policy file. Default none.
    pub decision_log: Option<PathBuf>,
    /// Compiled-artifact cache directory, relative to the policy file.
    /// Default: `$TOOLVET_CACHE_DIR`, else `$XDG_CACHE_HOME/toolvet`, else
    /// `~/.cache/toolvet`.
    pub cache_dir: Option<PathBuf>,
    /// Start even if some checks fail to load; a broken check then answers
    /// its `on_error` decision on every call. Default false.
    pub continue_on_errors: bool,
    /// Largest accepted `call.arguments` (JSON text), in bytes. Larger calls
    /// are refused before any check runs. Default 1 MiB.
    pub max_arguments_bytes: usize,
    /// Largest whole call (arguments, tool info, attributes, history), in
    /// bytes; larger calls are refused before any check runs. Default 8 MiB.
    pub max_call_bytes: usize,
    /// Most prior calls of a run handed to checks. The hooks and `toolvet mcp`
    /// refuse a call whose session holds more (`toolvet.history-overflow`,
    /// [`crate::history_fit`]); `toolvet check`, serve and the bindings hand
    /// over the newest this many of what the caller sent. Default 5000.
    pub max_history: usize,
    /// Longest reason message kept from a check, in bytes; longer messages
    /// are truncated. Default 4096.
    pub max_reason_bytes: usize,
    /// A reason message longer than this many bytes makes the result
    /// oversized: the check's `on_error` applies. Default 1 MiB.
    pub max_result_bytes: usize,
    /// Bytes of log lines, stdout and stderr kept per check call; the rest
    /// is dropped. Default 64 KiB.
    pub max_log_bytes: usize,
    /// Run the checks of one call in parallel on the runtime's threads
    /// instead of one after another. Default false.
    pub parallel_checks: bool,
    /// Most check calls running at once across all callers; further calls
    /// wait in a queue. Default 64.
    pub max_concurrent_checks: usize,
    /// Most calls waiting for a slot; beyond that a check answers
    /// `overloaded` (its `on_error`). Default 4096.
    pub max_queued_checks: usize,
    /// Warm instances kept per check with `isolation = "reuse"`. Default 8.
    pub reuse_pool_size: usize,
    /// What happens when a verdict cannot be recorded in the decision log
    /// (its queue is full, or the writer cannot write the file). Default
    /// `deny`.
    pub decision_log_on_failure: LogFailure,
    /// Snapshot every per-call check after `configure` and start each fresh
    /// instance from that snapshot (see SECURITY.md, "Snapshots"): per-call
    /// isolation without paying `configure` per call. A component that
    /// cannot be snapshotted runs `configure` per instance. Default true.
    pub preinitialize: bool,
    /// Records waiting for the decision-log writer thread; a verdict that
    /// finds the queue full follows `decision_log_on_failure`. Default
    /// 4096.
    pub decision_log_queue: usize,
    /// Keep each call's arguments, context attributes and tool info in its
    /// verdict record (for `toolvet replay`), with secrets redacted: the
    /// values of the keys in `decision_log_redact`, and whatever the
    /// program's redactor finds (`toolvet check` and `toolvet serve` use
    /// the secrets-guard detectors; [`crate::LoadOptions::redactor`]).
    /// Without either, the policy is refused. Default false: records hold
    /// only the arguments' sha256.
    pub decision_log_arguments: bool,
    /// Keep each tool result's content in its result record
    /// (`"event": "result"`), redacted as arguments are (the keys in
    /// `decision_log_redact` of a JSON result, and whatever the program's
    /// redactor finds). Without either, the policy is refused. Default
    /// false: result records hold only the content's sha256 and size.
    pub decision_log_results: bool,
    /// Keys (at any depth, ASCII case ignored) whose values are written as
    /// `"[redacted]"` in decision records. Default: none.
    pub decision_log_redact: Vec<String>,
    /// Start a new decision log file when the current one reaches this
    /// many bytes (at least 4096): the full file is renamed
    /// `<name>.000001` (then `.000002`, …) and the hash chain continues in
    /// the new file. Default: never.
    pub decision_log_max_bytes: Option<u64>,
}

/// What a verdict becomes when its decision record cannot be written
/// (`[host] decision_log_on_failure`). Records are written by a writer
/// thread, off the verdict's path: a failed write is known to the
/// verdicts that follow it, not to the one whose record failed (that
/// record is kept and retried, never dropped silently).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum LogFailure {
    /// Fail closed (the default): while the log cannot be written, and
    /// for a verdict whose record finds the queue full, the verdict is
    /// deny with rule `toolvet.decision-log`.
    #[default]
    Deny,
    /// Keep the verdicts: an unrecorded verdict is logged at error level
    /// and counted ([`crate::Host::decision_log_stats`]).
    Continue,
}

impl Default for HostSettings {
    fn default() -> Self {
        Self {
            default_timeout_ms: 100,
            default_memory_mb: 64,
            load_timeout_ms: DEFAULT_LOAD_TIMEOUT_MS,
            combine: Combine::DenyOverrides,
            default_decision: DefaultDecision::Allow,
            allow_without_checks: false,
            decision_log: None,
            cache_dir: None,
            continue_on_errors: false,
            max_arguments_bytes: 1 << 20,
            max_call_bytes: 8 << 20,
            max_history: 5000,
            max_reason_bytes: 4096,
            max_result_bytes: 1 << 20,
            max_log_bytes: 64 << 10,
            parallel_checks: false,
            max_concurrent_checks: 64,
            max_queued_checks: 4096,
            reuse_pool_size: 8,
            preinitialize: true,
            decision_log_on_failure: LogFailure::Deny,
            decision_log_queue: 4096,
            decision_log_arguments: false,
            decision_log_results: false,
            decision_log_redact: Vec::new(),
            decision_log_max_bytes: None,
        }
    }
}

/// One `[[check]]` table as written in the file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    name: Spanned<String>,
    plugin: PathBuf,
    sha256: Option<String>,
    tools: Option<Vec<String>>,
    #[serde(default)]
    mode: Mode,
    #[serde(default)]
    on_error: OnError,
    timeout_ms: Option<u64>,
    memory_mb: Option<u64>,
    #[serde(default)]
    isolation: Isolation,
    #[serde(default)]
    settings: toml::Table,
}

/// The file's top level: the core's tables, and every other top-level
/// key, kept for the front ends (`rest`: serde's `flatten` takes what the
/// named fields do not; it cannot be combined with `deny_unknown_fields`,
/// so [`Policy::from_toml`] refuses a key there that is not a table, and
/// the loader refuses a table its program does not read).
#[derive(Debug, Deserialize)]
struct RawPolicy {
    #[serde(default)]
    host: HostSettings,
    approvals: Option<Spanned<RawApprovals>>,
    #[serde(default, rename = "check")]
    checks: Vec<RawCheck>,
    #[serde(flatten)]
    rest: std::collections::BTreeMap<String, toml::Value>,
}

/// One configured check: a plugin with its settings and limits.
#[derive(Debug, Clone)]
pub struct CheckConfig {
    /// Unique name, used in verdicts, logs and errors.
    pub name: String,
    /// Absolute or policy-relative path resolved against the policy's
    /// directory.
    pub plugin: PathBuf,
    /// Expected sha256 of the plugin file (64 lowercase hex digits).
    pub sha256: Option<String>,
    /// Tool-name globs from the config; `None` means use what the plugin's
    /// `describe` declares.
    pub tools: Option<Vec<String>>,
    /// Enforce or monitor.
    pub mode: Mode,
    /// Decision when the check fails.
    pub on_error: OnError,
    /// Deadline in ms.
    pub timeout_ms: u64,
    /// Memory cap in MiB.
    pub memory_mb: u64,
    /// Instance isolation.
    pub isolation: Isolation,
    /// Settings handed to `configure`, as a JSON object.
    pub settings: serde_json::Value,
    /// Line of the check's `name` in the policy file (1-based), for errors.
    pub line: usize,
}

/// The `[approvals]` table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawApprovals {
    ledger: String,
    key_file: Option<PathBuf>,
    key_env: Option<String>,
    ttl_s: Option<u64>,
    realm: Option<String>,
    reviewer_keys: Option<Vec<String>>,
    max_pending_per_run: Option<u64>,
    max_pending_per_principal: Option<u64>,
    max_pending: Option<u64>,
    label_ttl_s: Option<u64>,
}

/// A parsed and validated policy file. Its parts are read through
/// accessors and changed only through [`Policy::edit`], which validates
/// the result, so a `Policy` outside this crate is always valid.
#[derive(Debug, Clone)]
pub struct Policy {
    /// The file it came from (for errors), or `<inline>`.
    pub(crate) source: PathBuf,
    /// The `[host]` table.
    pub(crate) host: HostSettings,
    /// The `[approvals]` table, when approvals are enabled.
    pub(crate) approvals: Option<ApprovalSettings>,
    /// The checks, in file order.
    pub(crate) checks: Vec<CheckConfig>,
    /// The file's other top-level tables, by name, as JSON objects: the
    /// settings of the programs that load the policy (`[serve]`, `[mcp]`,
    /// `[hooks]`, …). The core does not read them; each front end
    /// validates its own, and a program refuses a table it does not know
    /// ([`crate::LoadOptions::front_end_tables`]). Any key in them named
    /// `file` or ending in `_file` names one of toolvet's secrets
    /// ([`crate::state_paths::StatePaths`]). Empty for a policy built in code.
    pub(crate) front_ends: std::collections::BTreeMap<String, serde_json::Value>,
    /// The line of each front-end table's first header in the text (for
    /// [`Policy::refuse_tables_besides`]'s error; 0 when not found).
    front_end_lines: std::collections::BTreeMap<String, usize>,
    /// Hex sha256 of the text this policy was parsed from.
    text_sha256: Option<String>,
}

impl Policy {
    /// Read and validate a policy file. Relative paths in it (plugins,
    /// decision log, cache) resolve against the file's directory.
    ///
    /// # Errors
    /// [`ConfigError`] naming the file and, where it applies, the line, the
    /// check and the key.
    pub fn from_file(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
            path: path.to_path_buf(),
            source: e,
        })?;
        let base = path.parent().unwrap_or_else(|| Path::new("."));
        Self::from_toml(&text, path, base)
    }

    /// Parse policy text. `source` is only used in error messages; relative
    /// paths resolve against `base_dir`.
    ///
    /// # Errors
    /// See [`Policy::from_file`].
    pub fn from_toml(text: &str, source: &Path, base_dir: &Path) -> Result<Self, ConfigError> {
        let at = |line: usize, message: String| ConfigError::Invalid {
            path: source.to_path_buf(),
            line,
            message,
        };
        let raw: RawPolicy = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(0);
            at(line, e.message().to_string())
        })?;
        let mut checks: Vec<CheckConfig> = Vec::with_capacity(raw.checks.len());
        for c in raw.checks {
            let line = line_of(text, c.name.span().start);
            let name = c.name.into_inner();
            let settings = serde_json::to_value(&c.settings).map_err(|e| {
                at(
                    line,
                    format!("check `{name}`: `settings`: cannot be expressed as JSON: {e}"),
                )
            })?;
            checks.push(CheckConfig {
                plugin: base_dir.join(&c.plugin),
                sha256: c.sha256.map(|s| s.to_ascii_lowercase()),
                tools: c.tools,
                mode: c.mode,
                on_error: c.on_error,
                timeout_ms: c.timeout_ms.unwrap_or(raw.host.default_timeout_ms),
                memory_mb: c.memory_mb.unwrap_or(raw.host.default_memory_mb),
                isolation: c.isolation,
                settings,
                line,
                name,
            });
        }
        let mut host = raw.host;
        host.decision_log = host.decision_log.map(|p| base_dir.join(p));
        host.cache_dir = host.cache_dir.map(|p| base_dir.join(p));
        let approvals = match raw.approvals {
            None => None,
            Some(table) => {
                let line = line_of(text, table.span().start);
                Some(approval_settings(table.into_inner(), base_dir).map_err(|m| at(line, m))?)
            }
        };
        let mut front_ends = std::collections::BTreeMap::new();
        let mut front_end_lines = std::collections::BTreeMap::new();
        for (name, value) in raw.rest {
            let line = table_line(text, &name);
            front_end_lines.insert(name.clone(), line);
            let toml::Value::Table(table) = value else {
                return Err(at(
                    line,
                    format!(
                        "unknown top-level key `{name}`: a policy's top level holds tables \
                         ([host], [approvals], [[check]], and the front ends' tables)"
                    ),
                ));
            };
            let value = serde_json::to_value(&table)
                .map_err(|e| at(line, format!("[{name}]: cannot be expressed as JSON: {e}")))?;
            front_ends.insert(name, value);
        }
        let policy = Policy {
            source: source.to_path_buf(),
            host,
            approvals,
            checks,
            front_ends,
            front_end_lines,
            text_sha256: Some(hex::encode(<sha2::Sha256 as sha2::Digest>::digest(text))),
        };
        policy.validate()?;
        Ok(policy)
    }

    /// A policy built in code: `source` names it in errors (e.g.
    /// `<inline>`); no front-end tables.
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] as [`Policy::validate`] finds it.
    pub fn new(
        source: impl Into<PathBuf>,
        host: HostSettings,
        approvals: Option<ApprovalSettings>,
        checks: Vec<CheckConfig>,
    ) -> Result<Policy, ConfigError> {
        let policy = Policy {
            source: source.into(),
            host,
            approvals,
            checks,
            front_ends: Default::default(),
            front_end_lines: Default::default(),
            text_sha256: None,
        };
        policy.validate()?;
        Ok(policy)
    }

    /// The file the policy came from (named in errors), or the name a
    /// policy built in code was given.
    pub fn source(&self) -> &Path {
        &self.source
    }

    /// The `[host]` table.
    pub fn host(&self) -> &HostSettings {
        &self.host
    }

    /// The `[approvals]` table, when approvals are enabled.
    pub fn approvals(&self) -> Option<&ApprovalSettings> {
        self.approvals.as_ref()
    }

    /// The checks, in file order.
    pub fn checks(&self) -> &[CheckConfig] {
        &self.checks
    }

    /// The file's other top-level tables, by name, as JSON objects: the
    /// settings of the programs that load the policy (`[serve]`, `[mcp]`,
    /// `[hooks]`, …), for each front end to validate its own. Empty for a
    /// policy built in code.
    pub fn front_ends(&self) -> &std::collections::BTreeMap<String, serde_json::Value> {
        &self.front_ends
    }

    /// This policy changed by `change` (given its `[host]` table, its
    /// `[approvals]` table and its checks, which it may edit but not add
    /// to or remove from), then validated again. The source, the
    /// front-end tables and [`Policy::sha256`] stay those of the original.
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] when the changed policy is not valid
    /// ([`Policy::validate`]); the original is dropped.
    pub fn edit(
        mut self,
        change: impl FnOnce(&mut HostSettings, &mut Option<ApprovalSettings>, &mut [CheckConfig]),
    ) -> Result<Policy, ConfigError> {
        change(&mut self.host, &mut self.approvals, &mut self.checks);
        self.validate()?;
        Ok(self)
    }

    /// Refuse a front-end table that is not in `known` (the tables the
    /// program loading the policy reads, [`crate::LoadOptions::front_end_tables`]):
    /// a misspelt `[hoks]` is an error, not settings nobody reads.
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] naming the first unknown table and its
    /// line.
    pub fn refuse_tables_besides(&self, known: &[&str]) -> Result<(), ConfigError> {
        let Some(name) = self
            .front_ends
            .keys()
            .find(|name| !known.contains(&name.as_str()))
        else {
            return Ok(());
        };
        let reads = known.iter().map(|t| format!(", [{t}]")).collect::<String>();
        Err(ConfigError::Invalid {
            path: self.source.clone(),
            line: self.front_end_lines.get(name).copied().unwrap_or(0),
            message: format!(
                "unknown table `[{name}]`: this program reads [host], [approvals], [[check]]{reads}"
            ),
        })
    }

    /// Hex sha256 identifying this policy in decision records and
    /// `/readyz`: of the text it was parsed from ([`Policy::from_toml`],
    /// [`Policy::from_file`]; computed once, when parsing), else of a
    /// canonical description of a policy built in code (its host
    /// settings, approvals and checks with their settings). A policy
    /// changed by [`Policy::edit`] keeps the digest of its text.
    pub fn sha256(&self) -> String {
        if let Some(digest) = &self.text_sha256 {
            return digest.clone();
        }
        let description = format!("{:?}|{:?}|{:?}", self.host, self.approvals, self.checks);
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(description))
    }

    /// Check every limit, name, pin and glob: what [`Policy::from_toml`]
    /// does after parsing, and what [`crate::Host::load`] does for a policy
    /// built in code.
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] naming the line (when known), the check and
    /// the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let at = |line: usize, message: String| ConfigError::Invalid {
            path: self.source.clone(),
            line,
            message,
        };
        validate_host(&self.host).map_err(|m| at(0, m))?;
        for (index, c) in self.checks.iter().enumerate() {
            let name = &c.name;
            let ctx = |key: &str, m: String| at(c.line, format!("check `{name}`: `{key}`: {m}"));
            if name.is_empty()
                || !name
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || "-_.".contains(ch))
            {
                return Err(ctx(
                    "name",
                    "must be non-empty and use only letters, digits, `-`, `_` and `.`".into(),
                ));
            }
            if let Some(first) = self.checks[..index].iter().find(|o| &o.name == name) {
                return Err(ctx(
                    "name",
                    format!(
                        "duplicate check name (first defined on line {})",
                        first.line
                    ),
                ));
            }
            if let Some(pin) = &c.sha256
                && (pin.len() != 64 || !pin.bytes().all(|b| b.is_ascii_hexdigit()))
            {
                return Err(ctx("sha256", "must be 64 hex digits".into()));
            }
            if let Some(tools) = &c.tools {
                if tools.is_empty() {
                    return Err(ctx(
                        "tools",
                        "must list at least one glob (omit the key to use the plugin's own)".into(),
                    ));
                }
                compile_globs(tools).map_err(|(i, m)| ctx(&format!("tools[{i}]"), m))?;
            }
            check_range(c.timeout_ms, 1, MAX_TIMEOUT_MS).map_err(|m| ctx("timeout_ms", m))?;
            check_range(c.memory_mb, 1, MAX_MEMORY_MB).map_err(|m| ctx("memory_mb", m))?;
            if !c.settings.is_object() {
                return Err(ctx("settings", "must be a table (a JSON object)".into()));
            }
        }
        Ok(())
    }
}

/// Compile tool-name globs (`*`, `?`, `[ab]`, `{a,b}`; `*` matches any
/// characters). Matching ignores ASCII case: agent frameworks spell the
/// same tool `bash` and `Bash` (Claude Code), and a check must not be
/// skipped for that. On error, the index of the bad glob and why.
pub(crate) fn compile_globs(globs: &[String]) -> Result<GlobSet, (usize, String)> {
    let mut builder = GlobSetBuilder::new();
    for (i, g) in globs.iter().enumerate() {
        if g.is_empty() {
            return Err((i, "empty glob".into()));
        }
        let glob = GlobBuilder::new(g)
            .case_insensitive(true)
            .build()
            .map_err(|e| (i, format!("bad glob `{g}`: {}", e.kind())))?;
        builder.add(glob);
    }
    builder.build().map_err(|e| (0, e.to_string()))
}

/// 1-based line of byte offset `offset` in `text`.
/// The line (1-based) of the first header of top-level table `name` in
/// `text` (`[name]`, `[name.…]`, `[[name]]`) or of a top-level key
/// `name = …` / `name.… = …`; 0 when none is found (a quoted name). For
/// error messages only.
fn table_line(text: &str, name: &str) -> usize {
    text.lines()
        .position(|line| {
            let line = line.trim_start();
            let (after, header) = match line.strip_prefix('[') {
                Some(rest) => (rest.trim_start_matches('[').trim_start(), true),
                None => (line, false),
            };
            after.strip_prefix(name).is_some_and(|rest| {
                let rest = rest.trim_start();
                rest.starts_with('.')
                    || if header {
                        rest.starts_with(']')
                    } else {
                        rest.starts_with('=')
                    }
            })
        })
        .map_or(0, |index| index + 1)
}

fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Policy, String> {
        Policy::from_toml(text, Path::new("toolvet.toml"), Path::new("/etc/tv"))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn minimal_policy_takes_defaults() {
        let p = parse("[[check]]\nname = \"a\"\nplugin = \"a.wasm\"\n").unwrap();
        let c = &p.checks[0];
        assert_eq!(c.plugin, PathBuf::from("/etc/tv/a.wasm"));
        assert_eq!((c.timeout_ms, c.memory_mb), (100, 64));
        assert_eq!(c.on_error, OnError::Deny);
        assert_eq!(c.mode, Mode::Enforce);
        assert_eq!(c.settings, serde_json::json!({}));
        assert_eq!(c.line, 2);
    }

    #[test]
    fn the_serve_table_is_kept_for_toolvet_serve() {
        let p = parse("[serve]\nlisten = \"127.0.0.1:1\"\n[serve.limits]\nx = 2\n").unwrap();
        assert_eq!(
            p.front_ends.get("serve"),
            Some(&serde_json::json!({"listen": "127.0.0.1:1", "limits": {"x": 2}}))
        );
        assert_eq!(parse("").unwrap().front_ends.get("serve"), None);
    }

    #[test]
    fn label_ttl_defaults_to_a_day_and_is_checked_naming_the_key() {
        let table = "[approvals]\nledger = \"memory\"\nkey_env = \"K\"\n";
        let p = parse(table).unwrap();
        assert_eq!(p.approvals().unwrap().label_ttl_s, 86_400);
        let p = parse(&format!("{table}label_ttl_s = 60\n")).unwrap();
        assert_eq!(p.approvals().unwrap().label_ttl_s, 60);
        for bad in ["0", "2592001"] {
            let e = parse(&format!("{table}label_ttl_s = {bad}\n")).unwrap_err();
            assert!(
                e.contains("[approvals] `label_ttl_s`") && e.contains("out of range"),
                "{e}"
            );
        }
    }

    #[test]
    fn empty_policy_is_valid_and_has_no_checks() {
        assert!(parse("").unwrap().checks.is_empty());
    }

    #[test]
    fn unknown_key_names_key_and_line() {
        let e = parse("[[check]]\nname = \"a\"\nplugin = \"a.wasm\"\ntimeout = 5\n").unwrap_err();
        assert!(e.contains("toolvet.toml:4"), "{e}");
        assert!(e.contains("unknown field `timeout`"), "{e}");
    }

    #[test]
    fn duplicate_names_point_at_both_lines() {
        let e = parse(
            "[[check]]\nname = \"a\"\nplugin = \"a.wasm\"\n[[check]]\nname = \"a\"\nplugin = \"b.wasm\"\n",
        )
        .unwrap_err();
        assert!(e.contains("toolvet.toml:5"), "{e}");
        assert!(e.contains("first defined on line 2"), "{e}");
    }

    #[test]
    fn bad_glob_names_check_and_index() {
        let e = parse("[[check]]\nname = \"a\"\nplugin = \"a.wasm\"\ntools = [\"ok\", \"[x\"]\n")
            .unwrap_err();
        assert!(e.contains("check `a`: `tools[1]`"), "{e}");
    }

    #[test]
    fn zero_and_absurd_timeouts_are_rejected() {
        for t in ["0", "3600000"] {
            let e = parse(&format!(
                "[[check]]\nname = \"a\"\nplugin = \"a.wasm\"\ntimeout_ms = {t}\n"
            ))
            .unwrap_err();
            assert!(
                e.contains("`timeout_ms`") && e.contains("out of range"),
                "{e}"
            );
        }
        let e = parse("[host]\ndefault_timeout_ms = 0\n").unwrap_err();
        assert!(e.contains("default_timeout_ms"), "{e}");
        for t in ["0", "60001"] {
            let e = parse(&format!("[host]\nload_timeout_ms = {t}\n")).unwrap_err();
            assert!(
                e.contains("`load_timeout_ms`") && e.contains("out of range"),
                "{e}"
            );
        }
        let p = parse("[host]\nload_timeout_ms = 5000\n").unwrap();
        assert_eq!(p.host.load_timeout_ms, 5000);
        assert_eq!(
            parse("").unwrap().host.load_timeout_ms,
            DEFAULT_LOAD_TIMEOUT_MS
        );
    }

    #[test]
    fn settings_become_json() {
        let p = parse(
            "[[check]]\nname = \"a\"\nplugin = \"a.wasm\"\n[check.settings]\nroots = [\"/w\"]\nmax = 3\n",
        )
        .unwrap();
        assert_eq!(
            p.checks[0].settings,
            serde_json::json!({"roots": ["/w"], "max": 3})
        );
    }

    #[test]
    fn front_end_tables_are_kept_and_other_tables_refused() {
        let p = parse("[hooks.tools]\nShell = \"bash\"\n[mcp]\nhide_denied = false\n").unwrap();
        assert_eq!(
            p.front_ends["hooks"],
            serde_json::json!({"tools": {"Shell": "bash"}})
        );
        assert_eq!(
            p.front_ends["mcp"],
            serde_json::json!({"hide_denied": false})
        );
        assert!(parse("").unwrap().front_ends.is_empty());
        assert!(p.refuse_tables_besides(&["mcp", "hooks"]).is_ok());
        let misspelt = parse("[host]\n[hook]\nx = 1\n").unwrap();
        let e = misspelt
            .refuse_tables_besides(&["mcp", "hooks"])
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "toolvet.toml:2: unknown table `[hook]`: this program reads [host], [approvals], \
             [[check]], [mcp], [hooks]"
        );
        let e = parse("combine = \"x\"\n").unwrap_err();
        assert!(e.contains(":1: unknown top-level key `combine`"), "{e}");
    }

    #[test]
    fn bad_enum_value_lists_choices() {
        let e = parse("[[check]]\nname = \"a\"\nplugin = \"a.wasm\"\non_error = \"ignore\"\n")
            .unwrap_err();
        assert!(e.contains("unknown variant `ignore`"), "{e}");
        assert!(e.contains("deny") && e.contains("escalate"), "{e}");
    }
}
