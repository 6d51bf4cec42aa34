//! Vetting what a tool returned ([`crate::Host::check_result`]): the
//! result as a front end hands it over ([`ToolResult`]), each result
//! check's answer checked and turned into an outcome, the fold of those
//! outcomes (withhold beats redact, redact beats allow), and the masks the
//! host applies. Plugins never rewrite text: they name what to hide (byte
//! spans of a text, JSON Pointers into a JSON value) and the host masks, so
//! two checks' answers always merge.
//!
//! Only checks of contract `toolvet:check@0.2.x` that export
//! `result-check` see results (`wit/check-0.2/check.wit`).

use crate::bindings::wit;
use crate::call::{CallError, CallRequest};
use crate::config::{Mode, OnError};
use crate::verdict::{CheckError, ErrorKind};
use serde::Serialize;

/// What a tool returned, as the front end got it.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolResult {
    /// The content the model would read.
    pub content: ResultContent,
    /// The tool reported an error (MCP `isError`, a raised exception).
    #[serde(default)]
    pub is_error: bool,
}

/// A result's content: text, or a JSON value.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum ResultContent {
    /// Text as the model will read it.
    Text(String),
    /// A JSON value (MCP `structuredContent`, a framework's JSON output).
    Json(serde_json::Value),
}

impl ResultContent {
    /// Its size in bytes as handed to checks (a JSON value as compact text).
    pub fn size_bytes(&self) -> usize {
        match self {
            ResultContent::Text(t) => t.len(),
            ResultContent::Json(v) => v.to_string().len(),
        }
    }

    pub(crate) fn to_wit(&self) -> wit::ResultContent {
        match self {
            ResultContent::Text(t) => wit::ResultContent::Text(t.clone()),
            ResultContent::Json(v) => wit::ResultContent::Json(v.to_string()),
        }
    }
}

/// A call whose result is to be vetted, with the result: the JSON shape of
/// a call ([`CallRequest`]: `call`, `tool`, `context`) plus `result`
/// ([`ToolResult`]), e.g.
/// `{"call": {"name": "read_file", "arguments": {"path": "a"}},
///   "result": {"content": {"text": "…"}, "is_error": false}}`.
#[derive(Debug, Clone)]
pub struct ResultRequest {
    /// The call that ran.
    pub request: CallRequest,
    /// What it returned.
    pub result: ToolResult,
}

impl ResultRequest {
    /// Parse a result request from JSON text, held to the same rules as a
    /// call ([`CallRequest::from_json`]): no duplicate keys, no two keys
    /// that fold alike, no inexact number, anywhere in the text.
    ///
    /// # Errors
    /// [`CallError`] naming the problem and, for the wrong shape, the key
    /// (`` `result.content`: unknown variant `html`, … ``); a request that
    /// carries an `approval` ticket is refused (a result needs none).
    pub fn from_json(text: &str) -> Result<Self, CallError> {
        let mut value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| CallError::new(e.to_string()))?;
        crate::strict_json::check_unambiguous(text).map_err(CallError::new)?;
        let object = value
            .as_object_mut()
            .ok_or_else(|| CallError::new("a result request is a JSON object"))?;
        let result = object
            .remove("result")
            .ok_or_else(|| CallError::new("missing field `result`"))?;
        if object.contains_key("approval") {
            return Err(CallError::new(
                "`approval`: a result request carries no approval ticket",
            ));
        }
        let result: ToolResult = serde_path_to_error::deserialize(result).map_err(|e| {
            let path = e.path().to_string();
            let key = if path == "." {
                "result".to_string()
            } else {
                format!("result.{path}")
            };
            CallError::new(format!(
                "`{key}`: {}",
                crate::call::without_position(e.inner())
            ))
        })?;
        let request = CallRequest::from_value(value)?;
        Ok(ResultRequest { request, result })
    }
}

/// What becomes of a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResultAction {
    /// The model reads the result as the tool returned it.
    Pass,
    /// The model reads the result with parts masked (`content`).
    Redact,
    /// The model reads the reason instead of the result.
    Withhold,
}

