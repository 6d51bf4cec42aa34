//! What an MCP server tells the model outside a tool's result: the
//! `instructions` of its `initialize` answer, and the names, titles,
//! descriptions and schemas of the tools, prompts and resources it lists.
//! The client hands these to the model as they are, so a server can carry
//! an injected instruction in them as well as in a result (review s29 F4).
//!
//! They are vetted by the policy's result checks as the output of a call
//! named by the method (`initialize`, `tools/list`, ...): all of an
//! answer's text at once, so one check run per answer; when it is not
//! passed whole, each entry alone, and what is withheld or masked is left
//! out (the `instructions`, or the listed entry). The labels the text
//! raised (an injection's destinations) are the run's, as a result's are.

use serde_json::Value;
use toolvet::tool_result::RunLabel;
use toolvet::tool_result::{ResultAction, ResultContent, ToolResult};
use toolvet::{CallContext, Host};

/// The answers whose text is vetted, and where their entries are: a
/// pointer to one string (`initialize`) or to an array of entries.
const VETTED: &[(&str, &str)] = &[
    ("initialize", "/result/instructions"),
    ("tools/list", "/result/tools"),
    ("prompts/list", "/result/prompts"),
    ("resources/list", "/result/resources"),
    ("resources/templates/list", "/result/resourceTemplates"),
];

/// What vetting an answer's text found.
#[derive(Debug, Default)]
pub(crate) struct ServerText {
    /// The labels the text raised, for the run.
    pub(crate) labels: Vec<RunLabel>,
    /// How many entries (or the instructions) were left out.
    pub(crate) left_out: usize,
    /// The reason of the first verdict that left one out.
    pub(crate) reason: Option<String>,
}

/// Vet the text of `raw`, the server's answer to a `method` request, and
/// leave out what the result checks withhold or mask. A method whose
/// answer the model does not read as the server's own text, or a policy
/// without result checks, is left as it is.
pub(crate) async fn vet(
    host: &Host,
    method: &str,
    raw: &mut Value,
    context: &CallContext,
) -> ServerText {
    let Some((_, pointer)) = VETTED.iter().find(|(m, _)| *m == method) else {
        return ServerText::default();
    };
    if !host.vets_results() {
        return ServerText::default();
    }
    let Some(found) = raw.pointer_mut(pointer) else {
        return ServerText::default();
    };
    let texts: Vec<String> = match &*found {
        Value::Array(entries) => entries.iter().map(text_of).collect(),
        Value::Null => return ServerText::default(),
        other => vec![text_of(other)],
    };
    let whole = texts.join("\n\n");
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
    // Which entries: each alone.
    let mut keep = Vec::with_capacity(texts.len());
    for text in texts {
        let verdict = check(host, method, context, text).await;
        let kept = verdict.action == ResultAction::Pass;
        if !kept {
            vetted.left_out += 1;
            vetted.reason.get_or_insert_with(|| {
                verdict
                    .reason
                    .clone()
                    .unwrap_or_else(|| verdict.rule.clone().unwrap_or_default())
            });
        }
        keep.push(kept);
    }
    // Withheld whole but no entry alone: every entry goes.
    if vetted.left_out == 0 {
        vetted.left_out = keep.len();
        keep.iter_mut().for_each(|k| *k = false);
        vetted.reason = first.reason.clone();
    }
    match found {
        Value::Array(entries) => {
            let mut kept = keep.into_iter();
            entries.retain(|_| kept.next().unwrap_or(false));
        }
        _ => {
            if let Some(result) = raw.pointer_mut("/result").and_then(Value::as_object_mut) {
                result.remove("instructions");
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

/// Every string of `entry` (names, titles, descriptions, the schema's
/// words), one per line, as the model reads them.
fn text_of(entry: &Value) -> String {
    toolvet::result_parts::parts(entry, &[""])
        .iter()
        .filter_map(|p| entry.pointer(p).and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
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
