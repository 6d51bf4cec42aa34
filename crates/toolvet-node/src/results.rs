//! Vetting what a tool returned: the result JavaScript hands over
//! ([`ToolResult`]), the core's result request made from it with the call
//! ([`result_request`]), and the verdict it gets back
//! ([`NativeResultVerdict`]: pass, redact or withhold, the content after
//! masks, the labels raised, every result check's outcome).

use crate::types::{CallContext, CheckError, Mode, ToolCall, ToolInfo, request_value};
use napi_derive::napi;
use serde_json::{Value, json};
use toolvet::tool_result::{ResultContent, ResultRequest};

/// What a tool returned.
#[napi(object)]
#[derive(Debug, Clone)]
pub struct ToolResult {
    /// What the model would read: a string is text, any other JSON value
    /// (an object, an array, a number, ...) is JSON content.
    #[napi(ts_type = "unknown")]
    pub content: Value,
    /// The tool reported an error (a thrown exception, MCP `isError`);
    /// default false.
    pub is_error: Option<bool>,
}

/// What becomes of a result.
#[napi(string_enum = "lowercase")]
#[derive(Debug, PartialEq, Eq)]
pub enum ResultAction {
    /// The model reads the result as the tool returned it.
    Pass,
    /// The model reads the result with parts masked (`[redacted: KIND]`).
    Redact,
    /// The model reads the reason instead of the result.
    Withhold,
}

/// A label a result check raised for the rest of the run: the host keeps
/// it and hands it to the run's later calls (`context.labels` of the
/// checks), so a call check can escalate what follows untrusted content.
#[napi(object)]
#[derive(Debug, Clone)]
pub struct RunLabel {
    /// The label, e.g. `untrusted-content`.
    pub name: String,
    /// Values the result introduced (addresses, URLs, hosts).
    pub values: Vec<String>,
    /// The check that raised it.
    pub check: String,
    /// The tool whose result raised it.
    pub tool: String,
    /// The id of the call whose result raised it (`""` when it had none).
    pub call_id: String,
}

/// What one result check did with the result.
#[napi(object)]
#[derive(Debug)]
pub struct ResultCheckOutcome {
    /// The check's name from the policy.
    pub check: String,
    /// Enforce or monitor (a monitor's outcome never changes the verdict).
    pub mode: Mode,
    /// What it asked for; absent when it abstained. A failed check's
    /// `on_error`: `deny` and `escalate` withhold, `allow` abstains.
    pub action: Option<ResultAction>,
    /// Its rule id (withhold), or `toolvet.<error kind>`.
    pub rule: Option<String>,
    /// Its reason (withhold), or the failure.
    pub reason: Option<String>,
    /// How many parts it masked (redact).
    pub masks: u32,
    /// The labels it raised.
    pub labels: Vec<RunLabel>,
    /// Wall time of the check, µs.
    pub duration_us: f64,
    /// Set when the check failed.
    pub error: Option<CheckError>,
}

/// The verdict about one result, as the addon returns it: the content
/// after masks travels as text (`contentText`) or as JSON text
/// (`contentJson`, for the TypeScript layer to `JSON.parse`: napi would
/// build the object with property sets, which make a `__proto__` key the
/// object's prototype).
#[napi(object)]
#[derive(Debug)]
pub struct NativeResultVerdict {
    /// Pass, redact or withhold.
    pub action: ResultAction,
    /// What the model reads, when the result was text (pass, redact).
    pub content_text: Option<String>,
    /// What the model reads, as JSON text, when the result was JSON.
    pub content_json: Option<String>,
    /// The check whose outcome decided a withhold.
    pub decided_by: Option<String>,
    /// The rule of a withhold: a check's, or the host's (`toolvet.*`).
    pub rule: Option<String>,
    /// Why the result was withheld: what the model reads instead.
    pub reason: Option<String>,
    /// The labels the enforcing checks raised (kept for the run's later
    /// calls when the call named a `runId`).
    pub labels: Vec<RunLabel>,
    /// Every result check that applied, in policy order.
    pub checks: Vec<ResultCheckOutcome>,
    /// Wall time of the verdict in the host, µs.
    pub duration_us: f64,
}

/// The core's result request for `call` (of `tool`, in `context`) that
/// returned `result`: validated as `toolvet check-result` validates its
/// input.
///
/// # Errors
/// [`toolvet::CallError`] naming the problem (an empty tool name, a
/// context carrying `labels`, ...).
pub fn result_request(
    call: ToolCall,
    result: ToolResult,
    tool: Option<ToolInfo>,
    context: Option<CallContext>,
) -> Result<ResultRequest, toolvet::CallError> {
    let mut request = request_value(call, tool, context, None)?;
    let content = match result.content {
        Value::String(text) => json!({ "text": text }),
        value => json!({ "json": value }),
    };
    request["result"] = json!({
        "content": content,
        "is_error": result.is_error.unwrap_or(false),
    });
    ResultRequest::from_json(&request.to_string())
}

