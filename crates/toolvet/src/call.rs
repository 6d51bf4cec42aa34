//! The call shape: one proposed tool call with what the caller knows about
//! the tool and the run (see `docs/formats.md`).
//!
//! ```json
//! {"call": {"id": "c1", "name": "bash", "arguments": {"command": "ls"}},
//!  "tool": {"risk": "high"},
//!  "context": {"run_id": "r1", "attributes": {"cwd": "/work"}, "history": []}}
//! ```
//!
//! Only `call.name` and `call.arguments` are required. Unknown keys are
//! errors. Arguments must be a JSON object; their text is kept as sent and
//! handed to checks unchanged. A key twice in one object (anywhere in the
//! call), two keys of one object that fold alike (`query` and `QUERY`) and
//! a number a 64-bit reader would round are refused
//! ([`crate::strict_json::parse_json_strict`]), so the text checks read, the digest approvals
//! bind and the arguments a person is shown all mean one call.

use crate::strict_json::{check_unambiguous, check_unambiguous_in, parse_json_strict};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One proposed tool call with its tool and run context.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallRequest {
    /// The call itself.
    pub call: ToolCall,
    /// What the agent's owner declared about the tool.
    #[serde(default)]
    pub tool: ToolInfo,
    /// The run the call belongs to.
    #[serde(default)]
    pub context: CallContext,
    /// A resumed call: the ticket of the approval request its first ask
    /// got (see [`crate::approval::Approvals`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<ApprovalClaim>,
}

/// The `approval` key of a resumed call: `{"ticket": "tv1.…"}`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ApprovalClaim {
    /// The ticket from the escalate verdict's `approval.ticket`.
    pub ticket: String,
}

/// A tool call: id, tool name and JSON-object arguments.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// The framework's call id; empty when none.
    #[serde(default)]
    pub id: String,
    /// The tool's name; never empty, no white space at either end, no
    /// control or invisible character (the validating constructors refuse
    /// such a name, and the host denies a call built without them that
    /// has one).
    pub name: String,
    /// The arguments: the text of one JSON object, as received.
    pub arguments: Box<RawValue>,
}

/// What the agent's owner declared about the tool.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ToolInfo {
    /// Free-text description.
    pub description: Option<String>,
    /// `low`, `medium` or `high` by convention.
    pub risk: Option<String>,
    /// A person must approve every call.
    pub requires_approval: bool,
    /// Free-form labels.
    pub tags: Vec<String>,
    /// JSON Schema of the arguments.
    pub parameters_schema: Option<Box<RawValue>>,
}

/// What happened to an earlier call of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Allowed; the tool ran.
    Allowed,
    /// Denied; the tool did not run.
    Denied,
    /// Escalated; no answer yet.
    Escalated,
    /// Approved by a person; the tool ran.
    Approved,
    /// Rejected by a person; the tool did not run.
    Rejected,
}

/// An earlier call of the run.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriorCall {
    /// Tool name.
    pub name: String,
    /// Arguments (a JSON object).
    pub arguments: Box<RawValue>,
    /// What happened to it.
    pub outcome: Outcome,
}

/// The run a call belongs to.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CallContext {
    /// Agent name.
    pub agent: Option<String>,
    /// Run (conversation, session) id.
    pub run_id: Option<String>,
    /// On whose behalf the agent acts.
    pub principal: Option<String>,
    /// Key/value attributes, e.g. `cwd`.
    pub attributes: BTreeMap<String, String>,
    /// Earlier calls of the run, oldest first.
    pub history: Vec<PriorCall>,
    /// Labels the run's earlier results raised ([`crate::Host::check_result`]),
    /// oldest first: checks of contract 0.2 read them (`context.labels`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<crate::tool_result::RunLabel>,
}

