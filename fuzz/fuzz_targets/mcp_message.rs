//! A client's JSON-RPC message as the proxy reads it: arbitrary text
//! through rmcp's message types; a `tools/call` becomes a toolvet call (or
//! a refusal) without panicking, and a refusal is a marked tool error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};

fuzz_target!(|data: &[u8]| {
    let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(data) else {
        return;
    };
    let JsonRpcMessage::Request(request) = message else {
        return;
    };
    if let ClientRequest::CallToolRequest(call) = request.request {
        let p = call.params;
        match toolvet_mcp::vet::request_for(&p.name, p.arguments.as_ref(), None, "run", &[]) {
            Ok(r) => assert_eq!(r.call.name, p.name),
            Err(e) => {
                let refusal = toolvet_mcp::vet::refusal(e.to_string(), None);
                assert_eq!(refusal.is_error, Some(true));
            }
        }
    }
});
