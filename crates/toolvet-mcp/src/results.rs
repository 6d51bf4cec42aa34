//! What a vetted call returned (`tools/call`, and the methods vetted as
//! calls: `resources/read`, `prompts/get`, ...), vetted before the client
//! (and the model) reads it: every string the answer carries (a `text`
//! block, a resource's text, a `resource_link`'s name, description and
//! uri, a prompt message, the JSON-RPC error's message and data; not
//! base64 `data`/`blob`, `mimeType`, `type` or `_meta`), each as text, and
//! its `structuredContent` as JSON go to the policy's result checks
//! ([`toolvet::Host::check_result`]).
//!
//! - **withhold** (by any part): in place of the whole answer, the client
//!   gets a tool result with `isError: true` and the reason as text (for
//!   the other methods, the JSON-RPC error their refusals are);
//! - **redact**: the masked parts replace the originals, the rest is kept
//!   as the server sent it;
//! - the labels raised are the session's, for its later calls.
//!
//! What is not text (images, audio, binary resources) passes as sent: no
//! check reads it. A policy with no result check leaves
//! every answer untouched and costs nothing.

use serde_json::Value;
use toolvet::tool_result::{ResultAction, ResultContent, RunLabel, ToolResult};
use toolvet::{CallRequest, Host};

/// The answer the client gets for `raw`, the server's JSON-RPC answer to
/// the vetted call `request` (a `method` request), and the labels its parts
/// raised.
pub(crate) async fn vet_answer(
    host: &Host,
    method: &str,
    request: &CallRequest,
    mut raw: Value,
) -> (Value, Vec<RunLabel>) {
    if !host.vets_results() {
        return (raw, Vec::new());
    }
    let is_error = raw.get("error").is_some()
        || raw.pointer("/result/isError").and_then(Value::as_bool) == Some(true);
    let mut labels = Vec::new();
    let mut withheld = None;
    for pointer in parts(&raw) {
        let Some(part) = raw.pointer(&pointer) else {
            continue;
        };
        let content = match part {
            Value::String(text) => ResultContent::Text(text.clone()),
            value => ResultContent::Json(value.clone()),
        };
        let verdict = host
            .check_result(request, &ToolResult { content, is_error })
            .await;
        labels.extend(verdict.labels);
        match (verdict.action, verdict.content) {
            (ResultAction::Withhold, _) => {
                withheld.get_or_insert(verdict.reason.unwrap_or_default());
            }
            (ResultAction::Redact, Some(masked)) => {
                if let Some(slot) = raw.pointer_mut(&pointer) {
                    *slot = match masked {
                        ResultContent::Text(text) => Value::String(text),
                        ResultContent::Json(value) => value,
                    };
                }
            }
            _ => {}
        }
    }
    if let Some(reason) = withheld {
        let id = raw.get("id").cloned().unwrap_or(Value::Null);
        let text = format!("toolvet withheld this tool's result: {reason}");
        // A tool result the model reads; for the other methods, the error
        // their refusals are (`Session::gate_method`).
        raw = if method == "tools/call" {
            crate::jsonrpc::result(&id, crate::gate::refusal(text))
        } else {
            crate::jsonrpc::error(&id, crate::jsonrpc::REFUSED_BY_POLICY, &text)
        };
    }
    (raw, labels)
}

/// JSON Pointers to the parts of an answer the model may read: every
/// string of the `result` and of the `error` (a text block, a resource's
/// text, a `resource_link`'s name, title, description and uri, a prompt
/// message, an error's message and data), each as text, and the
/// `structuredContent` as one JSON value. Left out: what no model reads as
/// text (base64 `data` beside a `mimeType`, `blob`, `mimeType`, a block's
/// `type`) and `_meta`, which clients keep for themselves.
fn parts(raw: &Value) -> Vec<String> {
    let mut parts = Vec::new();
    for root in ["/result", "/error"] {
        if let Some(value) = raw.pointer(root) {
            strings(value, root.to_string(), &mut parts);
        }
    }
    if raw
        .pointer("/result/structuredContent")
        .is_some_and(|v| !v.is_null())
    {
        parts.push("/result/structuredContent".into());
    }
    parts
}

/// Keys whose values no model reads as text, or that are vetted whole
/// (`data` too, beside a `mimeType`: an image's or audio's base64).
const NOT_TEXT: [&str; 5] = ["blob", "mimeType", "type", "_meta", "structuredContent"];

/// Push the pointer of every string under `value` (at `at`), depth first,
/// in the answer's own order.
fn strings(value: &Value, at: String, parts: &mut Vec<String>) {
    match value {
        Value::String(_) => parts.push(at),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                strings(item, format!("{at}/{i}"), parts);
            }
        }
        Value::Object(map) => {
            let binary = map.contains_key("mimeType");
            for (key, item) in map {
                if NOT_TEXT.contains(&key.as_str()) || (binary && key == "data") {
                    continue;
                }
                // RFC 6901: `~` and `/` in a key are escaped.
                let key = key.replace('~', "~0").replace('/', "~1");
                strings(item, format!("{at}/{key}"), parts);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::parts;
    use serde_json::json;

    #[test]
    fn every_text_and_the_structured_content_are_parts() {
        let raw = json!({"jsonrpc": "2.0", "id": 1, "result": {
            "content": [
                {"type": "text", "text": "a", "_meta": {"x": "hidden"}},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///x", "text": "b"}},
                {"type": "resource", "resource": {"uri": "file:///y", "blob": "AAAA"}},
                {"type": "resource_link", "uri": "https://e.test", "name": "n", "description": "d"},
            ],
            "structuredContent": {"k": "v"}}});
        assert_eq!(
            parts(&raw),
            [
                "/result/content/0/text",
                "/result/content/2/resource/uri",
                "/result/content/2/resource/text",
                "/result/content/3/resource/uri",
                "/result/content/4/uri",
                "/result/content/4/name",
                "/result/content/4/description",
                "/result/structuredContent"
            ]
        );
        let error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "m", "data": {"a/b": ["d"]}}});
        assert_eq!(parts(&error), ["/error/message", "/error/data/a~1b/0"]);
        let read = json!({"jsonrpc": "2.0", "id": 1, "result": {"contents": [
            {"uri": "file:///a", "text": "a"}, {"uri": "file:///b", "blob": "AAAA"}]}});
        assert_eq!(
            parts(&read),
            [
                "/result/contents/0/uri",
                "/result/contents/0/text",
                "/result/contents/1/uri"
            ]
        );
        let prompt = json!({"jsonrpc": "2.0", "id": 1, "result": {"messages": [
            {"role": "user", "content": {"type": "text", "text": "p"}}]}});
        assert_eq!(
            parts(&prompt),
            ["/result/messages/0/role", "/result/messages/0/content/text"]
        );
        // Each pointer resolves to the string it names.
        for p in parts(&raw).iter().chain(parts(&error).iter()) {
            let part = raw.pointer(p).or_else(|| error.pointer(p));
            assert!(part.is_some(), "{p}");
        }
    }
}
