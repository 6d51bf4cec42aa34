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
use toolvet::tool_result::RunLabel;
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
    let pointers = toolvet::result_parts::parts(&raw, &["/result", "/error"]);
    let verdict = host
        .check_result_parts(request, &mut raw, &pointers, is_error)
        .await;
    let labels = verdict.labels;
    let withheld = verdict.withheld.map(|v| v.reason.unwrap_or_default());
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
