//! Tool and argument names: each agent's own (`Bash` `command`, `Write`
//! `file_path`, ...) mapped onto the names toolvet's shipped checks know
//! (`bash` `command`, `write_file` `path`, ...), so the default policy
//! applies unchanged.
//!
//! The defaults are `defaults.toml` beside this file; a policy's
//! `[hooks.<agent>.tools]` table adds to them or replaces entries:
//!
//! ```toml
//! [hooks.claude-code.tools]
//! Bash = { tool = "bash", args = { command = "command" } }
//! mcp__files__write = { tool = "write_file", args = { file = "path" } }
//! ```
//!
//! A tool without an entry keeps its own name; an argument without an
//! entry keeps its own name too. A mapped argument whose target name is
//! already taken by another argument keeps its own name as well (the
//! mapping never drops or overwrites what the agent sent).

use crate::HookError;
use crate::agents::Agent;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// How one agent tool maps.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolMapping {
    /// The tool name the checks see.
    pub tool: String,
    /// Argument renames: agent name → check name.
    #[serde(default)]
    pub args: BTreeMap<String, String>,
}

/// The maps of one agent: agent tool name → mapping.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolMap {
    tools: BTreeMap<String, ToolMapping>,
}

const DEFAULTS: &str = include_str!("defaults.toml");

impl ToolMap {
    /// The built-in map of `agent`.
    pub fn defaults(agent: Agent) -> ToolMap {
        let all: BTreeMap<String, BTreeMap<String, ToolMapping>> =
            toml::from_str(DEFAULTS).expect("defaults.toml is valid (tested)");
        ToolMap {
            tools: all.get(agent.name()).cloned().unwrap_or_default(),
        }
    }

    /// The defaults of `agent` with `overrides` (the policy's
    /// `[hooks.<agent>.tools]` table, as JSON) on top.
    ///
    /// # Errors
    /// [`HookError::Config`] naming the entry that is not a mapping.
    pub fn with_overrides(agent: Agent, overrides: Option<&Value>) -> Result<ToolMap, HookError> {
        let mut map = ToolMap::defaults(agent);
        let Some(overrides) = overrides else {
            return Ok(map);
        };
        let Value::Object(entries) = overrides else {
            return Err(HookError::Config(format!(
                "[hooks.{}.tools] must be a table",
                agent.name()
            )));
        };
        for (name, entry) in entries {
            let mapping: ToolMapping = serde_json::from_value(entry.clone()).map_err(|e| {
                HookError::Config(format!("[hooks.{}.tools] `{name}`: {e}", agent.name()))
            })?;
            if mapping.tool.trim().is_empty() {
                return Err(HookError::Config(format!(
                    "[hooks.{}.tools] `{name}`: `tool` must not be empty",
                    agent.name()
                )));
            }
            map.tools.insert(name.clone(), mapping);
        }
        Ok(map)
    }

