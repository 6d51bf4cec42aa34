//! The `[serve]` table of the policy file: where the server listens, who
//! may call it, and its limits.
//!
//! ```toml
//! [serve]
//! listen = "127.0.0.1:8700"
//! agent_token_file = "state/agent.tokens"        # one token per line
//! reviewer_tokens_sha256 = ["9f86d08…"]          # or hex sha256 of each token
//! # An agent token that speaks only for the principals it names:
//! agent_tokens = [
//!   { label = "ci-bot", sha256 = "2c26b46…", principals = ["ci@acme.com"] },
//!   { label = "alice-laptop", file = "state/alice.token", principals = ["alice@acme.com"] },
//!   # … and, with `agents`, only as the agents it names:
//!   { label = "deployer", file = "state/deploy.token", principals = ["ops@acme.com"], agents = ["deploy-bot"] },
//! ]
//! max_concurrent_requests = 512
//! webhook_url = "https://hooks.example.com/toolvet"
//! ```
//!
//! The table is optional: every key has a default, and tokens can come
//! from `TOOLVET_AGENT_TOKEN` / `TOOLVET_REVIEWER_TOKEN`. Unknown keys are
//! errors.
//!
//! **Bound and unbound agent tokens.** An `agent_tokens` entry binds its
//! token to the principals it names: a call or evaluation sent with it
//! that names another principal is refused (403 `principal-forbidden`,
//! naming the key and the entry's label), and one that names none is
//! vetted for its principal (an entry of several principals must be told
//! which: 400 `principal-required`). An entry with `agents` binds the
//! agent the same way (`context.agent`, AuthZEN `subject.id`): another
//! agent is 403 `agent-forbidden`, none is its only agent or 400
//! `agent-required`; without `agents` the caller names the agent, which
//! decides the agent's policy rules and which requests and grants are its.
//! Requests, tickets and run grants are
//! bound to the principal, so a bound token can neither open, resume nor
//! spend another principal's approvals. The tokens of
//! `agent_tokens_sha256`, `agent_token_file` and `$TOOLVET_AGENT_TOKEN` are
//! unbound: the caller is trusted to name the principal, as before, which
//! fits one agent acting for one person or a gateway that authenticates
//! its own users; but no unbound token may name a principal that an
//! `agent_tokens` entry binds (403), so binding a principal's token is
//! enough to keep every other caller away from its approvals. Give each
//! caller that acts for a different principal a bound token. This module only parses and validates; token files are read by
//! [`crate::auth`].

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where the server listens when neither the command line nor the policy
/// says.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8700";

