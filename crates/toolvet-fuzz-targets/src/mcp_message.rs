//! The MCP proxy's readers on arbitrary bytes: never panic; a message is
//! sorted by its fields; only an elicitation result that accepts with
//! `approve` exactly `true` is an approval; a listed tool maps onto tool
//! info and a call the core accepts or refuses with an error.
//!
//! And the client side's strict reading (`Message::parse_client`, what the
//! stdio and Streamable HTTP proxies forward from): a refused message
//! yields only an error for the client (nothing the proxy could forward);
//! an accepted one holds no duplicate key, no two keys folding alike, no
//! look-alike method or key, no inexact number, carries only JSON-RPC's
//! keys, and reads back to itself; a `tools/call` is forwarded with the
//! vetted name and arguments and only MCP's own params keys.
//!
//! And the server side's (`Message::parse_server`, what the proxy hands the
//! client from): it accepts exactly what the client side accepts, and a
//! refusal names every id a well-formed message of the server carried, so
//! the request it answered gets an error rather than waiting or reading
//! the server's text.

use serde_json::Value;
use toolvet_mcp::gate::{self, Answer};
use toolvet_mcp::jsonrpc::{self, Message};

/// The property, on one input (any bytes).
pub fn run(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        client_message(text);
        server_message(text);
    }
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    match Message::classify(value.clone()) {
        Ok(Message::Request { raw, .. }) => {
            assert!(raw.get("method").is_some_and(Value::is_string))
        }
        Ok(Message::Notification { raw, .. }) => assert!(raw.get("id").is_none()),
        Ok(Message::Response { raw, .. }) => {
            assert!(raw.get("result").is_some() || raw.get("error").is_some())
        }
        Err(why) => assert!(!why.to_string().is_empty()),
    }
    if let Answer::Approve(_) = gate::answer(&value) {
        let result = &value["result"];
        assert_eq!(result["action"], "accept");
        assert_eq!(result["content"]["approve"], Value::Bool(true));
        assert!(value.get("error").is_none());
    }
    if let Ok(tool) = serde_json::from_value::<rmcp::model::Tool>(value.clone()) {
        let info = gate::tool_info(&tool);
        if info.tags.iter().any(|t| t == "destructive") {
            assert_eq!(info.risk.as_deref(), Some("high"));
        }
        let _ = gate::call_request(
            &tool.name,
            value.get("arguments"),
            Some(&tool),
            Default::default(),
        );
        // A later list never relaxes what an earlier one declared.
        let (merged, _) = gate::merge_tool(Some(&tool), rmcp::model::Tool::default());
        if info.risk.as_deref() == Some("high") {
            assert_eq!(gate::tool_info(&merged).risk.as_deref(), Some("high"));
        }
    }
}

/// No two keys of one object, at any depth, fold alike.
fn assert_no_look_alikes(value: &Value) {
    match value {
        Value::Object(map) => {
            let mut folded: Vec<String> = map.keys().map(|k| jsonrpc::fold(k)).collect();
            folded.retain(|f| !f.is_empty());
            let count = folded.len();
            folded.sort();
            folded.dedup();
            assert_eq!(
                folded.len(),
                count,
                "keys folding alike were accepted: {value}"
            );
            map.values().for_each(assert_no_look_alikes);
        }
        Value::Array(items) => items.iter().for_each(assert_no_look_alikes),
        _ => {}
    }
}

fn client_message(text: &str) {
    let message = match Message::parse_client(text) {
        Err(refusal) => {
            // All a refusal yields: an error response for the client.
            let response = refusal.response();
            assert!(response.get("method").is_none() && response.get("result").is_none());
            assert!(
                refusal.id.is_null()
                    || refusal.id.is_string()
                    || refusal.id.is_i64()
                    || refusal.id.is_u64()
            );
            assert!(!refusal.message.is_empty());
            return;
        }
        Ok(message) => message,
    };
    // What is accepted was read strictly, so the lenient reading agrees.
    let strict = jsonrpc::strict_value(text).expect("an accepted message reads strictly");
    assert_no_look_alikes(&strict);
    let (raw, allowed, method): (&Value, &[&str], Option<&str>) = match &message {
        Message::Request { raw, method, .. } => (
            raw,
            &["jsonrpc", "id", "method", "params"],
            Some(method.as_str()),
        ),
        Message::Notification { raw, method } => {
            (raw, &["jsonrpc", "method", "params"], Some(method.as_str()))
        }
        Message::Response { raw, .. } => (raw, &["jsonrpc", "id", "result", "error"], None),
    };
    let keys = raw.as_object().expect("a message is an object");
    assert!(keys.keys().all(|k| allowed.contains(&k.as_str())), "{raw}");
    for (k, v) in keys {
        assert_eq!(strict.get(k), Some(v), "the rebuilt message changed `{k}`");
    }
    if let Some(method) = method {
        assert!(jsonrpc::method_problem(method).is_none(), "{method:?}");
        assert!(!method.chars().any(|c| c.is_control() || c.is_whitespace()));
    }
    // The rebuilt message reads back to itself.
    let again = Message::parse_client(&raw.to_string()).expect("the rebuilt message reads again");
    let raw_again = match &again {
        Message::Request { raw, .. }
        | Message::Notification { raw, .. }
        | Message::Response { raw, .. } => raw,
    };
    assert_eq!(raw_again, raw);
    if method == Some("tools/call") {
        let params = raw.get("params").expect("a tools/call has params");
        jsonrpc::tools_call_params(params).expect("accepted params");
        let name = params["name"].as_str().expect("a string name");
        let arguments = params.get("arguments").filter(|a| !a.is_null());
        let Ok(request) = gate::call_request(name, arguments, None, Default::default()) else {
            return;
        };
        let id = raw.get("id").cloned().unwrap_or(Value::Null);
        let forwarded = gate::forwarded_call(&id, &request.call, Some(params))
            .expect("vetted arguments read back");
        let sent = forwarded["params"].as_object().expect("params");
        assert!(
            sent.keys()
                .all(|k| jsonrpc::TOOLS_CALL_KEYS.contains(&k.as_str())),
            "{forwarded}"
        );
        assert_eq!(sent["name"], Value::String(request.call.name.clone()));
        let vetted: Value = serde_json::from_str(request.call.arguments.get()).expect("json");
        assert_eq!(sent["arguments"], vetted);
        assert_eq!(forwarded["method"], "tools/call");
    }
}

fn server_message(text: &str) {
    match (Message::parse_server(text), Message::parse_client(text)) {
        (Ok(_), Ok(_)) => {}
        (Err(refusal), Err(_)) => {
            assert!(!refusal.message.is_empty());
            for id in refusal.answered.iter().chain(&refusal.requests) {
                assert!(id.is_string() || id.is_i64() || id.is_u64(), "{id}");
            }
            // A message that is JSON with a plain `id` (a string or an
            // integer) has that id among those answered with an error.
            if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text)
                && let Some(id) = map
                    .get("id")
                    .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
            {
                assert!(
                    refusal.answered.contains(id) || refusal.requests.contains(id),
                    "the refused message's id {id} gets no error: {text}"
                );
            }
        }
        (server, client) => panic!(
            "the server and client readers disagree on {text:?}: {:?} / {:?}",
            server.err().map(|r| r.message),
            client.err().map(|r| r.message)
        ),
    }
}