/// A label a result check raised for the rest of the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunLabel {
    /// The label, e.g. `untrusted-content`: lowercase ASCII letters,
    /// digits and `-`, at most [`MAX_LABEL_NAME`] bytes.
    pub name: String,
    /// Values the result introduced (addresses, URLs, hosts): at most
    /// [`MAX_LABEL_VALUES`], each at most [`MAX_LABEL_VALUE`] bytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
    /// The check that raised it.
    pub check: String,
    /// The tool whose result raised it.
    pub tool: String,
    /// The id of the call whose result raised it (may be empty).
    #[serde(default)]
    pub call_id: String,
}

impl RunLabel {
    /// Its text in bytes, as handed to checks.
    pub fn size_bytes(&self) -> usize {
        self.name.len()
            + self.values.iter().map(String::len).sum::<usize>()
            + self.check.len()
            + self.tool.len()
            + self.call_id.len()
    }

    pub(crate) fn to_wit(&self) -> wit::RunLabel {
        wit::RunLabel {
            label: wit::Label {
                name: self.name.clone(),
                values: self.values.clone(),
            },
            call_id: self.call_id.clone(),
            tool: self.tool.clone(),
            check: self.check.clone(),
        }
    }
}

/// Longest label name, in bytes.
pub const MAX_LABEL_NAME: usize = 64;
/// Most labels one check raises about one result.
pub const MAX_LABELS: usize = 16;
/// Most values of one label.
pub const MAX_LABEL_VALUES: usize = 32;
/// Longest label value, in bytes.
pub const MAX_LABEL_VALUE: usize = 512;
/// Most masks one check asks for on one result.
pub const MAX_MASKS: usize = 4096;
/// Longest mask kind, in bytes (it is shown to the model).
pub const MAX_MASK_KIND: usize = 64;

/// One result check's outcome.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct ResultCheckOutcome {
    /// The check's name from the policy.
    pub check: String,
    /// Enforce or monitor (a monitor check's outcome is recorded only).
    pub mode: Mode,
    /// What it asked for: `pass` (allow), `redact` or `withhold`; `None`
    /// when it abstained. When it failed, its `on_error` answer: `deny`
    /// and `escalate` withhold, `allow` abstains.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<ResultAction>,
    /// The rule id it gave (withhold), or `toolvet.<error kind>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Its reason (withhold), or the failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// How many parts it masked (redact).
    #[serde(skip_serializing_if = "is_zero")]
    pub masks: usize,
    /// The labels it raised.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<RunLabel>,
    /// Wall time of the check, in µs.
    pub duration_us: u64,
    /// Set when the check failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<CheckError>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The combined answer about one result.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct ResultVerdict {
    /// Pass, redact or withhold.
    pub action: ResultAction,
    /// What the model reads: the result as returned (pass), masked
    /// (redact); `None` when withheld (the model reads `reason`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<ResultContent>,
    /// The check whose outcome decided a withhold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// The rule of a withhold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Why the result was withheld (what the model reads instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The labels the enforcing checks raised, for the rest of the run
    /// (a front end hands them to later calls in `context.labels`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<RunLabel>,
    /// Every result check that applied, in policy order.
    pub checks: Vec<ResultCheckOutcome>,
    /// Wall time of the whole vetting, in µs.
    pub duration_us: u64,
}

impl ResultVerdict {
    /// A withhold decided by a front end or the host itself, with no check
    /// involved: rule `rule`, the model reads `reason`.
    pub fn withheld_by_host(rule: &str, reason: String) -> Self {
        Self::by_host(rule, reason, Vec::new())
    }

    /// A withhold decided by the host itself (an oversized result, a host
    /// failure), with no check involved.
    pub(crate) fn by_host(rule: &str, reason: String, checks: Vec<ResultCheckOutcome>) -> Self {
        ResultVerdict {
            action: ResultAction::Withhold,
            content: None,
            decided_by: None,
            rule: Some(rule.into()),
            reason: Some(reason),
            labels: Vec::new(),
            checks,
            duration_us: 0,
        }
    }
}

