//! From MCP to toolvet and back: the call the checks see for a
//! `tools/call`, the tool result a deny becomes, and the elicitation that
//! asks the person about an escalate.

use crate::McpConfig;
use rmcp::model::{
    CallToolResult, ContentBlock, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema, Tool,
};
use serde_json::{Value, json};
use toolvet::{
    CallContext, CallError, CallRequest, CheckDecision, Host, ToolCall, ToolInfo, Verdict,
};

/// Longest argument text shown to the person in an elicitation, in bytes.
const MAX_SHOWN_ARGUMENTS: usize = 2048;

/// What the tool's server declared about it, as the checks see it. The
/// MCP annotations are hints from a server that may not be trusted, so
/// they only add information: `destructiveHint: true` → risk `high` and
/// tag `destructive`, `readOnlyHint: true` → risk `low` and tag
/// `read-only`, `idempotentHint`/`openWorldHint: true` → tags
/// `idempotent`/`open-world`. The description and the input schema are
/// passed as they are.
pub fn tool_info(tool: &Tool) -> ToolInfo {
    let mut info = ToolInfo {
        description: tool.description.as_ref().map(|d| d.to_string()),
        parameters_schema: serde_json::value::to_raw_value(&*tool.input_schema).ok(),
        ..ToolInfo::default()
    };
    if let Some(a) = &tool.annotations {
        if a.read_only_hint == Some(true) {
            info.risk = Some("low".into());
            info.tags.push("read-only".into());
        }
        // A tool that says both is taken at its more dangerous word.
        if a.destructive_hint == Some(true) && a.read_only_hint != Some(true) {
            info.risk = Some("high".into());
            info.tags.push("destructive".into());
        }
        if a.idempotent_hint == Some(true) {
            info.tags.push("idempotent".into());
        }
        if a.open_world_hint == Some(true) {
            info.tags.push("open-world".into());
        }
    }
    info
}

/// The call the checks see for a `tools/call` of `name` with `arguments`
/// (`None`: the client sent none, which MCP treats as `{}`). The call id
/// is empty: MCP calls carry none, so approvals bind the call by session,
/// tool and arguments.
///
/// # Errors
/// [`CallError`] for an empty name or arguments that are not an object.
pub fn call_request(
    name: &str,
    arguments: Option<&Value>,
    tool: Option<&Tool>,
    context: CallContext,
) -> Result<CallRequest, CallError> {
    let empty = Value::Object(Default::default());
    let mut request = CallRequest::new(name, arguments.unwrap_or(&empty))?;
    request.tool = tool.map(tool_info).unwrap_or_default();
    request.context = context;
    Ok(request)
}

/// Whether `config` hides `tool` from a client whose calls so far are in
/// `context`: one of the `hide_denied_tools` checks denies the tool when
/// previewed with no arguments (a preview records nothing and opens no
/// approval request). A tool that cannot be made into a call is hidden.
pub async fn hides(host: &Host, config: &McpConfig, tool: &Tool, context: CallContext) -> bool {
    if config.hide_denied_tools.is_empty() {
        return false;
    }
    let Ok(request) = call_request(&tool.name, None, Some(tool), context) else {
        return true;
    };
    let verdict = host.preview(&request).await;
    verdict
        .checks
        .iter()
        .any(|o| o.decision == CheckDecision::Deny && config.hide_denied_tools.contains(&o.check))
}

/// A `tools/call` result that tells the model why the call did not run:
/// a tool execution error (`isError: true`), never a JSON-RPC error, so
/// the model reads it and the session goes on.
pub fn refusal(text: String) -> Value {
    let result = CallToolResult::error(vec![ContentBlock::text(text)]);
    serde_json::to_value(result).unwrap_or_else(|_| Value::Null)
}

/// The rule and reason of a verdict, for the texts below.
fn rule_and_reason(verdict: &Verdict) -> (&str, &str) {
    (
        verdict.rule.as_deref().unwrap_or("toolvet"),
        verdict
            .reason
            .as_deref()
            .unwrap_or("no reason given")
            .trim_end_matches('.'),
    )
}

/// The text of a deny.
pub fn denied_text(verdict: &Verdict) -> String {
    let (rule, reason) = rule_and_reason(verdict);
    format!("toolvet denied this call [{rule}]: {reason}")
}