impl CallRequest {
    /// A call of tool `name` with `arguments` (must be a JSON object) and no
    /// tool info or context. The arguments are held to the rules of
    /// [`parse_json_strict`] as if they had been read from text: a value
    /// built by a front end from an agent's payload (the hooks) is refused
    /// where the same text would be.
    ///
    /// # Errors
    /// [`CallError`] if `name` is empty, has white space at either end,
    /// holds a control or invisible character or is spelt with characters
    /// that read as ASCII ones, `arguments` is not an object, or
    /// two keys of one object in it fold alike (`query` and `QUERY`; the
    /// error names the key path, `` `call.arguments.query` ``).
    pub fn new(name: &str, arguments: &serde_json::Value) -> Result<Self, CallError> {
        let arguments = arguments.to_string();
        check_unambiguous_in(&arguments, &["call", "arguments"]).map_err(CallError::new)?;
        let request = CallRequest {
            call: ToolCall {
                id: String::new(),
                name: name.to_string(),
                arguments: RawValue::from_string(arguments)?,
            },
            tool: ToolInfo::default(),
            context: CallContext::default(),
            approval: None,
        };
        request.validate()?;
        Ok(request)
    }

    /// Parse and validate the call shape from JSON text.
    ///
    /// # Errors
    /// [`CallError`] naming the problem: for malformed JSON, the line and
    /// column (nesting deeper than 128 levels is malformed); for JSON of
    /// the wrong shape, the key (`` `call`: missing field `arguments` ``,
    /// `` `context.history[0].outcome`: unknown variant `ok`, ... ``) and no
    /// position, since the text is often a binding's or a framework's, not
    /// the reader's; for a duplicate key, two keys that fold alike or an
    /// inexact number (the rules of
    /// [`parse_json_strict`]), the key path and what is wrong.
    pub fn from_json(text: &str) -> Result<Self, CallError> {
        let request = parse(text, true)?;
        request.validate()?;
        Ok(request)
    }

    /// Parse from an already-parsed JSON value.
    ///
    /// # Errors
    /// As [`CallRequest::from_json`], never with a line and column (the
    /// value's text is this function's own).
    pub fn from_value(value: serde_json::Value) -> Result<Self, CallError> {
        // Through text, so that RawValue fields keep one representation.
        let request = parse(&value.to_string(), false)?;
        request.validate()?;
        Ok(request)
    }

    /// Bytes of text the call hands to every check: arguments, tool info,
    /// context attributes and history.
    pub fn size_bytes(&self) -> usize {
        let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
        let tool = &self.tool;
        let context = &self.context;
        self.call.id.len()
            + self.call.name.len()
            + self.call.arguments.get().len()
            + opt(&tool.description)
            + opt(&tool.risk)
            + tool.tags.iter().map(String::len).sum::<usize>()
            + tool.parameters_schema.as_ref().map_or(0, |s| s.get().len())
            + opt(&context.agent)
            + opt(&context.run_id)
            + opt(&context.principal)
            + context
                .attributes
                .iter()
                .map(|(k, v)| k.len() + v.len())
                .sum::<usize>()
            + context
                .history
                .iter()
                .map(|p| p.name.len() + p.arguments.get().len())
                .sum::<usize>()
            + context
                .labels
                .iter()
                .map(crate::tool_result::RunLabel::size_bytes)
                .sum::<usize>()
            + self.approval.as_ref().map_or(0, |a| a.ticket.len())
    }

    /// Hex sha256 of the canonical JSON of the arguments: object keys
    /// sorted by their UTF-8 bytes, no whitespace,
    /// strings and numbers as `serde_json` writes them (exact: a call never
    /// holds a duplicate key or a number a 64-bit reader would round; see
    /// [`parse_json_strict`]). Two calls whose
    /// arguments differ only in key order or spacing have the same digest.
    /// Approval requests and decision records bind calls by it.
    pub fn arguments_sha256(&self) -> String {
        arguments_sha256(self.call.arguments.get())
    }