/// The `[serve]` table, validated; relative paths resolved against the
/// policy file's directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeSettings {
    /// TCP address (`host:port`) when no `--listen`/`--unix` is given.
    pub listen: String,
    /// File mode of the Unix socket (`--unix`), e.g. `0o660`.
    pub unix_socket_mode: u32,
    /// Accepted agent tokens, as sha256 digests.
    pub agent_tokens_sha256: Vec<[u8; 32]>,
    /// A file of agent tokens, one per line.
    pub agent_token_file: Option<PathBuf>,
    /// Agent tokens bound to the principals they may speak for
    /// (`agent_tokens`).
    pub bound_agent_tokens: Vec<BoundAgentToken>,
    /// Accepted reviewer tokens, as sha256 digests.
    pub reviewer_tokens_sha256: Vec<[u8; 32]>,
    /// A file of reviewer tokens, one per line.
    pub reviewer_token_file: Option<PathBuf>,
    /// `reviewer_passphrase_file`: the passphrase of a key listed in
    /// `[approvals] reviewer_keys`, in a private file
    /// ([`toolvet::private_file::read_private`]; one line, the line end
    /// dropped). The server signs with it every approval its reviewers
    /// make (`POST /v1/approvals/{id}/decision`, the reviewer page), so
    /// the front ends in the agent's process (the hooks, the Python and
    /// Node packages, `toolvet mcp`), which count only signed approvals
    /// when reviewer keys are listed, resume the calls the server's
    /// reviewers approved. Like every `*_file` of the policy, no tool may
    /// read or write it.
    pub reviewer_passphrase_file: Option<PathBuf>,
    /// Accepted gateway tokens (the ExtMcp callout, `--ext-mcp`), as
    /// sha256 digests.
    pub gateway_tokens_sha256: Vec<[u8; 32]>,
    /// A file of gateway tokens, one per line.
    pub gateway_token_file: Option<PathBuf>,
    /// Accepted metrics tokens (`/readyz`, `/metrics` only), as sha256
    /// digests.
    pub metrics_tokens_sha256: Vec<[u8; 32]>,
    /// A file of metrics tokens, one per line.
    pub metrics_token_file: Option<PathBuf>,
    /// Whether `/readyz` and `/metrics` need a token (the metrics or the
    /// reviewer role): they name the tools called, the policy's digest and
    /// the ledger's state. Default true; `probes_need_token = false` opens
    /// them to anyone who can reach the port. `/healthz` (it says only
    /// `ok`) never needs one.
    pub probes_need_token: bool,
    /// Largest request body, in bytes. Default 2 MiB.
    pub max_body_bytes: usize,
    /// Longest time one request may take, start to finish. Default 30 s.
    pub request_timeout: Duration,
    /// How long a connection may sit idle (or take to send a request's
    /// headers) before it is closed. Default 60 s.
    pub idle_timeout: Duration,
    /// Most requests served at once; further requests get 503 with
    /// `Retry-After`. Default 512.
    pub max_concurrent_requests: usize,
    /// The `Retry-After` of an overload answer, in seconds. Default 1.
    pub retry_after_s: u64,
    /// How many connections the kernel may hold, established but not yet
    /// accepted (the `listen(2)` backlog; Linux caps it at
    /// `net.core.somaxconn`). A connection arriving when the queue is full
    /// waits for the kernel's SYN-ACK retries (about a minute) and is then
    /// reset. Default 4096.
    pub listen_backlog: u32,
    /// How long a shutdown waits for requests in flight. Default 30 s.
    pub shutdown_grace: Duration,
    /// Where new approval requests are announced (POST, JSON).
    pub webhook_url: Option<String>,
    /// Retries after a failed webhook delivery. Default 3.
    pub webhook_retries: u32,
    /// Deadline of one webhook attempt. Default 5 s.
    pub webhook_timeout: Duration,
    /// Reload when the policy or a plugin file changes. Default true.
    pub watch: bool,
    /// Whose record of a run's earlier calls the checks read
    /// (`run_history`). Default [`RunHistorySource::Server`].
    pub run_history: RunHistorySource,
    /// Most runs whose history the server keeps (`max_runs`); a new run
    /// beyond it forgets one unused for 10 minutes, or is denied
    /// (`toolvet.too-many-runs`) when none is. Default 10,000.
    pub max_runs: usize,
}

/// Whose record of a run's earlier calls the checks read (`[serve]
/// run_history`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunHistorySource {
    /// `"server"`: the server's own. It records every call it vets by
    /// principal, agent and `run_id` (what the checks decided, and whether
    /// a person approved it), and hands the checks that record; a call
    /// that sends `context.history` is refused (400 `history-not-accepted`).
    /// A call without a `run_id` is vetted alone. The record is in the
    /// server's memory: replicas do not share it, so route each run to one
    /// replica.
    Server,
    /// `"caller"`: the `context.history` each call sends (AuthZEN cannot
    /// send one). Run limits and sequence rules then hold only as far as
    /// the caller keeps its record honestly: for a gateway that keeps each
    /// run's history itself, never for agents holding agent tokens.
    Caller,
}

/// One `agent_tokens` entry: an agent token that speaks only for the
/// principals it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundAgentToken {
    /// The entry's name, shown in refusals and logs instead of the token.
    pub label: String,
    /// Where the token is given.
    pub token: TokenSource,
    /// The principals it may name (at least one, each once).
    pub principals: Vec<String>,
    /// The agents (`context.agent`, AuthZEN `subject.id`) it may name
    /// (`agents`; at least one, each once), or `None` when the entry
    /// names none: then any agent.
    pub agents: Option<Vec<String>>,
}

/// How an `agent_tokens` entry gives its token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// `sha256`: the hex sha256 of the token.
    Sha256([u8; 32]),
    /// `file`: a file holding the token (one line, owner-only).
    File(PathBuf),
}

/// Longest `agent_tokens` label, in bytes.
pub const MAX_LABEL_BYTES: usize = 64;
/// Longest principal an `agent_tokens` entry names, in bytes.
pub const MAX_PRINCIPAL_BYTES: usize = 256;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgentToken {
    label: String,
    sha256: Option<String>,
    file: Option<PathBuf>,
    principals: Vec<String>,
    agents: Option<Vec<String>>,
}