/// The rule of a result withheld because it is over `max_call_bytes`.
pub const OVERSIZED_RESULT_RULE: &str = "toolvet.oversized-tool-result";

/// A check's answer, checked: what the host will do with it.
pub(crate) enum Answer {
    Allow,
    Abstain,
    Withhold(wit::Reason),
    Redact(Vec<Masked>),
}

/// One mask, checked against the content it applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Masked {
    /// Bytes `[start, end)` of a text, on character boundaries.
    Span(usize, usize, String),
    /// A JSON Pointer that resolves in the JSON value.
    Pointer(String, String),
}

/// Check a result check's answer against the content it was about: masks
/// that apply, labels that are well-formed. `Err` is the check's error
/// (malformed result), which its `on_error` answers.
pub(crate) fn read_answer(
    decision: wit::ResultDecision,
    content: &ResultContent,
    check: &str,
    call: &crate::call::ToolCall,
) -> Result<(Answer, Vec<RunLabel>), String> {
    let labels = read_labels(decision.labels, check, call)?;
    let answer = match decision.action {
        wit::ResultAction::Allow => Answer::Allow,
        wit::ResultAction::Abstain => Answer::Abstain,
        wit::ResultAction::Withhold(reason) => Answer::Withhold(reason),
        wit::ResultAction::Redact(masks) => {
            if masks.is_empty() {
                return Err("asked to redact nothing".into());
            }
            if masks.len() > MAX_MASKS {
                return Err(format!("asked for {} masks, over {MAX_MASKS}", masks.len()));
            }
            Answer::Redact(
                masks
                    .into_iter()
                    .map(|m| read_mask(m, content))
                    .collect::<Result<_, _>>()?,
            )
        }
    };
    Ok((answer, labels))
}

fn read_labels(
    labels: Vec<wit::Label>,
    check: &str,
    call: &crate::call::ToolCall,
) -> Result<Vec<RunLabel>, String> {
    if labels.len() > MAX_LABELS {
        return Err(format!("raised {} labels, over {MAX_LABELS}", labels.len()));
    }
    labels
        .into_iter()
        .map(|l| {
            let name_ok = !l.name.is_empty()
                && l.name.len() <= MAX_LABEL_NAME
                && l.name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
            if !name_ok {
                return Err(format!(
                    "raised the label {:?}: a label is 1-{MAX_LABEL_NAME} lowercase ASCII \
                     letters, digits and `-`",
                    crate::text::truncate(l.name, MAX_LABEL_NAME)
                ));
            }
            if l.values.len() > MAX_LABEL_VALUES {
                return Err(format!(
                    "label `{}` has {} values, over {MAX_LABEL_VALUES}",
                    l.name,
                    l.values.len()
                ));
            }
            if l.values.iter().any(|v| v.len() > MAX_LABEL_VALUE) {
                return Err(format!(
                    "label `{}` has a value over {MAX_LABEL_VALUE} bytes",
                    l.name
                ));
            }
            Ok(RunLabel {
                name: l.name,
                values: l.values,
                check: check.into(),
                tool: call.name.clone(),
                call_id: call.id.clone(),
            })
        })
        .collect()
}

fn read_mask(mask: wit::Mask, content: &ResultContent) -> Result<Masked, String> {
    let kind_ok = !mask.kind.is_empty()
        && mask.kind.len() <= MAX_MASK_KIND
        && mask
            .kind
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !kind_ok {
        return Err(format!(
            "a mask's kind must be 1-{MAX_MASK_KIND} ASCII letters, digits, `-` or `_`, not {:?}",
            crate::text::truncate(mask.kind, MAX_MASK_KIND)
        ));
    }
    match (mask.target, content) {
        (wit::Redaction::Span((start, end)), ResultContent::Text(text)) => {
            let (start, end) = (start as usize, end as usize);
            if start >= end || end > text.len() {
                return Err(format!(
                    "a mask's span {start}..{end} is empty or past the text's {} bytes",
                    text.len()
                ));
            }
            if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
                return Err(format!(
                    "a mask's span {start}..{end} cuts a character in two"
                ));
            }
            Ok(Masked::Span(start, end, mask.kind))
        }
        (wit::Redaction::Pointer(pointer), ResultContent::Json(value)) => {
            if pointer.is_empty() {
                return Err("a mask's pointer is empty: withhold the result instead".into());
            }
            if value.pointer(&pointer).is_none() {
                return Err(format!(
                    "a mask's pointer {:?} does not resolve in the result",
                    crate::text::truncate(pointer, 256)
                ));
            }
            Ok(Masked::Pointer(pointer, mask.kind))
        }
        (wit::Redaction::Span(_), ResultContent::Json(_)) => {
            Err("a mask is a span, but the result is JSON: use a pointer".into())
        }
        (wit::Redaction::Pointer(_), ResultContent::Text(_)) => {
            Err("a mask is a pointer, but the result is text: use a span".into())
        }
    }
}

