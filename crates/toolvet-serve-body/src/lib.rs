//! The request bodies of `toolvet serve` and the answers it builds from
//! verdicts, as pure functions of bytes and values.
//!
//! The routes (`crates/toolvet-serve/src/routes`) read a body within the
//! server's size limit, hand the bytes to [`check_call`],
//! [`evaluation_call`] or [`decision`], and turn a [`BodyError`] into a 400
//! answer; a call that parsed goes to the host, and [`verdict_answer`] or
//! [`evaluation_answer`] is the 200 answer. Nothing here needs the server,
//! so the `serve_body` fuzz target (`crates/toolvet-fuzz-targets`) drives
//! exactly the code the routes run, without building the server.
//!
//! Messages are those of `toolvet check` for the same text: `malformed
//! JSON: …` with serde_json's line and column, then the core's
//! [`toolvet::CallError`] for a call that does not have the call shape.
//! Every refusal is a [`BodyError`], never a call or a review, so a body
//! that does not parse can never reach a check, let alone be allowed.

use serde::Deserialize;
use serde_json::{Map, Value, json};
use toolvet::tool_result::{ResultRequest, ResultVerdict};
use toolvet::{CallRequest, Decision, Verdict, approval::Review};

/// `kind` of a body that is not JSON, or not a call (`POST /v1/check`).
pub const INVALID_CALL: &str = "invalid-call";
/// `kind` of an AuthZEN evaluation request that maps onto no call.
pub const INVALID_EVALUATION: &str = "invalid-evaluation";
/// `kind` of a reviewer's decision that is not a valid review.
pub const INVALID_DECISION: &str = "invalid-decision";

/// A body the server refuses: always a 400 answer,
/// `{"error": {"kind": …, "message": …}}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyError {
    /// [`INVALID_CALL`], [`INVALID_EVALUATION`] or [`INVALID_DECISION`].
    pub kind: &'static str,
    /// What is wrong, worded as `toolvet check` words it.
    pub message: String,
}

impl BodyError {
    fn new(kind: &'static str, message: impl Into<String>) -> BodyError {
        BodyError {
            kind,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)
    }
}

impl std::error::Error for BodyError {}

/// The body as one JSON value, read by the core's
/// [`toolvet::strict_json::parse_json_strict`], as `toolvet check` reads a call: a key
/// twice in one object (at any depth) or a number a 64-bit reader would
/// round is refused, so every body means one thing to every reader.
///
/// # Errors
/// [`INVALID_CALL`]: `the body is not UTF-8`; `malformed JSON: …` with
/// serde_json's reason, line and column (nesting deeper than 128 levels is
/// malformed); or the key path and what is wrong for a duplicate key or an
/// inexact number.
pub fn json(body: &[u8]) -> Result<Value, BodyError> {
    let text = std::str::from_utf8(body)
        .map_err(|_| BodyError::new(INVALID_CALL, "the body is not UTF-8"))?;
    toolvet::strict_json::parse_json_strict(text)
        .map_err(|e| BodyError::new(INVALID_CALL, e.to_string()))
}

/// The call of a `POST /v1/check` body, in the call shape
/// (`docs/formats.md`).
///
/// The call is read from the body's own text ([`CallRequest::from_json`]),
/// so its arguments are kept exactly as sent (`1e23` stays `1e23`): the
/// text checks read and a reviewer is shown.
///
/// # Errors
/// As [`json()`]; then [`INVALID_CALL`] with the core's
/// [`toolvet::CallError`] message for JSON that is not a valid call.
pub fn check_call(body: &[u8]) -> Result<CallRequest, BodyError> {
    json(body)?;
    // `json` has read the text as UTF-8 and JSON already.
    let text = std::str::from_utf8(body)
        .map_err(|_| BodyError::new(INVALID_CALL, "the body is not UTF-8"))?;
    CallRequest::from_json(text).map_err(|e| BodyError::new(INVALID_CALL, e.to_string()))
}