fn bound_agent_tokens(
    raw: Vec<RawAgentToken>,
    base: &Path,
) -> Result<Vec<BoundAgentToken>, SettingsProblem> {
    let mut out: Vec<BoundAgentToken> = Vec::new();
    for (i, entry) in raw.into_iter().enumerate() {
        let at = |problem: AgentTokenProblem| SettingsProblem::AgentToken { index: i, problem };
        let label = entry.label.trim();
        if label.is_empty() || label.len() > MAX_LABEL_BYTES || label.chars().any(char::is_control)
        {
            return Err(at(AgentTokenProblem::Label));
        }
        if let Some(other) = out.iter().position(|e| e.label == label) {
            return Err(at(AgentTokenProblem::LabelTwice {
                label: label.to_string(),
                other,
            }));
        }
        let token = match (entry.sha256, entry.file) {
            (Some(hex), None) => {
                TokenSource::Sha256(digests(&format!("agent_tokens[{i}].sha256"), &[hex])?[0])
            }
            (None, Some(file)) => TokenSource::File(base.join(file)),
            _ => return Err(at(AgentTokenProblem::TokenSource)),
        };
        if entry.principals.is_empty() {
            return Err(at(AgentTokenProblem::NoPrincipals));
        }
        let mut principals: Vec<String> = Vec::new();
        for p in entry.principals {
            if p.is_empty() || p.len() > MAX_PRINCIPAL_BYTES || p.chars().any(char::is_control) {
                return Err(at(AgentTokenProblem::Principal));
            }
            if principals.contains(&p) {
                return Err(at(AgentTokenProblem::PrincipalTwice { principal: p }));
            }
            principals.push(p);
        }
        let agents = match entry.agents {
            None => None,
            Some(list) => Some(agent_names(list).map_err(at)?),
        };
        out.push(BoundAgentToken {
            label: label.to_string(),
            token,
            principals,
            agents,
        });
    }
    Ok(out)
}

/// The names of an `agent_tokens` entry's `agents`: at least one, each
/// once, each 1 to [`MAX_PRINCIPAL_BYTES`] bytes without control
/// characters.
fn agent_names(list: Vec<String>) -> Result<Vec<String>, AgentTokenProblem> {
    if list.is_empty() {
        return Err(AgentTokenProblem::NoAgents);
    }
    let mut out: Vec<String> = Vec::new();
    for n in list {
        if n.is_empty() || n.len() > MAX_PRINCIPAL_BYTES || n.chars().any(char::is_control) {
            return Err(AgentTokenProblem::Agent);
        }
        if out.contains(&n) {
            return Err(AgentTokenProblem::AgentTwice { agent: n });
        }
        out.push(n);
    }
    Ok(out)
}

/// Bounds of the numeric keys.
const MAX_BODY_BYTES: usize = 64 << 20;
const MAX_CONCURRENT: usize = 100_000;
const MAX_WEBHOOK_RETRIES: u32 = 10;
const MAX_RUNS: usize = 1_000_000;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServe {
    listen: Option<String>,
    unix_socket_mode: Option<String>,
    #[serde(default)]
    agent_tokens_sha256: Vec<String>,
    agent_token_file: Option<PathBuf>,
    #[serde(default)]
    agent_tokens: Vec<RawAgentToken>,
    #[serde(default)]
    reviewer_tokens_sha256: Vec<String>,
    reviewer_token_file: Option<PathBuf>,
    reviewer_passphrase_file: Option<PathBuf>,
    #[serde(default)]
    gateway_tokens_sha256: Vec<String>,
    gateway_token_file: Option<PathBuf>,
    #[serde(default)]
    metrics_tokens_sha256: Vec<String>,
    metrics_token_file: Option<PathBuf>,
    probes_need_token: Option<bool>,
    max_body_bytes: Option<usize>,
    request_timeout_ms: Option<u64>,
    idle_timeout_s: Option<u64>,
    max_concurrent_requests: Option<usize>,
    retry_after_s: Option<u64>,
    listen_backlog: Option<u32>,
    shutdown_grace_s: Option<u64>,
    webhook_url: Option<String>,
    webhook_retries: Option<u32>,
    webhook_timeout_ms: Option<u64>,
    watch: Option<bool>,
    run_history: Option<String>,
    max_runs: Option<usize>,
}

