//! JSON-RPC 2.0 messages as the proxy sees them: raw JSON values, sorted
//! into requests, notifications and responses.
//!
//! A client's message is read strictly ([`Message::parse_client`]), in
//! this one place for every front end: a message a lenient decoder on the
//! server could read differently from the proxy is refused, never
//! forwarded. That is a duplicate key at any depth (serde keeps the last,
//! other decoders the first), two keys of one object that fold to the same
//! text (`name` and `NAME`: Go's `encoding/json` matches field names
//! case-insensitively, the last one winning), a key that folds to one of
//! JSON-RPC's or `tools/call`'s own without being it (`Params`, `paramſ`),
//! a method with control characters, white space or invisible characters,
//! or one that folds to an MCP method without being it (`Tools/Call`,
//! `tools//call`), and a number the proxy cannot pass on exactly (an
//! integer beyond 64 bits). What is forwarded is then rebuilt from the
//! parts read: unknown top-level keys never reach the server.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::fmt;
use toolvet::display::visible;

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

/// The keys of a JSON-RPC 2.0 message.
const ENVELOPE_KEYS: &[&str] = &["jsonrpc", "id", "method", "params", "result", "error"];

/// The keys of `tools/call`'s params the proxy knows (MCP 2025-11-25 and
/// 2026-07-28): only these are forwarded, and a key that only looks like
/// one of them is refused.
pub const TOOLS_CALL_KEYS: &[&str] = &[
    "name",
    "arguments",
    "_meta",
    "task",
    "requestState",
    "inputResponses",
];

/// MCP's methods (through 2026-07-28): a method that folds to one of
/// these without being it byte for byte is refused. Other methods pass.
pub const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
    "server/discover",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/message",
    "notifications/resources/updated",
    "notifications/resources/list_changed",
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/roots/list_changed",
    "notifications/elicitation/complete",
    "notifications/tasks/status",
];

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

/// A client's message refused by [`Message::parse_client`]: answer it
/// with this error, and forward nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The request's id when it could be read unambiguously, else `null`.
    pub id: Value,
    /// The JSON-RPC error code.
    pub code: i64,
    /// What is wrong, and where.
    pub message: String,
}

impl Refusal {
    /// The JSON-RPC error response that answers the refused message.
    pub fn response(&self) -> Value {
        error(&self.id, self.code, &self.message)
    }
}

/// Why a value is no JSON-RPC 2.0 message ([`Message::classify`]). Its
/// text (`Display`) is the JSON-RPC error's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NotAMessage {
    /// An array: a batch, which MCP has not had since 2025-06-18.
    #[error("JSON-RPC batches are not supported by MCP")]
    Batch,
    /// A string, a number, a boolean or `null`.
    #[error("a JSON-RPC message must be an object")]
    NotAnObject,
    /// `jsonrpc` is missing or not the string `"2.0"`.
    #[error("`jsonrpc` must be \"2.0\"")]
    Version,
    /// A `method` that is not a string, or with it an `id` that is not a
    /// string or an integer (`null`, a fraction, an object).
    #[error("`method` must be a string and `id` a string or an integer")]
    MethodOrId,
    /// No `method`, and not a response either (no usable `id`, or neither
    /// `result` nor `error`).
    #[error("neither a request, a notification nor a response")]
    Unsorted,
}