/// The call and result of a `POST /v1/check-result` body: the call shape
/// plus `result` ([`ResultRequest`], `docs/formats.md`), read as
/// [`check_call`] reads a call.
///
/// # Errors
/// As [`json()`]; then [`INVALID_CALL`] with the core's message, naming
/// the key.
pub fn result_call(body: &[u8]) -> Result<ResultRequest, BodyError> {
    json(body)?;
    let text = std::str::from_utf8(body)
        .map_err(|_| BodyError::new(INVALID_CALL, "the body is not UTF-8"))?;
    ResultRequest::from_json(text).map_err(|e| BodyError::new(INVALID_CALL, e.to_string()))
}

/// The answer of `POST /v1/check-result`: the result verdict as `toolvet
/// check-result` prints it (what the model reads in `content`, or the
/// `reason` it reads instead), with the call's `tool` and `call_id`.
pub fn result_answer(request: &CallRequest, verdict: &ResultVerdict) -> Value {
    let mut value = serde_json::to_value(verdict).unwrap_or_default();
    if let Some(map) = value.as_object_mut() {
        map.insert("tool".into(), request.call.name.clone().into());
        map.insert("call_id".into(), request.call.id.clone().into());
    }
    value
}

/// The call a `POST /access/v1/evaluation` body (AuthZEN 1.0) stands for;
/// see [`evaluation_request`] for the mapping.
///
/// # Errors
/// As [`json()`]; then [`INVALID_EVALUATION`] naming the field.
pub fn evaluation_call(body: &[u8]) -> Result<CallRequest, BodyError> {
    evaluation_request(&json(body)?).map_err(|e| BodyError::new(INVALID_EVALUATION, e.to_string()))
}

/// The call an AuthZEN evaluation request stands for:
///
/// | AuthZEN | call |
/// |---|---|
/// | `subject.id` | `context.agent` |
/// | `subject.properties.run_id`, `.principal` | `context.run_id`, `context.principal` |
/// | `action.name` | `call.name` (the tool) |
/// | `resource.properties.arguments` (an object; default `{}`) | `call.arguments` |
/// | `resource.properties.call_id` | `call.id` |
/// | `context.attributes` (string values) | `context.attributes` |
/// | `context.approval_ticket` | `approval.ticket` (a resumed call) |
///
/// `subject.type` and `resource.type` may be given (strings, not used);
/// `resource.id`, when given, must be the tool's name. Every other key, at
/// every level, is refused ([`EVALUATION_KEYS`]): a key toolvet does not
/// read is one the enforcement point may read differently (a misspelt
/// `arguments2` holding the real arguments would be vetted as `{}`).
///
/// # Errors
/// An [`EvaluationError`] naming the field: a part that is not an object,
/// an unknown key (by its path, e.g. `resource.properties.arguments2`), a
/// missing `action.name`, a `resource.id` naming another tool, or the
/// core's [`toolvet::CallError`] for the call.
pub fn evaluation_request(value: &Value) -> Result<CallRequest, EvaluationError> {
    let top = value.as_object().ok_or(EvaluationError::NotAnObject)?;
    let part = |path: &'static str| -> Result<Map<String, Value>, EvaluationError> {
        let mut at: Option<&Value> = Some(value);
        for key in path.split('.') {
            at = at.and_then(|v| v.get(key));
        }
        match at {
            None | Some(Value::Null) => Ok(Map::new()),
            Some(Value::Object(m)) => {
                only_known_keys(m, path)?;
                Ok(m.clone())
            }
            Some(_) => Err(EvaluationError::PartNotAnObject { path }),
        }
    };
    only_known_keys(top, "")?;
    let subject = part("subject")?;
    let action = part("action")?;
    let resource = part("resource")?;
    let context = part("context")?;
    let subject_props = part("subject.properties")?;
    let resource_props = part("resource.properties")?;
    for (map, path) in [(&subject, "subject"), (&resource, "resource")] {
        if let Some(kind) = map.get("type")
            && !kind.is_string()
        {
            return Err(EvaluationError::TypeNotAString { part: path });
        }
    }
    let tool = action
        .get("name")
        .and_then(Value::as_str)
        .ok_or(EvaluationError::NoToolName)?;
    if let Some(id) = resource.get("id")
        && id.as_str() != Some(tool)
    {
        return Err(EvaluationError::OtherTool {
            id: id.clone(),
            tool: tool.to_string(),
        });
    }
    let arguments = resource_props
        .get("arguments")
        .cloned()
        .unwrap_or_else(|| json!({}));
    let mut call = json!({
        "call": {"name": tool, "arguments": arguments},
        "context": {},
    });
    if let Some(id) = resource_props.get("call_id") {
        call["call"]["id"] = id.clone();
    }
    if let Some(agent) = subject.get("id") {
        call["context"]["agent"] = agent.clone();
    }
    for key in ["run_id", "principal"] {
        if let Some(v) = subject_props.get(key) {
            call["context"][key] = v.clone();
        }
    }
    if let Some(attributes) = context.get("attributes") {
        call["context"]["attributes"] = attributes.clone();
    }
    if let Some(ticket) = context.get("approval_ticket") {
        call["approval"] = json!({"ticket": ticket});
    }
    CallRequest::from_value(call).map_err(EvaluationError::Call)
}

