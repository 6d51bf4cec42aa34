//! What an MCP server tells the model outside a tool's result: the
//! `instructions` of its `initialize` answer, and the names, titles,
//! descriptions and schemas of the tools, prompts and resources it lists.
//! The client hands these to the model as they are, so a server can carry
//! an injected instruction in them as well as in a result (review s29 F4).
//!
//! They are vetted by the policy's result checks as the output of a call
//! named by the method (`initialize`, `tools/list`, ...): all of an
//! answer's result at once (every key and string: entries, schemas,
//! `capabilities`, `_meta`, `nextCursor`), so one check run per answer;
//! when it is not passed whole, each entry alone and the rest of the
//! result alone, and what is withheld or masked is left out (the
//! `instructions`, a neutral `serverInfo`, the listed entry, or the rest's
//! [`OPTIONAL`] keys; a rest that still does not pass makes the answer an
//! error). The labels the text raised (an injection's destinations) are
//! the run's, as a result's are.
//!
//! What the server sends of its own accord is vetted the same way, each
//! message whole ([`vet_message`]): its requests to the client
//! (`sampling/createMessage` hands its messages and system prompt to a
//! model) and its notifications (log messages, progress messages), which
//! a client may show the model.

use serde_json::Value;
use toolvet::tool_result::RunLabel;
use toolvet::tool_result::{ResultAction, ResultContent, ToolResult};
use toolvet::{CallContext, Host};

/// The answers whose text is vetted, and where their entries are: the
/// keys of the result's object that are entries (`initialize`'s and
/// `server/discover`'s `instructions` and `serverInfo`), or a pointer to
/// an array of entries.
const VETTED: &[(&str, Entries)] = &[
    ("initialize", Entries::Keys(&["instructions", "serverInfo"])),
    (
        "server/discover",
        Entries::Keys(&["instructions", "serverInfo"]),
    ),
    ("tools/list", Entries::List("/result/tools")),
    ("prompts/list", Entries::List("/result/prompts")),
    ("resources/list", Entries::List("/result/resources")),
    (
        "resources/templates/list",
        Entries::List("/result/resourceTemplates"),
    ),
];

/// Where an answer's entries are.
#[derive(Debug, Clone, Copy)]
enum Entries {
    /// These keys of the result object, each an entry.
    Keys(&'static [&'static str]),
    /// Each element of the array at this pointer.
    List(&'static str),
}

/// The keys (JSON pointers under the result) of an answer's rest that a
/// client does without (review s29 C2): left out when the rest does not
/// pass.
const OPTIONAL: &[&str] = &["/_meta", "/nextCursor", "/capabilities/experimental"];

/// The JSON-RPC error code of an answer whose text was refused whole
/// (an internal error: the server's answer cannot be passed on).
const REFUSED_CODE: i64 = -32603;

/// What is left of a `serverInfo` that did not pass: the fields MCP
/// requires, neutral.
fn neutral_server_info() -> Value {
    serde_json::json!({"name": "mcp-server", "version": "0"})
}

/// Whether the answer to `method` carries server text this module vets
/// (the ExtMcp server's question; the proxy vets every answer it routes).
#[cfg(feature = "ext-mcp")]
pub(crate) fn vets(method: &str) -> bool {
    VETTED.iter().any(|(m, _)| *m == method)
}

/// What vetting an answer's text found.
#[derive(Debug, Default)]
pub(crate) struct ServerText {
    /// The labels the text raised, for the run.
    pub(crate) labels: Vec<RunLabel>,
    /// How many entries (or the instructions, or the rest's optional
    /// keys) were left out.
    pub(crate) left_out: usize,
    /// The reason of the first verdict that left one out.
    pub(crate) reason: Option<String>,
}