impl Message {
    /// Sort a parsed value.
    ///
    /// # Errors
    /// [`NotAMessage`]: a value that is no JSON-RPC 2.0 message (an
    /// array: MCP has no batches since 2025-06-18), with what is wrong.
    pub fn classify(raw: Value) -> Result<Message, NotAMessage> {
        let Value::Object(object) = &raw else {
            return Err(if raw.is_array() {
                NotAMessage::Batch
            } else {
                NotAMessage::NotAnObject
            });
        };
        if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(NotAMessage::Version);
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
            (Some(_), _) => Err(NotAMessage::MethodOrId),
            (None, Some(id)) if object.contains_key("result") || object.contains_key("error") => {
                Ok(Message::Response { id, raw })
            }
            (None, _) => Err(NotAMessage::Unsorted),
        }
    }

    /// Read one message from the client (JSON text) strictly, and rebuild
    /// it from what was read: a request or notification keeps `jsonrpc`,
    /// `id`, `method` and `params`, a response `jsonrpc`, `id` and its
    /// `result` or `error`; nothing else reaches the server.
    ///
    /// # Errors
    /// A [`Refusal`] for: text that is not JSON (or has a duplicate key,
    /// two keys folding to the same text, or an inexact number, at any
    /// depth); no JSON-RPC 2.0 message; a top-level key that folds to a
    /// JSON-RPC key without being it; a method that is not plain text or
    /// that folds to an MCP method without being it; a response with both
    /// `result` and `error`; and a `tools/call` whose params are not
    /// [`tools_call_params`] ones.
    pub fn parse_client(text: &str) -> Result<Message, Refusal> {
        let refuse = |id: &Value, code, message: String| Refusal {
            id: id.clone(),
            code,
            message,
        };
        let value =
            strict_value(text).map_err(|e| refuse(&loose_id(text), PARSE_ERROR, e.to_string()))?;
        let message = Message::classify(value)
            .map_err(|e| refuse(&loose_id(text), INVALID_REQUEST, e.to_string()))?;
        let (id, method, raw) = match &message {
            Message::Request { id, method, raw } => (id.clone(), Some(method.as_str()), raw),
            Message::Notification { method, raw } => (Value::Null, Some(method.as_str()), raw),
            Message::Response { raw, .. } => (Value::Null, None, raw),
        };
        let object = raw.as_object().into_iter().flatten();
        for key in object.map(|(k, _)| k) {
            if let Some(known) = look_alike(key, ENVELOPE_KEYS) {
                return Err(refuse(
                    &id,
                    INVALID_REQUEST,
                    format!(
                        "the key `{}` is not JSON-RPC's `{known}`; refused (it could be read as `{known}`)",
                        visible(key)
                    ),
                ));
            }
        }
        if let Some(why) = method.and_then(method_problem) {
            return Err(refuse(&id, INVALID_REQUEST, why));
        }
        let params = raw.get("params");
        if let Some(params) = params.filter(|p| !p.is_object() && !p.is_array() && !p.is_null()) {
            return Err(refuse(
                &id,
                INVALID_REQUEST,
                format!("`params` must be an object or an array, not {params}"),
            ));
        }
        if method == Some("tools/call")
            && let Err(why) = tools_call_params(params.unwrap_or(&Value::Null))
        {
            return Err(refuse(&id, INVALID_PARAMS, why.to_string()));
        }
        Ok(match message {
            Message::Request { id, method, raw } => {
                let raw = envelope(&raw, &["jsonrpc", "id", "method", "params"]);
                Message::Request { id, method, raw }
            }
            Message::Notification { method, raw } => {
                let raw = envelope(&raw, &["jsonrpc", "method", "params"]);
                Message::Notification { method, raw }
            }
            Message::Response { id, raw } => {
                if raw.get("result").is_some() && raw.get("error").is_some() {
                    return Err(refuse(
                        &Value::Null,
                        INVALID_REQUEST,
                        format!("the answer to {id} has both `result` and `error`"),
                    ));
                }
                let raw = envelope(&raw, &["jsonrpc", "id", "result", "error"]);
                Message::Response { id, raw }
            }
        })
    }
}

/// A server's message refused by [`Message::parse_server`]: nothing of it
/// reaches the client. Each request of the client it may have answered
/// gets a JSON-RPC error instead, and each request of the server's a
/// JSON-RPC error back, so no side waits for an answer that never comes.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerRefusal {
    /// What is wrong, and where.
    pub message: String,
    /// The ids of the responses it held (or seemed to): the client's
    /// requests with these ids are answered with an error.
    pub answered: Vec<Value>,
    /// The ids of the requests it held (or seemed to): the server gets an
    /// error for each.
    pub requests: Vec<Value>,
}

impl Message {
    /// Read one message from the server (JSON text) by the same rules as
    /// [`Message::parse_client`], and rebuild it the same way: a tool
    /// result, a `tools/list` answer, a notification or a request of the
    /// server's (`sampling/createMessage`, `elicitation/create`) that the
    /// client's decoder could read otherwise than the proxy is refused, so
    /// that what toolvet records (a call that succeeded or failed, the
    /// tools it vets with) is what the client reads.
    ///
    /// # Errors
    /// A [`ServerRefusal`] for everything [`Message::parse_client`]
    /// refuses (a batch, a duplicate or look-alike key, a lone surrogate,
    /// an inexact number, a look-alike method, a response with both
    /// `result` and `error`), with the ids it held read leniently.
    pub fn parse_server(text: &str) -> Result<Message, ServerRefusal> {
        Message::parse_client(text).map_err(|refusal| {
            let (answered, requests) = loose_ids(text);
            ServerRefusal {
                message: refusal.message,
                answered,
                requests,
            }
        })
    }
}

/// Every id a refused message may carry, read leniently (only to answer
/// them with errors, never to pass anything on): the ids of its responses
/// and the ids of its requests, for one message or each message of a
/// batch. An object's every top-level key that folds to `id` counts (an
/// ambiguous message fails every request it might answer); one with a key
/// that folds to `method` is a request. Ids are MCP's (strings and
/// integers). What is read before the text stops being JSON still counts.
fn loose_ids(text: &str) -> (Vec<Value>, Vec<Value>) {
    use std::cell::RefCell;
    /// The ids found so far: (response ids, request ids).
    type Found = RefCell<(Vec<Value>, Vec<Value>)>;
    /// One message, or a batch of them.
    struct Top<'a>(&'a Found);
    /// One message of a batch.
    struct One<'a>(&'a Found);
    fn object<'de, A: MapAccess<'de>>(found: &Found, mut map: A) -> Result<(), A::Error> {
        let mut ids = Vec::new();
        let mut request = false;
        let flush = |ids: &mut Vec<Value>, request: bool| {
            let mut f = found.borrow_mut();
            let into = if request { &mut f.1 } else { &mut f.0 };
            into.extend(
                ids.drain(..)
                    .filter(|id| id.is_string() || id.is_i64() || id.is_u64()),
            );
        };
        let read: Result<(), A::Error> = (|| {
            while let Some(key) = map.next_key::<String>()? {
                match loose_fold(&key).as_str() {
                    "id" => ids.push(map.next_value::<Value>()?),
                    "method" => {
                        request = true;
                        map.next_value::<de::IgnoredAny>()?;
                    }
                    _ => {
                        map.next_value::<de::IgnoredAny>()?;
                    }
                }
            }
            Ok(())
        })();
        flush(&mut ids, request);
        read
    }
    impl<'de> Visitor<'de> for Top<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON-RPC message or a batch")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
            object(self.0, map)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while seq.next_element_seed(One(self.0))?.is_some() {}
            Ok(())
        }
    }
    impl<'de> DeserializeSeed<'de> for One<'_> {
        type Value = ();
        fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de> Visitor<'de> for One<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON-RPC message")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
            object(self.0, map)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while seq.next_element::<de::IgnoredAny>()?.is_some() {}
            Ok(())
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E: de::Error>(self) -> Result<(), E> {
            Ok(())
        }
    }
    let found = RefCell::new((Vec::new(), Vec::new()));
    let mut de = serde_json::Deserializer::from_str(text);
    let _ = de::Deserializer::deserialize_any(&mut de, Top(&found));
    found.into_inner()
}