/// The text of an escalate that no one answered in the client: the call is
/// refused for now, and the approval request stays open for a reviewer.
pub fn held_text(verdict: &Verdict, why: &str, policy: &str) -> String {
    let (rule, reason) = rule_and_reason(verdict);
    match &verdict.approval {
        Some(approval) => format!(
            "toolvet holds this call for a person's approval [{rule}]: {reason}. {why} \
             It is approval request {id}: ask the user to approve it \
             (`toolvet approvals approve {id} --config {policy} --reviewer NAME`, or the reviewer page), \
             then make the same call again.",
            id = approval.id
        ),
        None => format!(
            "toolvet holds this call for a person's approval [{rule}]: {reason}; \
             the policy has no [approvals] ledger, so it is denied"
        ),
    }
}

/// The text of a rejection the person gave in the client.
pub fn rejected_text(verdict: &Verdict, reviewer: &str, message: Option<&str>) -> String {
    let (rule, _) = rule_and_reason(verdict);
    match message {
        Some(m) => format!("toolvet: {reviewer} rejected this call [{rule}]: {m}"),
        None => format!("toolvet: {reviewer} rejected this call [{rule}]"),
    }
}

/// The `elicitation/create` params that ask the person about a held call:
/// a form with a required boolean `approve` and an optional `message`.
pub fn elicitation(call: &ToolCall, verdict: &Verdict) -> Value {
    let (rule, reason) = rule_and_reason(verdict);
    let mut arguments = call.arguments.get().to_string();
    if arguments.len() > MAX_SHOWN_ARGUMENTS {
        let mut end = MAX_SHOWN_ARGUMENTS;
        while !arguments.is_char_boundary(end) {
            end -= 1;
        }
        arguments.truncate(end);
        arguments.push('…');
    }
    let id = verdict
        .approval
        .as_ref()
        .map(|a| a.id.as_str())
        .unwrap_or("-");
    let message = format!(
        "toolvet holds a call for your approval.\nTool: {name}\nArguments: {arguments}\n\
         Why [{rule}]: {reason}\nApproval request: {id}",
        name = call.name
    );
    let schema = ElicitationSchema::builder()
        .required_bool_property("approve", |b| {
            b.title("Approve this call")
                .description("Run the call once")
        })
        .optional_string("message")
        .build()
        .unwrap_or_else(|_| ElicitationSchema::new(Default::default()));
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: schema,
    };
    serde_json::to_value(params).unwrap_or(Value::Null)
}

/// The `inputRequests` key under which toolvet asks about a held call in
/// a 2026-07-28 `input_required` result, and the prefix of its
/// `requestState`: both are toolvet's own, kept from the server.
pub const INPUT_KEY: &str = "toolvet_approval";
const STATE_PREFIX: &str = "toolvet:";

/// The `input_required` result (MCP 2026-07-28, multi round-trip requests)
/// that asks the person about a held call: the same form as
/// [`elicitation`], and a `requestState` that is the approval request's
/// ticket, signed by the ledger's key and bound to this call, so the
/// state the client sends back can only be this call's.
pub fn input_required(call: &ToolCall, verdict: &Verdict, ticket: &str) -> Value {
    json!({
        "resultType": "input_required",
        "inputRequests": {
            INPUT_KEY: {"method": "elicitation/create", "params": elicitation(call, verdict)},
        },
        "requestState": format!("{STATE_PREFIX}{ticket}"),
    })
}

/// Where a held call stands in the 2026-07-28 round trip.
#[derive(Debug, PartialEq, Eq)]
pub enum RoundTrip {
    /// The call came without toolvet's `requestState` for it: ask.
    Ask,
    /// The call came back with the state toolvet gave for it and the
    /// person's answer (or why there is none).
    Answered(Answer),
}

/// Read a `tools/call` made again with `requestState` and `inputResponses`
/// (`raw` is the whole request), for the held call whose ticket is
/// `ticket`. A state of toolvet's that is not this call's (another call's,
/// an expired request's, a forged one) is no answer, never an approval.
pub fn round_trip(raw: &Value, ticket: &str) -> RoundTrip {
    let params = raw.get("params");
    let Some(state) = params
        .and_then(|p| p.get("requestState"))
        .and_then(Value::as_str)
        .and_then(|s| s.strip_prefix(STATE_PREFIX))
    else {
        return RoundTrip::Ask;
    };
    if state != ticket {
        return RoundTrip::Answered(Answer::None(
            "The answer the client sent back is not about this call (its approval request \
             may have expired or been decided since)."
                .into(),
        ));
    }
    let Some(response) = params
        .and_then(|p| p.pointer(&format!("/inputResponses/{INPUT_KEY}")))
        .filter(|r| !r.is_null())
    else {
        return RoundTrip::Answered(Answer::None("The client sent no answer.".into()));
    };
    RoundTrip::Answered(answer(&json!({ "result": response })))
}

