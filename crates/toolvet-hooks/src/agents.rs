//! Each coding agent's hook contract: how its pre-tool payload reads, and
//! how it must be answered so that a deny, an ask and a failure block (see
//! docs/hooks.md for the sources).
//!
//! | agent | payload | deny | ask | failure |
//! |---|---|---|---|---|
//! | Claude Code | `PreToolUse`, snake_case | `hookSpecificOutput.permissionDecision` `deny`, exit 0 | `ask` | exit 2, reason on stderr |
//! | Codex | `PreToolUse`, snake_case | as Claude Code | unsupported (fails open): deny naming the approval | exit 2, reason on stderr |
//! | Gemini CLI | `BeforeTool`, snake_case | `decision` `deny`, exit 0 | undocumented: deny naming the approval | exit 2, reason on stderr |
//! | Cursor | `beforeShellExecution`, `beforeMCPExecution`, `beforeReadFile`, `preToolUse` | `permission` `deny`, exit 0 | `ask` | the deny JSON, exit 0 |
//! | Copilot CLI | `preToolUse` camelCase (`toolArgs` is JSON text) or `PreToolUse` snake_case | `permissionDecision` `deny`, exit 0 | `ask` | the deny JSON, exit 0 |

use crate::HookError;
use serde_json::{Map, Value, json};

/// A coding agent whose pre-tool hook toolvet answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Agent {
    /// Anthropic's Claude Code (`PreToolUse`).
    ClaudeCode,
    /// OpenAI's Codex CLI (`PreToolUse`).
    Codex,
    /// Google's Gemini CLI (`BeforeTool`).
    GeminiCli,
    /// Cursor (`beforeShellExecution`, `beforeMCPExecution`,
    /// `beforeReadFile`, `preToolUse`).
    Cursor,
    /// GitHub Copilot CLI (`preToolUse`).
    Copilot,
}

/// Every agent, in the order the docs list them.
pub const AGENTS: [Agent; 5] = [
    Agent::ClaudeCode,
    Agent::Codex,
    Agent::GeminiCli,
    Agent::Cursor,
    Agent::Copilot,
];

/// The largest payload read from stdin; a larger one is malformed.
pub const MAX_INPUT_BYTES: usize = 16 << 20;

/// Longest reason put in an answer, in bytes (Claude Code caps a hook's
/// output at 10,000 characters).
pub const MAX_REASON_BYTES: usize = 4000;

/// What a hook learned from the agent's payload, before any name mapping.
#[derive(Debug, Clone, PartialEq)]
pub struct HookCall {
    /// The hook event as the agent named it (`PreToolUse`, ...).
    pub event: String,
    /// The agent's session (conversation) id, when it sends one.
    pub session_id: Option<String>,
    /// The working directory (or the first workspace root).
    pub cwd: Option<String>,
    /// The agent's own tool name (`Bash`, `run_shell_command`, ...).
    pub tool: String,
    /// The tool's arguments (a JSON object).
    pub arguments: Map<String, Value>,
    /// The agent's id for this tool use, when it sends one.
    pub tool_use_id: Option<String>,
}

/// What toolvet answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// No objection. With `grant`, the agent is told to allow (skipping its
    /// own permission prompt); without, it decides as if no hook ran.
    Allow {
        /// Tell the agent to allow (where it has such an answer).
        grant: bool,
    },
    /// The call must not run; the reason is for the model.
    Deny(String),
    /// A person must approve; the reason is shown to them. Only for agents
    /// with [`Agent::supports_ask`].
    Ask(String),
}

/// The exact bytes and exit code to answer the agent with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// Written to stdout (may be empty).
    pub stdout: String,
    /// Written to stderr (may be empty).
    pub stderr: String,
    /// The process exit code.
    pub exit_code: u8,
}