/// The id of a message that was refused, to answer it under: read
/// leniently, only to be sent back to the client (never forwarded);
/// `null` when there is none that MCP allows, or more than one key that
/// folds to `id`.
fn loose_id(text: &str) -> Value {
    /// Every top-level value whose key folds to `id`.
    struct Ids;
    impl<'de> Visitor<'de> for Ids {
        type Value = Vec<Value>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<Value>, A::Error> {
            let mut ids = Vec::new();
            while let Some(key) = map.next_key::<String>()? {
                if loose_fold(&key) == "id" {
                    ids.push(map.next_value::<Value>()?);
                } else {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
            Ok(ids)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    match de::Deserializer::deserialize_map(&mut de, Ids).as_deref() {
        Ok([id]) if id.is_string() || id.is_i64() || id.is_u64() => id.clone(),
        _ => Value::Null,
    }
}

/// `raw` with only `keys` (those present), in that order.
fn envelope(raw: &Value, keys: &[&str]) -> Value {
    let mut out = Map::new();
    for key in keys {
        if let Some(v) = raw.get(*key) {
            out.insert((*key).to_string(), v.clone());
        }
    }
    Value::Object(out)
}

/// A JSON-RPC error code for a request the policy denied or holds for a
/// person (a `resources/read`, `resources/subscribe` or `prompts/get`:
/// methods whose answer has no room for a tool error the model reads).
pub const REFUSED_BY_POLICY: i64 = -32003;

/// The methods other than `tools/call` that the proxy vets as calls before
/// forwarding, because an agent lets its model use them (Claude Code's
/// `ReadMcpResourceTool`, Codex's `read_mcp_resource`): each is vetted as
/// a call of a tool named after the method, with its params (`_meta`
/// aside) as the arguments, so the checks read its `uri` or its prompt's
/// arguments. `completion/complete` too: a server completing a resource
/// template's argument (`file:///{path}`) lists what lies at a path the
/// model typed, and a prompt's completion runs the server's code on the
/// model's text. See [`vetted_params`].
pub const VETTED_METHODS: &[&str] = &[
    "resources/read",
    "resources/subscribe",
    "prompts/get",
    "completion/complete",
];

/// Every key of a [`VETTED_METHODS`] request's params that
/// [`vetted_params`] reads.
const VETTED_KEYS: [&str; 7] = [
    "uri",
    "name",
    "arguments",
    "argument",
    "context",
    "_meta",
    "ref",
];

/// The params of a [`VETTED_METHODS`] request, checked and split: the
/// arguments the checks see (every key the method defines, `_meta`
/// aside) and the params the server gets, rebuilt from those arguments and
/// the client's `_meta`. `resources/read` and `resources/subscribe` take
/// a string `uri`; `prompts/get` a string `name` and an optional
/// `arguments` object; `completion/complete` a `ref` object (the prompt
/// or resource template) and optional `argument` and `context` objects. A key that folds to one of the method's keys
/// without being it (`URI`, `Arguments`) is refused; other keys are left
/// out, so the server never gets a key the checks did not see.
///
/// # Errors
/// A [`ParamsError`] naming the method and the key: a method not in
/// [`VETTED_METHODS`], params that are not an object, a look-alike key, a
/// key of the wrong type, a required key missing.
pub fn vetted_params(method: &str, params: Option<&Value>) -> Result<(Value, Value), ParamsError> {
    let Some(method) = VETTED_METHODS.iter().copied().find(|m| *m == method) else {
        return Err(ParamsError::NotVetted {
            method: method.to_string(),
        });
    };
    let keys: &[&'static str] = match method {
        "resources/read" | "resources/subscribe" => &["uri", "_meta"],
        "prompts/get" => &["name", "arguments", "_meta"],
        _ => &["ref", "argument", "context", "_meta"],
    };
    let Some(object) = params.and_then(Value::as_object) else {
        return Err(ParamsError::NotAnObject { method });
    };
    let mut arguments = Map::new();
    let mut forwarded = Map::new();
    for (key, value) in object {
        if let Some(known) = look_alike(key, keys) {
            return Err(ParamsError::LookAlike {
                method,
                key: key.clone(),
                known,
            });
        }
        // Any vetted method's key is read (and passed on), not only this
        // method's own.
        let Some(key) = VETTED_KEYS.iter().copied().find(|k| k == key) else {
            continue;
        };
        let fits = match key {
            "uri" | "name" => value.is_string(),
            "arguments" | "argument" | "context" => value.is_object() || value.is_null(),
            _ => value.is_object(),
        };
        if !fits {
            let expected = if matches!(key, "uri" | "name") {
                Expected::String
            } else {
                Expected::Object
            };
            return Err(ParamsError::Mistyped {
                method,
                key,
                expected,
            });
        }
        if value.is_null() {
            continue;
        }
        if key != "_meta" {
            arguments.insert(key.to_string(), value.clone());
        }
        forwarded.insert(key.to_string(), value.clone());
    }
    let (key, expected) = match method {
        "prompts/get" => ("name", Expected::String),
        "completion/complete" => ("ref", Expected::Object),
        _ => ("uri", Expected::String),
    };
    if !arguments.contains_key(key) {
        return Err(ParamsError::Missing {
            method,
            key,
            expected,
        });
    }
    Ok((Value::Object(arguments), Value::Object(forwarded)))
}

/// Check `params` of a `tools/call`: an object, `name` a string,
/// `arguments` an object (or absent, or `null`), `_meta`, `task` and
/// `inputResponses` objects, `requestState` a string, and no key that
/// folds to one of [`TOOLS_CALL_KEYS`] without being it (`NAME`,
/// `Arguments`, `meta`, `request_state`). Keys the proxy does not know
/// are allowed here and left out of what is forwarded.
///
/// # Errors
/// A [`ParamsError`] naming the key (its method `tools/call`): params
/// that are not an object, a look-alike key, a key of the wrong type, no
/// `name`.
pub fn tools_call_params(params: &Value) -> Result<(), ParamsError> {
    const METHOD: &str = "tools/call";
    let Some(object) = params.as_object() else {
        return Err(ParamsError::NotAnObject { method: METHOD });
    };
    for (key, value) in object {
        if let Some(known) = look_alike(key, TOOLS_CALL_KEYS) {
            return Err(ParamsError::LookAlike {
                method: METHOD,
                key: key.clone(),
                known,
            });
        }
        let Some(key) = TOOLS_CALL_KEYS.iter().copied().find(|k| k == key) else {
            continue;
        };
        let fits = match key {
            "name" | "requestState" => value.is_string(),
            "arguments" => value.is_object() || value.is_null(),
            _ => value.is_object(),
        };
        if !fits {
            let expected = if matches!(key, "name" | "requestState") {
                Expected::String
            } else {
                Expected::Object
            };
            return Err(ParamsError::Mistyped {
                method: METHOD,
                key,
                expected,
            });
        }
    }
    if !object.contains_key("name") {
        return Err(ParamsError::Missing {
            method: METHOD,
            key: "name",
            expected: Expected::String,
        });
    }
    Ok(())
}

/// Why the params of a `tools/call` ([`tools_call_params`]) or of a
/// [`VETTED_METHODS`] request ([`vetted_params`]) are refused. Its text
/// (`Display`) is the JSON-RPC error's message; a key the client sent is
/// escaped there ([`toolvet::display::visible`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamsError {
    /// [`vetted_params`] was asked about a method not in
    /// [`VETTED_METHODS`].
    #[error("`{}` is not vetted as a call", visible(.method))]
    NotVetted {
        /// The method, as given.
        method: String,
    },
    /// The params are missing or not an object.
    #[error("{method} needs `params`, an object")]
    NotAnObject {
        /// The method (`tools/call`, `resources/read`, …).
        method: &'static str,
    },
    /// A key that folds to one of the method's keys without being it
    /// (`NAME`, `URI`, `Arguments`): a server could read it as that key.
    #[error(
        "{method} params: the key `{}` is not `{known}`; refused (it could be read as `{known}`)",
        visible(.key)
    )]
    LookAlike {
        /// The method.
        method: &'static str,
        /// The key, as the client sent it.
        key: String,
        /// The method's key it could be read as.
        known: &'static str,
    },
    /// One of the method's keys holds a value of the wrong type.
    #[error("{method} params: `{key}` must be {expected}")]
    Mistyped {
        /// The method.
        method: &'static str,
        /// The key.
        key: &'static str,
        /// What its value must be.
        expected: Expected,
    },
    /// A key the method requires is missing (or `null`, for the vetted
    /// methods).
    #[error("{method} needs {expected} `{key}`")]
    Missing {
        /// The method.
        method: &'static str,
        /// The required key.
        key: &'static str,
        /// What its value must be.
        expected: Expected,
    },
}

/// The JSON type a key's value must have ([`ParamsError`]); shown as
/// `a string` or `an object`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// A JSON string.
    String,
    /// A JSON object.
    Object,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Expected::String => "a string",
            Expected::Object => "an object",
        })
    }
}