    /// Look up a context attribute, e.g. `cwd`.
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.context.attributes.get(key).map(String::as_str)
    }

    /// Check what serde cannot: non-empty tool names (the call's and the
    /// history's) without white space at either end and without control or
    /// invisible characters ([`crate::fold::invisible`]: name lists would
    /// miss `delete_\u{200b}repository`, and a client or server that drops
    /// such characters runs `delete_repository`; a check reading the history
    /// would miss an earlier call so named) nor characters that read as
    /// ASCII ones (`dеlete_repository` with a Cyrillic `е`), object
    /// arguments, bounded nesting.
    fn validate(&self) -> Result<(), CallError> {
        if let Some(problem) = names_problem(self) {
            return Err(CallError::new(problem));
        }
        expect_object(&self.call.arguments, "call.arguments")?;
        for (i, prior) in self.context.history.iter().enumerate() {
            expect_object(&prior.arguments, &format!("context.history[{i}].arguments"))?;
        }
        if let Some(schema) = &self.tool.parameters_schema {
            expect_object(schema, "tool.parameters_schema")?;
        }
        Ok(())
    }
}

/// Why `request` cannot be vetted for its tool names, if it cannot: the
/// first of its call's name and its history's names (in order) that is
/// empty, has white space at either end, holds a control or invisible
/// character ([`crate::fold::invisible`]) anywhere, or is spelt with
/// characters that read as ASCII ones ([`read_as_ascii`]). The one rule for the
/// validating constructors and for the host's own refusal of a call built
/// without them.
pub(crate) fn names_problem(request: &CallRequest) -> Option<String> {
    name_problem("call.name", &request.call.name).or_else(|| {
        request
            .context
            .history
            .iter()
            .enumerate()
            .find_map(|(i, prior)| name_problem(&format!("context.history[{i}].name"), &prior.name))
    })
}

/// Why the tool name `name`, at `key` (`call.name`,
/// `context.history[2].name`), cannot be vetted, if it cannot.
fn name_problem(key: &str, name: &str) -> Option<String> {
    if name.trim().is_empty() {
        return Some(format!("`{key}` must not be empty"));
    }
    if name.trim() != name || name.chars().any(crate::fold::invisible) {
        return Some(format!(
            "`{key}` {} has white space at an end, or control or invisible characters",
            shown_name(name)
        ));
    }
    read_as_ascii(name).then(|| {
        format!(
            "`{key}` {} could pass for another name: a word in it mixes scripts, or holds \
             characters that read as ASCII ones; spell each word in one script",
            shown_name(name)
        )
    })
}

/// Whether `c`, outside ASCII, reads as ASCII text: its UTS #39 skeleton
/// (`unicode-security`, the table behind rustc's confusable lints) is
/// ASCII, as for Cyrillic `е`, fullwidth `ｐ`, mathematical `𝐝`; or it is
/// white space (U+00A0).
fn looks_ascii(c: char) -> bool {
    let mut buf = [0u8; 4];
    !c.is_ascii()
        && (c.is_whitespace()
            || unicode_security::confusable_detection::skeleton(c.encode_utf8(&mut buf))
                .all(|s| s.is_ascii()))
}

/// Whether the tool name `name` could pass for another name, to a name
/// list or a person: it holds white space other than a plain space
/// (U+00A0), or one of its words (the runs between ASCII characters other
/// than letters: `_`, `-`, `.`, digits, spaces):
/// - mixes scripts (`кill`, Cyrillic `к` among Latin letters);
/// - holds a character that [`looks_ascii`] among ASCII letters
///   (`dеlete`, `ｄelete`);
/// - or is made only of such characters (`рау`, all Cyrillic, reads as
///   `pay`).
///
/// Words in one other script (`mcp__yandex__поиск`, `送金`, `αθήνα`) and
/// accented words (`ÜberTool`, `café`) pass. Refused too: words that mix
/// ASCII letters with Turkish `ı` or with `æ`, `œ`, `þ` (their skeletons
/// are ASCII: `kayıt`).
pub(crate) fn read_as_ascii(name: &str) -> bool {
    use unicode_security::MixedScript as _;
    name.chars().any(|c| c.is_whitespace() && !c.is_ascii())
        || name
            .split(|c: char| c.is_ascii() && !c.is_ascii_alphabetic())
            .filter(|word| !word.is_empty() && !word.is_ascii())
            .any(|word| {
                let odd = word.chars().any(looks_ascii);
                let latin = word.chars().any(|c| c.is_ascii_alphabetic());
                !word.is_single_script() || (odd && (latin || word.chars().all(looks_ascii)))
            })
}

