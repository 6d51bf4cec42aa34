//! MCP calls as toolvet calls, and verdicts as MCP tool results: pure
//! functions, so they can be tested and fuzzed without a server.
//!
//! - A `tools/call` becomes a [`CallRequest`] with the tool's declared
//!   description and input schema, its annotations as risk and tags
//!   (`destructiveHint` → risk `high`, tag `destructive`; `readOnlyHint` →
//!   risk `low`, tag `read-only`; `idempotentHint`, `openWorldHint` →
//!   tags), the session as the run and its earlier calls as the history.
//!   Annotations are the server's hints: inputs to the checks, never
//!   authority (a server that calls a destructive tool read-only does not
//!   get past a check that looks at the arguments).
//! - The call id is empty: MCP retries are new JSON-RPC requests, and
//!   approvals bind calls without an id by run, tool and arguments.
//! - A deny is a normal tool result with `isError: true`, the reason as
//!   its text and `_meta["toolvet/verdict"]` saying it was toolvet, so it
//!   is never mistaken for the server's own errors or "unknown tool".

use rmcp::model::{CallToolResult, Content, JsonObject, MetaObject, Tool};
use serde_json::{Value, json};
use toolvet::{CallRequest, PriorCall, Verdict};

/// The `_meta` key of results toolvet made.
pub const VERDICT_META: &str = "toolvet/verdict";

/// The call the checks see for `tools/call` of `name` with `arguments`,
/// declared as `tool` (from the server's `tools/list`, when known), in run
/// `run_id` after `history`.
///
/// # Errors
/// The call shape the core refuses (an empty name, nesting too deep).
pub fn request_for(
    name: &str,
    arguments: Option<&JsonObject>,
    tool: Option<&Tool>,
    run_id: &str,
    history: &[PriorCall],
) -> Result<CallRequest, toolvet::CallError> {
    let arguments = Value::Object(arguments.cloned().unwrap_or_default());
    let mut request = CallRequest::new(name, &arguments)?;
    request.context.run_id = Some(run_id.to_string());
    request.context.agent = Some("mcp".into());
    request.context.history = history.to_vec();
    if let Some(tool) = tool {
        let info = &mut request.tool;
        info.description = tool.description.as_deref().map(str::to_string);
        let schema = Value::Object((*tool.input_schema).clone()).to_string();
        info.parameters_schema = serde_json::value::RawValue::from_string(schema).ok();
        if let Some(a) = &tool.annotations {
            let mut tags = Vec::new();
            if a.destructive_hint == Some(true) {
                tags.push("destructive".to_string());
            }
            if a.read_only_hint == Some(true) {
                tags.push("read-only".to_string());
            }
            if a.idempotent_hint == Some(true) {
                tags.push("idempotent".to_string());
            }
            if a.open_world_hint == Some(true) {
                tags.push("open-world".to_string());
            }
            // Destructive wins over read-only: a server that says both is
            // not believed on the milder one.
            info.risk = if a.destructive_hint == Some(true) {
                Some("high".into())
            } else if a.read_only_hint == Some(true) {
                Some("low".into())
            } else {
                None
            };
            info.tags = tags;
        }
    }
    // A request the core would refuse as malformed is refused here too.
    CallRequest::from_json(&serde_json::to_string(&request).unwrap_or_default())
}

/// The probe that decides whether `tool` is listed: a call with no
/// arguments in the session's run after its history.
///
/// # Errors
/// As [`request_for`].
pub fn probe_for(
    tool: &Tool,
    run_id: &str,
    history: &[PriorCall],
) -> Result<CallRequest, toolvet::CallError> {
    request_for(&tool.name, None, Some(tool), run_id, history)
}