/// Why `method` is refused, if it is: it holds a control character, white
/// space or an invisible character, or it folds to an MCP method (case,
/// Unicode compatibility forms, punctuation: `Tools/Call`, `tools//call`,
/// `ｔｏｏｌｓ/call`) without being it. A method no MCP method folds to
/// passes.
pub fn method_problem(method: &str) -> Option<String> {
    if method.is_empty() {
        return Some("the method is empty".into());
    }
    if method.chars().any(|c| c.is_whitespace() || invisible(c)) {
        return Some(format!(
            "the method `{}` holds a control character, white space or an invisible character; refused",
            visible(&escape_invisible(method))
        ));
    }
    if KNOWN_METHODS.contains(&method) {
        return None;
    }
    let folded = loose_fold(method);
    KNOWN_METHODS
        .iter()
        .find(|known| loose_fold(known) == folded)
        .map(|known| {
            format!(
                "the method `{}` is not `{known}`; refused (a server could read it as `{known}`)",
                visible(method)
            )
        })
}

/// The known key `key` could be read as without being it, if any.
fn look_alike<'k>(key: &str, known: &[&'k str]) -> Option<&'k str> {
    if known.contains(&key) {
        return None;
    }
    let folded = loose_fold(key);
    known.iter().find(|k| loose_fold(k) == folded).copied()
}