/// `name` quoted for a message: each character outside ASCII written
/// `\u{…}` (so a look-alike letter cannot pass for the one it imitates,
/// and an invisible one is seen), every other character as Rust's debug
/// form writes it (so a backslash in the name is `\\`), the first 200
/// characters only.
pub(crate) fn shown_name(name: &str) -> String {
    const SHOWN: usize = 200;
    let mut shown = String::from("\"");
    for c in name.chars().take(SHOWN) {
        if c.is_ascii() {
            shown.extend(c.escape_debug());
        } else {
            shown.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        }
    }
    shown.push('"');
    if name.chars().nth(SHOWN).is_some() {
        shown.push('…');
    }
    shown
}

/// Deserialise a call from `text`. A shape error names the key it is
/// about and carries no parser position; a syntax error keeps its line and
/// column when `positions` (the caller's own text).
fn parse(text: &str, positions: bool) -> Result<CallRequest, CallError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let (path, inner): (String, serde_json::Error) = match serde_path_to_error::deserialize(&mut de)
    {
        Ok(request) => match de.end() {
            Ok(()) => {
                check_unambiguous(text).map_err(CallError::new)?;
                return Ok(request);
            }
            Err(e) => (".".to_string(), e),
        },
        Err(e) => (e.path().to_string(), e.into_inner()),
    };
    let message = match inner.classify() {
        serde_json::error::Category::Data if path != "." => {
            format!("`{path}`: {}", without_position(&inner))
        }
        serde_json::error::Category::Data => without_position(&inner),
        _ if positions => inner.to_string(),
        _ => without_position(&inner),
    };
    // No `source`: front ends print the chain, and serde_json's own text
    // carries the position this message leaves out.
    Err(CallError::new(message))
}

/// A serde_json error's message without its " at line L column C".
pub(crate) fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&position) {
        Some(message) => message.to_string(),
        None => text,
    }
}

/// Hex sha256 of the canonical form of `arguments` (JSON object text; see
/// [`CallRequest::arguments_sha256`]). The canonical form is exact: the text
/// is read by [`parse_json_strict`], so no key is read twice and every
/// number keeps its decimal value. Text it refuses (a validated call never
/// holds such text) is hashed as itself behind a prefix no canonical form
/// starts with, so it matches no accepted arguments.
pub(crate) fn arguments_sha256(arguments: &str) -> String {
    use sha2::Digest;
    let canonical = parse_json_strict(arguments)
        .map(|value| {
            let mut out = String::with_capacity(arguments.len());
            write_canonical(&value, &mut out);
            out
        })
        .unwrap_or_else(|_| format!("\0refused:{arguments}"));
    hex::encode(sha2::Sha256::digest(canonical.as_bytes()))
}