/// Check masks a result check asked for against `content` and apply
/// them, as the host does with a check's answer: `spans` are UTF-8 byte
/// ranges of a text, `pointers` JSON Pointers into a JSON value, each
/// masked as `[redacted: KIND]`. For the result fuzz target
/// (`crates/toolvet-fuzz-targets/src/result_json.rs`); not a stable API.
///
/// # Errors
/// The message the host would record as the check's error: a span that is
/// empty, past the end or inside a character; a pointer that is empty or
/// does not resolve; a span on JSON or a pointer on text; a bad kind.
#[doc(hidden)]
pub fn check_and_apply_masks(
    content: &ResultContent,
    spans: &[(u32, u32)],
    pointers: &[String],
    kind: &str,
) -> Result<ResultContent, String> {
    let masks = spans
        .iter()
        .map(|&(s, e)| wit::Redaction::Span((s, e)))
        .chain(pointers.iter().cloned().map(wit::Redaction::Pointer))
        .map(|target| {
            read_mask(
                wit::Mask {
                    target,
                    kind: kind.into(),
                },
                content,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(apply(content, &masks))
}

/// The text that replaces a masked part.
pub fn mask_text(kind: &str) -> String {
    format!("[redacted: {kind}]")
}

/// Apply every mask to `content`: spans are merged where they overlap or
/// touch (the first kind of a merged run is shown), and each value a
/// pointer names is replaced by the mask's text (a pointer inside an
/// already masked value is then gone, which is fine: it is masked).
pub(crate) fn apply(content: &ResultContent, masks: &[Masked]) -> ResultContent {
    match content {
        ResultContent::Text(text) => {
            let mut spans: Vec<(usize, usize, &str)> = masks
                .iter()
                .filter_map(|m| match m {
                    Masked::Span(s, e, k) => Some((*s, *e, k.as_str())),
                    Masked::Pointer(..) => None,
                })
                .collect();
            spans.sort_by_key(|&(s, e, _)| (s, std::cmp::Reverse(e)));
            let mut merged: Vec<(usize, usize, &str)> = Vec::new();
            for (s, e, k) in spans {
                match merged.last_mut() {
                    Some(last) if s <= last.1 => last.1 = last.1.max(e),
                    _ => merged.push((s, e, k)),
                }
            }
            let mut out = String::with_capacity(text.len());
            let mut at = 0;
            for (s, e, k) in merged {
                out.push_str(&text[at..s]);
                out.push_str(&mask_text(k));
                at = e;
            }
            out.push_str(&text[at..]);
            ResultContent::Text(out)
        }
        ResultContent::Json(value) => {
            let mut value = value.clone();
            for m in masks {
                if let Masked::Pointer(pointer, kind) = m
                    && let Some(slot) = value.pointer_mut(pointer)
                {
                    *slot = serde_json::Value::String(mask_text(kind));
                }
            }
            ResultContent::Json(value)
        }
    }
}

/// What a failed result check answers, by its `on_error`: `deny` and
/// `escalate` withhold (no person approves a result), `allow` abstains. A
/// failure of the host itself always withholds.
pub(crate) fn on_error_action(on_error: OnError, kind: ErrorKind) -> Option<ResultAction> {
    match (kind, on_error) {
        (ErrorKind::HostError, _) => Some(ResultAction::Withhold),
        (_, OnError::Deny | OnError::Escalate) => Some(ResultAction::Withhold),
        (_, OnError::Allow) => None,
    }
}

/// Combine the outcomes (with the masks of each redacting one) into one
/// verdict about `content`: the first enforcing withhold decides; else the
/// enforcing redactions' masks are applied together; else the result
/// passes. Labels are those of the enforcing checks.
pub(crate) fn combine(
    content: &ResultContent,
    outcomes: Vec<(ResultCheckOutcome, Vec<Masked>)>,
) -> ResultVerdict {
    let enforcing = |o: &ResultCheckOutcome| o.mode == Mode::Enforce;
    let labels: Vec<RunLabel> = outcomes
        .iter()
        .filter(|(o, _)| enforcing(o))
        .flat_map(|(o, _)| o.labels.iter().cloned())
        .collect();
    let withheld = outcomes
        .iter()
        .find(|(o, _)| enforcing(o) && o.action == Some(ResultAction::Withhold))
        .map(|(o, _)| (o.check.clone(), o.rule.clone(), o.reason.clone()));
    let masks: Vec<Masked> = outcomes
        .iter()
        .filter(|(o, _)| enforcing(o) && o.action == Some(ResultAction::Redact))
        .flat_map(|(_, m)| m.iter().cloned())
        .collect();
    let checks = outcomes.into_iter().map(|(o, _)| o).collect();
    let (action, content, decided_by, rule, reason) = match withheld {
        Some((check, rule, reason)) => (ResultAction::Withhold, None, Some(check), rule, reason),
        None if !masks.is_empty() => (
            ResultAction::Redact,
            Some(apply(content, &masks)),
            None,
            None,
            None,
        ),
        None => (ResultAction::Pass, Some(content.clone()), None, None, None),
    };
    ResultVerdict {
        action,
        content,
        decided_by,
        rule,
        reason,
        labels,
        checks,
        duration_us: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(s: u32, e: u32, kind: &str) -> wit::Mask {
        wit::Mask {
            target: wit::Redaction::Span((s, e)),
            kind: kind.into(),
        }
    }

    fn pointer(p: &str, kind: &str) -> wit::Mask {
        wit::Mask {
            target: wit::Redaction::Pointer(p.into()),
            kind: kind.into(),
        }
    }

    fn call() -> crate::call::ToolCall {
        crate::call::ToolCall {
            id: "c1".into(),
            name: "read_file".into(),
            arguments: serde_json::value::RawValue::from_string("{}".into()).unwrap(),
        }
    }

    fn redact(masks: Vec<wit::Mask>, content: &ResultContent) -> Result<Vec<Masked>, String> {
        let d = wit::ResultDecision {
            action: wit::ResultAction::Redact(masks),
            labels: Vec::new(),
        };
        match read_answer(d, content, "c", &call())?.0 {
            Answer::Redact(m) => Ok(m),
            _ => unreachable!("a redact reads as a redact"),
        }
    }

    #[test]
    fn a_result_request_is_a_call_plus_its_result_held_to_the_call_rules() {
        let r = ResultRequest::from_json(
            r#"{"call": {"id": "c", "name": "fetch", "arguments": {"url": "https://x.test"}},
                "context": {"run_id": "r1"},
                "result": {"content": {"json": {"a": [1]}}, "is_error": true}}"#,
        )
        .unwrap();
        assert_eq!(r.request.call.name, "fetch");
        assert_eq!(r.request.context.run_id.as_deref(), Some("r1"));
        assert_eq!(
            r.result,
            ToolResult {
                content: ResultContent::Json(serde_json::json!({"a": [1]})),
                is_error: true
            }
        );
        let call = r#""call": {"name": "t", "arguments": {}}"#;
        for (text, why) in [
            (format!("{{{call}}}"), "missing field `result`"),
            (
                format!(r#"{{{call}, "result": {{"content": {{"html": "x"}}}}}}"#),
                "`result.content`: unknown variant `html`",
            ),
            (
                format!(r#"{{{call}, "result": {{"content": {{"text": "x"}}, "extra": 1}}}}"#),
                "`result.extra`: unknown field `extra`",
            ),
            (
                format!(
                    r#"{{{call}, "result": {{"content": {{"text": "x"}}}}, "approval": {{"ticket": "t"}}}}"#
                ),
                "no approval ticket",
            ),
            (
                format!(r#"{{{call}, "result": {{"content": {{"text": "a", "text": "b"}}}}}}"#),
                "has the key `text` twice",
            ),
            (
                format!(
                    r#"{{{call}, "result": {{"content": {{"json": {{"n": 123456789012345678901234567890}}}}}}}}"#
                ),
                "`result.content.json.n`: the integer",
            ),
            ("[1]".into(), "a JSON object"),
            (
                r#"{"result": {"content": {"text": "x"}}}"#.into(),
                "missing field `call`",
            ),
        ] {
            let e = ResultRequest::from_json(&text).unwrap_err();
            assert!(e.message().contains(why), "{text}: {e}");
        }
    }

    #[test]
    fn spans_are_merged_and_masked_by_the_host() {
        let text = ResultContent::Text("key=AKIA123 and token=ghp_456 end".into());
        let masks = redact(
            vec![span(4, 11, "aws"), span(22, 29, "gh"), span(6, 9, "x")],
            &text,
        )
        .unwrap();
        assert_eq!(
            apply(&text, &masks),
            ResultContent::Text("key=[redacted: aws] and token=[redacted: gh] end".into())
        );
        // Touching and overlapping spans become one mask.
        let masks = redact(
            vec![span(0, 3, "a"), span(3, 7, "b"), span(5, 11, "c")],
            &text,
        )
        .unwrap();
        assert_eq!(
            apply(&text, &masks),
            ResultContent::Text("[redacted: a] and token=ghp_456 end".into())
        );
    }

    #[test]
    fn masks_that_cannot_apply_are_the_checks_error() {
        let text = ResultContent::Text("héllo".into());
        for (mask, why) in [
            (span(0, 99, "k"), "past the text"),
            (span(3, 3, "k"), "empty"),
            (span(2, 4, "k"), "cuts a character"),
            (pointer("/a", "k"), "the result is text"),
            (span(0, 1, "no spaces"), "kind"),
            (span(0, 1, ""), "kind"),
        ] {
            let e = redact(vec![mask], &text).unwrap_err();
            assert!(e.contains(why), "{e}");
        }
        let json = ResultContent::Json(serde_json::json!({"a": [1, {"b": "s"}]}));
        for (mask, why) in [
            (pointer("/c", "k"), "does not resolve"),
            (pointer("", "k"), "empty"),
            (span(0, 1, "k"), "the result is JSON"),
        ] {
            let e = redact(vec![mask], &json).unwrap_err();
            assert!(e.contains(why), "{e}");
        }
        let e = redact(Vec::new(), &json).unwrap_err();
        assert!(e.contains("nothing"), "{e}");
    }

    #[test]
    fn pointers_replace_the_whole_value() {
        let json =
            ResultContent::Json(serde_json::json!({"a": [1, {"b": "s"}], "token": {"x": 1}}));
        let masks = redact(
            vec![pointer("/token", "tok"), pointer("/a/1/b", "b")],
            &json,
        )
        .unwrap();
        assert_eq!(
            apply(&json, &masks),
            ResultContent::Json(
                serde_json::json!({"a": [1, {"b": "[redacted: b]"}], "token": "[redacted: tok]"})
            )
        );
    }

    #[test]
    fn labels_are_checked_and_carry_where_they_came_from() {
        let text = ResultContent::Text("x".into());
        let label = |name: &str, values: Vec<String>| wit::Label {
            name: name.into(),
            values,
        };
        let answer = |labels| wit::ResultDecision {
            action: wit::ResultAction::Allow,
            labels,
        };
        let (_, got) = read_answer(
            answer(vec![label("untrusted-content", vec!["a@b.c".into()])]),
            &text,
            "inj",
            &call(),
        )
        .unwrap();
        assert_eq!(
            got,
            vec![RunLabel {
                name: "untrusted-content".into(),
                values: vec!["a@b.c".into()],
                check: "inj".into(),
                tool: "read_file".into(),
                call_id: "c1".into(),
            }]
        );
        for (labels, why) in [
            (vec![label("Untrusted", vec![])], "lowercase"),
            (vec![label("", vec![])], "lowercase"),
            (vec![label("a\u{202e}b", vec![])], "lowercase"),
            (
                vec![label("v", vec!["x".repeat(MAX_LABEL_VALUE + 1)])],
                "value over",
            ),
            (
                vec![label("v", vec![String::new(); MAX_LABEL_VALUES + 1])],
                "values, over",
            ),
            (
                (0..=MAX_LABELS).map(|_| label("l", vec![])).collect(),
                "labels, over",
            ),
        ] {
            let e = read_answer(answer(labels), &text, "c", &call())
                .err()
                .unwrap();
            assert!(e.contains(why), "{e}");
        }
    }

    fn outcome(check: &str, mode: Mode, action: Option<ResultAction>) -> ResultCheckOutcome {
        ResultCheckOutcome {
            check: check.into(),
            mode,
            action,
            rule: action
                .filter(|a| *a == ResultAction::Withhold)
                .map(|_| format!("{check}.rule")),
            reason: None,
            masks: 0,
            labels: vec![RunLabel {
                name: format!("from-{check}"),
                values: Vec::new(),
                check: check.into(),
                tool: "t".into(),
                call_id: String::new(),
            }],
            duration_us: 0,
            error: None,
        }
    }

    #[test]
    fn withhold_beats_redact_beats_allow_and_monitors_do_not_count() {
        let text = ResultContent::Text("secret here".into());
        let masks = vec![Masked::Span(0, 6, "s".into())];
        let v = combine(
            &text,
            vec![
                (
                    outcome("a", Mode::Enforce, Some(ResultAction::Pass)),
                    vec![],
                ),
                (
                    outcome("r", Mode::Enforce, Some(ResultAction::Redact)),
                    masks.clone(),
                ),
                (
                    outcome("w", Mode::Monitor, Some(ResultAction::Withhold)),
                    vec![],
                ),
                (outcome("n", Mode::Enforce, None), vec![]),
            ],
        );
        assert_eq!(v.action, ResultAction::Redact);
        assert_eq!(
            v.content,
            Some(ResultContent::Text("[redacted: s] here".into()))
        );
        let names: Vec<&str> = v.labels.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(
            names,
            ["from-a", "from-r", "from-n"],
            "a monitor's labels do not count"
        );
        assert_eq!(v.checks.len(), 4);

        let v = combine(
            &text,
            vec![
                (
                    outcome("r", Mode::Enforce, Some(ResultAction::Redact)),
                    masks,
                ),
                (
                    outcome("w", Mode::Enforce, Some(ResultAction::Withhold)),
                    vec![],
                ),
            ],
        );
        assert_eq!(v.action, ResultAction::Withhold);
        assert_eq!(v.content, None);
        assert_eq!(v.decided_by.as_deref(), Some("w"));
        assert_eq!(v.rule.as_deref(), Some("w.rule"));

        let v = combine(&text, vec![(outcome("n", Mode::Enforce, None), vec![])]);
        assert_eq!(
            (v.action, v.content),
            (ResultAction::Pass, Some(text.clone()))
        );
        let v = combine(&text, Vec::new());
        assert_eq!(v.action, ResultAction::Pass);
    }

    #[test]
    fn a_failed_result_check_withholds_unless_it_says_allow() {
        use ErrorKind::*;
        assert_eq!(
            on_error_action(OnError::Deny, Timeout),
            Some(ResultAction::Withhold)
        );
        assert_eq!(
            on_error_action(OnError::Escalate, Trap),
            Some(ResultAction::Withhold)
        );
        assert_eq!(on_error_action(OnError::Allow, Trap), None);
        assert_eq!(
            on_error_action(OnError::Allow, HostError),
            Some(ResultAction::Withhold)
        );
    }
}