/// Why an AuthZEN evaluation request maps onto no call
/// ([`evaluation_request`]). Its text (`Display`) is the message of the
/// [`INVALID_EVALUATION`] answer, naming the field.
#[derive(Debug, Clone)]
pub enum EvaluationError {
    /// The request is not a JSON object.
    NotAnObject,
    /// A key [`EVALUATION_KEYS`] does not list for the object holding it.
    UnknownKey {
        /// The path of the object holding it (`""`: the request itself,
        /// `resource.properties`, …).
        path: &'static str,
        /// The key, as sent.
        key: String,
        /// The keys that object may hold.
        known: &'static [&'static str],
    },
    /// A part (`subject`, `resource.properties`, …) that is neither an
    /// object nor `null`.
    PartNotAnObject {
        /// The part's path.
        path: &'static str,
    },
    /// `subject.type` or `resource.type` is given and not a string.
    TypeNotAString {
        /// `subject` or `resource`.
        part: &'static str,
    },
    /// No string `action.name` (the tool's name).
    NoToolName,
    /// `resource.id` is given and is not the tool's name.
    OtherTool {
        /// `resource.id`, as sent.
        id: Value,
        /// The tool's name (`action.name`).
        tool: String,
    },
    /// The call it maps onto is not a valid call (the core's message,
    /// naming the call's key: `call.arguments`, `context.attributes`).
    Call(toolvet::CallError),
}

impl std::fmt::Display for EvaluationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvaluationError::NotAnObject => {
                f.write_str("the evaluation request must be a JSON object")
            }
            EvaluationError::UnknownKey { path, key, known } => {
                let full = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                let within = if path.is_empty() {
                    "the request".to_string()
                } else {
                    format!("`{path}`")
                };
                write!(
                    f,
                    "unknown key `{}`: {within} may hold only {}; toolvet refuses what it would not vet",
                    toolvet::display::visible(&full),
                    known
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
            EvaluationError::PartNotAnObject { path } => write!(f, "`{path}` must be an object"),
            EvaluationError::TypeNotAString { part } => {
                write!(f, "`{part}.type` must be a string")
            }
            EvaluationError::NoToolName => {
                f.write_str("`action.name` (the tool's name) is required")
            }
            EvaluationError::OtherTool { id, tool } => write!(
                f,
                "`resource.id` ({id}) names another tool than `action.name` ({tool:?}); give the \
                 tool's name in both, or leave `resource.id` out"
            ),
            EvaluationError::Call(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for EvaluationError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EvaluationError::Call(e) => Some(e),
            _ => None,
        }
    }
}

/// The keys an AuthZEN evaluation request may hold, by the path of the
/// object holding them (`""` is the request itself).
pub const EVALUATION_KEYS: &[(&str, &[&str])] = &[
    ("", &["subject", "action", "resource", "context"]),
    ("subject", &["type", "id", "properties"]),
    ("subject.properties", &["run_id", "principal"]),
    ("action", &["name"]),
    ("resource", &["type", "id", "properties"]),
    ("resource.properties", &["arguments", "call_id"]),
    ("context", &["attributes", "approval_ticket"]),
];

