//! The MCP proxy's readers on arbitrary bytes: never panic; a message is
//! sorted by its fields; only an elicitation result that accepts with
//! `approve` exactly `true` is an approval; a listed tool maps onto tool
//! info and a call the core accepts or refuses with an error.

use serde_json::Value;
use toolvet_mcp::gate::{self, Answer};
use toolvet_mcp::jsonrpc::Message;

/// The property, on one input (any bytes).
pub fn run(data: &[u8]) {
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
        Err(why) => assert!(!why.is_empty()),
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
    }
}
