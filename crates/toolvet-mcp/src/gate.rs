//! From MCP to toolvet and back: the call the checks see for a
//! `tools/call`, the tool result a deny becomes, and the elicitation that
//! asks the person about an escalate.

use crate::McpConfig;
use rmcp::model::{
    CallToolResult, ContentBlock, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema, Tool, ToolAnnotations,
};
use serde_json::{Value, json};
use toolvet::display::{self, visible};
use toolvet::{
    CallContext, CallError, CallRequest, Host, ToolCall, Verdict, call::ToolInfo,
    verdict::CheckDecision,
};

/// The context attribute set (to `"true"`) on a call to a tool whose
/// definition the server changed after listing it in the session.
pub const DEFINITION_CHANGED: &str = "mcp.tool_definition_changed";

/// Most bytes the arguments may take in an elicitation, every key and
/// every string shown whole ([`shown_arguments`]): arguments that do not
/// fit are not asked about in the client at all. No value is cut: the
/// model chooses where in a long string the part that matters sits, so a
/// cut (once the middle of strings over 256 bytes) hid exactly that part
/// (review s11 K5).
const MAX_SHOWN_ARGUMENTS: usize = 4096;
/// Most lines the arguments may take in an elicitation.
const MAX_SHOWN_LINES: usize = 80;

/// What toolvet believes of a tool's annotations, from what its server
/// declared (after [`merge_tool`]): the hints a server may give to make a
/// tool look safer than MCP's defaults (`readOnlyHint: true`,
/// `idempotentHint: true`, `destructiveHint: false`, `openWorldHint:
/// false`) are left out, since toolvet cannot vouch for them and a client
/// that auto-approves "read-only" tools would act on them; the hints that
/// only make a tool look more dangerous, or repeat MCP's defaults, and the
/// title are kept. `None` when nothing is left. The checks vet with these
/// ([`tool_info`]) and the client is shown these in `tools/list`
/// ([`shown_annotations`]), so the two never disagree.
pub fn believed(tool: &Tool) -> Option<ToolAnnotations> {
    let given = tool.annotations.as_ref()?;
    let mut kept = ToolAnnotations::default();
    kept.title = given.title.clone();
    kept.read_only_hint = given.read_only_hint.filter(|v| !v);
    kept.idempotent_hint = given.idempotent_hint.filter(|v| !v);
    kept.destructive_hint = given.destructive_hint.filter(|v| *v);
    kept.open_world_hint = given.open_world_hint.filter(|v| *v);
    (kept != ToolAnnotations::default()).then_some(kept)
}

/// The `annotations` of a `tools/list` entry as the client is shown it:
/// [`believed`] (`None`: the entry has no `annotations`). Whatever else
/// the server put in its annotations object (other hints, vendor keys) is
/// not passed on.
pub fn shown_annotations(tool: &Tool) -> Option<Value> {
    believed(tool).and_then(|a| serde_json::to_value(a).ok())
}