/// How a key or method is folded for comparison: the core's one rule
/// ([`toolvet::fold::fold`]), shared with `toolvet check`, the hooks and
/// `toolvet serve`.
pub use toolvet::fold::fold;
use toolvet::fold::{escape_invisible, invisible};

/// [`fold`] keeping only letters and digits, for comparing with MCP's own
/// keys and methods: `tools//call`, `tools.call` and `Tools/Call` all
/// read `toolscall`, `request_state` reads `requeststate`.
fn loose_fold(text: &str) -> String {
    fold(text).chars().filter(|c| c.is_alphanumeric()).collect()
}

/// Where in a message a key is, for error messages (`params.arguments`).
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => f.write_str("the message"),
            Path::Key(Path::Root, key) => write!(f, "{}", visible(key)),
            Path::Key(parent, key) => write!(f, "{parent}.{}", visible(key)),
            Path::Index(Path::Root, i) => write!(f, "[{i}]"),
            Path::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

/// A JSON value read with the checks of [`strict_value`].
struct Strict<'a>(Path<'a>);

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom(format!("a number in `{}` is not finite", self.0)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Strict(Path::Index(&self.0, items.len())))? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        // Each key's fold, to the key.
        let mut folded: HashMap<String, String> = HashMap::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "duplicate key `{}` in {}",
                    visible(&key),
                    self.0
                )));
            }
            let f = fold(&key);
            if !f.is_empty()
                && let Some(other) = folded.insert(f, key.clone())
            {
                return Err(de::Error::custom(format!(
                    "the keys `{}` and `{}` in {} differ only in case, Unicode form or invisible characters",
                    visible(&escape_invisible(&other)),
                    visible(&escape_invisible(&key)),
                    self.0
                )));
            }
            let value = map.next_value_seed(Strict(Path::Key(&self.0, &key)))?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// Parse `text` as JSON, refusing what a server's decoder could read
/// otherwise than the proxy: a duplicate key at any depth, two keys of
/// one object that [`fold`] alike, and a number the proxy would not pass
/// on exactly (an integer beyond 64 bits, or a decimal that does not
/// survive as a 64-bit float).
///
/// # Errors
/// A [`StrictJsonError`]: what is wrong, and where.
pub fn strict_value(text: &str) -> Result<Value, StrictJsonError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Strict(Path::Root)
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))?;
    if let Some(number) = inexact_number(text) {
        return Err(StrictJsonError::InexactNumber {
            number: number.chars().take(64).collect(),
        });
    }
    Ok(value)
}

/// Why [`strict_value`] refuses a text. Its text (`Display`) is the
/// JSON-RPC error's message.
#[derive(Debug, thiserror::Error)]
pub enum StrictJsonError {
    /// Not JSON (or trailing text after it), or JSON a lenient decoder
    /// could read otherwise: a duplicate key, two keys of one object that
    /// [`fold`] alike, a number that is not finite. serde_json's error,
    /// which names the key, its place in the message (`params.arguments`)
    /// and the line and column.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A number the proxy cannot pass on exactly: an integer beyond 64
    /// bits, or more digits than a 64-bit float keeps.
    #[error(
        "the number {number} cannot be passed on exactly (an integer beyond 64 bits, or more digits than a 64-bit float keeps); send it as a string"
    )]
    InexactNumber {
        /// The number's text, its first 64 characters.
        number: String,
    },
}