impl Default for ServeSettings {
    fn default() -> Self {
        ServeSettings {
            listen: DEFAULT_LISTEN.into(),
            unix_socket_mode: 0o660,
            agent_tokens_sha256: Vec::new(),
            agent_token_file: None,
            bound_agent_tokens: Vec::new(),
            reviewer_tokens_sha256: Vec::new(),
            reviewer_token_file: None,
            reviewer_passphrase_file: None,
            gateway_tokens_sha256: Vec::new(),
            gateway_token_file: None,
            metrics_tokens_sha256: Vec::new(),
            metrics_token_file: None,
            probes_need_token: true,
            max_body_bytes: 2 << 20,
            request_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            max_concurrent_requests: 512,
            retry_after_s: 1,
            listen_backlog: 4096,
            shutdown_grace: Duration::from_secs(30),
            webhook_url: None,
            webhook_retries: 3,
            webhook_timeout: Duration::from_secs(5),
            watch: true,
            run_history: RunHistorySource::Server,
            max_runs: 10_000,
        }
    }
}

impl ServeSettings {
    /// The settings of `policy`'s `[serve]` table (defaults without one).
    ///
    /// # Errors
    /// A [`SettingsError`] naming the policy file and the key: unknown
    /// keys, malformed digests, modes or URLs, out-of-range numbers.
    pub fn from_policy(policy: &toolvet::Policy) -> Result<ServeSettings, SettingsError> {
        let base = policy
            .source()
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let at = |problem: SettingsProblem| SettingsError {
            policy: policy.source().to_path_buf(),
            problem,
        };
        match policy.front_ends().get("serve") {
            None => Ok(ServeSettings::default()),
            Some(table) => {
                let raw: RawServe = serde_json::from_value(table.clone())
                    .map_err(|e| at(SettingsProblem::Table(e.to_string())))?;
                Self::from_raw(raw, &base).map_err(at)
            }
        }
    }