/// Vet the text of `raw`, the server's answer to a `method` request (one
/// of [`VETTED`]'s, or any other the proxy does not vet as a call's
/// result: its result is then all rest), and leave out what the result
/// checks withhold or mask; a JSON-RPC error whose text does not pass
/// keeps its code with toolvet's message; an answer whose
/// rest (what is not an entry) still does not pass once its [`OPTIONAL`]
/// keys are out becomes a JSON-RPC error for its id. A method whose
/// answer the model does not read as the server's own text, an answer
/// without a result, or a policy without result checks, is left as it is.
pub(crate) async fn vet(
    host: &Host,
    method: &str,
    raw: &mut Value,
    context: &CallContext,
) -> ServerText {
    // Another method's answer (`ping`, `logging/setLevel`, a method of
    // the server's own): its result is all rest.
    let entries = VETTED
        .iter()
        .find(|(m, _)| *m == method)
        .map_or(Entries::Keys(&[]), |(_, e)| *e);
    if !host.vets_results() {
        return ServerText::default();
    }
    // A JSON-RPC error: its message and data, whole.
    if let Some(error) = raw.get("error") {
        let verdict = check(host, method, context, text_of(error)).await;
        let mut vetted = ServerText {
            labels: verdict.labels.clone(),
            ..ServerText::default()
        };
        if verdict.action != ResultAction::Pass {
            let reason = verdict
                .reason
                .clone()
                .unwrap_or_else(|| verdict.rule.clone().unwrap_or_default());
            let code = error.get("code").cloned().unwrap_or(REFUSED_CODE.into());
            raw["error"] = serde_json::json!({
                "code": code,
                "message": format!("toolvet withheld the MCP server's error text for `{method}`: {reason}"),
            });
            vetted.left_out = 1;
            vetted.reason = Some(reason);
        }
        return vetted;
    }
    let texts: Vec<String> = match entries {
        Entries::Keys(keys) => keys
            .iter()
            .map(|k| {
                raw.pointer(&format!("/result/{k}"))
                    .map(text_of)
                    .unwrap_or_default()
            })
            .collect(),
        Entries::List(pointer) => match raw.pointer(pointer) {
            Some(Value::Array(listed)) => listed.iter().map(text_of).collect(),
            // No list: the rest is still the server's text.
            _ => Vec::new(),
        },
    };
    let Some(result) = raw.get("result") else {
        return ServerText::default();
    };
    let whole = text_of(result);
    if whole.trim().is_empty() {
        return ServerText::default();
    }
    let first = check(host, method, context, whole).await;
    let mut vetted = ServerText {
        labels: first.labels.clone(),
        ..ServerText::default()
    };
    if first.action == ResultAction::Pass {
        return vetted;
    }
    // Which entries: each alone, and the rest of the result alone.
    let mut rest = result.clone();
    if let Some(rest) = rest.as_object_mut() {
        match entries {
            Entries::Keys(keys) => keys.iter().for_each(|k| {
                rest.remove(*k);
            }),
            Entries::List(pointer) => {
                rest.remove(pointer.rsplit('/').next().unwrap_or_default());
            }
        }
    }
    let mut keep = Vec::with_capacity(texts.len() + 1);
    for text in texts.into_iter().chain([text_of(&rest)]) {
        let kept = text.trim().is_empty() || {
            let verdict = check(host, method, context, text).await;
            if verdict.action != ResultAction::Pass {
                vetted.reason.get_or_insert_with(|| {
                    verdict
                        .reason
                        .clone()
                        .unwrap_or_else(|| verdict.rule.clone().unwrap_or_default())
                });
            }
            verdict.action == ResultAction::Pass
        };
        keep.push(kept);
    }
    // Withheld whole but no entry alone: every entry goes.
    if keep.iter().all(|k| *k) {
        keep.iter_mut().for_each(|k| *k = false);
        vetted.reason = first.reason.clone();
    }
    let rest_kept = keep.pop().unwrap_or(false);
    vetted.left_out = keep.iter().filter(|k| !**k).count();
    if !rest_kept {
        for pointer in OPTIONAL {
            if take(&mut rest, pointer) {
                take(raw.get_mut("result").unwrap_or(&mut Value::Null), pointer);
                vetted.left_out += 1;
            }
        }
        let text = text_of(&rest);
        let verdict = check(host, method, context, text).await;
        if verdict.action != ResultAction::Pass {
            let reason = verdict
                .reason
                .clone()
                .unwrap_or_else(|| verdict.rule.clone().unwrap_or_default());
            tracing::warn!(
                "refused the MCP server's `{method}` answer: {}",
                toolvet::display::visible(&reason)
            );
            if let Some(answer) = raw.as_object_mut() {
                answer.remove("result");
                answer.insert(
                    "error".into(),
                    serde_json::json!({
                        "code": REFUSED_CODE,
                        "message": format!(
                            "toolvet refused the MCP server's answer to `{method}`: {reason}"
                        ),
                    }),
                );
            }
            vetted.reason = Some(reason);
            return vetted;
        }
    }
    match entries {
        Entries::Keys(keys) => {
            if let Some(result) = raw.pointer_mut("/result").and_then(Value::as_object_mut) {
                for (key, kept) in keys.iter().zip(&keep) {
                    match (*key, kept) {
                        (_, true) => {}
                        ("serverInfo", false) => {
                            result.insert((*key).into(), neutral_server_info());
                        }
                        (_, false) => {
                            result.remove(*key);
                        }
                    }
                }
            }
        }
        Entries::List(pointer) => {
            if let Some(Value::Array(listed)) = raw.pointer_mut(pointer) {
                let mut kept = keep.into_iter();
                listed.retain(|_| kept.next().unwrap_or(false));
            }
        }
    }
    tracing::warn!(
        "left {} entr{} of the MCP server's `{method}` answer out: {}",
        vetted.left_out,
        if vetted.left_out == 1 { "y" } else { "ies" },
        toolvet::display::visible(vetted.reason.as_deref().unwrap_or_default())
    );
    vetted
}