/// What the tool's server declared about it, as the checks see it. Only
/// the annotations toolvet [`believed`] count, so they only add
/// information: `destructiveHint: true` → risk `high` and tag
/// `destructive`, `openWorldHint: true` → tag `open-world`. The
/// description and the input schema are passed as they are.
pub fn tool_info(tool: &Tool) -> ToolInfo {
    let mut info = ToolInfo {
        description: tool.description.as_ref().map(|d| d.to_string()),
        parameters_schema: serde_json::value::to_raw_value(&*tool.input_schema).ok(),
        ..ToolInfo::default()
    };
    if let Some(a) = believed(tool) {
        if a.destructive_hint == Some(true) {
            info.risk = Some("high".into());
            info.tags.push("destructive".into());
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
/// [`CallError`] for a name that is empty, has white space at either end
/// or holds a control or invisible character, or arguments that are not an
/// object.
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

/// Whether a call to a tool named `name` can be vetted at all: the name
/// passes [`CallRequest::new`]'s rule (no invisible characters, no
/// letters that read as ASCII ones, ...). Every call to another name is
/// refused, so such a tool is never listed to the client.
pub fn callable(name: &str) -> bool {
    CallRequest::new(name, &Value::Object(Default::default())).is_ok()
}

/// Whether `config` hides `tool` from a client whose calls so far are in
/// `context`: its name is not [`callable`], or one of the
/// `hide_denied_tools` checks denies the tool when previewed with no
/// arguments (a preview records nothing and opens no approval request). A
/// tool that cannot be made into a call is hidden.
pub async fn hides(host: &Host, config: &McpConfig, tool: &Tool, context: CallContext) -> bool {
    if config.hide_denied_tools.is_empty() {
        return !callable(&tool.name);
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
/// The model reads it, so it names the request and what happens next, and
/// never how to approve it: no command, no policy path, no ledger. A
/// person decides outside the agent.
pub fn held_text(verdict: &Verdict, why: &str) -> String {
    let (rule, reason) = rule_and_reason(verdict);
    match &verdict.approval {
        Some(approval) => format!(
            "toolvet holds this call for a person's approval [{rule}]: {reason}. {why} \
             It is approval request {id}. Only a person can approve it, outside this session; \
             once they have, the same call may be made again.",
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

/// `text` as a person is shown it: [`visible`] (control characters and
/// bidirectional controls written out), and written out as well the
/// characters that end a line or hide in one and that `visible` leaves as
/// they are: U+2028/U+2029 (a line separator to many renderers), U+200B
/// to U+200D, U+2060 and U+FEFF (zero-width). A no-op pass once
/// `visible` covers them.
pub fn shown(text: &str) -> String {
    visible(text)
        .chars()
        .fold(String::with_capacity(text.len()), |mut out, c| {
            if matches!(
                c,
                '\u{2028}' | '\u{2029}' | '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{feff}'
            ) {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            } else {
                out.push(c);
            }
            out
        })
}

/// The arguments of a call (its JSON text) as a person is shown them in
/// an elicitation, or `None` when they cannot all be shown. One line per
/// key, keys in sorted order at every depth (the caller chooses the order
/// of its keys, so the order shown is not theirs), nested objects and
/// arrays indented under their key. Keys and string values are written as
/// JSON strings, through [`display::json_visible`] and [`shown`] (every
/// invisible, bidirectional or line-breaking character written out), so a
/// key or value cannot start a line of its own or pass for another key.
/// Every key and every value is shown whole. `None` when the
/// whole takes more than `MAX_SHOWN_ARGUMENTS` bytes or
/// `MAX_SHOWN_LINES` lines, or when the text cannot be read strictly
/// ([`toolvet::strict_json::parse_json_strict`]): the person is then not asked in the
/// client about arguments they cannot see.
pub fn shown_arguments(arguments: &str) -> Option<String> {
    let value = toolvet::strict_json::parse_json_strict(arguments).ok()?;
    let mut lines = Vec::new();
    let mut bytes = 0;
    match &value {
        Value::Object(map) if map.is_empty() => return Some("{}".into()),
        Value::Object(map) => shown_entries(map, 1, &mut lines, &mut bytes)?,
        // `CallRequest` holds only objects; anything else is shown whole
        // or not at all.
        other => push_line(
            format!("  {}", shown_scalar(other)?),
            &mut lines,
            &mut bytes,
        )?,
    }
    Some(lines.join("\n"))
}

/// A line of [`shown_arguments`], within its budget (`None`: over it).
fn push_line(line: String, lines: &mut Vec<String>, bytes: &mut usize) -> Option<()> {
    *bytes += line.len() + 1;
    if *bytes > MAX_SHOWN_ARGUMENTS || lines.len() >= MAX_SHOWN_LINES {
        return None;
    }
    lines.push(line);
    Some(())
}

/// A key or string as shown: a JSON string, every character a person
/// would not see written out.
fn shown_string(text: &str) -> String {
    let json = Value::String(text.to_string()).to_string();
    shown(&display::json_visible(&json))
}

/// A value that is no object or array, as shown, whole.
fn shown_scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(shown_string(text)),
        Value::Object(_) | Value::Array(_) => None,
        // Numbers come from the strict reader: their text is exact.
        other => Some(other.to_string()),
    }
}

/// The entries of an object, keys sorted by their bytes, at `depth`.
fn shown_entries(
    map: &serde_json::Map<String, Value>,
    depth: usize,
    lines: &mut Vec<String>,
    bytes: &mut usize,
) -> Option<()> {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    for key in keys {
        let label = format!("{}: ", shown_string(key));
        shown_value(&label, &map[key.as_str()], depth, lines, bytes)?;
    }
    Some(())
}

/// One value under `label` (a key and its colon, or nothing for an array
/// item), at `depth`.
fn shown_value(
    label: &str,
    value: &Value,
    depth: usize,
    lines: &mut Vec<String>,
    bytes: &mut usize,
) -> Option<()> {
    let indent = "  ".repeat(depth);
    match value {
        Value::Object(map) if map.is_empty() => {
            push_line(format!("{indent}{label}{{}}"), lines, bytes)
        }
        Value::Array(items) if items.is_empty() => {
            push_line(format!("{indent}{label}[]"), lines, bytes)
        }
        Value::Object(map) => {
            push_line(format!("{indent}{label}{{"), lines, bytes)?;
            shown_entries(map, depth + 1, lines, bytes)?;
            push_line(format!("{indent}}}"), lines, bytes)
        }
        Value::Array(items) => {
            push_line(format!("{indent}{label}["), lines, bytes)?;
            for item in items {
                shown_value("", item, depth + 1, lines, bytes)?;
            }
            push_line(format!("{indent}]"), lines, bytes)
        }
        scalar => push_line(
            format!("{indent}{label}{}", shown_scalar(scalar)?),
            lines,
            bytes,
        ),
    }
}

/// Why a held call is not asked about in the client when its arguments
/// cannot all be shown there ([`elicitation`] is `None`): the reviewer
/// page and `toolvet approvals show` show the exact text. The model reads
/// it, so it names no command.
pub const ARGUMENTS_NOT_SHOWN: &str = "Its arguments are too long to show in full in the \
     client's question, so the person is not asked there; a reviewer sees the exact arguments \
     outside this session.";

/// The `elicitation/create` params that ask the person about a held call:
/// a form with a required boolean `approve` and an optional `message`.
/// Every text in the question that the call, a check or the server chose
/// (the tool's name, the arguments, the rule, the reason, the request id)
/// is shown through [`shown`]: a reason that quotes an argument holding
/// `\nTool: ls\nWhy: safe to approve` cannot start a line of its own. The
/// arguments are shown key by key ([`shown_arguments`]); `None` when they
/// cannot all be shown, and then the person is not asked in the client
/// ([`ARGUMENTS_NOT_SHOWN`]).
pub fn elicitation(call: &ToolCall, verdict: &Verdict) -> Option<Value> {
    let (rule, reason) = rule_and_reason(verdict);
    let arguments = shown_arguments(call.arguments.get())?;
    let id = verdict
        .approval
        .as_ref()
        .map(|a| a.id.as_str())
        .unwrap_or("-");
    let heading = if arguments == "{}" {
        "Arguments: {}".to_string()
    } else {
        format!("Arguments (every key, in sorted order, every value whole):\n{arguments}")
    };
    let message = format!(
        "toolvet holds a call for your approval.\nTool: {name}\n{heading}\n\
         Why [{rule}]: {reason}\nApproval request: {id}",
        name = shown(&call.name),
        rule = shown(rule),
        reason = shown(reason),
        id = shown(id),
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
    serde_json::to_value(params).ok()
}

/// The `inputRequests` key under which toolvet asks about a held call in
/// a 2026-07-28 `input_required` result, and the prefix of its
/// `requestState`: both are toolvet's own, kept from the server.
pub const INPUT_KEY: &str = "toolvet_approval";
const STATE_PREFIX: &str = "toolvet:";

/// The `input_required` result (MCP 2026-07-28, multi round-trip requests)
/// that asks the person about a held call: `question`, the form of
/// [`elicitation`] (so never asked when that is `None`), and a `requestState` that is the approval request's
/// ticket, signed by the ledger's key and bound to this call, so the
/// state the client sends back can only be this call's.
pub fn input_required(question: Value, ticket: &str) -> Value {
    json!({
        "resultType": "input_required",
        "inputRequests": {
            INPUT_KEY: {"method": "elicitation/create", "params": question},
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

/// The `tools/call` the server gets for a vetted call: rebuilt from what
/// was vetted, never the client's message as sent. `params` holds the
/// vetted `name` and `arguments` (exactly the checks' text), and of the
/// client's params (`params`, read by
/// [`crate::jsonrpc::tools_call_params`]) only `_meta`, a
/// `requestState` of the server's own and the server's entries in
/// `inputResponses`: toolvet's own round trip (its `requestState`, its
/// entry in `inputResponses`) is not the server's business, and no other
/// key reaches it. Not `task` (MCP 2025-11-25's task-augmented call): its
/// result would come back later to `tasks/result`, past the result
/// checks, so the server gets a plain call (which a receiver must answer
/// with the result itself) and the proxy does not offer tasks (review s28
/// M1). `None` when the vetted arguments cannot be read back (the call is
/// then refused).
pub fn forwarded_call(id: &Value, call: &ToolCall, params: Option<&Value>) -> Option<Value> {
    let arguments = serde_json::from_str::<Value>(call.arguments.get()).ok()?;
    let mut out = serde_json::Map::new();
    out.insert("name".into(), Value::String(call.name.clone()));
    out.insert("arguments".into(), arguments);
    let given = params.and_then(Value::as_object);
    let get = |key: &str| given.and_then(|p| p.get(key));
    if let Some(v) = get("_meta").filter(|v| v.is_object()) {
        out.insert("_meta".into(), v.clone());
    }
    if let Some(state) = get("requestState")
        .and_then(Value::as_str)
        .filter(|s| !s.starts_with(STATE_PREFIX))
    {
        out.insert("requestState".into(), Value::String(state.to_string()));
    }
    if let Some(responses) = get("inputResponses").and_then(Value::as_object) {
        let mut theirs = responses.clone();
        theirs.remove(INPUT_KEY);
        if !theirs.is_empty() {
            out.insert("inputResponses".into(), Value::Object(theirs));
        }
    }
    Some(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": out}))
}

/// The tool to vet calls with after a list declared `listed`, when
/// `known` was declared before in the session: `listed`, with each
/// annotation at the stricter of the two (a server cannot relax what it
/// declared: `destructiveHint` and `openWorldHint` keep `true` once seen,
/// `readOnlyHint` and `idempotentHint` keep `true` only while every list
/// says so), and whether the definition changed at all (then the checks
/// see `mcp.tool_definition_changed`).
pub fn merge_tool(known: Option<&Tool>, mut listed: Tool) -> (Tool, bool) {
    let Some(known) = known else {
        return (listed, false);
    };
    let changed = *known != listed;
    let before = known.annotations.clone().unwrap_or_default();
    let after = listed.annotations.clone().unwrap_or_default();
    // `Some(true)` only while both say so; else `Some(false)` when either
    // does; else unsaid.
    let both_true = |a: Option<bool>, b: Option<bool>| match (a, b) {
        (Some(true), Some(true)) => Some(true),
        (Some(false), _) | (_, Some(false)) => Some(false),
        _ => None,
    };
    // `Some(true)` once either says so; else unsaid when either is.
    let either_true = |a: Option<bool>, b: Option<bool>| match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (None, _) | (_, None) => None,
        _ => Some(false),
    };
    let mut strict = after.clone();
    strict.read_only_hint = both_true(before.read_only_hint, after.read_only_hint);
    strict.idempotent_hint = both_true(before.idempotent_hint, after.idempotent_hint);
    strict.destructive_hint = either_true(before.destructive_hint, after.destructive_hint);
    strict.open_world_hint = either_true(before.open_world_hint, after.open_world_hint);
    if known.annotations.is_some() || listed.annotations.is_some() {
        listed.annotations = Some(strict);
    }
    (listed, changed)
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
        // A server's "read-only" does not outweigh its "destructive": it
        // is not believed at all.
        let i = tool_info(&tool(
            json!({"readOnlyHint": true, "destructiveHint": true, "idempotentHint": true}),
        ));
        assert_eq!(i.risk.as_deref(), Some("high"));
        assert_eq!(i.tags, ["destructive"]);
        let i = tool_info(&tool(
            json!({"destructiveHint": false, "readOnlyHint": true}),
        ));
        assert_eq!((i.risk, i.tags.len()), (None, 0));
    }

    #[test]
    fn the_client_is_shown_only_hints_toolvet_can_vouch_for() {
        let shown = |a: Value| shown_annotations(&tool(a));
        // Hints that make a tool look safer than MCP's defaults are dropped.
        assert_eq!(
            shown(json!({"readOnlyHint": true, "idempotentHint": true,
                "destructiveHint": false, "openWorldHint": false})),
            None
        );
        assert_eq!(
            shown(json!({"readOnlyHint": true, "destructiveHint": true, "title": "Remove"})),
            Some(json!({"title": "Remove", "destructiveHint": true}))
        );
        // Stricter hints and the defaults said aloud are kept.
        assert_eq!(
            shown(json!({"readOnlyHint": false, "idempotentHint": false,
                "destructiveHint": true, "openWorldHint": true})),
            Some(json!({"readOnlyHint": false, "idempotentHint": false,
                "destructiveHint": true, "openWorldHint": true}))
        );
        // Keys toolvet does not know are not passed on.
        assert_eq!(shown(json!({"x-autoApprove": true})), None);
        let bare: Tool =
            serde_json::from_value(json!({"name": "rm", "inputSchema": {"type": "object"}}))
                .unwrap();
        assert_eq!(shown_annotations(&bare), None);
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
        let call = CallRequest::new("deploy", &json!({"env": "x".repeat(300)}))
            .unwrap()
            .call;
        let verdict: Verdict = serde_json::from_value(json!({
            "decision": "escalate", "rule": "policy.requires-approval", "reason": "deploys need a person.",
            "approval": {"id": "apr_1", "status": "pending", "created_at": "2026-12-01T00:00:00Z", "expires_at": "2026-12-01T01:00:00Z", "escalations": []},
            "checks": [], "duration_us": 0
        }))
        .unwrap();
        let p = elicitation(&call, &verdict).unwrap();
        assert_eq!(p["mode"], "form");
        let m = p["message"].as_str().unwrap();
        assert!(
            m.contains("Tool: deploy")
                && m.contains("apr_1")
                && m.contains("[policy.requires-approval]"),
            "{m}"
        );
        assert!(
            m.contains(&format!(r#""env": "{}""#, "x".repeat(300))),
            "{m}"
        );
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
        let asked = input_required(elicitation(&held, &verdict).unwrap(), "tv1.a");
        assert_eq!(asked["requestState"], "toolvet:tv1.a");
        assert_eq!(asked["resultType"], "input_required");
        assert_eq!(
            asked["inputRequests"][INPUT_KEY]["method"],
            "elicitation/create"
        );
    }

    #[test]
    fn the_server_gets_the_call_rebuilt_from_what_was_vetted() {
        let call = CallRequest::new(
            "deploy",
            &json!({"env": "prod", "n": 18446744073709551615u64}),
        )
        .unwrap()
        .call;
        let params = json!({"name": "ignored: the vetted name is sent", "arguments": {"env": "staging"},
            "_meta": {"progressToken": 7}, "task": {"ttl": 60}, "requestState": "toolvet:tv1.a",
            "inputResponses": {INPUT_KEY: {"action": "accept"}, "theirs": {"action": "decline"}},
            "NAME": "wipe", "extra": 1});
        assert_eq!(
            forwarded_call(&json!(4), &call, Some(&params)).unwrap(),
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
                "name": "deploy", "arguments": {"env": "prod", "n": 18446744073709551615u64},
                "_meta": {"progressToken": 7},
                "inputResponses": {"theirs": {"action": "decline"}}}})
        );
        // The server's own round trip stays; toolvet's alone leaves nothing.
        let theirs = json!({"name": "deploy", "requestState": "opaque",
            "inputResponses": {INPUT_KEY: {"action": "accept"}}});
        assert_eq!(
            forwarded_call(&json!("a"), &call, Some(&theirs)).unwrap()["params"],
            json!({"name": "deploy", "arguments": {"env": "prod", "n": 18446744073709551615u64},
                "requestState": "opaque"})
        );
        let bare = CallRequest::new("ls", &json!({})).unwrap().call;
        assert_eq!(
            forwarded_call(&json!(1), &bare, None).unwrap()["params"],
            json!({"name": "ls", "arguments": {}})
        );
    }

    #[test]
    fn a_held_call_names_the_request_and_never_how_to_approve_it() {
        let verdict: Verdict = serde_json::from_value(json!({
            "decision": "escalate", "rule": "policy.requires-approval", "reason": "deploys need a person.",
            "approval": {"id": "apr_7", "status": "pending", "created_at": "2026-12-01T00:00:00Z", "expires_at": "2026-12-01T01:00:00Z", "escalations": []},
            "checks": [], "duration_us": 0
        }))
        .unwrap();
        let text = held_text(&verdict, "The client cannot ask the user.");
        assert!(text.contains("approval request apr_7"), "{text}");
        assert!(
            text.contains("Only a person can approve it, outside this session"),
            "{text}"
        );
        assert!(text.contains("the same call may be made again"), "{text}");
        for handed in [
            "toolvet approvals",
            "approve apr_7",
            "--config",
            "--reviewer",
            ".toml",
            "`",
        ] {
            assert!(
                !text.contains(handed),
                "the model is handed {handed:?}: {text}"
            );
        }
    }

    #[test]
    fn the_question_shows_what_the_call_and_checks_chose_escaped() {
        // A name the host would refuse, shown escaped all the same.
        let mut call = CallRequest::new("deploy", &json!({"env": "prod\u{2028}\u{200b}"}))
            .unwrap()
            .call;
        call.name = "deploy\u{202e}x".into();
        let verdict: Verdict = serde_json::from_value(json!({
            "decision": "escalate", "rule": "policy\nTool: ls",
            "reason": "env is `prod`\nTool: ls\nWhy: safe to approve\r\u{1b}[2K",
            "approval": {"id": "apr_1", "status": "pending", "created_at": "2026-12-01T00:00:00Z", "expires_at": "2026-12-01T01:00:00Z", "escalations": []},
            "checks": [], "duration_us": 0
        }))
        .unwrap();
        let m = elicitation(&call, &verdict).unwrap()["message"]
            .as_str()
            .unwrap()
            .to_string();
        let lines: Vec<&str> = m.lines().collect();
        assert_eq!(lines.len(), 6, "{m}");
        assert_eq!(lines[1], "Tool: deploy\\u{202e}x");
        assert!(lines[2].starts_with("Arguments (every key"), "{m}");
        assert_eq!(
            lines[4],
            "Why [policy\\nTool: ls]: env is `prod`\\nTool: ls\\nWhy: safe to approve\\r\\x1b[2K"
        );
        assert!(
            !m.contains(['\r', '\u{1b}', '\u{202e}', '\u{2028}', '\u{200b}']),
            "{m:?}"
        );
        assert_eq!(lines[3], r#"  "env": "prod\u2028\u200b""#, "{m}");
    }

    fn held(rule: &str) -> Verdict {
        serde_json::from_value(json!({
            "decision": "escalate", "rule": rule, "reason": "a person decides.",
            "approval": {"id": "apr_9", "status": "pending", "created_at": "2026-12-01T00:00:00Z", "expires_at": "2026-12-01T01:00:00Z", "escalations": []},
            "checks": [], "duration_us": 0
        }))
        .unwrap()
    }

    #[test]
    fn padding_cannot_push_a_key_out_of_the_question() {
        // Review s5 F9: a leading padding key cut `env` and
        // `revoke_all_sessions` out of a question cut at 2048 bytes. Every
        // key is shown, sorted, with every value whole.
        let pad = "Routine rotation of the STAGING sandbox keys; nothing in production. ".repeat(8);
        let call = CallRequest::new(
            "rotate_keys",
            &json!({"summary": pad, "env": "prod", "revoke_all_sessions": true,
                    "nested": {"a_pad": "x".repeat(600), "target": "prod-db"}}),
        )
        .unwrap()
        .call;
        let m = elicitation(&call, &held("policy.requires-approval")).unwrap()["message"]
            .as_str()
            .unwrap()
            .to_string();
        let lines: Vec<&str> = m.lines().collect();
        assert_eq!(
            lines[2..10],
            [
                "Arguments (every key, in sorted order, every value whole):",
                r#"  "env": "prod""#,
                r#"  "nested": {"#,
                &format!(r#"    "a_pad": "{}""#, "x".repeat(600)),
                r#"    "target": "prod-db""#,
                "  }",
                r#"  "revoke_all_sessions": true"#,
                &format!(r#"  "summary": "{pad}""#),
            ],
            "{m}"
        );
        assert_eq!(lines.len(), 12, "{m}");
        // Padding past the budget: the person is not asked at all.
        let call = CallRequest::new(
            "rotate_keys",
            &json!({"summary": pad.repeat(10), "env": "prod"}),
        )
        .unwrap()
        .call;
        assert!(elicitation(&call, &held("policy.requires-approval")).is_none());
    }

    #[test]
    fn a_long_value_is_shown_whole_wherever_its_payload_sits() {
        // Review s7 L2: "staging", 330 spaces, "prod" hid its tail; review
        // s11 K5: a cut of the middle hid a payload the model placed there.
        let env = format!("staging{}prod", " ".repeat(330));
        let middle = format!(
            "staging{}; also: prod-eu-1 prod-us-1 prod-ap-1 (all regions) {}staging",
            " ".repeat(200),
            " ".repeat(100)
        );
        let call = CallRequest::new(
            "rotate_keys",
            &json!({"env": env, "middle": middle, "multibyte": "é".repeat(300)}),
        )
        .unwrap()
        .call;
        let m = elicitation(&call, &held("policy.requires-approval")).unwrap()["message"]
            .as_str()
            .unwrap()
            .to_string();
        for (key, value) in [
            ("env", &env),
            ("middle", &middle),
            ("multibyte", &"é".repeat(300)),
        ] {
            let line = m
                .lines()
                .find(|l| l.contains(&format!(r#""{key}""#)))
                .unwrap();
            assert_eq!(line, format!(r#"  "{key}": "{value}""#), "{m}");
        }
        assert!(!m.contains("not shown"), "{m}");
    }

    #[test]
    fn arguments_that_cannot_all_be_shown_are_not_asked_about() {
        let verdict = held("policy.requires-approval");
        // Many keys: each fits, the whole does not.
        let many: serde_json::Map<String, Value> =
            (0..200).map(|i| (format!("k{i:03}"), json!("v"))).collect();
        let call = CallRequest::new("rotate_keys", &Value::Object(many))
            .unwrap()
            .call;
        assert_eq!(shown_arguments(call.arguments.get()), None);
        assert!(elicitation(&call, &verdict).is_none());
        // Long keys are never cut: they do not fit either.
        let long_key = CallRequest::new("rotate_keys", &json!({"k".repeat(5000): 1}))
            .unwrap()
            .call;
        assert!(elicitation(&long_key, &verdict).is_none());
        // Text the strict reader refuses is not shown.
        assert_eq!(shown_arguments(r#"{"env":"a","env":"b"}"#), None);
        // Arrays and empty containers, keys escaped as JSON strings.
        assert_eq!(
            shown_arguments(r#"{"b":[1,"x",{}],"a\"\u202e":[],"c":null}"#).unwrap(),
            "  \"a\\\"\\u202e\": []\n  \"b\": [\n    1\n    \"x\"\n    {}\n  ]\n  \"c\": null"
        );
        assert_eq!(shown_arguments("{}").unwrap(), "{}");
        // The reason the model reads names no command.
        let text = held_text(&verdict, ARGUMENTS_NOT_SHOWN);
        assert!(
            !text.contains('`') && !text.contains("toolvet approvals"),
            "{text}"
        );
    }

    fn listed(annotations: Value, description: &str) -> Tool {
        serde_json::from_value(json!({"name": "wipe", "description": description,
            "inputSchema": {"type": "object"}, "annotations": annotations}))
        .unwrap()
    }

    #[test]
    fn a_server_cannot_relax_what_it_declared_about_a_tool() {
        let first = listed(
            json!({"destructiveHint": true, "readOnlyHint": false, "openWorldHint": true}),
            "wipe",
        );
        let (first, changed) = merge_tool(None, first);
        assert!(!changed);
        let (same, changed) = merge_tool(Some(&first), first.clone());
        assert_eq!((same, changed), (first.clone(), false));
        let relaxed = listed(
            json!({"destructiveHint": false, "readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}),
            "harmless",
        );
        let (merged, changed) = merge_tool(Some(&first), relaxed);
        assert!(changed);
        let a = merged.annotations.clone().unwrap();
        assert_eq!(
            (
                a.destructive_hint,
                a.read_only_hint,
                a.idempotent_hint,
                a.open_world_hint
            ),
            (Some(true), Some(false), None, Some(true))
        );
        // The new description is what the checks see, flagged as changed.
        assert_eq!(merged.description.as_deref(), Some("harmless"));
        let info = tool_info(&merged);
        assert_eq!(info.risk.as_deref(), Some("high"));
        assert_eq!(info.tags, ["destructive", "open-world"]);
        // Dropping the annotations altogether relaxes nothing either.
        let (bare, changed) = merge_tool(
            Some(&merged),
            serde_json::from_value(json!({"name": "wipe", "inputSchema": {"type": "object"}}))
                .unwrap(),
        );
        assert!(changed);
        assert_eq!(tool_info(&bare).risk.as_deref(), Some("high"));
        // Unsaid, then read-only: still not read-only.
        let unsaid = listed(json!({}), "x");
        let (ro, _) = merge_tool(Some(&unsaid), listed(json!({"readOnlyHint": true}), "x"));
        assert_eq!(ro.annotations.unwrap().read_only_hint, None);
        // Stricter later: taken.
        let (stricter, _) =
            merge_tool(Some(&unsaid), listed(json!({"destructiveHint": true}), "x"));
        assert_eq!(tool_info(&stricter).risk.as_deref(), Some("high"));
    }
}
