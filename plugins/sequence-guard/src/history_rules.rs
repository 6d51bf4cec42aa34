//! Two history rules that need no settings to be useful, on by default:
//!
//! - `sequence.blind-overwrite`: a whole-file write of a file the run
//!   never read, when something says the file exists (a well-known project
//!   file, or an earlier call named it without creating it). Creating new
//!   files is ordinary; replacing one unread loses its content.
//! - `sequence.retry-after-refusal`: right after a call was denied, held
//!   for approval or rejected, a call of *another* tool acting on the same
//!   path, host, address or name: the same effect tried another way. A
//!   corrected call of the same tool, and reads, are how a model follows a
//!   refusal's advice, and are left alone.

use crate::keys::normalize_path;
use crate::targets::targets;
use check_catalog::words;
use serde::Deserialize;
use toolvet_pdk::serde_json::{self, Value};
use toolvet_pdk::{Action, Context, Decision, GlobList, Globs, Key, Outcome, PriorCall, ToolCall};

/// Files nearly every project has: a write of one without reading it is
/// an overwrite.
const WELL_KNOWN: &[&str] = &[
    "README.md",
    "README",
    "README.rst",
    "package.json",
    "package-lock.json",
    "Cargo.toml",
    "Cargo.lock",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
    "go.mod",
    "go.sum",
    "Makefile",
    "Dockerfile",
    "docker-compose.yml",
    "docker-compose.yaml",
    "compose.yaml",
    ".gitignore",
    "tsconfig.json",
    "LICENSE",
    "CHANGELOG.md",
    "Gemfile",
    "pom.xml",
    "build.gradle",
];

/// Shell commands that read a file named among their operands.
const SHELL_READERS: &[&str] = &[
    "cat", "head", "tail", "less", "more", "bat", "nl", "sed", "awk", "grep", "rg", "diff", "wc",
    "jq", "yq", "view",
];

/// `blind_overwrite` settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BlindOverwriteSetting {
    /// Default `true`.
    pub enabled: bool,
    /// Tools that write a whole file.
    pub write: GlobList,
    /// Tools whose earlier call on the path counts as reading it.
    pub read: GlobList,
    /// JSON pointers to the path in a write call, first present wins.
    pub keys: Vec<String>,
    /// `escalate` (default) or `deny`.
    pub action: Action,
}

impl Default for BlindOverwriteSetting {
    fn default() -> Self {
        let l = |v: &[&str]| GlobList::Many(v.iter().map(|s| s.to_string()).collect());
        Self {
            enabled: true,
            write: l(&[
                "write_file",
                "*__write_file",
                "create_file",
                "*__create_file",
                "save_file",
                "put_file",
                "write",
            ]),
            read: l(&[
                "read_file",
                "*read*",
                "view*",
                "open_file",
                "cat",
                "*get_file*",
                "edit_file",
                "*str_replace*",
            ]),
            keys: vec![
                "/path".into(),
                "/file_path".into(),
                "/filename".into(),
                "/file".into(),
            ],
            action: Action::Escalate,
        }
    }
}

/// `retry_after_refusal` settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RetryAfterRefusalSetting {
    /// Default `true`.
    pub enabled: bool,
    /// How many calls after a refusal count as "right after". Default 3.
    pub within: usize,
    /// Tools that only read: never a retry. Default reads and searches.
    pub read_only: GlobList,
    /// `escalate` (default) or `deny`.
    pub action: Action,
}

impl Default for RetryAfterRefusalSetting {
    fn default() -> Self {
        Self {
            enabled: true,
            within: 3,
            read_only: GlobList::Many(
                [
                    "read*", "*__read*", "get_*", "list_*", "*search*", "view*", "*status*",
                    "grep", "glob",
                ]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            ),
            action: Action::Escalate,
        }
    }
}

/// The compiled `blind_overwrite` rule.
#[derive(Debug)]
pub(crate) struct BlindOverwrite {
    write: Globs,
    read: Globs,
    keys: Vec<String>,
    action: Action,
}

/// The compiled `retry_after_refusal` rule.
#[derive(Debug)]
pub(crate) struct RetryAfterRefusal {
    within: usize,
    read_only: Globs,
    action: Action,
}

fn action(a: Action, key: &Key) -> Result<Action, String> {
    a.one_of(&[Action::Escalate, Action::Deny], key)
}

impl BlindOverwrite {
    /// Compile the setting; `None` when disabled.
    pub(crate) fn new(s: &BlindOverwriteSetting) -> Result<Option<Self>, String> {
        let k = Key::new("blind_overwrite");
        if !s.enabled {
            return Ok(None);
        }
        if let Some(i) = s.keys.iter().position(|p| !p.starts_with('/')) {
            return Err(k
                .field("keys")
                .index(i)
                .error("must be a JSON pointer such as \"/path\""));
        }
        Ok(Some(Self {
            write: s.write.compile(&k.field("write"), false)?,
            read: s.read.compile(&k.field("read"), false)?,
            keys: s.keys.clone(),
            action: action(s.action, &k.field("action"))?,
        }))
    }

