//! `toolvet hook install AGENT [--project|--user]`: each agent's settings
//! entry that runs `toolvet hook AGENT`, with the options that make the
//! agent block when the hook itself cannot answer (Claude Code's
//! `onFailure: "block"`, Cursor's `failClosed: true`).

use crate::HookError;
use crate::agents::Agent;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// The agent's hook timeout we ask for, in seconds (toolvet's own deadline
/// is shorter, so toolvet answers first).
pub const AGENT_TIMEOUT_S: u64 = 30;

/// Where the settings go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The project's settings (under `root`).
    Project,
    /// The user's settings (under the home directory).
    User,
}

/// The settings file of `agent` for `scope`: `root` is the project
/// directory, `home` the user's.
///
/// # Errors
/// [`HookError::Config`] where the agent has no such file (Copilot CLI
/// reads hooks from the repository only).
pub fn settings_path(
    agent: Agent,
    scope: Scope,
    root: &Path,
    home: &Path,
) -> Result<PathBuf, HookError> {
    Ok(match (agent, scope) {
        (Agent::ClaudeCode, Scope::Project) => root.join(".claude/settings.json"),
        (Agent::ClaudeCode, Scope::User) => home.join(".claude/settings.json"),
        (Agent::Codex, Scope::Project) => root.join(".codex/hooks.json"),
        (Agent::Codex, Scope::User) => home.join(".codex/hooks.json"),
        (Agent::GeminiCli, Scope::Project) => root.join(".gemini/settings.json"),
        (Agent::GeminiCli, Scope::User) => home.join(".gemini/settings.json"),
        (Agent::Cursor, Scope::Project) => root.join(".cursor/hooks.json"),
        (Agent::Cursor, Scope::User) => home.join(".cursor/hooks.json"),
        (Agent::Copilot, Scope::Project) => root.join(".github/hooks/toolvet.json"),
        (Agent::Copilot, Scope::User) => {
            return Err(HookError::Config(
                "Copilot CLI reads hooks from .github/hooks/ in the repository; use --project"
                    .into(),
            ));
        }
    })
}

/// The command line the agent runs.
pub fn command(toolvet: &Path, agent: Agent, policy: &Path) -> String {
    format!(
        "{} hook {} --config {}",
        shell_quote(&toolvet.display().to_string()),
        agent.name(),
        shell_quote(&policy.display().to_string())
    )
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The settings fragment that installs the hook: `(event, entry)` pairs,
/// each entry appended to `hooks.<event>` (Cursor and Copilot also need
/// `"version": 1` at the top). Every agent gets its pre-tool events and
/// its post-tool events ([`Agent::post_tool_event_names`]: `PostToolUse`
/// and Claude Code's `PostToolUseFailure`, `AfterTool`, `postToolUse`),
/// the same command answering all.
pub fn entries(agent: Agent, command: &str) -> Vec<(&'static str, Value)> {
    let both = |pre: &'static str, entry: Value| {
        let mut all = vec![(pre, entry.clone())];
        all.extend(
            agent
                .post_tool_event_names()
                .iter()
                .map(|&event| (event, entry.clone())),
        );
        all
    };
    match agent {
        Agent::ClaudeCode => both(
            "PreToolUse",
            json!({"matcher": "*", "hooks": [{
                "type": "command", "command": command,
                "timeout": AGENT_TIMEOUT_S, "onFailure": "block",
            }]}),
        ),
        Agent::Codex => both(
            "PreToolUse",
            json!({"matcher": "*", "hooks": [{
                "type": "command", "command": command, "timeout": AGENT_TIMEOUT_S,
            }]}),
        ),
        Agent::GeminiCli => both(
            "BeforeTool",
            json!({"matcher": ".*", "hooks": [{
                "type": "command", "command": command, "name": "toolvet",
                "timeout": AGENT_TIMEOUT_S * 1000,
            }]}),
        ),
        Agent::Cursor => {
            // No entry has a matcher: one without runs for every tool of
            // its event. Cursor's tools are more than its edit tools
            // (StrReplace, WebFetch, Grep, Glob, WriteShellStdin, MCP
            // tools...); a `preToolUse` matcher naming some left the rest
            // unvetted.
            let hook =
                || json!({"command": command, "timeout": AGENT_TIMEOUT_S, "failClosed": true});
            let pre = [
                "beforeShellExecution",
                "beforeMCPExecution",
                "beforeReadFile",
                "preToolUse",
            ];
            pre.iter()
                .chain(agent.post_tool_event_names())
                .map(|&event| (event, hook()))
                .collect()
        }
        Agent::Copilot => both(
            "preToolUse",
            json!({"type": "command", "bash": command, "timeoutSec": AGENT_TIMEOUT_S}),
        ),
    }
}

