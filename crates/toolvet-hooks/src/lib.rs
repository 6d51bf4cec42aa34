//! toolvet as a coding agent's pre-tool hook (`toolvet hook AGENT`): read
//! the agent's payload, map its tool onto the names the shipped checks
//! know, vet the call with the session's history, and answer in the
//! agent's format. Every failure answers with that agent's block
//! ([`Agent::render_failure`]); the caller adds the timeout and panic
//! guards ([`guard`]).
//!
//! The policy's `[hooks]` table (all keys optional):
//!
//! ```toml
//! [hooks]
//! state_dir = "state/hooks"   # per-session history files; default $XDG_STATE_HOME/toolvet/hooks
//! grant_allow = false         # true: an allow tells the agent to skip its own permission prompt
//! [hooks.claude-code.tools]   # tool maps on top of the defaults (see maps.rs)
//! Bash = { tool = "bash" }
//! ```

mod agents;
pub mod guard;
mod history;
pub mod install;
mod maps;

pub use agents::{AGENTS, Agent, Answer, HookCall, MAX_INPUT_BYTES, MAX_REASON_BYTES, Rendered};
pub use history::{MAX_FILE_BYTES, SessionHistory, path_for};
pub use maps::{ToolMap, ToolMapping};

use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toolvet::{CallRequest, Decision, Host, Outcome, Policy, Verdict};

/// Why a hook could not vet a call (each is answered with a block).
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    /// The agent's payload is malformed.
    #[error("malformed hook input: {0}")]
    Input(String),
    /// The policy file, or its `[hooks]` table, is unusable.
    #[error("bad policy: {0}")]
    Config(String),
    /// The host failed to load the policy's checks.
    #[error("the policy's checks did not load: {0}")]
    Load(String),
    /// The session's history file is unusable.
    #[error("session history: {0}")]
    History(String),
}

/// The `[hooks]` table.
#[derive(Debug, Clone, Default)]
pub struct HooksConfig {
    /// Where the per-session history files live (relative to the policy
    /// file).
    pub state_dir: Option<PathBuf>,
    /// An allow tells the agent to allow (skipping its own permission
    /// prompt) instead of staying silent.
    pub grant_allow: bool,
    /// Per-agent tool maps (`[hooks.<agent>.tools]`), by agent name.
    pub tools: BTreeMap<String, Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgent {
    tools: Option<Value>,
}

impl HooksConfig {
    /// The `[hooks]` table of `policy` (defaults when absent).
    ///
    /// # Errors
    /// [`HookError::Config`] for unknown keys, unknown agents and bad
    /// values.
    pub fn from_policy(policy: &Policy) -> Result<HooksConfig, HookError> {
        let mut config = HooksConfig::default();
        let Some(Value::Object(table)) = policy.front_ends.get("hooks") else {
            return Ok(config);
        };
        let base = policy.source.parent().unwrap_or(Path::new("."));
        for (key, value) in table {
            match (key.as_str(), value) {
                ("state_dir", Value::String(dir)) => config.state_dir = Some(base.join(dir)),
                ("grant_allow", Value::Bool(grant)) => config.grant_allow = *grant,
                ("state_dir" | "grant_allow", _) => {
                    return Err(HookError::Config(format!(
                        "[hooks] `{key}`: must be a {}",
                        if key == "state_dir" {
                            "string"
                        } else {
                            "boolean"
                        }
                    )));
                }
                (agent, value) if Agent::from_name(agent).is_some() => {
                    let raw: RawAgent = serde_json::from_value(value.clone())
                        .map_err(|e| HookError::Config(format!("[hooks.{agent}]: {e}")))?;
                    if let Some(tools) = raw.tools {
                        config.tools.insert(agent.to_string(), tools);
                    }
                }
                (other, _) => {
                    return Err(HookError::Config(format!(
                        "[hooks] `{other}`: unknown key (keys: state_dir, grant_allow, and a table per agent: {})",
                        AGENTS.map(Agent::name).join(", ")
                    )));
                }
            }
        }
        Ok(config)
    }