/// The verdict about a result that cannot be vetted (a malformed call, a
/// context carrying labels): withheld, the reason the CLI's message.
pub fn invalid_result(e: &toolvet::CallError) -> toolvet::tool_result::ResultVerdict {
    toolvet::tool_result::ResultVerdict::withheld_by_host(
        crate::error::INVALID_CALL_RULE,
        e.to_string(),
    )
}

impl From<toolvet::tool_result::ResultAction> for ResultAction {
    fn from(a: toolvet::tool_result::ResultAction) -> Self {
        match a {
            toolvet::tool_result::ResultAction::Pass => ResultAction::Pass,
            toolvet::tool_result::ResultAction::Redact => ResultAction::Redact,
            toolvet::tool_result::ResultAction::Withhold => ResultAction::Withhold,
        }
    }
}

impl From<toolvet::tool_result::RunLabel> for RunLabel {
    fn from(l: toolvet::tool_result::RunLabel) -> Self {
        RunLabel {
            name: l.name,
            values: l.values,
            check: l.check,
            tool: l.tool,
            call_id: l.call_id,
        }
    }
}

fn labels(list: Vec<toolvet::tool_result::RunLabel>) -> Vec<RunLabel> {
    list.into_iter().map(RunLabel::from).collect()
}

impl From<toolvet::tool_result::ResultCheckOutcome> for ResultCheckOutcome {
    fn from(o: toolvet::tool_result::ResultCheckOutcome) -> Self {
        ResultCheckOutcome {
            check: o.check,
            mode: o.mode.into(),
            action: o.action.map(ResultAction::from),
            rule: o.rule,
            reason: o.reason,
            masks: u32::try_from(o.masks).unwrap_or(u32::MAX),
            labels: labels(o.labels),
            duration_us: o.duration_us as f64,
            error: o.error.map(CheckError::from),
        }
    }
}

impl From<toolvet::tool_result::ResultVerdict> for NativeResultVerdict {
    fn from(v: toolvet::tool_result::ResultVerdict) -> Self {
        let (content_text, content_json) = match v.content {
            Some(ResultContent::Text(text)) => (Some(text), None),
            Some(ResultContent::Json(value)) => (None, Some(value.to_string())),
            None => (None, None),
        };
        NativeResultVerdict {
            action: v.action.into(),
            content_text,
            content_json,
            decided_by: v.decided_by,
            rule: v.rule,
            reason: v.reason,
            labels: labels(v.labels),
            checks: v.checks.into_iter().map(ResultCheckOutcome::from).collect(),
            duration_us: v.duration_us as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call() -> ToolCall {
        ToolCall {
            id: Some("c1".into()),
            name: "fetch".into(),
            arguments: Some(json!({"url": "https://example.com"})),
        }
    }

    #[test]
    fn a_string_is_text_and_any_other_value_json() {
        let text = ToolResult {
            content: json!("hello"),
            is_error: None,
        };
        let r = result_request(call(), text, None, None).unwrap();
        assert_eq!(r.result.content, ResultContent::Text("hello".into()));
        assert!(!r.result.is_error);
        let value = ToolResult {
            content: json!({"rows": [1, 2]}),
            is_error: Some(true),
        };
        let r = result_request(call(), value, None, None).unwrap();
        assert_eq!(
            r.result.content,
            ResultContent::Json(json!({"rows": [1, 2]}))
        );
        assert!(r.result.is_error);
        assert_eq!(r.request.call.name, "fetch");
    }

    #[test]
    fn a_context_carrying_labels_is_refused_and_the_result_withheld() {
        let context = CallContext {
            run_id: Some("r1".into()),
            labels: Some(json!([])),
            ..CallContext::default()
        };
        let result = ToolResult {
            content: json!("x"),
            is_error: None,
        };
        let e = result_request(call(), result, None, Some(context)).unwrap_err();
        assert!(e.to_string().contains("`context.labels`"), "{e}");
        let v = invalid_result(&e);
        assert_eq!(v.action, toolvet::tool_result::ResultAction::Withhold);
        assert_eq!(v.rule.as_deref(), Some("toolvet.invalid-call"));
        assert!(v.content.is_none());
    }
}