    fn from_raw(raw: RawServe, base: &Path) -> Result<ServeSettings, SettingsProblem> {
        let d = ServeSettings::default();
        let range = |key: &'static str, v: u64, min: u64, max: u64| {
            if (min..=max).contains(&v) {
                Ok(v)
            } else {
                Err(SettingsProblem::OutOfRange {
                    key,
                    value: v,
                    min,
                    max,
                })
            }
        };
        let unix_socket_mode = match raw.unix_socket_mode {
            None => d.unix_socket_mode,
            Some(text) => u32::from_str_radix(text.trim_start_matches("0o"), 8)
                .ok()
                .filter(|m| *m <= 0o777)
                .ok_or(SettingsProblem::SocketMode { text })?,
        };
        if unix_socket_mode & 0o002 != 0 {
            return Err(SettingsProblem::SocketWritableByAnyone);
        }
        if let Some(url) = &raw.webhook_url
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            return Err(SettingsProblem::WebhookUrl);
        }
        let listen = raw.listen.unwrap_or(d.listen);
        if listen.parse::<std::net::SocketAddr>().is_err() {
            return Err(SettingsProblem::Listen { text: listen });
        }
        let ms = |key: &'static str, v: Option<u64>, default: Duration, max: u64| {
            v.map(|v| range(key, v, 1, max).map(Duration::from_millis))
                .unwrap_or(Ok(default))
        };
        let secs = |key: &'static str, v: Option<u64>, default: Duration, max: u64| {
            v.map(|v| range(key, v, 1, max).map(Duration::from_secs))
                .unwrap_or(Ok(default))
        };
        Ok(ServeSettings {
            listen,
            unix_socket_mode,
            agent_tokens_sha256: digests("agent_tokens_sha256", &raw.agent_tokens_sha256)?,
            agent_token_file: raw.agent_token_file.map(|p| base.join(p)),
            bound_agent_tokens: bound_agent_tokens(raw.agent_tokens, base)?,
            reviewer_tokens_sha256: digests("reviewer_tokens_sha256", &raw.reviewer_tokens_sha256)?,
            reviewer_token_file: raw.reviewer_token_file.map(|p| base.join(p)),
            reviewer_passphrase_file: raw.reviewer_passphrase_file.map(|p| base.join(p)),
            gateway_tokens_sha256: digests("gateway_tokens_sha256", &raw.gateway_tokens_sha256)?,
            gateway_token_file: raw.gateway_token_file.map(|p| base.join(p)),
            metrics_tokens_sha256: digests("metrics_tokens_sha256", &raw.metrics_tokens_sha256)?,
            metrics_token_file: raw.metrics_token_file.map(|p| base.join(p)),
            probes_need_token: raw.probes_need_token.unwrap_or(d.probes_need_token),
            max_body_bytes: raw
                .max_body_bytes
                .map(|v| range("max_body_bytes", v as u64, 1024, MAX_BODY_BYTES as u64))
                .transpose()?
                .map_or(d.max_body_bytes, |v| v as usize),
            request_timeout: ms(
                "request_timeout_ms",
                raw.request_timeout_ms,
                d.request_timeout,
                3_600_000,
            )?,
            idle_timeout: secs("idle_timeout_s", raw.idle_timeout_s, d.idle_timeout, 86_400)?,
            max_concurrent_requests: raw
                .max_concurrent_requests
                .map(|v| {
                    range(
                        "max_concurrent_requests",
                        v as u64,
                        1,
                        MAX_CONCURRENT as u64,
                    )
                })
                .transpose()?
                .map_or(d.max_concurrent_requests, |v| v as usize),
            retry_after_s: raw
                .retry_after_s
                .map(|v| range("retry_after_s", v, 1, 3600))
                .transpose()?
                .unwrap_or(d.retry_after_s),
            listen_backlog: raw
                .listen_backlog
                .map(|v| range("listen_backlog", u64::from(v), 1, 65_535))
                .transpose()?
                .map_or(d.listen_backlog, |v| v as u32),
            shutdown_grace: secs(
                "shutdown_grace_s",
                raw.shutdown_grace_s,
                d.shutdown_grace,
                3600,
            )?,
            webhook_url: raw.webhook_url,
            webhook_retries: raw
                .webhook_retries
                .map(|v| {
                    range(
                        "webhook_retries",
                        u64::from(v),
                        0,
                        u64::from(MAX_WEBHOOK_RETRIES),
                    )
                })
                .transpose()?
                .map_or(d.webhook_retries, |v| v as u32),
            webhook_timeout: ms(
                "webhook_timeout_ms",
                raw.webhook_timeout_ms,
                d.webhook_timeout,
                60_000,
            )?,
            watch: raw.watch.unwrap_or(d.watch),
            run_history: match raw.run_history.as_deref() {
                None => d.run_history,
                Some("server") => RunHistorySource::Server,
                Some("caller") => RunHistorySource::Caller,
                Some(other) => {
                    return Err(SettingsProblem::RunHistory {
                        text: other.to_string(),
                    });
                }
            },
            max_runs: raw
                .max_runs
                .map(|v| range("max_runs", v as u64, 1, MAX_RUNS as u64))
                .transpose()?
                .map_or(d.max_runs, |v| v as usize),
        })
    }
}

fn digests(key: &str, hexes: &[String]) -> Result<Vec<[u8; 32]>, SettingsProblem> {
    hexes
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let mut out = [0u8; 32];
            hex::decode_to_slice(h.trim(), &mut out)
                .map(|()| out)
                .map_err(|_| SettingsProblem::Digest {
                    key: key.to_string(),
                    index: i,
                })
        })
        .collect()
}

/// Why a policy's `[serve]` table is refused
/// ([`ServeSettings::from_policy`]): the policy file and what is wrong.
/// Its text (`Display`) is `<policy file>: [serve] <problem>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: [serve] {problem}", .policy.display())]
pub struct SettingsError {
    /// The policy file.
    pub policy: PathBuf,
    /// What is wrong, naming the key.
    pub problem: SettingsProblem,
}

