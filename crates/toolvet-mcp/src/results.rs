//! What a vetted call returned (`tools/call`, and the methods vetted as
//! calls: `resources/read`, `prompts/get`, ...), vetted before the client
//! (and the model) reads it: every string the answer carries (a `text`
//! block, a resource's text, a `resource_link`'s name, description and
//! uri, a prompt message, the JSON-RPC error's message and data; not
//! base64 `data`/`blob`, `mimeType` or `type`; `_meta` is), each as text, and
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
use toolvet::tool_result::{ResultVerdict, RunLabel};
use toolvet::{CallRequest, Host};

/// What [`vet_answer`] made of a server's answer.
pub(crate) struct Vetted {
    /// The answer the client gets.
    pub answer: Value,
    /// The labels its parts raised, for the session's later calls.
    pub labels: Vec<RunLabel>,
    /// The verdict that withheld it (its rule and reason), when one did.
    /// Read by the ExtMcp server (the proxy answers with `answer` alone).
    #[cfg_attr(
        not(feature = "ext-mcp"),
        expect(dead_code, reason = "read by ext_mcp only")
    )]
    pub withheld: Option<ResultVerdict>,
    /// Whether a part was masked (and `answer` holds the masked text).
    #[cfg_attr(
        not(feature = "ext-mcp"),
        expect(dead_code, reason = "read by ext_mcp only")
    )]
    pub redacted: bool,
}

/// The answer the client gets for `raw`, the server's JSON-RPC answer to
/// the vetted call `request` (a `method` request), and what its parts
/// raised. Shared by the proxy and the ExtMcp server, which wraps the bare
/// `result` it is given in a JSON-RPC answer.
pub(crate) async fn vet_answer(
    host: &Host,
    method: &str,
    request: &CallRequest,
    mut raw: Value,
) -> Vetted {
    if !host.vets_results() {
        return Vetted {
            answer: raw,
            labels: Vec::new(),
            withheld: None,
            redacted: false,
        };
    }
    let is_error = raw.get("error").is_some()
        || raw.pointer("/result/isError").and_then(Value::as_bool) == Some(true);
    let pointers = toolvet::result_parts::parts(&raw, &["/result", "/error"]);
    let verdict = host
        .check_result_parts(request, &mut raw, &pointers, is_error)
        .await;
    if let Some(withheld) = &verdict.withheld {
        let reason = withheld.reason.as_deref().unwrap_or_default();
        let id = raw.get("id").cloned().unwrap_or(Value::Null);
        raw = withheld_answer(method, &id, reason);
    }
    Vetted {
        answer: raw,
        labels: verdict.labels,
        redacted: verdict.redacted.is_some(),
        withheld: verdict.withheld,
    }
}

/// The JSON-RPC answer `id` gets in place of a withheld answer to a
/// `method` request, telling why (`reason`): a tool result the model reads;
/// for the other methods, the error their refusals are
/// (`Session::gate_method`).
pub(crate) fn withheld_answer(method: &str, id: &Value, reason: &str) -> Value {
    let text = format!("toolvet withheld this tool's result: {reason}");
    if method == "tools/call" {
        crate::jsonrpc::result(id, crate::gate::refusal(text))
    } else {
        crate::jsonrpc::error(id, crate::jsonrpc::REFUSED_BY_POLICY, &text)
    }
}