fn write_canonical(value: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(value, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// Deepest nesting of arrays and objects accepted in JSON handed to checks
/// (serde_json's own parser stops at 128; `RawValue` keeps text unparsed, so
/// the host checks it before a check's parser has to).
pub const MAX_NESTING: usize = 128;

fn expect_object(raw: &RawValue, key: &str) -> Result<(), CallError> {
    let text = raw.get().trim_start();
    if text.starts_with('{') {
        let depth = nesting_depth(text);
        if depth > MAX_NESTING {
            return Err(CallError::new(format!(
                "`{key}` nests arrays/objects {depth} levels deep, over the limit of {MAX_NESTING}"
            )));
        }
        return Ok(());
    }
    let kind = match text.as_bytes().first() {
        Some(b'[') => "an array",
        Some(b'"') => "a string",
        Some(b'n') => "null",
        Some(b't' | b'f') => "a boolean",
        _ => "a number",
    };
    Err(CallError::new(format!(
        "`{key}` must be a JSON object, got {kind}"
    )))
}

/// Maximum depth of `[`/`{` nesting in valid JSON text (strings skipped).
fn nesting_depth(text: &str) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// A tool call that cannot be vetted: malformed JSON, or a shape the host
/// refuses. The message names the key (`call.arguments`, `context.history[2]`).
#[derive(Debug, Clone, thiserror::Error)]
#[error("invalid tool call: {message}")]
pub struct CallError {
    message: String,
    #[source]
    source: Option<Arc<serde_json::Error>>,
}

impl CallError {
    /// An error about the call shape, e.g. ``"`call.name` must not be empty"``.
    pub fn new(message: impl Into<String>) -> CallError {
        CallError {
            message: message.into(),
            source: None,
        }
    }

    /// What is wrong, without the `invalid tool call:` prefix.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<serde_json::Error> for CallError {
    fn from(e: serde_json::Error) -> Self {
        CallError {
            message: e.to_string(),
            source: Some(Arc::new(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_call_parses_with_defaults() {
        let r = CallRequest::from_json(r#"{"call":{"name":"bash","arguments":{"command":"ls"}}}"#)
            .unwrap();
        assert_eq!(r.call.name, "bash");
        assert_eq!(r.call.arguments.get(), r#"{"command":"ls"}"#);
        assert_eq!(r.call.id, "");
        assert!(!r.tool.requires_approval);
        assert!(r.context.history.is_empty());
    }

    #[test]
    fn full_call_parses() {
        let r = CallRequest::from_json(
            r#"{"call":{"id":"c1","name":"write_file","arguments":{"path":"a"}},
                "tool":{"risk":"high","requires_approval":true,"tags":["fs"],"parameters_schema":{"type":"object"}},
                "context":{"agent":"coder","run_id":"r","principal":"p","attributes":{"cwd":"/w"},
                           "history":[{"name":"read_file","arguments":{"path":"a"},"outcome":"allowed"}]}}"#,
        )
        .unwrap();
        assert_eq!(r.attribute("cwd"), Some("/w"));
        assert_eq!(r.context.history[0].outcome, Outcome::Allowed);
        assert_eq!(r.tool.risk.as_deref(), Some("high"));
    }

    #[test]
    fn non_object_arguments_are_rejected_with_kind() {
        let e = CallRequest::from_json(r#"{"call":{"name":"bash","arguments":"ls"}}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid tool call: `call.arguments` must be a JSON object, got a string"
        );
        let e = CallRequest::from_json(r#"{"call":{"name":"bash","arguments":[1]}}"#).unwrap_err();
        assert!(e.to_string().contains("got an array"));
    }

    #[test]
    fn empty_name_unknown_field_and_bad_json_are_errors() {
        let e = CallRequest::from_json(r#"{"call":{"name":" ","arguments":{}}}"#).unwrap_err();
        assert!(e.to_string().contains("`call.name` must not be empty"));
        // Names a list would miss but a reader that drops what is not seen
        // would run; shown escaped.
        for (json_name, shown) in [
            (r"delete_\u200brepository", r#""delete_\u{200b}repository""#),
            (r"drop_table\ufeff", r#""drop_table\u{feff}""#),
            (r"merge\u202epr", r#""merge\u{202e}pr""#),
            (r"rm\u0000", r#""rm\0""#),
            (r" a\\b", r#"" a\\b""#),
        ] {
            let text = format!(r#"{{"call":{{"name":"{json_name}","arguments":{{}}}}}}"#);
            let e = CallRequest::from_json(&text).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "invalid tool call: `call.name` {shown} has white space at an end, \
                     or control or invisible characters"
                ),
                "{json_name}"
            );
        }
        // The history's names too: a check reading it would miss them.
        let e = CallRequest::from_json(
            r#"{"call":{"name":"bash","arguments":{}},"context":{"history":[
                {"name":"bash","arguments":{},"outcome":"allowed"},
                {"name":"delete_\u200brepository","arguments":{},"outcome":"denied"}]}}"#,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid tool call: `context.history[1].name` \"delete_\\u{200b}repository\" has \
             white space at an end, or control or invisible characters"
        );
        let e = CallRequest::from_json(
            r#"{"call":{"name":"bash","arguments":{}},"context":{"history":[
                {"name":"","arguments":{},"outcome":"allowed"}]}}"#,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid tool call: `context.history[0].name` must not be empty"
        );
        let arguments = serde_json::json!({});
        assert!(CallRequest::new("delete_\u{200b}repository", &arguments).is_err());
        let long = format!("{}\u{200b}", "x".repeat(300));
        let e = CallRequest::new(&long, &arguments).unwrap_err().to_string();
        assert!(e.contains(&format!("\"{}\"… has", "x".repeat(200))), "{e}");
        // Names as agents spell them still pass, in other scripts and
        // with accents too.
        for name in [
            "mcp__github__merge_pull_request",
            "Read File",
            "computer.type",
            "ÜberTool",
            "café_search",
            "送金",
            "送金 tool",
            "поиск",
            "mcp__yandex__поиск",
            "поиск_v2",
            "get_weather_αθήνα",
            "search_חיפוש",
            "ノート_search",
            "送る_tool",
        ] {
            CallRequest::new(name, &arguments).unwrap();
        }
        // Names that could pass for other names: a name list would miss
        // them, and so would a person. Every character outside ASCII is
        // shown escaped.
        for (name, shown) in [
            ("d\u{435}lete_repository", r#""d\u{435}lete_repository""#),
            ("\u{440}\u{430}\u{443}", r#""\u{440}\u{430}\u{443}""#),
            ("\u{ff44}elete", r#""\u{ff44}elete""#),
            ("\u{1d41d}elete", r#""\u{1d41d}elete""#),
            ("delete\u{a0}repository", r#""delete\u{a0}repository""#),
            ("ÜberT\u{43e}ol", r#""\u{dc}berT\u{43e}ol""#),
            ("\u{43a}ill_process", r#""\u{43a}ill_process""#),
            (
                "送金\u{3000}送金",
                r#""\u{9001}\u{91d1}\u{3000}\u{9001}\u{91d1}""#,
            ),
            (
                "mcp__x__по\u{438}ck",
                r#""mcp__x__\u{43f}\u{43e}\u{438}ck""#,
            ),
        ] {
            let e = CallRequest::new(name, &arguments).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "invalid tool call: `call.name` {shown} could pass for another name: a word \
                     in it mixes scripts, or holds characters that read as ASCII ones; spell \
                     each word in one script"
                ),
                "{name:?}"
            );
        }
        let e = CallRequest::from_json(
            r#"{"call":{"name":"bash","arguments":{}},"context":{"history":[
                {"name":"merge_pull_r\u0435quest","arguments":{},"outcome":"allowed"}]}}"#,
        )
        .unwrap_err();
        assert!(
            e.to_string().starts_with(
                "invalid tool call: `context.history[0].name` \"merge_pull_r\\u{435}quest\" could"
            ),
            "{e}"
        );
        let e = CallRequest::from_json(r#"{"call":{"name":"a","arguments":{},"args":{}}}"#)
            .unwrap_err();
        assert!(e.to_string().contains("unknown field `args`"), "{e}");
        let e = CallRequest::from_json(r#"{"call":{"name":"a","#).unwrap_err();
        assert!(e.to_string().contains("line 1"), "{e}");
        let e = CallRequest::from_json(r#"{"call":{"name":"a"}}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid tool call: `call`: missing field `arguments`"
        );
        let e = CallRequest::from_json(r#"{"call":{"name":"a","arguments":{}}} x"#).unwrap_err();
        assert!(
            e.to_string().contains("trailing characters at line 1"),
            "{e}"
        );
    }

    #[test]
    fn shape_errors_name_the_key_and_no_parser_position() {
        let history = r#"{"call":{"name":"a","arguments":{}},
            "context":{"history":[{"name":"b","arguments":{},"outcome":"ok"}]}}"#;
        for e in [
            CallRequest::from_json(history).unwrap_err(),
            CallRequest::from_value(serde_json::from_str(history).unwrap()).unwrap_err(),
        ] {
            let e = e.to_string();
            assert!(
                e.starts_with(
                    "invalid tool call: `context.history[0].outcome`: unknown variant `ok`"
                ),
                "{e}"
            );
            assert!(!e.contains(" at line "), "{e}");
        }
        let e = CallRequest::from_value(serde_json::json!({"call": {"name": 3, "arguments": {}}}))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid tool call: `call.name`: invalid type: integer `3`, expected a string"
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let depth = 10_000;
        let args = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let text = format!(r#"{{"call":{{"name":"a","arguments":{{"x":{args}}}}}}}"#);
        let e = CallRequest::from_json(&text).unwrap_err().to_string();
        assert!(
            e.contains("nests arrays/objects") && e.contains("limit of 128"),
            "{}",
            &e[..e.len().min(200)]
        );
        // Brackets inside strings do not count.
        let text = format!(
            r#"{{"call":{{"name":"a","arguments":{{"x":"{}"}}}}}}"#,
            "[".repeat(depth)
        );
        assert!(CallRequest::from_json(&text).is_ok());
    }

    #[test]
    fn argument_digest_ignores_key_order_and_spacing() {
        let a = CallRequest::from_json(
            r#"{"call":{"name":"a","arguments":{"b":1,"a":[1, {"y":2,"x":"é"}]}}}"#,
        )
        .unwrap();
        let b = CallRequest::from_json(
            r#"{"call":{"name":"a","arguments":{ "a":[1,{"x":"é","y":2}], "b":1 }}}"#,
        )
        .unwrap();
        let c = CallRequest::from_json(
            r#"{"call":{"name":"a","arguments":{"a":[1,{"x":"é","y":3}],"b":1}}}"#,
        )
        .unwrap();
        assert_eq!(a.arguments_sha256(), b.arguments_sha256());
        assert_ne!(a.arguments_sha256(), c.arguments_sha256());
        // The canonical text itself, hashed by hand.
        use sha2::Digest;
        let expected = hex::encode(sha2::Sha256::digest(r#"{"a":[1,{"x":"é","y":2}],"b":1}"#));
        assert_eq!(a.arguments_sha256(), expected);
    }

    #[test]
    fn a_resumed_call_carries_its_ticket() {
        let r = CallRequest::from_json(
            r#"{"call":{"name":"a","arguments":{}},"approval":{"ticket":"tv1.x.y"}}"#,
        )
        .unwrap();
        assert_eq!(r.approval.unwrap().ticket, "tv1.x.y");
        let e =
            CallRequest::from_json(r#"{"call":{"name":"a","arguments":{}},"approval":{"id":"x"}}"#)
                .unwrap_err();
        assert!(e.to_string().contains("unknown field `id`"), "{e}");
    }

    #[test]
    fn history_arguments_must_be_objects() {
        let e = CallRequest::from_json(
            r#"{"call":{"name":"a","arguments":{}},"context":{"history":[{"name":"b","arguments":3,"outcome":"denied"}]}}"#,
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("context.history[0].arguments"),
            "{e}"
        );
    }
}