/// Refuse a key of `map` (the object at `path`) that [`EVALUATION_KEYS`]
/// does not list, naming its full path.
fn only_known_keys(map: &Map<String, Value>, path: &'static str) -> Result<(), EvaluationError> {
    let known = EVALUATION_KEYS
        .iter()
        .find(|(p, _)| *p == path)
        .map_or(&[][..], |(_, keys)| *keys);
    match map.keys().find(|k| !known.contains(&k.as_str())) {
        None => Ok(()),
        Some(key) => Err(EvaluationError::UnknownKey {
            path,
            key: key.clone(),
            known,
        }),
    }
}

/// The body of a decision: only these keys, each optional here so that a
/// missing one is named by [`Review::parse`].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DecisionBody {
    decision: Option<String>,
    reviewer: Option<String>,
    message: Option<String>,
    scope: Option<String>,
    shown: Option<String>,
}

/// The review of a `POST /v1/approvals/{id}/decision` body:
/// `{"decision": "approve" | "reject", "reviewer": "…", "message": "…",
/// "scope": "once" | "run", "shown": "<review_sha256>"}` (`shown`: see
/// [`decision_shown`]). Only [`Review::parse`] builds the review, so
/// anything but a named reviewer with exactly `approve` or `reject` is
/// refused, never an approval.
///
/// # Errors
/// As [`json()`] (so a key given twice is refused); then
/// [`INVALID_DECISION`] for anything but an object (serde would read a
/// positional array such as `["approve", "bob"]` as the fields in order),
/// another shape, an unknown key, or a review [`Review::parse`] refuses
/// (its message).
pub fn decision(body: &[u8]) -> Result<Review, BodyError> {
    decision_shown(body).map(|(review, _)| review)
}

