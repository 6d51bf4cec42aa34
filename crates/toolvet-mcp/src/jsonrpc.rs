//! JSON-RPC 2.0 messages as the proxy sees them: raw JSON values, sorted
//! into requests, notifications and responses, so that a message the
//! proxy does not gate is passed on exactly as it came.

use serde_json::{Value, json};

/// A JSON-RPC error code for a server-side failure (the upstream exited,
/// timed out, or the proxy could not vet the call). JSON-RPC reserves
/// -32000..-32099 for implementation-defined server errors.
pub const UPSTREAM_ERROR: i64 = -32000;
/// The upstream did not answer in time.
pub const UPSTREAM_TIMEOUT: i64 = -32001;
/// Invalid JSON.
pub const PARSE_ERROR: i64 = -32700;
/// Not a JSON-RPC request object.
pub const INVALID_REQUEST: i64 = -32600;
/// Invalid method parameters.
pub const INVALID_PARAMS: i64 = -32602;

/// One message, classified.
#[derive(Debug)]
pub enum Message {
    /// Has a `method` and an `id`: answer it.
    Request {
        /// The request id (a string or a number).
        id: Value,
        /// The method name.
        method: String,
        /// The whole message.
        raw: Value,
    },
    /// Has a `method` and no `id`.
    Notification {
        /// The method name.
        method: String,
        /// The whole message.
        raw: Value,
    },
    /// Has an `id` and a `result` or an `error`.
    Response {
        /// The id of the request it answers.
        id: Value,
        /// The whole message.
        raw: Value,
    },
}

impl Message {
    /// Sort a parsed value.
    ///
    /// # Errors
    /// A value that is no JSON-RPC 2.0 message (an array: MCP has no
    /// batches since 2025-06-18), with what is wrong.
    pub fn classify(raw: Value) -> Result<Message, String> {
        let Value::Object(object) = &raw else {
            return Err(if raw.is_array() {
                "JSON-RPC batches are not supported by MCP".into()
            } else {
                "a JSON-RPC message must be an object".into()
            });
        };
        if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err("`jsonrpc` must be \"2.0\"".into());
        }
        // MCP ids are strings or integers: a fractional or out-of-range
        // number would not survive the trip unchanged.
        let id = object
            .get("id")
            .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
            .cloned();
        match (object.get("method"), id) {
            (Some(Value::String(method)), Some(id)) => Ok(Message::Request {
                id,
                method: method.clone(),
                raw,
            }),
            (Some(Value::String(method)), None) if !object.contains_key("id") => {
                Ok(Message::Notification {
                    method: method.clone(),
                    raw,
                })
            }
            (Some(_), _) => Err("`method` must be a string and `id` a string or an integer".into()),
            (None, Some(id)) if object.contains_key("result") || object.contains_key("error") => {
                Ok(Message::Response { id, raw })
            }
            (None, _) => Err("neither a request, a notification nor a response".into()),
        }
    }
}

/// A key for a request id: ids `1` and `"1"` are different requests.
pub fn id_key(id: &Value) -> String {
    id.to_string()
}

/// A result response.
pub fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response (`id` is `null` when the request's id is unknown).
pub fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// A request the proxy itself sends.
pub fn request(id: &Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A notification the proxy itself sends.
pub fn notification(method: &str, params: Option<Value>) -> Value {
    match params {
        Some(params) => json!({"jsonrpc": "2.0", "method": method, "params": params}),
        None => json!({"jsonrpc": "2.0", "method": method}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_sorted_by_their_fields() {
        let m = |v: Value| Message::classify(v);
        assert!(matches!(
            m(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})),
            Ok(Message::Request { method, .. }) if method == "tools/list"
        ));
        assert!(matches!(
            m(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
            Ok(Message::Notification { .. })
        ));
        assert!(matches!(
            m(json!({"jsonrpc": "2.0", "id": "a", "result": {}})),
            Ok(Message::Response { .. })
        ));
        assert!(matches!(
            m(json!({"jsonrpc": "2.0", "id": 2, "error": {"code": 1}})),
            Ok(Message::Response { .. })
        ));
        for (bad, why) in [
            (json!([{"jsonrpc": "2.0", "method": "x"}]), "batches"),
            (json!("x"), "must be an object"),
            (json!({"id": 1, "method": "x"}), "`jsonrpc`"),
            (
                json!({"jsonrpc": "2.0", "id": null, "method": "x"}),
                "`method` must be a string",
            ),
            (
                json!({"jsonrpc": "2.0", "id": {}, "method": "x"}),
                "`method` must be a string",
            ),
            (
                json!({"jsonrpc": "2.0", "method": 7}),
                "`method` must be a string",
            ),
            (json!({"jsonrpc": "2.0", "id": 1}), "neither"),
        ] {
            let e = m(bad).unwrap_err();
            assert!(e.contains(why), "{e}");
        }
        assert_ne!(id_key(&json!(1)), id_key(&json!("1")));
    }
}