impl Agent {
    /// The command-line name: `claude-code`, `codex`, `gemini-cli`,
    /// `cursor`, `copilot`.
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::GeminiCli => "gemini-cli",
            Agent::Cursor => "cursor",
            Agent::Copilot => "copilot",
        }
    }

    /// The agent named `name` (see [`Agent::name`]).
    pub fn from_name(name: &str) -> Option<Agent> {
        AGENTS.into_iter().find(|a| a.name() == name)
    }

    /// Whether the agent has a working `ask` answer (a person decides in
    /// the agent). Codex fails open on `ask`; Gemini CLI's is undocumented.
    pub fn supports_ask(self) -> bool {
        matches!(self, Agent::ClaudeCode | Agent::Cursor | Agent::Copilot)
    }

    /// Read the agent's pre-tool payload.
    ///
    /// # Errors
    /// [`HookError::Input`] naming what is wrong: not JSON, not an object,
    /// a missing or mistyped field, an event that is not a pre-tool event.
    pub fn parse(self, input: &[u8]) -> Result<HookCall, HookError> {
        if input.len() > MAX_INPUT_BYTES {
            return Err(HookError::Input(format!(
                "the payload is over {MAX_INPUT_BYTES} bytes"
            )));
        }
        let value: Value = serde_json::from_slice(input)
            .map_err(|e| HookError::Input(format!("the payload is not JSON: {e}")))?;
        let Value::Object(payload) = value else {
            return Err(HookError::Input("the payload is not a JSON object".into()));
        };
        let p = Payload(&payload);
        match self {
            Agent::ClaudeCode | Agent::Codex => p.snake_case(&["PreToolUse"]),
            Agent::GeminiCli => p.snake_case(&["BeforeTool"]),
            Agent::Cursor => p.cursor(),
            Agent::Copilot if payload.contains_key("toolName") => p.copilot_camel_case(),
            Agent::Copilot => p.snake_case(&["PreToolUse", "preToolUse"]),
        }
    }

    /// The answer in the agent's format.
    pub fn render(self, answer: &Answer) -> Rendered {
        let ok = |stdout: Value| Rendered {
            stdout: stdout.to_string(),
            stderr: String::new(),
            exit_code: 0,
        };
        let silent = Rendered {
            stdout: String::new(),
            stderr: String::new(),
            exit_code: 0,
        };
        // An allow without `grant` is no output: the agent decides as if no
        // hook ran. Codex has no allow answer (a bare allow is an
        // unsupported decision); Cursor wants an explicit permission.
        if let Answer::Allow { grant } = answer
            && (self == Agent::Codex || (!grant && self != Agent::Cursor))
        {
            return silent;
        }
        match (self, answer) {
            (Agent::ClaudeCode | Agent::Codex, answer) => {
                let (decision, reason) = match answer {
                    Answer::Allow { .. } => ("allow", "toolvet: no objection"),
                    Answer::Deny(r) => ("deny", r.as_str()),
                    Answer::Ask(r) => ("ask", r.as_str()),
                };
                ok(json!({"hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": decision,
                    "permissionDecisionReason": clip(reason),
                }}))
            }
            (Agent::GeminiCli, answer) => match answer {
                Answer::Allow { .. } => ok(json!({"decision": "allow"})),
                Answer::Deny(r) | Answer::Ask(r) => {
                    ok(json!({"decision": "deny", "reason": clip(r)}))
                }
            },
            (Agent::Cursor, answer) => match answer {
                Answer::Allow { .. } => ok(json!({"permission": "allow"})),
                Answer::Deny(r) => ok(json!({
                    "permission": "deny",
                    "user_message": clip(r),
                    "agent_message": clip(r),
                })),
                Answer::Ask(r) => ok(json!({
                    "permission": "ask",
                    "user_message": clip(r),
                    "agent_message": clip(r),
                })),
            },
            (Agent::Copilot, answer) => {
                let (decision, reason) = match answer {
                    Answer::Allow { .. } => ("allow", "toolvet: no objection"),
                    Answer::Deny(r) => ("deny", r.as_str()),
                    Answer::Ask(r) => ("ask", r.as_str()),
                };
                ok(json!({
                    "permissionDecision": decision,
                    "permissionDecisionReason": clip(reason),
                }))
            }
        }
    }

    /// The answer when toolvet itself failed (bad policy, host error,
    /// malformed input, timeout, panic): a block in the agent's terms. For
    /// agents that block on exit 2 with a reason on stderr, that; for the
    /// others, their deny JSON.
    pub fn render_failure(self, why: &str) -> Rendered {
        let reason = clip(&format!(
            "toolvet could not vet this call, so it is blocked: {why}"
        ));
        let mut rendered = self.render(&Answer::Deny(reason.clone()));
        if self.blocks_on_exit_2() {
            rendered.stderr = reason;
            rendered.exit_code = 2;
        }
        rendered
    }

    /// Whether exit code 2 with a reason on stderr is a documented block
    /// (Claude Code, Codex, Gemini CLI).
    pub fn blocks_on_exit_2(self) -> bool {
        matches!(self, Agent::ClaudeCode | Agent::Codex | Agent::GeminiCli)
    }
}

/// `reason` cut to [`MAX_REASON_BYTES`] at a character boundary.
fn clip(reason: &str) -> String {
    if reason.len() <= MAX_REASON_BYTES {
        return reason.to_string();
    }
    let mut end = MAX_REASON_BYTES - 3;
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &reason[..end])
}

struct Payload<'a>(&'a Map<String, Value>);

