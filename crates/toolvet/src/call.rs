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
//! ([`parse_json_strict`]), so the text checks read, the digest approvals
//! bind and the arguments a person is shown all mean one call.

use crate::error::CallError;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
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
    /// got (see [`crate::Approvals`]).
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
    /// The tool's name; never empty.
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
}

impl CallRequest {
    /// A call of tool `name` with `arguments` (must be a JSON object) and no
    /// tool info or context. The arguments are held to the rules of
    /// [`parse_json_strict`] as if they had been read from text: a value
    /// built by a front end from an agent's payload (the hooks) is refused
    /// where the same text would be.
    ///
    /// # Errors
    /// [`CallError`] if `name` is empty, `arguments` is not an object, or
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

    /// Check what serde cannot: a non-empty tool name, object arguments,
    /// bounded nesting.
    fn validate(&self) -> Result<(), CallError> {
        let name = &self.call.name;
        if name.trim().is_empty() {
            return Err(CallError::new("`call.name` must not be empty"));
        }
        if name.trim() != name || name.chars().any(char::is_control) {
            return Err(CallError::new(format!(
                "`call.name` {name:?} has leading/trailing whitespace or control characters"
            )));
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

/// JSON text that [`parse_json_strict`] refuses.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum StrictJsonError {
    /// Not JSON: serde_json's reason, with its line and column.
    #[error("malformed JSON: {0}")]
    Syntax(Arc<serde_json::Error>),
    /// JSON whose meaning depends on the reader: a key twice in one
    /// object, or a number that a 64-bit reader cannot hold exactly.
    #[error("{0}")]
    Ambiguous(String),
}

/// Parse JSON text into a value, refusing JSON that two readers may read
/// differently, so that what is vetted, digested and shown to a person is
/// what the tool runs:
/// - a key that appears twice in one object, at any depth (one reader
///   keeps the first value, another the last; keys are compared after
///   their escapes are decoded, so `"a"` and `"\u0061"` are the same key);
/// - two keys of one object, at any depth, that [`crate::fold::fold`]
///   alike (`query` and `QUERY`, `statement` and `ſtatement`, `path` and
///   `pa\u200bth`): Go's `encoding/json` and many MCP servers match keys
///   case-insensitively, so a check would judge one value and the tool
///   run the other;
/// - an integer outside the 64-bit range (i64 and u64), which a
///   `serde_json::Value` would turn into a float: `100000000000000000001`
///   and `100000000000000000002` would become the same number;
/// - a number with a fraction or exponent whose decimal value is not the
///   value of the nearest 64-bit float written shortest (`0.1`, `1e23` and
///   `2.5e-3` pass; `1.00000000000000001`, `1e400` and `1e-400` are
///   refused: the float a reader gets is not the number that was sent).
///
/// Every front end that turns call text into a call parses it here (or
/// through [`CallRequest::from_json`], which applies the same rules).
///
/// # Errors
/// [`StrictJsonError::Syntax`] for text that is not JSON (nesting deeper
/// than 128 levels included); [`StrictJsonError::Ambiguous`] naming the
/// key path (`` `call.arguments.account` ``) and what is wrong.
pub fn parse_json_strict(text: &str) -> Result<serde_json::Value, StrictJsonError> {
    let value = serde_json::from_str(text).map_err(|e| StrictJsonError::Syntax(Arc::new(e)))?;
    check_unambiguous(text).map_err(StrictJsonError::Ambiguous)?;
    Ok(value)
}

/// One step of the path to a value: an object key (borrowed from the text
/// unless it holds escapes) or an array index.
enum Step<'t> {
    Key(Cow<'t, str>),
    Index(usize),
}

fn path_text(path: &[Step<'_>]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&crate::display::visible(key));
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    if out.is_empty() {
        out.push_str("(top level)");
    }
    out
}

/// The keys an object has had so far in the scan: as written (decoded),
/// and by their [`crate::fold::fold`], to the first key with that fold.
#[derive(Default)]
struct Keys<'t> {
    exact: HashSet<Cow<'t, str>>,
    folded: HashMap<String, Cow<'t, str>>,
}

/// The containers open at one point of the scan.
enum Frame<'t> {
    /// An object and the keys it has had so far.
    Object(Keys<'t>),
    /// An array and the index of its current element.
    Array(usize),
}

/// Check JSON text that serde_json already accepted for the rules of
/// [`parse_json_strict`]: no key twice in one object, no two keys of one
/// object that fold alike, every number exact. Iterative, so any nesting
/// depth is scanned without recursion. Text that is not JSON after all is
/// refused, never passed.
pub(crate) fn check_unambiguous(text: &str) -> Result<(), String> {
    check_unambiguous_in(text, &[])
}

/// [`check_unambiguous`] for text that sits at `root` (key names) in a
/// larger document, so that errors name the whole path
/// (`call.arguments.query`).
fn check_unambiguous_in<'t>(text: &'t str, root: &[&'t str]) -> Result<(), String> {
    let b = text.as_bytes();
    let malformed = || "malformed JSON".to_string();
    let at = |i: usize| b.get(i).copied().ok_or_else(malformed);
    let skip_ws = |i: &mut usize| {
        while matches!(b.get(*i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            *i += 1;
        }
    };
    // The end of the string that opens at `i` (just past its quote).
    let string_end = |mut i: usize| -> Result<usize, String> {
        i += 1;
        loop {
            match at(i)? {
                b'\\' => i += 2,
                b'"' => return Ok(i + 1),
                _ => i += 1,
            }
        }
    };
    let mut path: Vec<Step<'t>> = root.iter().map(|k| Step::Key(Cow::Borrowed(*k))).collect();
    let mut frames: Vec<Frame<'t>> = Vec::new();
    let mut i = 0;
    // Read the key that starts at `i` (after whitespace) into `keys`, and
    // its colon; the key becomes the last step of `path`.
    let read_key =
        |i: &mut usize, keys: &mut Keys<'t>, path: &mut Vec<Step<'t>>| -> Result<(), String> {
            skip_ws(i);
            if at(*i)? != b'"' {
                return Err(malformed());
            }
            let end = string_end(*i)?;
            // Compared decoded: `"a"` and `"\u0061"` are the same key.
            let inner = &text[*i + 1..end - 1];
            let key: Cow<'t, str> = if inner.contains('\\') {
                Cow::Owned(serde_json::from_str(&text[*i..end]).map_err(|_| malformed())?)
            } else {
                Cow::Borrowed(inner)
            };
            *i = end;
            skip_ws(i);
            if at(*i)? != b':' {
                return Err(malformed());
            }
            *i += 1;
            if !keys.exact.insert(key.clone()) {
                let inside = path_text(path);
                return Err(format!(
                    "`{inside}` has the key `{}` twice; a key may appear once in an object \
                 (readers disagree on which value counts)",
                    crate::display::visible(&key)
                ));
            }
            // `query` and `QUERY` (or `ſtatement` and `statement`): a decoder
            // that matches keys case-insensitively reads one of them, the last
            // one usually, while a check reads the other.
            let folded = crate::fold::fold(&key);
            if !folded.is_empty() {
                if let Some(first) = keys.folded.get(&folded) {
                    let shown = |k: &str| {
                        crate::display::visible(&crate::fold::escape_invisible(k)).to_string()
                    };
                    return Err(format!(
                        "`{}` has the keys `{}` and `{}`, which differ only in case, Unicode form \
                     or invisible characters; send one (a tool that reads keys \
                     case-insensitively would run the other)",
                        path_text(path),
                        shown(first),
                        shown(&key)
                    ));
                }
                keys.folded.insert(folded, key.clone());
            }
            path.push(Step::Key(key));
            Ok(())
        };
    let mut expect_value = true;
    loop {
        skip_ws(&mut i);
        if expect_value {
            match at(i)? {
                b'{' => {
                    i += 1;
                    skip_ws(&mut i);
                    if at(i)? == b'}' {
                        i += 1;
                        expect_value = false;
                    } else {
                        let mut keys = Keys::default();
                        read_key(&mut i, &mut keys, &mut path)?;
                        frames.push(Frame::Object(keys));
                    }
                }
                b'[' => {
                    i += 1;
                    skip_ws(&mut i);
                    if at(i)? == b']' {
                        i += 1;
                        expect_value = false;
                    } else {
                        frames.push(Frame::Array(0));
                        path.push(Step::Index(0));
                    }
                }
                b'"' => {
                    let end = string_end(i)?;
                    // A `\u` escape of a lone UTF-16 surrogate is text some
                    // readers refuse and others keep or replace: refused.
                    if text[i..end].contains("\\u")
                        && serde_json::from_str::<String>(&text[i..end]).is_err()
                    {
                        return Err(format!(
                            "`{}`: a string holds a `\\u` escape of a lone UTF-16 surrogate \
                             (readers decode it differently)",
                            path_text(&path)
                        ));
                    }
                    i = end;
                    expect_value = false;
                }
                b't' | b'n' => {
                    i += 4;
                    expect_value = false;
                }
                b'f' => {
                    i += 5;
                    expect_value = false;
                }
                _ => {
                    let start = i;
                    while matches!(
                        b.get(i),
                        Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                    ) {
                        i += 1;
                    }
                    if start == i {
                        return Err(malformed());
                    }
                    if let Err(why) = exact_number(&text[start..i]) {
                        return Err(format!("`{}`: {why}", path_text(&path)));
                    }
                    expect_value = false;
                }
            }
            continue;
        }
        match frames.last_mut() {
            None => {
                return if i == b.len() {
                    Ok(())
                } else {
                    Err(malformed())
                };
            }
            Some(Frame::Object(keys)) => match at(i)? {
                b',' => {
                    i += 1;
                    path.pop();
                    read_key(&mut i, keys, &mut path)?;
                    expect_value = true;
                }
                b'}' => {
                    i += 1;
                    path.pop();
                    frames.pop();
                }
                _ => return Err(malformed()),
            },
            Some(Frame::Array(index)) => match at(i)? {
                b',' => {
                    i += 1;
                    *index += 1;
                    path.pop();
                    path.push(Step::Index(*index));
                    expect_value = true;
                }
                b']' => {
                    i += 1;
                    path.pop();
                    frames.pop();
                }
                _ => return Err(malformed()),
            },
        }
    }
}

/// Whether the JSON number `text` reads the same in every 64-bit reader:
/// an integer within i64 or u64, or a number whose decimal value is that of
/// the f64 nearest to it (written shortest, as serde_json writes it).
fn exact_number(text: &str) -> Result<(), String> {
    if !text.contains(['.', 'e', 'E']) {
        if text.parse::<i64>().is_ok() || text.parse::<u64>().is_ok() {
            return Ok(());
        }
        return Err(format!(
            "the integer {text} does not fit in 64 bits, so readers would round it; \
             send it as a string"
        ));
    }
    let nearest: f64 = text
        .parse()
        .map_err(|_| format!("{text} is not a number"))?;
    let Some(shortest) = serde_json::Number::from_f64(nearest) else {
        return Err(format!(
            "the number {text} is beyond the 64-bit floating-point range; send it as a string"
        ));
    };
    let shortest = shortest.to_string();
    if decimal_value(text) != decimal_value(&shortest) {
        return Err(format!(
            "the number {text} has no exact 64-bit floating-point value (readers get \
             {shortest}); send it as a string, or with at most 17 significant digits"
        ));
    }
    Ok(())
}

/// The decimal value of the JSON number `text`: sign, significant digits
/// (no leading or trailing zeros) and the exponent of the last digit; zero
/// is `(false, "", 0)` whatever its sign.
fn decimal_value(text: &str) -> (bool, String, i128) {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(e) => (&unsigned[..e], &unsigned[e + 1..]),
        None => (unsigned, "0"),
    };
    let (exp_negative, exp_digits) = match exponent.as_bytes().first() {
        Some(b'-') => (true, &exponent[1..]),
        Some(b'+') => (false, &exponent[1..]),
        _ => (false, exponent),
    };
    // Saturating: an exponent this large is refused by its float anyway.
    let mut exp: i128 = exp_digits.bytes().fold(0i128, |acc, d| {
        acc.saturating_mul(10)
            .saturating_add(i128::from(d.wrapping_sub(b'0')))
            .min(i128::from(i64::MAX))
    });
    if exp_negative {
        exp = -exp;
    }
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    exp -= frac.len() as i128;
    let digits = digits.trim_start_matches('0');
    let trimmed = digits.trim_end_matches('0');
    if trimmed.is_empty() {
        return (false, String::new(), 0);
    }
    exp += (digits.len() - trimmed.len()) as i128;
    (negative, trimmed.to_string(), exp)
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

    fn call_with(arguments: &str) -> Result<CallRequest, CallError> {
        CallRequest::from_json(&format!(
            r#"{{"call":{{"name":"pay","arguments":{arguments}}}}}"#
        ))
    }

    #[test]
    fn integers_beyond_64_bits_are_refused_not_rounded() {
        // 2^64 + 1 and 2^64 + 2: a Value would make both the float 2^64.
        for account in [
            "18446744073709551617",
            "18446744073709551618",
            "-9223372036854775809",
        ] {
            let e = call_with(&format!(r#"{{"account":{account}}}"#))
                .unwrap_err()
                .to_string();
            assert_eq!(
                e,
                format!(
                    "invalid tool call: `call.arguments.account`: the integer {account} does not \
                     fit in 64 bits, so readers would round it; send it as a string"
                )
            );
        }
        // At the edges of the 64-bit ranges: exact, and told apart.
        let a = call_with(r#"{"account":18446744073709551615}"#).unwrap();
        let b = call_with(r#"{"account":18446744073709551614}"#).unwrap();
        assert_ne!(a.arguments_sha256(), b.arguments_sha256());
        assert!(call_with(r#"{"account":-9223372036854775808}"#).is_ok());
        // As strings, any digits are fine and differ.
        let a = call_with(r#"{"account":"100000000000000000000001"}"#).unwrap();
        let b = call_with(r#"{"account":"100000000000000000000002"}"#).unwrap();
        assert_ne!(a.arguments_sha256(), b.arguments_sha256());
    }

    #[test]
    fn numbers_without_an_exact_float_are_refused() {
        for (number, readers_get) in [
            ("100000000000000000000001.0", "1.0000000000000001e+23"),
            ("1.00000000000000001", "1.0"),
            ("3.14159265358979323846", "3.141592653589793"),
            ("1e-400", "0.0"),
        ] {
            let e = call_with(&format!(r#"{{"x":[1,{{"y":{number}}}]}}"#))
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with(&format!(
                    "invalid tool call: `call.arguments.x[1].y`: the number {number} has no exact \
                     64-bit floating-point value (readers get {readers_get})"
                )),
                "{e}"
            );
        }
        let e = call_with(r#"{"x":1e400}"#).unwrap_err().to_string();
        assert!(e.contains("beyond the 64-bit floating-point range"), "{e}");
        // Numbers whose nearest float is their decimal value pass, in any
        // spelling, and the digest binds the value.
        for ok in [
            "0.1",
            "1e23",
            "1E+23",
            "2.5e-3",
            "-0.0",
            "0e7",
            "123.4560",
            "1.7976931348623157e308",
        ] {
            assert!(call_with(&format!(r#"{{"x":{ok}}}"#)).is_ok(), "{ok}");
        }
        let a = call_with(r#"{"x":1e23}"#).unwrap();
        let b = call_with(r#"{"x":1E+23}"#).unwrap();
        let c = call_with(r#"{"x":2e23}"#).unwrap();
        assert_eq!(a.arguments_sha256(), b.arguments_sha256());
        assert_ne!(a.arguments_sha256(), c.arguments_sha256());
    }

    #[test]
    fn lone_surrogate_escapes_are_refused_anywhere_with_their_path() {
        // Found by the call_json fuzz target: the history's arguments are
        // kept as raw text, which serde_json does not decode.
        let cases = [
            (
                r#"{"call":{"name":"a","arguments":{}},"context":{"history":[{"name":"b","arguments":{"p":"a\u0000\ud66d\ude00"},"outcome":"allowed"}]}}"#,
                "`context.history[0].arguments.p`: a string holds",
            ),
            (
                r#"{"call":{"name":"a","arguments":{"cmd":"rm \ud800 x"}}}"#,
                "`call.arguments.cmd`: a string holds",
            ),
        ];
        for (text, expected) in cases {
            let e = CallRequest::from_json(text).unwrap_err().to_string();
            assert!(e.contains(expected), "{text}: {e}");
        }
        // A pair is one character.
        let ok = r#"{"call":{"name":"a","arguments":{"s":"\ud83d\ude00"}}}"#;
        assert!(CallRequest::from_json(ok).is_ok());
    }

    #[test]
    fn duplicate_keys_are_refused_anywhere_with_their_path() {
        let cases = [
            (
                r#"{"call":{"name":"bash","arguments":{"command":"rm -rf ~","command":"ls"}}}"#,
                "`call.arguments` has the key `command` twice",
            ),
            (
                r#"{"call":{"name":"a","arguments":{"opts":[{},{"x":{"path":"/","p\u0061th":"/tmp"}}]}}}"#,
                "`call.arguments.opts[1].x` has the key `path` twice",
            ),
            (
                r#"{"call":{"name":"a","arguments":{}},"context":{"attributes":{"cwd":"/","cwd":"/w"}}}"#,
                "`context.attributes` has the key `cwd` twice",
            ),
            (
                r#"{"call":{"name":"a","arguments":{}},"context":{"history":[{"name":"b","arguments":{"k":1,"k":2},"outcome":"allowed"}]}}"#,
                "`context.history[0].arguments` has the key `k` twice",
            ),
            (
                r#"{"call":{"name":"a","arguments":{},"name":"b"}}"#,
                "duplicate field `name`",
            ),
        ];
        for (text, expected) in cases {
            let e = CallRequest::from_json(text).unwrap_err().to_string();
            assert!(e.contains(expected), "{text}: {e}");
            let e = parse_json_strict(text).unwrap_err().to_string();
            assert!(
                e.contains("twice") || expected.starts_with("duplicate field"),
                "{text}: {e}"
            );
        }
        // The same key in different objects is fine.
        assert!(
            CallRequest::from_json(
                r#"{"call":{"name":"a","arguments":{"k":{"k":1},"j":{"k":2}}}}"#
            )
            .is_ok()
        );
    }

    #[test]
    fn parse_json_strict_reads_values_and_refuses_with_paths() {
        let v = parse_json_strict(r#" {"a":[1,2.5,"x",null,true,false,{}],"b":{}} "#).unwrap();
        assert_eq!(v["a"][1], 2.5);
        let e = parse_json_strict(r#"{"a":1,"a":1}"#)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "`(top level)` has the key `a` twice; a key may appear once in an object (readers \
             disagree on which value counts)"
        );
        let e = parse_json_strict("[18446744073709551616]")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("`[0]`: the integer 18446744073709551616"),
            "{e}"
        );
        let e = parse_json_strict(r#"{"a":"#).unwrap_err().to_string();
        assert!(e.starts_with("malformed JSON: EOF while parsing"), "{e}");
        // A key with a control character is shown escaped.
        let e = parse_json_strict("{\"a\\n\":1,\"a\\n\":2}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("the key `a\\n` twice"), "{e}");
        // from_value goes through the same rules, and a Value always passes.
        assert!(
            CallRequest::from_value(
                serde_json::json!({"call":{"name":"a","arguments":{"x":1e23,"y":u64::MAX}}})
            )
            .is_ok()
        );
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

    #[test]
    fn keys_that_fold_alike_are_refused_anywhere_with_their_path() {
        // Go's encoding/json and many MCP servers read `QUERY` as `query`
        // (the last match winning): a check would judge `SELECT 1` and the
        // tool run the DROP.
        let cases = [
            (
                r#"{"call":{"name":"query","arguments":{"query":"SELECT 1","QUERY":"DROP TABLE users"}}}"#,
                "`call.arguments` has the keys `query` and `QUERY`",
            ),
            (
                r#"{"call":{"name":"query","arguments":{"statement":"SELECT 1","\u017ftatement":"DROP TABLE users"}}}"#,
                "`call.arguments` has the keys `statement` and `ſtatement`",
            ),
            (
                r#"{"call":{"name":"a","arguments":{"opts":[{},{"x":{"path":"/tmp","pa\u200bth":"/"}}]}}}"#,
                "`call.arguments.opts[1].x` has the keys `path` and `pa\\u{200b}th`",
            ),
            (
                r#"{"call":{"name":"pay","arguments":{"amount":5,"currency":"USD","\uff21\uff2d\uff2f\uff35\uff2e\uff34":5000}}}"#,
                "`call.arguments` has the keys `amount` and `ＡＭＯＵＮＴ`",
            ),
        ];
        for (text, expected) in cases {
            let e = CallRequest::from_json(text).unwrap_err().to_string();
            assert!(e.contains(expected), "{text}: {e}");
            assert!(e.contains("differ only in case"), "{e}");
            let e = parse_json_strict(text).unwrap_err();
            assert!(
                matches!(&e, StrictJsonError::Ambiguous(why) if why.contains(expected)),
                "{e}"
            );
        }
        // A call built from a value (the hooks) is held to the same rule.
        let e = CallRequest::new(
            "query",
            &serde_json::json!({"q": {"query": "SELECT 1", "QUERY": "DROP TABLE users"}}),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("`call.arguments.q` has the keys `QUERY` and `query`")
                || e.contains("`call.arguments.q` has the keys `query` and `QUERY`"),
            "{e}"
        );
        let e = CallRequest::from_value(serde_json::json!(
            {"call": {"name": "a", "arguments": {"Path": "/", "path": "/tmp"}}}
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("`call.arguments` has the keys"), "{e}");
        // One key in any case, and keys that only share letters, pass.
        for arguments in [
            serde_json::json!({"QUERY": "SELECT 1"}),
            serde_json::json!({"query": "a", "queries": ["b"], "query_id": 1}),
            serde_json::json!({"": 1, "x": {"": 2}}),
        ] {
            assert!(CallRequest::new("q", &arguments).is_ok(), "{arguments}");
        }
        // Elsewhere in the call too: one reader, one rule.
        let e = CallRequest::from_json(
            r#"{"call":{"name":"a","arguments":{}},"context":{"attributes":{"cwd":"/","CWD":"/w"}}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("`context.attributes` has the keys `cwd` and `CWD`"),
            "{e}"
        );
    }
}
