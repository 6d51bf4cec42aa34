//! The policy's `[mcp]` table:
//!
//! ```toml
//! [mcp]
//! hide_denied = true          # tools/list leaves out tools the policy denies for this session
//! call_timeout_ms = 300000    # how long the server may take to answer one request
//! ask_timeout_ms = 300000     # how long the person may take to answer an approval question
//! ```

use serde::Deserialize;
use std::time::Duration;
use toolvet::Policy;

/// The `[mcp]` table, with its defaults.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct McpConfig {
    /// `tools/list` leaves out the tools that a call with no arguments
    /// would be denied now (the session's history counts); they come back
    /// with `notifications/tools/list_changed` once a sequence rule
    /// unlocks them.
    pub hide_denied: bool,
    /// How long the upstream server may take to answer one request, in ms.
    pub call_timeout_ms: u64,
    /// How long the person may take to answer an approval question, in ms.
    pub ask_timeout_ms: u64,
}

impl Default for McpConfig {
    fn default() -> Self {
        McpConfig {
            hide_denied: true,
            call_timeout_ms: 300_000,
            ask_timeout_ms: 300_000,
        }
    }
}

impl McpConfig {
    /// The `[mcp]` table of `policy`.
    ///
    /// # Errors
    /// Unknown keys and bad values, naming the key.
    pub fn from_policy(policy: &Policy) -> anyhow::Result<McpConfig> {
        let Some(table) = policy.front_ends.get("mcp") else {
            return Ok(McpConfig::default());
        };
        let config: McpConfig = serde_json::from_value(table.clone())
            .map_err(|e| anyhow::anyhow!("{}: [mcp]: {e}", policy.source.display()))?;
        for (key, value) in [
            ("call_timeout_ms", config.call_timeout_ms),
            ("ask_timeout_ms", config.ask_timeout_ms),
        ] {
            anyhow::ensure!(
                (1..=3_600_000).contains(&value),
                "{}: [mcp] `{key}`: {value} is out of range (1..=3600000)",
                policy.source.display()
            );
        }
        Ok(config)
    }

    /// [`McpConfig::call_timeout_ms`] as a duration.
    pub fn call_timeout(&self) -> Duration {
        Duration::from_millis(self.call_timeout_ms)
    }

    /// [`McpConfig::ask_timeout_ms`] as a duration.
    pub fn ask_timeout(&self) -> Duration {
        Duration::from_millis(self.ask_timeout_ms)
    }
}