    /// The directory of the history files.
    ///
    /// # Errors
    /// [`HookError::Config`] when neither `state_dir` nor a home or state
    /// directory is known.
    pub fn state_dir(&self) -> Result<PathBuf, HookError> {
        if let Some(dir) = &self.state_dir {
            return Ok(dir.clone());
        }
        dirs::state_dir()
            .or_else(|| dirs::home_dir().map(|h| h.join(".local/state")))
            .map(|d| d.join("toolvet/hooks"))
            .ok_or_else(|| HookError::Config("no state directory: set [hooks] state_dir".into()))
    }
}

/// How long a verdict may wait for its decision record.
const RECORD_TIMEOUT: Duration = Duration::from_secs(5);

/// Vet the call in `input` (the agent's payload) under the policy at
/// `policy_path` and answer in `agent`'s format. Never fails: every error
/// becomes [`Agent::render_failure`].
pub async fn run(agent: Agent, policy_path: &Path, input: &[u8]) -> Rendered {
    match vet(agent, policy_path, input).await {
        Ok(answer) => agent.render(&answer),
        Err(e) => agent.render_failure(&e.to_string()),
    }
}

/// [`run`] before rendering: the answer, or why there is none.
///
/// # Errors
/// Any [`HookError`].
pub async fn vet(agent: Agent, policy_path: &Path, input: &[u8]) -> Result<Answer, HookError> {
    let call = agent.parse(input)?;
    let policy = Policy::from_file(policy_path).map_err(|e| HookError::Config(e.to_string()))?;
    let config = HooksConfig::from_policy(&policy)?;
    let tools = config.tools.get(agent.name());
    let map = ToolMap::with_overrides(agent, tools)?;
    let mut request = request_for(agent, &call, &map)?;
    // One call per process: load only the checks that can select it (the
    // host denies any other tool), and start reused checks from their
    // snapshots rather than configure them for this one call.
    let options = toolvet::LoadOptions {
        only_tool: Some(request.call.name.clone()),
        preinitialize_reused: true,
        ..toolvet::LoadOptions::default()
    };
    let host = Host::load_with(policy, options)
        .await
        .map_err(|e| HookError::Load(e.to_string()))?;
    // Copilot CLI's camelCase payload has no session id: its calls share
    // the workspace's history.
    let session = call
        .session_id
        .clone()
        .or_else(|| call.cwd.as_ref().map(|cwd| format!("cwd:{cwd}")));
    let mut history = match &session {
        Some(session) => {
            let path = path_for(&config.state_dir()?, agent.name(), session);
            let history = SessionHistory::open(&path)?;
            request.context.history = history.entries().to_vec();
            Some(history)
        }
        None => None,
    };
    let mut verdict = host.check_recorded(&request, RECORD_TIMEOUT).await;
    if let Some(ticket) = verdict.approved_ticket() {
        let mut resumed = request.clone();
        resumed.approval = Some(toolvet::ApprovalClaim {
            ticket: ticket.to_string(),
        });
        verdict = host.check_recorded(&resumed, RECORD_TIMEOUT).await;
    }
    if let Some(history) = &mut history {
        let outcome = match verdict.decision {
            Decision::Allow => Outcome::Allowed,
            Decision::Deny => Outcome::Denied,
            Decision::Escalate => Outcome::Escalated,
        };
        history.append(&request.call.name, &request.call.arguments, outcome)?;
    }
    Ok(answer_for(agent, &verdict, &config, policy_path))
}

/// The call the checks see: mapped names, the session as the run, the
/// agent's cwd, event and tool-use id as attributes. The call id is empty:
/// agents give every retry a new id, and approvals bind such calls by run,
/// tool and arguments.
fn request_for(agent: Agent, call: &HookCall, map: &ToolMap) -> Result<CallRequest, HookError> {
    let (name, arguments) = map.apply(&call.tool, &call.arguments);
    let mut request = CallRequest::new(&name, &Value::Object(arguments))
        .map_err(|e| HookError::Input(e.to_string()))?;
    request.context.agent = Some(agent.name().to_string());
    request.context.run_id = call.session_id.clone();
    let attributes = &mut request.context.attributes;
    if let Some(cwd) = &call.cwd {
        attributes.insert("cwd".into(), cwd.clone());
    }
    attributes.insert("hook_event".into(), call.event.clone());
    attributes.insert("agent_tool".into(), call.tool.clone());
    if let Some(id) = &call.tool_use_id {
        attributes.insert("tool_use_id".into(), id.clone());
    }
    Ok(request)
}

/// The verdict as an answer: escalate is `ask` where the agent supports it,
/// else a deny naming the approval request.
fn answer_for(agent: Agent, verdict: &Verdict, config: &HooksConfig, policy: &Path) -> Answer {
    let rule = verdict.rule.as_deref().unwrap_or("toolvet");
    let reason = verdict
        .reason
        .as_deref()
        .unwrap_or("no reason given")
        .trim_end_matches('.');
    match verdict.decision {
        Decision::Allow => Answer::Allow {
            grant: config.grant_allow,
        },
        Decision::Deny => Answer::Deny(format!("toolvet denied this call [{rule}]: {reason}")),
        Decision::Escalate => {
            let Some(approval) = &verdict.approval else {
                return Answer::Deny(format!(
                    "toolvet holds this call for a person's approval [{rule}]: {reason}; \
                     the policy has no [approvals] ledger, so it is denied"
                ));
            };
            if agent.supports_ask() {
                Answer::Ask(format!(
                    "toolvet asks a person to approve this call [{rule}]: {reason} (approval request {})",
                    approval.id
                ))
            } else {
                Answer::Deny(format!(
                    "toolvet holds this call for a person's approval [{rule}]: {reason}. \
                     It is approval request {id}: ask the user to approve it \
                     (`toolvet approvals approve {id} --config {policy} --reviewer NAME`), \
                     then make the same call again.",
                    id = approval.id,
                    policy = policy.display()
                ))
            }
        }
    }
}