/// The first number in the JSON text `text` that does not come out of
/// serde_json the same (read as a 64-bit integer or float and written
/// again), if any. `text` is valid JSON.
fn inexact_number(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => {
                i += 1;
                while let Some(&c) = bytes.get(i) {
                    i += match c {
                        b'\\' => 2,
                        b'"' => break,
                        _ => 1,
                    };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while bytes
                    .get(i)
                    .is_some_and(|c| matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                {
                    i += 1;
                }
                let token = text.get(start..i)?;
                if !exact(token) {
                    return Some(token);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// Whether the JSON number `token` keeps its value through serde_json.
fn exact(token: &str) -> bool {
    if !token.contains(['.', 'e', 'E']) {
        return token.parse::<i64>().is_ok() || token.parse::<u64>().is_ok();
    }
    let Some(written) = token
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map(|n| n.to_string())
    else {
        return false;
    };
    match (decimal(token), decimal(&written)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// A decimal number's value as (negative, significant digits, exponent
/// of the last digit), zero as `(false, "", 0)`; `None` when the exponent
/// does not fit.
fn decimal(token: &str) -> Option<(bool, String, i64)> {
    let (negative, rest) = match token.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, token),
    };
    let (mantissa, exponent) = match rest.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().ok()?),
        None => (rest, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut exponent = exponent.checked_sub(i64::try_from(fraction.len()).ok()?)?;
    let digits = format!("{whole}{fraction}");
    let digits = digits.trim_start_matches('0');
    let trimmed = digits.trim_end_matches('0');
    if trimmed.is_empty() {
        return Some((false, String::new(), 0));
    }
    exponent = exponent.checked_add(i64::try_from(digits.len() - trimmed.len()).ok()?)?;
    Some((negative, trimmed.to_string(), exponent))
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
    fn resource_reads_and_prompts_are_vetted_on_their_own_keys() {
        let (arguments, forwarded) = vetted_params(
            "resources/read",
            Some(&json!({"uri": "file:///root/.ssh/id_rsa", "_meta": {"k": 1}, "extra": "x"})),
        )
        .unwrap();
        assert_eq!(arguments, json!({"uri": "file:///root/.ssh/id_rsa"}));
        assert_eq!(
            forwarded,
            json!({"uri": "file:///root/.ssh/id_rsa", "_meta": {"k": 1}})
        );
        let (arguments, forwarded) = vetted_params(
            "prompts/get",
            Some(&json!({"name": "greet", "arguments": {"who": "/root/.ssh"}})),
        )
        .unwrap();
        assert_eq!(
            arguments,
            json!({"name": "greet", "arguments": {"who": "/root/.ssh"}})
        );
        assert_eq!(forwarded, arguments);
        for (method, params, why) in [
            (
                "resources/read",
                json!({"uri": "note://a", "URI": "file:///etc/shadow"}),
                "`URI` is not `uri`",
            ),
            (
                "resources/subscribe",
                json!({"uri": 7}),
                "`uri` must be a string",
            ),
            ("resources/read", json!({}), "needs a string `uri`"),
            (
                "prompts/get",
                json!({"name": "g", "Arguments": {}}),
                "`Arguments` is not `arguments`",
            ),
            (
                "prompts/get",
                json!({"arguments": {}}),
                "needs a string `name`",
            ),
            ("resources/read", json!([1]), "needs `params`, an object"),
            (
                "completion/complete",
                json!({"argument": {"name": "path", "value": "/root/.ss"}}),
                "needs an object `ref`",
            ),
            (
                "completion/complete",
                json!({"ref": "file:///{path}"}),
                "`ref` must be an object",
            ),
            (
                "completion/complete",
                json!({"ref": {}, "Argument": {}}),
                "`Argument` is not `argument`",
            ),
        ] {
            let err = vetted_params(method, Some(&params))
                .unwrap_err()
                .to_string();
            assert!(err.contains(why), "{method} {params}: {err}");
        }
        assert!(vetted_params("resources/read", None).is_err());
        let params = json!({"ref": {"type": "ref/resource", "uri": "file:///{path}"},
                            "argument": {"name": "path", "value": "/root/.ss"}, "x": 1});
        let (arguments, forwarded) = vetted_params("completion/complete", Some(&params)).unwrap();
        assert_eq!(
            arguments,
            json!({"ref": {"type": "ref/resource", "uri": "file:///{path}"},
                   "argument": {"name": "path", "value": "/root/.ss"}})
        );
        assert_eq!(forwarded, arguments);
    }

    /// The refusals keep their words (clients show them).
    #[test]
    fn refusals_read_as_before() {
        let texts = [
            (
                Message::classify(json!([])).unwrap_err().to_string(),
                "JSON-RPC batches are not supported by MCP",
            ),
            (
                Message::classify(json!({"id": 1, "method": "x"}))
                    .unwrap_err()
                    .to_string(),
                "`jsonrpc` must be \"2.0\"",
            ),
            (
                vetted_params("tools/Call", None).unwrap_err().to_string(),
                "`tools/Call` is not vetted as a call",
            ),
            (
                vetted_params("prompts/get", None).unwrap_err().to_string(),
                "prompts/get needs `params`, an object",
            ),
            (
                tools_call_params(&json!({"name": "t", "NAME": "u"}))
                    .unwrap_err()
                    .to_string(),
                "tools/call params: the key `NAME` is not `name`; refused (it could be read as `name`)",
            ),
            (
                tools_call_params(&json!({"name": "t", "task": 1}))
                    .unwrap_err()
                    .to_string(),
                "tools/call params: `task` must be an object",
            ),
            (
                tools_call_params(&json!({"arguments": {}}))
                    .unwrap_err()
                    .to_string(),
                "tools/call needs a string `name`",
            ),
            (
                strict_value("123456789012345678901234567890")
                    .unwrap_err()
                    .to_string(),
                "the number 123456789012345678901234567890 cannot be passed on exactly (an integer \
                 beyond 64 bits, or more digits than a 64-bit float keeps); send it as a string",
            ),
        ];
        for (text, expected) in texts {
            assert_eq!(text, expected);
        }
        assert_eq!(
            tools_call_params(&json!({"name": 1})),
            Err(ParamsError::Mistyped {
                method: "tools/call",
                key: "name",
                expected: Expected::String
            })
        );
        assert!(matches!(
            strict_value(r#"{"a": 1, "a": 2}"#),
            Err(StrictJsonError::Json(e)) if e.line() == 1
        ));
    }

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
            let e = m(bad).unwrap_err().to_string();
            assert!(e.contains(why), "{e}");
        }
        assert_ne!(id_key(&json!(1)), id_key(&json!("1")));
    }

    /// The refusal of one client message (panics when it is accepted).
    fn refused(text: &str) -> Refusal {
        match Message::parse_client(text) {
            Ok(m) => panic!("accepted {text}: {m:?}"),
            Err(r) => r,
        }
    }

    #[test]
    fn keys_a_lenient_decoder_reads_otherwise_are_refused_at_any_depth() {
        for (text, why) in [
            // Duplicates: serde keeps the last, other decoders the first.
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wipe","name":"echo"}}"#,
                "duplicate key `name` in params",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[{"command":"rm -rf ~","command":"ls"}]}}}"#,
                "duplicate key `command` in params.arguments.a[0]",
            ),
            // Keys that fold alike: Go's encoding/json, last one winning.
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"},"Params":{"name":"wipe"}}"#,
                "the keys `params` and `Params` in the message",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","NAME":"wipe"}}"#,
                "the keys `name` and `NAME` in params",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"},"param\u017f":{"name":"wipe"}}"#,
                "the keys `params` and `paramſ`",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"ping","METHOD":"tools/call","params":{"name":"wipe"}}"#,
                "the keys `method` and `METHOD`",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","\u212aey":1,"key":2}}"#,
                "differ only in case",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","name\u200b":"wipe"}}"#,
                "`name\\u{200b}`",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","\uff4e\uff41\uff4d\uff45":"wipe"}}"#,
                "differ only in case, Unicode form",
            ),
        ] {
            let r = refused(text);
            assert_eq!((r.code, &r.id), (PARSE_ERROR, &json!(1)), "{text}");
            assert!(r.message.contains(why), "{text}: {}", r.message);
        }
    }

    #[test]
    fn a_lone_key_that_only_looks_like_a_known_one_is_refused() {
        for (text, code, why) in [
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","Params":{"name":"wipe"}}"#,
                INVALID_REQUEST,
                "`Params` is not JSON-RPC's `params`",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","param\u017f":{"name":"wipe"}}"#,
                INVALID_REQUEST,
                "`paramſ` is not JSON-RPC's `params`",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"NAME":"wipe"}}"#,
                INVALID_PARAMS,
                "`NAME` is not `name`",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","request_state":"s"}}"#,
                INVALID_PARAMS,
                "`request_state` is not `requestState`",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","meta":{}}}"#,
                INVALID_PARAMS,
                "`meta` is not `_meta`",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}"#,
                INVALID_PARAMS,
                "`name` must be a string",
            ),
        ] {
            let r = refused(text);
            assert_eq!((r.code, &r.id), (code, &json!(1)), "{text}");
            assert!(r.message.contains(why), "{text}: {}", r.message);
        }
    }

    #[test]
    fn look_alike_methods_are_refused_and_unknown_ones_pass_rebuilt() {
        for method in [
            "Tools/Call",
            "tools/call ",
            " tools/call",
            "tools/call\\u0000",
            "tools/call\\t",
            "tools//call",
            "tools.call",
            "TOOLS_CALL",
            "/tools/call/",
            "\\uff54ools/call",
            "tool\\u017f/call",
            "tools/\\u200bcall",
            "Initialize",
        ] {
            let text = format!(
                r#"{{"jsonrpc":"2.0","id":"m","method":"{method}","params":{{"name":"wipe"}}}}"#
            );
            let r = refused(&text);
            assert_eq!((r.code, &r.id), (INVALID_REQUEST, &json!("m")), "{method}");
            assert!(r.message.contains("the method"), "{method}: {}", r.message);
        }
        // A real unknown method passes, with nothing but JSON-RPC's keys.
        let Ok(Message::Request { method, raw, .. }) = Message::parse_client(
            r#"{"jsonrpc":"2.0","id":1,"method":"vendor/run","params":{"x":1},"extra":{"name":"wipe"}}"#,
        ) else {
            panic!("an unknown method is refused");
        };
        assert_eq!(method, "vendor/run");
        assert_eq!(
            raw,
            json!({"jsonrpc":"2.0","id":1,"method":"vendor/run","params":{"x":1}})
        );
        // A notification's method follows the same rule.
        assert_eq!(
            refused(r#"{"jsonrpc":"2.0","method":"notifications/Cancelled"}"#).code,
            INVALID_REQUEST
        );
        // No two of MCP's methods fold alike: each is refused as no other.
        for known in KNOWN_METHODS {
            assert_eq!(method_problem(known), None, "{known}");
            let same: Vec<_> = KNOWN_METHODS
                .iter()
                .filter(|k| loose_fold(k) == loose_fold(known))
                .collect();
            assert_eq!(same, [known]);
        }
    }

    #[test]
    fn numbers_pass_only_when_they_come_out_the_same() {
        for exact in [
            "0",
            "-0",
            "9223372036854775807",
            "-9223372036854775808",
            "18446744073709551615",
            "0.1",
            "1.5e3",
            "1E-7",
            "0.30000000000000004",
            "2.5",
            "100.000",
        ] {
            let text =
                format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"n":{exact}}}}}"#);
            assert!(Message::parse_client(&text).is_ok(), "{exact}");
        }
        for inexact in [
            "18446744073709551616",
            "-9223372036854775809",
            "123456789012345678901234567890",
            "0.1000000000000000055511151231257827",
            "9007199254740993.0",
        ] {
            let text = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"n":[{inexact}]}}}}"#
            );
            let r = refused(&text);
            assert_eq!((r.code, &r.id), (PARSE_ERROR, &json!(1)), "{inexact}");
        }
        // Out of a float's range: not JSON serde reads (nor the id then).
        assert_eq!(
            refused(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"n":1e400}}"#).code,
            PARSE_ERROR
        );
        // A number inside a string is text, not a number.
        assert!(
            Message::parse_client(
                r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"n":"123456789012345678901234567890\"1e999"}}"#
            )
            .is_ok()
        );
    }

    #[test]
    fn what_is_accepted_is_rebuilt_from_what_was_read() {
        let Ok(Message::Response { raw, .. }) =
            Message::parse_client(r#"{"jsonrpc":"2.0","id":"s","result":{"a":1},"x":2}"#)
        else {
            panic!("a response is refused");
        };
        assert_eq!(raw, json!({"jsonrpc":"2.0","id":"s","result":{"a":1}}));
        let r = refused(r#"{"jsonrpc":"2.0","id":"s","result":{},"error":{"code":1}}"#);
        assert!(
            r.message.contains("both `result` and `error`"),
            "{}",
            r.message
        );
        let Ok(Message::Request { raw, .. }) = Message::parse_client(
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"Path":1,"path_":2}}}"#,
        ) else {
            panic!("distinct argument keys are refused");
        };
        assert_eq!(raw["params"]["arguments"], json!({"Path":1,"path_":2}));
        // Two ids: refused, and answered under none of them.
        let r = refused(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#);
        assert!(
            r.message.contains("duplicate key `id` in the message"),
            "{}",
            r.message
        );
        assert_eq!(r.id, Value::Null);
        assert_eq!(
            refused(r#"{"jsonrpc":"2.0","id":1,"ID":1,"method":"ping"}"#).id,
            Value::Null
        );
        // Not JSON, or not UTF-8 JSON-RPC: refused with the id when it is plain.
        assert_eq!(refused("{").id, Value::Null);
        assert_eq!(
            refused(r#"{"jsonrpc":"1.0","id":9,"method":"ping"}"#).id,
            json!(9)
        );
    }

    #[test]
    fn a_server_message_is_read_as_strictly_and_its_ids_are_found_for_errors() {
        let refused = |text: &str| match Message::parse_server(text) {
            Ok(m) => panic!("accepted {text}: {m:?}"),
            Err(r) => r,
        };
        let r = refused(
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[]},"result":{"isError":true}}"#,
        );
        assert!(
            r.message.contains("duplicate key `result`"),
            "{}",
            r.message
        );
        assert_eq!((r.answered, r.requests), (vec![json!(7)], vec![]));
        let r = refused(r#"{"jsonrpc":"2.0","id":"a","result":{"isError":false,"IsError":true}}"#);
        assert_eq!(r.answered, [json!("a")]);
        // A lone surrogate: the id read before it still counts.
        let r = refused(r#"{"jsonrpc":"2.0","id":8,"result":{"text":"\ud800"}}"#);
        assert_eq!(r.answered, [json!(8)]);
        // A batch: each answer in it fails its request.
        let r = refused(
            r#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"x","result":{}},3]"#,
        );
        assert!(r.message.contains("batches"), "{}", r.message);
        assert_eq!(r.answered, [json!(1), json!("x")]);
        // A request of the server's: it gets the error back.
        let r = refused(r#"{"jsonrpc":"2.0","id":"s","method":"Sampling/CreateMessage"}"#);
        assert_eq!((r.answered, r.requests), (vec![], vec![json!("s")]));
        // Two ids: both fail; ids MCP does not allow are none.
        let r = refused(r#"{"jsonrpc":"2.0","id":1,"ID":2,"result":{}}"#);
        assert_eq!(r.answered, [json!(1), json!(2)]);
        let r = refused(r#"{"jsonrpc":"2.0","id":1.5,"result":{},"result":{}}"#);
        assert!(r.answered.is_empty() && r.requests.is_empty());
        // What passes is rebuilt: nothing but JSON-RPC's keys.
        let Ok(Message::Response { raw, .. }) =
            Message::parse_server(r#"{"jsonrpc":"2.0","id":2,"result":{"ok":1},"Extra":{}}"#)
        else {
            panic!("a plain answer is refused");
        };
        assert_eq!(raw, json!({"jsonrpc":"2.0","id":2,"result":{"ok":1}}));
    }
}