/// `settings` (an agent's settings file, parsed) with the hook installed:
/// an earlier `toolvet hook` entry for the same event is replaced, other
/// entries are kept.
///
/// # Errors
/// [`HookError::Config`] when the file's `hooks` is not an object of
/// arrays.
pub fn merge(agent: Agent, mut settings: Value, command: &str) -> Result<Value, HookError> {
    let Value::Object(top) = &mut settings else {
        return Err(HookError::Config(
            "the settings file is not a JSON object".into(),
        ));
    };
    if matches!(agent, Agent::Cursor | Agent::Copilot) {
        top.entry("version").or_insert(1.into());
    }
    let hooks = top
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err(HookError::Config(
            "`hooks` in the settings file is not an object".into(),
        ));
    };
    for (event, entry) in entries(agent, command) {
        let list = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(list) = list else {
            return Err(HookError::Config(format!(
                "`hooks.{event}` is not an array"
            )));
        };
        list.retain(|e| !e.to_string().contains(" hook ") || !e.to_string().contains("toolvet"));
        list.push(entry);
    }
    Ok(settings)
}

/// Install into the file at `path` (created with its directory when
/// missing).
///
/// # Errors
/// [`HookError::Config`] when the file is not JSON or cannot be written.
pub fn install_into(agent: Agent, path: &Path, command: &str) -> Result<(), HookError> {
    let fail = |e: &dyn std::fmt::Display| HookError::Config(format!("{}: {e}", path.display()));
    let current = match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => json!({}),
        Ok(text) => serde_json::from_str(&text).map_err(|e| fail(&e))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => json!({}),
        Err(e) => return Err(fail(&e)),
    };
    let merged = merge(agent, current, command).map_err(|e| fail(&e))?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
    }
    let text = serde_json::to_string_pretty(&merged).map_err(|e| fail(&e))? + "\n";
    std::fs::write(path, text).map_err(|e| fail(&e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::AGENTS;

    #[test]
    fn claude_blocks_on_failure_and_cursor_fails_closed() {
        let claude = merge(Agent::ClaudeCode, json!({}), "tv hook claude-code").unwrap();
        assert_eq!(
            claude["hooks"]["PreToolUse"][0]["hooks"][0]["onFailure"],
            "block"
        );
        let cursor = merge(Agent::Cursor, json!({}), "tv hook cursor").unwrap();
        assert_eq!(cursor["version"], 1);
        for event in [
            "beforeShellExecution",
            "beforeMCPExecution",
            "beforeReadFile",
            "preToolUse",
            "postToolUse",
        ] {
            assert_eq!(cursor["hooks"][event][0]["failClosed"], true, "{event}");
        }
    }

    #[test]
    fn every_agent_gets_its_post_tool_event_beside_the_pre_tool_one() {
        for (agent, pre, post) in [
            (Agent::ClaudeCode, "PreToolUse", "PostToolUse"),
            (Agent::Codex, "PreToolUse", "PostToolUse"),
            (Agent::GeminiCli, "BeforeTool", "AfterTool"),
            (Agent::Cursor, "preToolUse", "postToolUse"),
            (Agent::Copilot, "preToolUse", "postToolUse"),
        ] {
            let cmd = format!("/opt/toolvet hook {}", agent.name());
            let merged = merge(agent, json!({}), &cmd).unwrap();
            assert_eq!(merged["hooks"][pre], merged["hooks"][post], "{agent:?}");
            assert!(
                merged["hooks"][post].to_string().contains(&cmd),
                "{agent:?}"
            );
            // Installed again: still one toolvet entry per event.
            let again = merge(agent, merged, &cmd).unwrap();
            assert_eq!(again["hooks"][post].as_array().unwrap().len(), 1);
        }
        let claude = merge(Agent::ClaudeCode, json!({}), "tv hook claude-code").unwrap();
        assert_eq!(
            claude["hooks"]["PostToolUse"][0]["hooks"][0]["onFailure"],
            "block"
        );
        // A failed tool's error text is read by the model too.
        assert_eq!(
            claude["hooks"]["PostToolUseFailure"],
            claude["hooks"]["PostToolUse"]
        );
        assert_eq!(claude["hooks"].as_object().unwrap().len(), 3, "{claude}");
    }

    #[test]
    fn merging_keeps_other_hooks_and_replaces_an_earlier_toolvet_entry() {
        let existing = json!({"model": "x", "hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "other-guard"}]},
            {"matcher": "*", "hooks": [{"type": "command", "command": "/old/toolvet hook claude-code --config a"}]},
        ]}});
        let merged = merge(
            Agent::ClaudeCode,
            existing,
            "/new/toolvet hook claude-code --config b",
        )
        .unwrap();
        let list = merged["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(list.len(), 2, "{list:?}");
        assert_eq!(list[0]["hooks"][0]["command"], "other-guard");
        assert_eq!(
            list[1]["hooks"][0]["command"],
            "/new/toolvet hook claude-code --config b"
        );
        assert_eq!(merged["model"], "x");
        assert!(merge(Agent::Codex, json!({"hooks": []}), "c").is_err());
    }

    #[test]
    fn every_agent_has_a_project_file_and_commands_are_quoted() {
        for agent in AGENTS {
            assert!(settings_path(agent, Scope::Project, Path::new("/p"), Path::new("/h")).is_ok());
        }
        assert!(
            settings_path(
                Agent::Copilot,
                Scope::User,
                Path::new("/p"),
                Path::new("/h")
            )
            .is_err()
        );
        assert_eq!(
            command(
                Path::new("/opt/my tools/toolvet"),
                Agent::Codex,
                Path::new("/p/toolvet.toml")
            ),
            "'/opt/my tools/toolvet' hook codex --config /p/toolvet.toml"
        );
    }
}
