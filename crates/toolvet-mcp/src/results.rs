//! What a vetted call returned (`tools/call`, and the methods vetted as
//! calls: `resources/read`, `prompts/get`, ...), vetted before the client
//! (and the model) reads it: each text the answer carries (a `text`
//! content block, a `resource` block's `text`, a read resource's `text`, a
//! prompt message's text, the JSON-RPC error's message) and its
//! `structuredContent` go to the policy's result checks
//! ([`toolvet::Host::check_result`]).
//!
//! - **withhold** (by any part): in place of the whole answer, the client
//!   gets a tool result with `isError: true` and the reason as text (for
//!   the other methods, the JSON-RPC error their refusals are);
//! - **redact**: the masked parts replace the originals, the rest is kept
//!   as the server sent it;
//! - the labels raised are the session's, for its later calls.
//!
//! Blocks with no text (images, audio, binary resources, resource links)
//! pass as sent: no check reads them. A policy with no result check leaves
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

/// JSON Pointers to the parts of a `tools/call` answer the model reads as
/// text or JSON.
fn parts(raw: &Value) -> Vec<String> {
    let mut parts = Vec::new();
    if raw.pointer("/error/message").is_some_and(Value::is_string) {
        parts.push("/error/message".into());
    }
    // A tool result's blocks; a read resource's contents; a prompt's
    // messages, each with one block.
    for (list, inner) in [("content", ""), ("contents", ""), ("messages", "/content")] {
        let Some(Value::Array(items)) = raw.pointer(&format!("/result/{list}")) else {
            continue;
        };
        for (i, item) in items.iter().enumerate() {
            let Some(block) = item.pointer(inner) else {
                continue;
            };
            for text in ["/text", "/resource/text"] {
                if block.pointer(text).is_some_and(Value::is_string) {
                    parts.push(format!("/result/{list}/{i}{inner}{text}"));
                }
            }
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

#[cfg(test)]
mod tests {
    use super::parts;
    use serde_json::json;

    #[test]
    fn every_text_and_the_structured_content_are_parts() {
        let raw = json!({"jsonrpc": "2.0", "id": 1, "result": {
            "content": [
                {"type": "text", "text": "a"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///x", "text": "b"}},
                {"type": "resource", "resource": {"uri": "file:///y", "blob": "AAAA"}},
            ],
            "structuredContent": {"k": 1}}});
        assert_eq!(
            parts(&raw),
            [
                "/result/content/0/text",
                "/result/content/2/resource/text",
                "/result/structuredContent"
            ]
        );
        let error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "m"}});
        assert_eq!(parts(&error), ["/error/message"]);
        let read = json!({"jsonrpc": "2.0", "id": 1, "result": {"contents": [
            {"uri": "file:///a", "text": "a"}, {"uri": "file:///b", "blob": "AAAA"}]}});
        assert_eq!(parts(&read), ["/result/contents/0/text"]);
        let prompt = json!({"jsonrpc": "2.0", "id": 1, "result": {"messages": [
            {"role": "user", "content": {"type": "text", "text": "p"}},
            {"role": "user", "content": {"type": "resource", "resource": {"uri": "u", "text": "r"}}}]}});
        assert_eq!(
            parts(&prompt),
            [
                "/result/messages/0/content/text",
                "/result/messages/1/content/resource/text"
            ]
        );
    }
}