/// A tool result the model reads: `isError: true` with `text`, marked as
/// toolvet's with the decision and rule.
pub fn refusal(text: String, verdict: Option<&Verdict>) -> CallToolResult {
    let mut result = CallToolResult::error(vec![Content::text(text)]);
    let mut meta = MetaObject::new();
    meta.insert(
        VERDICT_META.into(),
        json!({
            "decision": verdict.map_or("deny", |v| v.decision.as_str()),
            "rule": verdict.and_then(|v| v.rule.clone()),
            "approval": verdict.and_then(|v| v.approval.as_ref().map(|a| a.id.clone())),
        }),
    );
    result.meta = Some(meta);
    result
}

/// The text of a deny.
pub fn deny_text(verdict: &Verdict) -> String {
    format!(
        "toolvet denied this call [{}]: {}",
        verdict.rule.as_deref().unwrap_or("toolvet"),
        verdict.reason.as_deref().unwrap_or("no reason given")
    )
}

/// The text of an escalate nobody could be asked about here: names the
/// approval request a person can approve with `toolvet approvals approve`.
pub fn held_text(verdict: &Verdict) -> String {
    let rule = verdict.rule.as_deref().unwrap_or("toolvet");
    let reason = verdict
        .reason
        .as_deref()
        .unwrap_or("no reason given")
        .trim_end_matches('.');
    match &verdict.approval {
        Some(a) => format!(
            "toolvet holds this call for a person's approval [{rule}]: {reason}. It is approval \
             request {id}: ask the user to approve it (`toolvet approvals approve {id} --reviewer \
             NAME`, or on the reviewer page), then make the same call again.",
            id = a.id
        ),
        None => format!(
            "toolvet holds this call for a person's approval [{rule}]: {reason}; the policy has \
             no [approvals] ledger, so it is denied"
        ),
    }
}

/// The message of the elicitation that asks the person.
pub fn question(request: &CallRequest, verdict: &Verdict) -> String {
    let args = request.call.arguments.get();
    let shown = if args.len() > 2000 {
        format!(
            "{}… ({} bytes)",
            &args[..args.floor_char_boundary(2000)],
            args.len()
        )
    } else {
        args.to_string()
    };
    format!(
        "toolvet: allow `{}` with arguments {shown}? Held because [{}]: {}",
        request.call.name,
        verdict.rule.as_deref().unwrap_or("toolvet"),
        verdict.reason.as_deref().unwrap_or("no reason given"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ToolAnnotations;
    use std::sync::Arc;

    fn tool(annotations: Option<ToolAnnotations>) -> Tool {
        let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}});
        let mut t = Tool::new(
            "delete_file",
            "Delete a file",
            Arc::new(schema.as_object().unwrap().clone()),
        );
        t.annotations = annotations;
        t
    }

    #[test]
    fn annotations_become_risk_and_tags_and_the_schema_is_passed() {
        let a = ToolAnnotations::new().destructive(true).read_only(true);
        let args = json!({"path": "/a"});
        let r = request_for(
            "delete_file",
            args.as_object(),
            Some(&tool(Some(a))),
            "s1",
            &[],
        )
        .unwrap();
        assert_eq!(r.tool.risk.as_deref(), Some("high"));
        assert_eq!(r.tool.tags, vec!["destructive", "read-only"]);
        assert_eq!(r.tool.description.as_deref(), Some("Delete a file"));
        assert!(r.tool.parameters_schema.unwrap().get().contains("\"path\""));
        assert_eq!(r.context.run_id.as_deref(), Some("s1"));
        assert_eq!(r.call.id, "");
        let r = request_for(
            "x",
            None,
            Some(&tool(Some(ToolAnnotations::new().read_only(true)))),
            "s",
            &[],
        )
        .unwrap();
        assert_eq!(r.tool.risk.as_deref(), Some("low"));
        let r = request_for("x", None, None, "s", &[]).unwrap();
        assert_eq!(r.call.arguments.get(), "{}");
        assert!(request_for(" ", None, None, "s", &[]).is_err());
    }

    #[test]
    fn a_refusal_is_a_marked_tool_error() {
        let r = refusal("no".into(), None);
        assert_eq!(r.is_error, Some(true));
        assert_eq!(r.meta.unwrap()[VERDICT_META]["decision"], "deny");
    }
}