/// `raw` without toolvet's part of a 2026-07-28 round trip: its
/// `requestState` and its entry in `inputResponses` (the whole key when
/// nothing else is left). Anything of the server's own stays.
pub fn without_round_trip(mut raw: Value) -> Value {
    let Some(params) = raw.get_mut("params").and_then(Value::as_object_mut) else {
        return raw;
    };
    if params
        .get("requestState")
        .and_then(Value::as_str)
        .is_some_and(|s| s.starts_with(STATE_PREFIX))
    {
        params.remove("requestState");
    }
    if let Some(responses) = params
        .get_mut("inputResponses")
        .and_then(Value::as_object_mut)
    {
        responses.remove(INPUT_KEY);
        if responses.is_empty() {
            params.remove("inputResponses");
        }
    }
    raw
}

/// What the person answered in the client.
#[derive(Debug, PartialEq, Eq)]
pub enum Answer {
    /// `accept` with `approve: true`.
    Approve(Option<String>),
    /// `accept` with `approve: false`, or `decline`.
    Reject(Option<String>),
    /// `cancel`, an error, or an answer that is not an elicitation result:
    /// no decision (the request stays pending).
    None(String),
}

/// Read the client's response to the elicitation. Only an `accept` whose
/// content has `approve` exactly `true` approves; anything malformed is no
/// decision, never an approval.
pub fn answer(response: &Value) -> Answer {
    if let Some(error) = response.get("error") {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("no message");
        return Answer::None(format!("The client could not ask the user ({message})."));
    }
    let Some(Ok(result)) = response
        .get("result")
        .map(|r| serde_json::from_value::<ElicitResult>(r.clone()))
    else {
        return Answer::None("The client's answer was not an elicitation result.".into());
    };
    let message = result
        .content
        .as_ref()
        .and_then(|c| c.get("message"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(str::to_string);
    match result.action {
        ElicitationAction::Accept => match result.content.as_ref().and_then(|c| c.get("approve")) {
            Some(Value::Bool(true)) => Answer::Approve(message),
            Some(Value::Bool(false)) => Answer::Reject(message),
            _ => Answer::None("The client's answer had no `approve` value.".into()),
        },
        ElicitationAction::Decline => Answer::Reject(message),
        ElicitationAction::Cancel => Answer::None("The user dismissed the question.".into()),
        _ => Answer::None("The client's answer was not accept, decline or cancel.".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(annotations: Value) -> Tool {
        serde_json::from_value(json!({
            "name": "rm", "description": "remove a file",
            "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
            "annotations": annotations,
        }))
        .unwrap()
    }

    #[test]
    fn annotations_map_onto_risk_and_tags() {
        let i = tool_info(&tool(
            json!({"destructiveHint": true, "openWorldHint": true}),
        ));
        assert_eq!(i.risk.as_deref(), Some("high"));
        assert_eq!(i.tags, ["destructive", "open-world"]);
        assert_eq!(i.description.as_deref(), Some("remove a file"));
        assert!(i.parameters_schema.unwrap().get().contains("\"path\""));
        let i = tool_info(&tool(
            json!({"readOnlyHint": true, "destructiveHint": true, "idempotentHint": true}),
        ));
        assert_eq!(i.risk.as_deref(), Some("low"));
        assert_eq!(i.tags, ["read-only", "idempotent"]);
        let i = tool_info(&tool(json!({"destructiveHint": false})));
        assert_eq!((i.risk, i.tags.len()), (None, 0));
    }

    #[test]
    fn a_call_without_arguments_is_an_empty_object_and_a_bad_one_is_refused() {
        let r = call_request("rm", None, None, CallContext::default()).unwrap();
        assert_eq!(r.call.arguments.get(), "{}");
        assert!(call_request("rm", Some(&json!([1])), None, CallContext::default()).is_err());
        assert!(call_request("", None, None, CallContext::default()).is_err());
    }

    #[test]
    fn a_refusal_is_a_tool_error_with_the_reason() {
        let v = refusal("no".into());
        assert_eq!(v["isError"], json!(true));
        assert_eq!(v["content"][0], json!({"type": "text", "text": "no"}));
    }

    #[test]
    fn only_an_explicit_approve_true_approves() {
        let r = |result: Value| answer(&json!({"jsonrpc": "2.0", "id": "x", "result": result}));
        assert_eq!(
            r(json!({"action": "accept", "content": {"approve": true, "message": " ok "}})),
            Answer::Approve(Some("ok".into()))
        );
        assert_eq!(
            r(json!({"action": "accept", "content": {"approve": false}})),
            Answer::Reject(None)
        );
        assert_eq!(r(json!({"action": "decline"})), Answer::Reject(None));
        for bad in [
            json!({"action": "accept", "content": {"approve": "true"}}),
            json!({"action": "accept"}),
            json!({"action": "cancel", "content": {"approve": true}}),
            json!({"action": "yes"}),
            json!("accept"),
        ] {
            assert!(matches!(r(bad.clone()), Answer::None(_)), "{bad}");
        }
        assert!(matches!(
            answer(&json!({"jsonrpc": "2.0", "id": "x", "error": {"code": -1, "message": "no ui"}})),
            Answer::None(m) if m.contains("no ui")
        ));
    }

    #[test]
    fn the_question_names_the_tool_the_arguments_and_the_request() {
        let call = CallRequest::new("deploy", &json!({"env": "x".repeat(5000)}))
            .unwrap()
            .call;
        let verdict: Verdict = serde_json::from_value(json!({
            "decision": "escalate", "rule": "policy.requires-approval", "reason": "deploys need a person.",
            "approval": {"id": "apr_1", "status": "pending", "created_at": "2026-12-01T00:00:00Z", "expires_at": "2026-12-01T01:00:00Z", "escalations": []},
            "checks": [], "duration_us": 0
        }))
        .unwrap();
        let p = elicitation(&call, &verdict);
        assert_eq!(p["mode"], "form");
        let m = p["message"].as_str().unwrap();
        assert!(
            m.contains("Tool: deploy")
                && m.contains("apr_1")
                && m.contains("[policy.requires-approval]"),
            "{m}"
        );
        assert!(m.len() < 2300, "{}", m.len());
        assert_eq!(p["requestedSchema"]["required"], json!(["approve"]));
        assert_eq!(
            p["requestedSchema"]["properties"]["approve"]["type"],
            "boolean"
        );
    }

    #[test]
    fn only_this_calls_state_with_an_answer_settles_a_round_trip() {
        let call = |params: Value| json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params});
        let accept = json!({INPUT_KEY: {"action": "accept", "content": {"approve": true}}});
        assert_eq!(
            round_trip(&call(json!({"name": "deploy"})), "tv1.a"),
            RoundTrip::Ask
        );
        // A state of the server's own (not toolvet's) is not an answer to toolvet.
        let theirs = call(json!({"requestState": "opaque", "inputResponses": accept}));
        assert_eq!(round_trip(&theirs, "tv1.a"), RoundTrip::Ask);
        let ours = call(json!({"requestState": "toolvet:tv1.a", "inputResponses": accept}));
        assert_eq!(
            round_trip(&ours, "tv1.a"),
            RoundTrip::Answered(Answer::Approve(None))
        );
        // Another call's (or a forged) state never approves.
        let RoundTrip::Answered(Answer::None(why)) = round_trip(&ours, "tv1.b") else {
            panic!("another call's state settled the call");
        };
        assert!(why.contains("not about this call"), "{why}");
        let silent = call(json!({"requestState": "toolvet:tv1.a"}));
        assert_eq!(
            round_trip(&silent, "tv1.a"),
            RoundTrip::Answered(Answer::None("The client sent no answer.".into()))
        );
        let held = CallRequest::new("deploy", &json!({})).unwrap().call;
        let verdict: Verdict = serde_json::from_value(json!({
            "decision": "escalate", "rule": "policy.requires-approval", "reason": "deploys need a person.",
            "checks": [], "duration_us": 0
        }))
        .unwrap();
        let asked = input_required(&held, &verdict, "tv1.a");
        assert_eq!(asked["requestState"], "toolvet:tv1.a");
        assert_eq!(asked["resultType"], "input_required");
        assert_eq!(
            asked["inputRequests"][INPUT_KEY]["method"],
            "elicitation/create"
        );
    }

    #[test]
    fn the_server_gets_the_call_without_toolvets_round_trip() {
        let raw = json!({"params": {"name": "deploy", "requestState": "toolvet:tv1.a",
            "inputResponses": {INPUT_KEY: {"action": "accept"}, "theirs": {"action": "decline"}}}});
        assert_eq!(
            without_round_trip(raw),
            json!({"params": {"name": "deploy", "inputResponses": {"theirs": {"action": "decline"}}}})
        );
        let raw = json!({"params": {"name": "deploy", "requestState": "toolvet:tv1.a",
            "inputResponses": {INPUT_KEY: {"action": "accept"}}}});
        assert_eq!(
            without_round_trip(raw),
            json!({"params": {"name": "deploy"}})
        );
        let theirs = json!({"params": {"name": "deploy", "requestState": "opaque"}});
        assert_eq!(without_round_trip(theirs.clone()), theirs);
    }
}