impl Payload<'_> {
    fn string(&self, key: &str) -> Result<Option<String>, HookError> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(HookError::Input(format!("`{key}` must be a string"))),
        }
    }

    fn required(&self, key: &str) -> Result<String, HookError> {
        match self.string(key)? {
            Some(s) if !s.trim().is_empty() => Ok(s),
            _ => Err(HookError::Input(format!("`{key}` is missing or empty"))),
        }
    }

    /// `tool_input` (or `key`): an object, or JSON text of one.
    fn object(&self, key: &str) -> Result<Map<String, Value>, HookError> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(Map::new()),
            Some(Value::Object(map)) => Ok(map.clone()),
            Some(Value::String(text)) => match serde_json::from_str(text) {
                Ok(Value::Object(map)) => Ok(map),
                _ => Err(HookError::Input(format!(
                    "`{key}` is text that is not a JSON object"
                ))),
            },
            Some(_) => Err(HookError::Input(format!("`{key}` must be a JSON object"))),
        }
    }

    fn event(&self, key: &str, allowed: &[&str]) -> Result<String, HookError> {
        let event = self.required(key)?;
        if !allowed.contains(&event.as_str()) {
            return Err(HookError::Input(format!(
                "`{key}` is {event:?}; this hook answers {}",
                allowed.join(", ")
            )));
        }
        Ok(event)
    }

    /// Claude Code, Codex, Gemini CLI, Copilot's VS Code-compatible form.
    fn snake_case(&self, events: &[&str]) -> Result<HookCall, HookError> {
        Ok(HookCall {
            event: self.event("hook_event_name", events)?,
            session_id: self.string("session_id")?,
            cwd: self.string("cwd")?,
            tool: self.required("tool_name")?,
            arguments: self.object("tool_input")?,
            tool_use_id: self.string("tool_use_id")?,
        })
    }

    /// Copilot CLI's camelCase `preToolUse`: `toolName`, `toolArgs` (JSON
    /// text), `cwd`, `sessionId` when sent.
    fn copilot_camel_case(&self) -> Result<HookCall, HookError> {
        let event = self.string("hookEventName")?.unwrap_or("preToolUse".into());
        if event != "preToolUse" {
            return Err(HookError::Input(format!(
                "`hookEventName` is {event:?}; this hook answers preToolUse"
            )));
        }
        Ok(HookCall {
            event,
            session_id: self.string("sessionId")?,
            cwd: self.string("cwd")?,
            tool: self.required("toolName")?,
            arguments: self.object("toolArgs")?,
            tool_use_id: self.string("toolCallId")?,
        })
    }

    /// Cursor: one event per kind of action; the tool is implied by the
    /// event except for MCP calls and `preToolUse`.
    fn cursor(&self) -> Result<HookCall, HookError> {
        let event = self.event(
            "hook_event_name",
            &[
                "beforeShellExecution",
                "beforeMCPExecution",
                "beforeReadFile",
                "preToolUse",
            ],
        )?;
        let roots = match self.0.get("workspace_roots") {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) => match items.first() {
                None => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(_) => {
                    return Err(HookError::Input(
                        "`workspace_roots` must list strings".into(),
                    ));
                }
            },
            Some(_) => {
                return Err(HookError::Input(
                    "`workspace_roots` must be an array".into(),
                ));
            }
        };
        let cwd = self.string("cwd")?.or(roots);
        let (tool, arguments) = match event.as_str() {
            "beforeShellExecution" => {
                let mut args = Map::new();
                args.insert("command".into(), self.required("command")?.into());
                ("Shell".to_string(), args)
            }
            "beforeReadFile" => {
                // The file's content is not an argument: only its path.
                let mut args = Map::new();
                args.insert("file_path".into(), self.required("file_path")?.into());
                ("Read".to_string(), args)
            }
            _ => (self.required("tool_name")?, self.object("tool_input")?),
        };
        Ok(HookCall {
            event,
            session_id: self.string("conversation_id")?,
            cwd,
            tool,
            arguments,
            tool_use_id: self.string("generation_id")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for agent in AGENTS {
            assert_eq!(Agent::from_name(agent.name()), Some(agent));
        }
        assert_eq!(Agent::from_name("claude"), None);
    }

    #[test]
    fn every_claude_answer_names_its_event() {
        // Without hookEventName Claude Code ignores hookSpecificOutput.
        for answer in [
            Answer::Allow { grant: true },
            Answer::Deny("d".into()),
            Answer::Ask("a".into()),
        ] {
            let r = Agent::ClaudeCode.render(&answer);
            let v: Value = serde_json::from_str(&r.stdout).unwrap();
            assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
        }
    }

    #[test]
    fn reasons_are_clipped_on_a_character_boundary() {
        let long = "é".repeat(10_000);
        let r = Agent::ClaudeCode.render(&Answer::Deny(long));
        assert!(r.stdout.len() < 10_000, "{}", r.stdout.len());
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        assert!(
            v["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .unwrap()
                .ends_with("...")
        );
    }

    #[test]
    fn tool_input_as_text_must_be_an_object() {
        let e = Agent::Copilot
            .parse(br#"{"toolName":"bash","toolArgs":"[1]"}"#)
            .unwrap_err();
        assert!(e.to_string().contains("`toolArgs`"), "{e}");
        let ok = Agent::Copilot
            .parse(br#"{"toolName":"bash","toolArgs":"{\"command\":\"ls\"}"}"#)
            .unwrap();
        assert_eq!(ok.arguments["command"], "ls");
    }
}
