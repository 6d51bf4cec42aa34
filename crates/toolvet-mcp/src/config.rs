//! The policy's `[mcp]` table.

use serde::Deserialize;
use std::time::Duration;
use toolvet::Policy;

/// Why `[mcp]` is unusable.
#[derive(Debug, thiserror::Error)]
#[error("{source_file}: [mcp]: {message}")]
pub struct ConfigError {
    /// The policy file.
    pub source_file: String,
    /// What is wrong, naming the key.
    pub message: String,
}

/// The `[mcp]` table of a policy (every key optional).
///
/// ```toml
/// [mcp]
/// hide_denied_tools = ["tools"]   # checks whose deny hides a tool from tools/list
/// elicit = true                   # ask the person through the client when it can
/// approval_timeout_secs = 300     # how long a held call waits for that answer
/// upstream_timeout_secs = 300     # how long the server may take to answer a request
/// agent = "desktop-assistant"     # the agent name the checks see
/// principal = "alice"             # on whose behalf the agent acts
/// reviewer = "mcp-client"         # recorded as the reviewer of answers given in the client
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpConfig {
    /// Names of checks: a tool that one of them denies when previewed
    /// with no arguments (in this session, with its history) is left out
    /// of `tools/list`. Empty: every tool is listed.
    pub hide_denied_tools: Vec<String>,
    /// Ask the person through the client's elicitation when the client
    /// declared it (else the call is denied with the approval id).
    pub elicit: bool,
    /// How long a held call waits for the person's answer in the client
    /// (capped by the request's own expiry).
    pub approval_timeout: Duration,
    /// How long the upstream server may take to answer one request before
    /// the client gets an error and the server a cancellation.
    pub upstream_timeout: Duration,
    /// The agent name the checks see (default: the client's `clientInfo.name`).
    pub agent: Option<String>,
    /// On whose behalf the agent acts.
    pub principal: Option<String>,
    /// The reviewer recorded for answers given in the client (default:
    /// `mcp-client:<clientInfo.name>`).
    pub reviewer: Option<String>,
}

impl Default for McpConfig {
    fn default() -> Self {
        McpConfig {
            hide_denied_tools: Vec::new(),
            elicit: true,
            approval_timeout: Duration::from_secs(300),
            upstream_timeout: Duration::from_secs(300),
            agent: None,
            principal: None,
            reviewer: None,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    hide_denied_tools: Option<Vec<String>>,
    elicit: Option<bool>,
    approval_timeout_secs: Option<u64>,
    upstream_timeout_secs: Option<u64>,
    agent: Option<String>,
    principal: Option<String>,
    reviewer: Option<String>,
}

/// Longest timeout accepted, in seconds (one day).
const MAX_TIMEOUT_SECS: u64 = 86_400;

impl McpConfig {
    /// The `[mcp]` table of `policy` (defaults when absent).
    ///
    /// # Errors
    /// Unknown keys, wrong types, a timeout of 0 or over a day, and a
    /// `hide_denied_tools` entry that names no check of the policy.
    pub fn from_policy(policy: &Policy) -> Result<McpConfig, ConfigError> {
        let fail = |message: String| ConfigError {
            source_file: policy.source().display().to_string(),
            message,
        };
        let Some(table) = policy.front_ends().get("mcp") else {
            return Ok(McpConfig::default());
        };
        let raw: Raw = serde_json::from_value(table.clone()).map_err(|e| fail(e.to_string()))?;
        let mut config = McpConfig::default();
        if let Some(names) = raw.hide_denied_tools {
            for name in &names {
                if !policy.checks().iter().any(|c| &c.name == name) {
                    let known: Vec<&str> =
                        policy.checks().iter().map(|c| c.name.as_str()).collect();
                    return Err(fail(format!(
                        "hide_denied_tools: no check is named `{name}` (the checks: {})",
                        known.join(", ")
                    )));
                }
            }
            config.hide_denied_tools = names;
        }
        if let Some(elicit) = raw.elicit {
            config.elicit = elicit;
        }
        for (key, value, slot) in [
            (
                "approval_timeout_secs",
                raw.approval_timeout_secs,
                &mut config.approval_timeout,
            ),
            (
                "upstream_timeout_secs",
                raw.upstream_timeout_secs,
                &mut config.upstream_timeout,
            ),
        ] {
            match value {
                None => {}
                Some(0) => return Err(fail(format!("{key}: must be at least 1"))),
                Some(s) if s > MAX_TIMEOUT_SECS => {
                    return Err(fail(format!(
                        "{key}: {s} is over a day ({MAX_TIMEOUT_SECS})"
                    )));
                }
                Some(s) => *slot = Duration::from_secs(s),
            }
        }
        for (key, value) in [
            ("agent", &raw.agent),
            ("principal", &raw.principal),
            ("reviewer", &raw.reviewer),
        ] {
            if let Some(v) = value
                && (v.is_empty() || v.chars().any(char::is_control))
            {
                return Err(fail(format!(
                    "{key}: must be non-empty, with no control characters"
                )));
            }
        }
        config.agent = raw.agent;
        config.principal = raw.principal;
        config.reviewer = raw.reviewer;
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(mcp: &str) -> Policy {
        let text =
            format!("[[check]]\nname = \"tools\"\nplugin = \"tool_policy.wasm\"\n\n[mcp]\n{mcp}\n");
        Policy::from_toml(&text, "toolvet.toml".as_ref(), "/nonexistent".as_ref()).unwrap()
    }

    #[test]
    fn defaults_when_absent_and_values_when_set() {
        let p = Policy::from_toml(
            "[[check]]\nname = \"tools\"\nplugin = \"tool_policy.wasm\"\n",
            "toolvet.toml".as_ref(),
            "/nonexistent".as_ref(),
        )
        .unwrap();
        assert_eq!(McpConfig::from_policy(&p).unwrap(), McpConfig::default());
        let c = McpConfig::from_policy(&policy(
            "hide_denied_tools = [\"tools\"]\nelicit = false\napproval_timeout_secs = 9\nagent = \"a\"",
        ))
        .unwrap();
        assert_eq!(c.hide_denied_tools, ["tools"]);
        assert!(!c.elicit);
        assert_eq!(c.approval_timeout, Duration::from_secs(9));
        assert_eq!(c.upstream_timeout, Duration::from_secs(300));
        assert_eq!(c.agent.as_deref(), Some("a"));
    }

    #[test]
    fn bad_tables_name_the_key() {
        for (mcp, needle) in [
            (
                "hide_denied_tools = [\"nope\"]",
                "no check is named `nope` (the checks: tools)",
            ),
            ("elicitt = true", "unknown field `elicitt`"),
            (
                "upstream_timeout_secs = 0",
                "upstream_timeout_secs: must be at least 1",
            ),
            (
                "approval_timeout_secs = 100000",
                "approval_timeout_secs: 100000 is over a day",
            ),
            ("elicit = \"yes\"", "invalid type"),
            ("reviewer = \"\"", "reviewer: must be non-empty"),
        ] {
            let e = McpConfig::from_policy(&policy(mcp))
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("toolvet.toml: [mcp]: "), "{e}");
            assert!(e.contains(needle), "{mcp}: {e}");
        }
    }
}