/// [`decision`] with the body's `"shown"`: the
/// [`toolvet::approval::ApprovalRequest::review_sha256`] of the request as the
/// reviewer read it (64 lowercase hex digits), when the body has one.
///
/// # Errors
/// As [`decision`]; [`INVALID_DECISION`] for a `shown` that is not 64
/// lowercase hex digits.
pub fn decision_shown(body: &[u8]) -> Result<(Review, Option<String>), BodyError> {
    let value = json(body)?;
    if !value.is_object() {
        return Err(BodyError::new(
            INVALID_DECISION,
            "invalid decision: the body must be a JSON object with named keys \
             (`{\"decision\": …, \"reviewer\": …}`)",
        ));
    }
    let body: DecisionBody = serde_json::from_value(value)
        .map_err(|e| BodyError::new(INVALID_DECISION, format!("invalid decision: {e}")))?;
    if let Some(shown) = &body.shown
        && !(shown.len() == 64
            && shown
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
    {
        return Err(BodyError::new(
            INVALID_DECISION,
            "invalid decision: `shown` must be the request's `review_sha256` as read (64 \
             lowercase hex digits)",
        ));
    }
    let review = Review::parse(
        body.decision.as_deref().unwrap_or(""),
        body.reviewer.as_deref().unwrap_or(""),
        body.message.as_deref(),
        body.scope.as_deref(),
    )
    .map_err(|e| BodyError::new(INVALID_DECISION, e.to_string()))?;
    Ok((review, body.shown))
}

/// The answer of `POST /v1/check`: the verdict as `toolvet check` prints
/// it, with the call's `tool` and `call_id`.
pub fn verdict_answer(request: &CallRequest, verdict: &Verdict) -> Value {
    let mut value = serde_json::to_value(verdict).unwrap_or_default();
    if let Some(map) = value.as_object_mut() {
        map.insert("tool".into(), request.call.name.clone().into());
        map.insert("call_id".into(), request.call.id.clone().into());
    }
    value
}

/// The answer of `POST /access/v1/evaluation`: AuthZEN's boolean
/// `decision`, true for an allow and nothing else, and toolvet's own
/// verdict (without the per-check outcomes) in `context.toolvet`:
///
/// ```json
/// {"decision": false, "context": {"toolvet": {"decision": "escalate", "rule": "…", "reason": "…",
///   "approval": {"id": "apr_…", "ticket": "tv1.…", "status": "pending", "expires_at": "…"}}}}
/// ```
pub fn evaluation_answer(request: &CallRequest, verdict: &Verdict) -> Value {
    let mut toolvet = verdict_answer(request, verdict);
    if let Some(map) = toolvet.as_object_mut() {
        map.remove("checks");
    }
    json!({
        "decision": verdict.decision == Decision::Allow,
        "context": {"toolvet": toolvet},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decision_is_an_object_with_each_key_once() {
        let ok = decision(br#"{"decision":"approve","reviewer":"bob"}"#).unwrap();
        assert_eq!(ok.reviewer(), "bob");
        for body in [
            &br#"["approve","bob"]"#[..],
            br#"["approve","bob",null,"run"]"#,
            br#""approve""#,
        ] {
            let e = decision(body).unwrap_err();
            assert_eq!(e.kind, INVALID_DECISION, "{e}");
            assert!(e.message.contains("must be a JSON object"), "{e}");
        }
        for (body, key) in [
            (
                &br#"{"decision":"reject","decision":"approve","reviewer":"bob"}"#[..],
                "decision",
            ),
            (
                br#"{"decision":"approve","reviewer":"bob","reviewer":"alice"}"#,
                "reviewer",
            ),
        ] {
            let e = decision(body).unwrap_err();
            assert_eq!(e.kind, INVALID_CALL, "{e}");
            assert_eq!(
                e.message,
                format!(
                    "`(top level)` has the key `{key}` twice; a key may appear once in an \
                     object (readers disagree on which value counts)"
                )
            );
        }
    }

    #[test]
    fn call_bodies_refuse_duplicate_keys_and_inexact_numbers() {
        let e = check_call(
            br#"{"call":{"name":"bash","arguments":{"command":"rm -rf ~","command":"ls"}}}"#,
        )
        .unwrap_err();
        assert_eq!(e.kind, INVALID_CALL);
        assert!(
            e.message
                .starts_with("`call.arguments` has the key `command` twice"),
            "{e}"
        );
        let e =
            check_call(br#"{"call":{"name":"pay","arguments":{"account":18446744073709551617}}}"#)
                .unwrap_err();
        assert!(
            e.message
                .starts_with("`call.arguments.account`: the integer 18446744073709551617"),
            "{e}"
        );
        let e = evaluation_call(
            br#"{"action":{"name":"pay"},"resource":{"properties":{"arguments":{"n":1e-400}}}}"#,
        )
        .unwrap_err();
        assert_eq!(e.kind, INVALID_CALL);
        assert!(
            e.message.contains("`resource.properties.arguments.n`"),
            "{e}"
        );
        let e = evaluation_call(br#"{"action":{"name":"a","name":"b"}}"#).unwrap_err();
        assert!(
            e.message.starts_with("`action` has the key `name` twice"),
            "{e}"
        );
        // Exact numbers pass and keep their value.
        let call = check_call(
            br#"{"call":{"name":"pay","arguments":{"account":18446744073709551615,"x":1e23}}}"#,
        )
        .unwrap();
        assert_eq!(
            call.call.arguments.get(),
            r#"{"account":18446744073709551615,"x":1e23}"#
        );
    }

    #[test]
    fn an_evaluation_maps_onto_the_call_shape() {
        let call = evaluation_request(&json!({
            "subject": {"type": "agent", "id": "ci-bot", "properties": {"run_id": "r1"}},
            "action": {"name": "bash"},
            "resource": {"type": "tool", "id": "bash", "properties": {"arguments": {"command": "ls"}, "call_id": "c1"}},
            "context": {"attributes": {"cwd": "/w"}, "approval_ticket": "tv1.x.y"}
        }))
        .unwrap();
        assert_eq!(call.call.name, "bash");
        assert_eq!(call.call.id, "c1");
        assert_eq!(call.call.arguments.get(), r#"{"command":"ls"}"#);
        assert_eq!(call.context.agent.as_deref(), Some("ci-bot"));
        assert_eq!(call.context.run_id.as_deref(), Some("r1"));
        assert_eq!(call.attribute("cwd"), Some("/w"));
        assert_eq!(call.approval.unwrap().ticket, "tv1.x.y");
    }

    #[test]
    fn bad_evaluations_name_the_field() {
        let e = evaluation_request(&json!({"action": {}}))
            .unwrap_err()
            .to_string();
        assert!(e.contains("action.name"), "{e}");
        let e = evaluation_request(
            &json!({"action": {"name": "x"}, "resource": {"properties": {"arguments": [1]}}}),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("call.arguments"), "{e}");
        let e = evaluation_call(b"[]").unwrap_err();
        assert_eq!(e.kind, INVALID_EVALUATION);
        assert_eq!(e.message, "the evaluation request must be a JSON object");
    }

    /// The messages keep their words (clients show them).
    #[test]
    fn evaluation_errors_read_as_before() {
        let message = |body: Value| evaluation_request(&body).unwrap_err().to_string();
        for (body, text) in [
            (json!([]), "the evaluation request must be a JSON object"),
            (
                json!({"x": 1}),
                "unknown key `x`: the request may hold only `subject`, `action`, `resource`, \
                 `context`; toolvet refuses what it would not vet",
            ),
            (
                json!({"action": {"name": "t", "kind": 1}}),
                "unknown key `action.kind`: `action` may hold only `name`; toolvet refuses what it \
                 would not vet",
            ),
            (
                json!({"resource": {"properties": 1}}),
                "`resource.properties` must be an object",
            ),
            (
                json!({"subject": {"type": 1}}),
                "`subject.type` must be a string",
            ),
            (
                json!({"action": {}}),
                "`action.name` (the tool's name) is required",
            ),
            (
                json!({"action": {"name": "bash"}, "resource": {"id": 7}}),
                "`resource.id` (7) names another tool than `action.name` (\"bash\"); give the \
                 tool's name in both, or leave `resource.id` out",
            ),
        ] {
            assert_eq!(message(body), text);
        }
        let e = evaluation_request(&json!({"action": {"name": ""}})).unwrap_err();
        assert!(matches!(e, EvaluationError::Call(_)), "{e:?}");
        assert!(std::error::Error::source(&e).is_some());
    }

    #[test]
    fn unknown_evaluation_keys_are_refused_at_every_level() {
        let good = json!({
            "subject": {"type": "agent", "id": "ci-bot", "properties": {"run_id": "r1", "principal": "bob"}},
            "action": {"name": "bash"},
            "resource": {"type": "tool", "id": "bash", "properties": {"arguments": {"command": "ls"}, "call_id": "c1"}},
            "context": {"attributes": {"cwd": "/w"}, "approval_ticket": "tv1.x.y"}
        });
        evaluation_request(&good).unwrap();
        for (path, key) in [
            ("", "resources"),
            ("subject", "ID"),
            ("subject.properties", "run"),
            ("action", "properties"),
            ("resource", "name"),
            ("resource.properties", "arguments2"),
            ("context", "approval"),
        ] {
            let mut body = good.clone();
            let mut at = &mut body;
            for part in path.split('.').filter(|p| !p.is_empty()) {
                at = &mut at[part];
            }
            at[key] = json!({"command": "rm -rf ~"});
            let full = [path, key]
                .iter()
                .filter(|p| !p.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join(".");
            let e = evaluation_request(&body).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("unknown key `{full}`")),
                "{full}: {e}"
            );
            let e = evaluation_call(body.to_string().as_bytes()).unwrap_err();
            // `ID` beside `id` folds alike: the strict reader refuses the
            // text before the key lists are read (`toolvet::fold`).
            let kind = if key == "ID" {
                INVALID_CALL
            } else {
                INVALID_EVALUATION
            };
            assert_eq!(e.kind, kind, "{full}: {}", e.message);
        }
        // The finding: the arguments under a look-alike key with none under
        // `arguments` were vetted as `{}`.
        let e = evaluation_request(&json!({
            "action": {"name": "bash"},
            "resource": {"properties": {"arguments2": {"command": "rm -rf ~"}}}
        }))
        .unwrap_err()
        .to_string();
        assert!(e.contains("`resource.properties.arguments2`"), "{e}");
        // A resource id naming another tool, and a type that is not a string.
        let mut other = good.clone();
        other["resource"]["id"] = json!("deploy");
        let e = evaluation_request(&other).unwrap_err().to_string();
        assert!(e.contains("`resource.id`"), "{e}");
        let mut typed = good.clone();
        typed["subject"]["type"] = json!({"x": 1});
        let e = evaluation_request(&typed).unwrap_err().to_string();
        assert!(e.contains("`subject.type` must be a string"), "{e}");
    }

    #[test]
    fn bodies_that_are_not_json_get_the_cli_messages() {
        let e = check_call(b"\xff{}").unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (INVALID_CALL, "the body is not UTF-8")
        );
        let e = check_call(b"{\"call\": ").unwrap_err();
        assert_eq!(e.kind, INVALID_CALL);
        assert_eq!(
            e.message,
            "malformed JSON: EOF while parsing a value at line 1 column 9"
        );
        // Not JSON is the same refusal on every route.
        assert_eq!(evaluation_call(b"{").unwrap_err().kind, INVALID_CALL);
        assert_eq!(decision(b"{").unwrap_err().kind, INVALID_CALL);
        let e = check_call(br#"{"call": {"name": "", "arguments": {}}}"#).unwrap_err();
        assert_eq!(e.kind, INVALID_CALL);
        assert_eq!(
            e.message,
            CallRequest::from_json(r#"{"call": {"name": "", "arguments": {}}}"#)
                .unwrap_err()
                .to_string()
        );
    }

    #[test]
    fn only_an_exact_approve_by_a_named_reviewer_approves() {
        let review =
            decision(br#"{"decision": "approve", "reviewer": "alice", "scope": "run"}"#).unwrap();
        assert_eq!(
            review.decision(),
            toolvet::approval::ReviewDecision::Approve
        );
        assert_eq!(review.reviewer(), "alice");
        assert_eq!(review.scope(), toolvet::approval::Scope::Run);
        for (body, says) in [
            (
                &br#"{"decision": "Approve", "reviewer": "alice"}"#[..],
                "must be `approve` or `reject`",
            ),
            (br#"{"decision": "approve", "reviewer": ""}"#, "reviewer"),
            (br#"{"decision": "approve"}"#, "reviewer"),
            (br#"{"reviewer": "alice"}"#, "`decision` is missing"),
            (
                br#"{"decision": "approve", "reviewer": "alice", "admin": true}"#,
                "unknown field `admin`",
            ),
            (
                br#"{"decision": true, "reviewer": "alice"}"#,
                "invalid type",
            ),
            (
                br#"{"decision": "reject", "reviewer": "alice", "scope": "run"}"#,
                "approvals only",
            ),
            (br#"["approve", "alice"]"#, "invalid decision"),
        ] {
            let e = decision(body).unwrap_err();
            assert_eq!(e.kind, INVALID_DECISION, "{e}");
            assert!(e.message.contains(says), "{e}");
        }
    }

    #[test]
    fn only_an_allow_is_an_authzen_true() {
        let request =
            check_call(br#"{"call": {"id": "c1", "name": "bash", "arguments": {}}}"#).unwrap();
        for (decision, expected) in [
            (Decision::Allow, true),
            (Decision::Deny, false),
            (Decision::Escalate, false),
        ] {
            let verdict = Verdict {
                decision,
                decided_by: Some("tools".into()),
                rule: Some("test.rule".into()),
                reason: Some("a reason".into()),
                approval: None,
                checks: Vec::new(),
                duration_us: 7,
            };
            let answer = evaluation_answer(&request, &verdict);
            assert_eq!(answer["decision"], expected);
            assert_eq!(answer["context"]["toolvet"]["decision"], decision.as_str());
            assert_eq!(answer["context"]["toolvet"]["tool"], "bash");
            assert!(answer["context"]["toolvet"].get("checks").is_none());
            let answer = verdict_answer(&request, &verdict);
            assert_eq!(answer["decision"], decision.as_str());
            assert_eq!(answer["call_id"], "c1");
            assert_eq!(answer["rule"], "test.rule");
        }
    }
}