/// What is wrong in a `[serve]` table ([`SettingsError`]), naming the
/// key. The texts (`Display`) start with the key in backticks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsProblem {
    /// The table does not have the table's shape: an unknown key, or a
    /// value of the wrong type (serde's message, naming the key).
    #[error("{0}")]
    Table(String),
    /// A number outside the key's range.
    #[error("`{key}`: {value} is out of range ({min}..={max})")]
    OutOfRange {
        /// The key (`max_body_bytes`, `request_timeout_ms`, …).
        key: &'static str,
        /// The value given.
        value: u64,
        /// The least value allowed.
        min: u64,
        /// The greatest value allowed.
        max: u64,
    },
    /// `unix_socket_mode` is not an octal file mode.
    #[error("`unix_socket_mode`: {text:?} is not an octal file mode like \"0660\"")]
    SocketMode {
        /// The value given.
        text: String,
    },
    /// `unix_socket_mode` lets others write to the socket.
    #[error("`unix_socket_mode`: a socket anyone on the machine may write to is refused")]
    SocketWritableByAnyone,
    /// `webhook_url` is not an `http://` or `https://` URL.
    #[error("`webhook_url`: must be an http:// or https:// URL")]
    WebhookUrl,
    /// `listen` is not a socket address.
    #[error("`listen`: {text:?} is not an address like \"127.0.0.1:8700\"")]
    Listen {
        /// The value given.
        text: String,
    },
    /// `run_history` is neither `"server"` nor `"caller"`.
    #[error(
        "`run_history`: {text:?} is neither \"server\" (the server keeps each run's history) nor \
         \"caller\" (each call sends it)"
    )]
    RunHistory {
        /// The value given.
        text: String,
    },
    /// An entry of a `*_tokens_sha256` list (or an `agent_tokens` entry's
    /// `sha256`) is not 64 hex digits.
    #[error("`{key}[{index}]`: must be 64 hex digits (the sha256 of a token)")]
    Digest {
        /// The list's key (`agent_tokens_sha256`,
        /// `agent_tokens[2].sha256`, …).
        key: String,
        /// The entry's index in the list.
        index: usize,
    },
    /// An `agent_tokens` entry is refused.
    #[error("`agent_tokens[{index}]`: {problem}")]
    AgentToken {
        /// The entry's index.
        index: usize,
        /// What is wrong with it.
        problem: AgentTokenProblem,
    },
}