/// Vet the text of `raw`, a request or notification the server sends the
/// client of its own accord (`method`): every key and string of its
/// `params`, as the output of a call named by the method. Returns the
/// labels the text raised and, when the result checks do not pass it
/// (withheld or masked), `reason` set and `left_out` 1: the message is not
/// passed on. A message without text, or a policy without result checks,
/// passes.
pub(crate) async fn vet_message(
    host: &Host,
    method: &str,
    raw: &Value,
    context: &CallContext,
) -> ServerText {
    let text = raw.get("params").map(text_of).unwrap_or_default();
    if !host.vets_results() || text.trim().is_empty() {
        return ServerText::default();
    }
    let verdict = check(host, method, context, text).await;
    let mut vetted = ServerText {
        labels: verdict.labels.clone(),
        ..ServerText::default()
    };
    if verdict.action != ResultAction::Pass {
        vetted.left_out = 1;
        vetted.reason = Some(
            verdict
                .reason
                .clone()
                .unwrap_or_else(|| verdict.rule.clone().unwrap_or_default()),
        );
    }
    vetted
}

/// Remove what `pointer` (a JSON pointer) names from `value`; whether it
/// was there.
fn take(value: &mut Value, pointer: &str) -> bool {
    let (parent, key) = pointer.rsplit_once('/').unwrap_or(("", pointer));
    value
        .pointer_mut(parent)
        .and_then(Value::as_object_mut)
        .and_then(|map| map.remove(key))
        .is_some()
}

/// Every key and every string of `entry` (names, titles, descriptions,
/// a schema's property names and its words, `_meta` too: a client may show
/// any of it to the model), one per line, depth first.
fn text_of(entry: &Value) -> String {
    fn walk<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
        match value {
            Value::String(s) => out.push(s),
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            Value::Object(map) => {
                for (key, v) in map {
                    out.push(key);
                    walk(v, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(entry, &mut out);
    out.join("\n")
}

/// The result checks' verdict on `text` as the output of a `method` call.
async fn check(
    host: &Host,
    method: &str,
    context: &CallContext,
    text: String,
) -> toolvet::tool_result::ResultVerdict {
    let request = match crate::gate::call_request(method, None, None, context.clone()) {
        Ok(request) => request,
        // A method name is never empty: unreachable, and withheld if not.
        Err(e) => {
            return toolvet::tool_result::ResultVerdict::withheld_by_host(
                "toolvet.invalid-call",
                e.to_string(),
            );
        }
    };
    let result = ToolResult {
        content: ResultContent::Text(text),
        is_error: false,
    };
    host.check_result(&request, &result).await
}