    /// The rule's decision on `call`, if it concerns it.
    pub(crate) fn judge(&self, call: &ToolCall, ctx: &Context) -> Option<Decision> {
        if !self.write.is_match(&call.name) {
            return None;
        }
        let raw = self
            .keys
            .iter()
            .find_map(|k| call.json().pointer(k)?.as_str())?;
        let cwd = ctx.attribute("cwd");
        let want = normalize_path(raw, cwd);
        let mut named = false;
        for p in ctx.history.iter().filter(|p| p.outcome.ran()) {
            let args: Value = serde_json::from_str(&p.arguments).unwrap_or(Value::Null);
            let on_path = |v: &Value| {
                self.keys.iter().any(|k| {
                    v.pointer(k)
                        .and_then(Value::as_str)
                        .is_some_and(|s| normalize_path(s, cwd) == want)
                })
            };
            if (self.read.is_match(&p.name) || self.write.is_match(&p.name)) && on_path(&args) {
                return None;
            }
            match shell_use(&args, &want, cwd) {
                Some(true) => return None,
                Some(false) => named = true,
                None => {}
            }
            if !named && crate::targets::targets(&args, cwd).contains(&format!("path:{want}")) {
                named = true;
            }
        }
        let file = want.rsplit('/').next().unwrap_or("");
        let well_known = WELL_KNOWN.contains(&file);
        if !named && !well_known {
            return None;
        }
        let why = if well_known {
            format!("`{file}` exists in nearly every project")
        } else {
            "an earlier call of this run named it, so it exists".to_string()
        };
        Some(self.action.decide(
            "sequence.blind-overwrite",
            format!(
                "`{}` replaces the whole of `{raw}`, which this run never read ({why}): its current content would be \
                 lost. Read the file first, then write it (or edit the part that changes).",
                call.name
            ),
        ))
    }
}

/// Words too general to say what a call does.
const GENERIC_VERBS: &[&str] = &[
    "get", "list", "read", "run", "exec", "execute", "bash", "shell", "file", "files", "call",
    "tool", "mcp", "the", "command", "script", "terminal", "sudo", "http", "request", "api",
];

/// What a call does: the words of its tool name (`github_push` → `push`),
/// and for a shell command the program's first word after its name (`git
/// push` → `push`), as `verb:` targets.
fn verbs(tool: &str, arguments: &str) -> (Vec<String>, Vec<String>) {
    let from_name: Vec<String> = tool
        .split(['_', '-', '.', '/'])
        .map(str::to_ascii_lowercase)
        .filter(|w| w.len() >= 4 && !GENERIC_VERBS.contains(&w.as_str()))
        .map(|w| format!("verb:{w}"))
        .collect();
    let mut out = Vec::new();
    let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
    if let Some(cmd) = ["command", "cmd", "script"]
        .iter()
        .find_map(|k| args.get(*k)?.as_str())
    {
        for w in words::commands(cmd) {
            if let Some(sub) = w.get(1).filter(|s| {
                !s.starts_with('-') && s.len() >= 4 && !GENERIC_VERBS.contains(&s.as_str())
            }) {
                out.push(format!("verb:{}", sub.to_ascii_lowercase()));
            }
        }
    }
    (from_name, out)
}

/// Whether an earlier shell command read `path` (`Some(true)`), only named
/// it (`Some(false)`), or neither (`None`).
fn shell_use(args: &Value, path: &str, cwd: Option<&str>) -> Option<bool> {
    let cmd = ["command", "cmd", "script"]
        .iter()
        .find_map(|k| args.get(*k)?.as_str())?;
    let mut named = None;
    for w in words::commands(cmd) {
        let reader = SHELL_READERS.contains(&words::base_name(&w[0]));
        for op in words::operands(&w) {
            if normalize_path(op, cwd) == path {
                if reader {
                    return Some(true);
                }
                named = Some(false);
            }
        }
    }
    named
}

impl RetryAfterRefusal {
    /// Compile the setting; `None` when disabled.
    pub(crate) fn new(s: &RetryAfterRefusalSetting) -> Result<Option<Self>, String> {
        let k = Key::new("retry_after_refusal");
        if !s.enabled {
            return Ok(None);
        }
        if s.within == 0 {
            return Err(k
                .field("within")
                .error("must be at least 1 (use enabled = false to turn the rule off)"));
        }
        Ok(Some(Self {
            within: s.within,
            read_only: s.read_only.compile(&k.field("read_only"), true)?,
            action: action(s.action, &k.field("action"))?,
        }))
    }

    /// The rule's decision on `call`, if it fires.
    pub(crate) fn judge(&self, call: &ToolCall, ctx: &Context) -> Option<Decision> {
        if self.read_only.is_match(&call.name) {
            return None;
        }
        let cwd = ctx.attribute("cwd");
        let recent: Vec<&PriorCall> = ctx.history.iter().rev().take(self.within).collect();
        let refused = recent.iter().find(|p| {
            matches!(
                p.outcome,
                Outcome::Denied | Outcome::Escalated | Outcome::Rejected
            ) && p.name != call.name
        })?;
        let theirs = targets(
            &serde_json::from_str(&refused.arguments).unwrap_or(Value::Null),
            cwd,
        );
        let ours = targets(call.json(), cwd);
        // The same action across kinds of tool: `git push` refused, then a
        // `github_push` tool (two tool names sharing a word are not enough).
        let (their_tool, their_shell) = verbs(&refused.name, &refused.arguments);
        let (our_tool, our_shell) = verbs(&call.name, &call.arguments);
        let shared = ours
            .iter()
            .find(|t| theirs.contains(t))
            .or_else(|| our_tool.iter().find(|v| their_shell.contains(v)))
            .or_else(|| our_shell.iter().find(|v| their_tool.contains(v)))?;
        let what = shared.split_once(':').map_or(shared.as_str(), |(_, v)| v);
        let outcome = match refused.outcome {
            Outcome::Denied => "was denied",
            Outcome::Rejected => "was rejected by a person",
            _ => "is waiting for a person's approval",
        };
        Some(self.action.decide(
            "sequence.retry-after-refusal",
            format!(
                "A `{}` call on `{what}` {outcome} just before this one, and `{}` acts on the same `{what}`: the same \
                 effect tried another way. Follow the refusal's reason instead (or wait for the approval), and tell the \
                 user if the task cannot be done.",
                refused.name, call.name
            ),
        ))
    }
}