    /// The tool name and arguments the checks see for agent tool `tool`.
    pub fn apply(
        &self,
        tool: &str,
        arguments: &Map<String, Value>,
    ) -> (String, Map<String, Value>) {
        let Some(mapping) = self.tools.get(tool) else {
            return (tool.to_string(), arguments.clone());
        };
        let mut out = Map::new();
        // Unmapped arguments first, so that a mapped one never overwrites
        // an argument the agent sent under that name.
        for (key, value) in arguments {
            if !mapping.args.contains_key(key) {
                out.insert(key.clone(), value.clone());
            }
        }
        for (key, value) in arguments {
            if let Some(target) = mapping.args.get(key) {
                let name = if out.contains_key(target) {
                    key
                } else {
                    target
                };
                out.insert(name.clone(), value.clone());
            }
        }
        (mapping.tool.clone(), out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::AGENTS;
    use serde_json::json;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn defaults_parse_for_every_agent() {
        for agent in AGENTS {
            assert!(
                !ToolMap::defaults(agent).tools.is_empty(),
                "{}",
                agent.name()
            );
        }
    }

    #[test]
    fn the_issue_examples_map() {
        let claude = ToolMap::defaults(Agent::ClaudeCode);
        assert_eq!(
            claude.apply("Bash", &args(json!({"command": "ls", "timeout": 5}))),
            ("bash".into(), args(json!({"command": "ls", "timeout": 5})))
        );
        assert_eq!(
            claude.apply("Write", &args(json!({"file_path": "/w/a", "content": "x"}))),
            (
                "write_file".into(),
                args(json!({"path": "/w/a", "content": "x"}))
            )
        );
        assert_eq!(
            claude
                .apply(
                    "Edit",
                    &args(json!({"file_path": "/w/a", "old_string": "x"}))
                )
                .0,
            "edit_file"
        );
        assert_eq!(
            claude.apply("WebFetch", &args(json!({"url": "https://x.test"}))),
            ("fetch".into(), args(json!({"url": "https://x.test"})))
        );
        // Unknown tools keep their names.
        assert_eq!(
            claude.apply("mcp__db__query", &args(json!({"sql": "select 1"}))),
            ("mcp__db__query".into(), args(json!({"sql": "select 1"})))
        );
    }

    #[test]
    fn each_agents_shell_and_write_tools_map() {
        let cases = [
            (Agent::Codex, "Bash", "bash"),
            (Agent::GeminiCli, "run_shell_command", "bash"),
            (Agent::GeminiCli, "write_file", "write_file"),
            (Agent::GeminiCli, "replace", "edit_file"),
            (Agent::Cursor, "Shell", "bash"),
            (Agent::Cursor, "Read", "read_file"),
            (Agent::Copilot, "bash", "bash"),
            (Agent::Copilot, "create", "write_file"),
            (Agent::Copilot, "edit", "edit_file"),
        ];
        for (agent, tool, expected) in cases {
            assert_eq!(
                ToolMap::defaults(agent).apply(tool, &Map::new()).0,
                expected,
                "{} {tool}",
                agent.name()
            );
        }
        let gemini = ToolMap::defaults(Agent::GeminiCli);
        assert_eq!(
            gemini
                .apply("read_file", &args(json!({"absolute_path": "/w/a"})))
                .1,
            args(json!({"path": "/w/a"}))
        );
    }

    #[test]
    fn overrides_replace_and_add_and_bad_entries_are_errors() {
        let map = ToolMap::with_overrides(
            Agent::ClaudeCode,
            Some(&json!({
                "Bash": {"tool": "shell", "args": {"command": "cmd"}},
                "mcp__fs__put": {"tool": "write_file", "args": {"file": "path"}},
            })),
        )
        .unwrap();
        assert_eq!(
            map.apply("Bash", &args(json!({"command": "ls"}))),
            ("shell".into(), args(json!({"cmd": "ls"})))
        );
        assert_eq!(
            map.apply("mcp__fs__put", &args(json!({"file": "a"}))).1["path"],
            "a"
        );
        assert_eq!(
            map.apply("Write", &Map::new()).0,
            "write_file",
            "defaults stay"
        );
        let e = ToolMap::with_overrides(Agent::Codex, Some(&json!({"Bash": {"name": "x"}})))
            .unwrap_err();
        assert!(e.to_string().contains("[hooks.codex.tools] `Bash`"), "{e}");
        let e = ToolMap::with_overrides(Agent::Codex, Some(&json!({"Bash": {"tool": " "}})))
            .unwrap_err();
        assert!(e.to_string().contains("must not be empty"), "{e}");
    }

    #[test]
    fn a_mapped_argument_never_overwrites_one_the_agent_sent() {
        let claude = ToolMap::defaults(Agent::ClaudeCode);
        let (_, out) = claude.apply("Write", &args(json!({"file_path": "/w/a", "path": "/w/b"})));
        assert_eq!(out, args(json!({"path": "/w/b", "file_path": "/w/a"})));
    }
}