/// What is wrong with one `agent_tokens` entry
/// ([`SettingsProblem::AgentToken`]), naming its key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentTokenProblem {
    /// `label` is empty, longer than [`MAX_LABEL_BYTES`] or holds a
    /// control character.
    #[error("`label` must be 1 to {MAX_LABEL_BYTES} bytes without control characters")]
    Label,
    /// Another entry has the same label.
    #[error(
        "the label {label:?} is also the label of `agent_tokens[{other}]`; labels name one entry each"
    )]
    LabelTwice {
        /// The label.
        label: String,
        /// The index of the earlier entry with it.
        other: usize,
    },
    /// Both or neither of `sha256` and `file`.
    #[error("give exactly one of `sha256` and `file`")]
    TokenSource,
    /// `principals` is empty.
    #[error(
        "`principals` must name at least one principal (a token for any principal goes in \
         `agent_tokens_sha256` or `agent_token_file`)"
    )]
    NoPrincipals,
    /// A principal is empty, longer than [`MAX_PRINCIPAL_BYTES`] or holds
    /// a control character.
    #[error(
        "each of `principals` must be 1 to {MAX_PRINCIPAL_BYTES} bytes without control characters"
    )]
    Principal,
    /// `principals` names one principal twice.
    #[error("`principals` names {principal:?} twice")]
    PrincipalTwice {
        /// The principal.
        principal: String,
    },
    /// `agents` is given and empty.
    #[error("`agents` must name at least one agent (leave the key out for any agent)")]
    NoAgents,
    /// An agent is empty, longer than [`MAX_PRINCIPAL_BYTES`] or holds a
    /// control character.
    #[error("each of `agents` must be 1 to {MAX_PRINCIPAL_BYTES} bytes without control characters")]
    Agent,
    /// `agents` names one agent twice.
    #[error("`agents` names {agent:?} twice")]
    AgentTwice {
        /// The agent.
        agent: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ServeSettings, String> {
        let policy =
            toolvet::Policy::from_toml(text, Path::new("/p/toolvet.toml"), Path::new("/p"))
                .map_err(|e| e.to_string())?;
        ServeSettings::from_policy(&policy).map_err(|e| e.to_string())
    }

    /// The messages keep their words (the log and `/readyz` show them).
    #[test]
    fn refusals_read_as_before() {
        for (table, text) in [
            (
                "listen = \"here\"",
                "`listen`: \"here\" is not an address like \"127.0.0.1:8700\"",
            ),
            (
                "unix_socket_mode = \"9\"",
                "`unix_socket_mode`: \"9\" is not an octal file mode like \"0660\"",
            ),
            (
                "retry_after_s = 0",
                "`retry_after_s`: 0 is out of range (1..=3600)",
            ),
            (
                "listen_backlog = 0",
                "`listen_backlog`: 0 is out of range (1..=65535)",
            ),
            (
                "run_history = \"x\"",
                "`run_history`: \"x\" is neither \"server\" (the server keeps each run's history) \
                 nor \"caller\" (each call sends it)",
            ),
            (
                "reviewer_tokens_sha256 = [\"00\"]",
                "`reviewer_tokens_sha256[0]`: must be 64 hex digits (the sha256 of a token)",
            ),
            (
                "agent_tokens = [{ label = \"a\", sha256 = \"00\", principals = [\"p\"] }]",
                "`agent_tokens[0].sha256[0]`: must be 64 hex digits (the sha256 of a token)",
            ),
            (
                "agent_tokens = [{ label = \"a\", file = \"t\", principals = [\"p\"], agents = [] }]",
                "`agent_tokens[0]`: `agents` must name at least one agent (leave the key out for \
                 any agent)",
            ),
            (
                "agent_tokens = [{ label = \"a\", file = \"t\", principals = [\"p\", \"p\"] }]",
                "`agent_tokens[0]`: `principals` names \"p\" twice",
            ),
        ] {
            let e = parse(&format!("[serve]\n{table}\n")).unwrap_err();
            assert_eq!(e, format!("/p/toolvet.toml: [serve] {text}"), "{table}");
        }
    }

    #[test]
    fn defaults_without_a_table() {
        assert_eq!(parse("").unwrap(), ServeSettings::default());
    }

    #[test]
    fn run_history_is_the_servers_unless_the_policy_says_caller() {
        assert_eq!(parse("").unwrap().run_history, RunHistorySource::Server);
        let s = parse("[serve]\nrun_history = \"caller\"\nmax_runs = 5\n").unwrap();
        assert_eq!(s.run_history, RunHistorySource::Caller);
        assert_eq!(s.max_runs, 5);
        let e = parse("[serve]\nrun_history = \"client\"\n").unwrap_err();
        assert!(
            e.contains("`run_history`") && e.contains("\"client\""),
            "{e}"
        );
        let e = parse("[serve]\nmax_runs = 0\n").unwrap_err();
        assert!(e.contains("`max_runs`: 0 is out of range"), "{e}");
    }

    #[test]
    fn keys_are_checked() {
        let e = parse("[serve]\nlisten_on = \"x\"\n").unwrap_err();
        assert!(e.contains("unknown field `listen_on`"), "{e}");
        let e = parse("[serve]\nagent_tokens_sha256 = [\"abc\"]\n").unwrap_err();
        assert!(e.contains("agent_tokens_sha256[0]"), "{e}");
        let e = parse("[serve]\nunix_socket_mode = \"0666\"\n").unwrap_err();
        assert!(e.contains("anyone"), "{e}");
        let e = parse("[serve]\nmax_concurrent_requests = 0\n").unwrap_err();
        assert!(e.contains("out of range"), "{e}");
        let e = parse("[serve]\nwebhook_url = \"ftp://x\"\n").unwrap_err();
        assert!(e.contains("webhook_url"), "{e}");
    }

    /// Every file serve reads a credential from is one the host hands the
    /// checks as a secret (`toolvet::state_paths::front_end_files`), so an
    /// agent's tools can neither read nor append to a token file (review
    /// s11 K3). A new file key must be spelled `file` or `…_file`.
    #[test]
    fn every_token_file_is_a_secret_path_of_the_policy() {
        let digest = "ab".repeat(32);
        let text = format!(
            "[serve]\nagent_token_file = \"a.tokens\"\nreviewer_token_file = \"r.tokens\"\n\
             gateway_token_file = \"/etc/toolvet/g.tokens\"\nmetrics_token_file = \"m.tokens\"\n\
             agent_tokens = [{{ label = \"ci\", sha256 = \"{digest}\", principals = [\"ci@x\"] }},\n\
             {{ label = \"al\", file = \"t/al\", principals = [\"al@x\"] }}]\n"
        );
        let policy =
            toolvet::Policy::from_toml(&text, Path::new("/p/toolvet.toml"), Path::new("/p"))
                .unwrap();
        let s = ServeSettings::from_policy(&policy).unwrap();
        let mut read: Vec<PathBuf> = [
            &s.agent_token_file,
            &s.reviewer_token_file,
            &s.gateway_token_file,
            &s.metrics_token_file,
        ]
        .into_iter()
        .flatten()
        .cloned()
        .chain(s.bound_agent_tokens.iter().filter_map(|t| match &t.token {
            TokenSource::File(f) => Some(f.clone()),
            TokenSource::Sha256(_) => None,
        }))
        .collect();
        let mut secret: Vec<PathBuf> =
            toolvet::state_paths::front_end_files(&policy.front_ends()["serve"])
                .into_iter()
                .map(|f| Path::new("/p").join(f))
                .collect();
        read.sort();
        secret.sort();
        assert_eq!(read.len(), 5);
        assert_eq!(read, secret);
    }

    #[test]
    fn bound_agent_tokens_are_checked() {
        let digest = "ab".repeat(32);
        let s = parse(&format!(
            "[serve]\nagent_tokens = [{{ label = \"ci\", sha256 = \"{digest}\", principals = [\"ci@x\"] }},\n\
             {{ label = \"al\", file = \"t/al\", principals = [\"al@x\", \"bo@x\"] }}]\n"
        ))
        .unwrap();
        assert_eq!(s.bound_agent_tokens.len(), 2);
        assert_eq!(s.bound_agent_tokens[0].principals, ["ci@x"]);
        assert_eq!(s.bound_agent_tokens[0].agents, None);
        assert_eq!(
            s.bound_agent_tokens[1].token,
            TokenSource::File(PathBuf::from("/p/t/al"))
        );
        let s = parse(&format!(
            "[serve]\nagent_tokens = [{{ label = \"ci\", sha256 = \"{digest}\", principals = [\"ci@x\"], \
             agents = [\"deploy-bot\"] }}]\n"
        ))
        .unwrap();
        assert_eq!(
            s.bound_agent_tokens[0].agents.as_deref(),
            Some(&["deploy-bot".to_string()][..])
        );
        for (entry, says) in [
            (
                format!("label = \"\", sha256 = \"{digest}\", principals = [\"a\"]"),
                "`label`",
            ),
            (
                format!("label = \"a\", sha256 = \"{digest}\", principals = []"),
                "at least one",
            ),
            (
                format!("label = \"a\", sha256 = \"{digest}\", principals = [\"a\", \"a\"]"),
                "twice",
            ),
            (
                format!("label = \"a\", sha256 = \"{digest}\", file = \"f\", principals = [\"a\"]"),
                "exactly one",
            ),
            (
                "label = \"a\", principals = [\"a\"]".to_string(),
                "exactly one",
            ),
            (
                "label = \"a\", sha256 = \"xyz\", principals = [\"a\"]".to_string(),
                "agent_tokens[0].sha256[0]",
            ),
            (
                format!("label = \"a\", sha256 = \"{digest}\", principals = [\"a\"], agents = []"),
                "`agent_tokens[0]`: `agents` must name at least one agent",
            ),
            (
                format!(
                    "label = \"a\", sha256 = \"{digest}\", principals = [\"a\"], agents = [\"x\", \"x\"]"
                ),
                "`agents` names \"x\" twice",
            ),
            (
                format!(
                    "label = \"a\", sha256 = \"{digest}\", principals = [\"a\"], agent = [\"x\"]"
                ),
                "unknown field `agent`",
            ),
        ] {
            let e = parse(&format!("[serve]\nagent_tokens = [{{ {entry} }}]\n")).unwrap_err();
            assert!(e.contains(says), "{entry}: {e}");
        }
        let e = parse(&format!(
            "[serve]\nagent_tokens = [{{ label = \"a\", sha256 = \"{digest}\", principals = [\"a\"] }}, \
             {{ label = \"a\", file = \"f\", principals = [\"b\"] }}]\n"
        ))
        .unwrap_err();
        assert!(e.contains("`agent_tokens[1]`: the label \"a\""), "{e}");
    }

    #[test]
    fn paths_resolve_against_the_policy() {
        let s = parse("[serve]\nagent_token_file = \"t/agent\"\nunix_socket_mode = \"0600\"\n")
            .unwrap();
        assert_eq!(s.agent_token_file, Some(PathBuf::from("/p/t/agent")));
        assert_eq!(s.unix_socket_mode, 0o600);
    }
}
