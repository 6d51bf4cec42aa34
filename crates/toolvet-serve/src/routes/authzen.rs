//! `POST /access/v1/evaluation`: the OpenID AuthZEN Authorization API 1.0
//! evaluation endpoint, for policy-enforcement points that speak it.
//!
//! The request's parts map onto the call shape:
//!
//! | AuthZEN | call |
//! |---|---|
//! | `subject.id` | `context.agent` |
//! | `subject.properties.run_id`, `.principal` | `context.run_id`, `context.principal` |
//! | `action.name` | `call.name` (the tool) |
//! | `resource.properties.arguments` (an object; default `{}`) | `call.arguments` |
//! | `resource.properties.call_id` | `call.id` |
//! | `context.attributes` (string values) | `context.attributes` |
//! | `context.approval_ticket` | `approval.ticket` (a resumed call) |
//!
//! AuthZEN's `decision` is a boolean: true only for allow. toolvet's own
//! decision, rule and reason, and on escalate the approval request (id,
//! ticket, expiry), ride in the answer's `context`:
//!
//! ```json
//! {"decision": false, "context": {"toolvet": {"decision": "escalate", "rule": "…", "reason": "…",
//!   "approval": {"id": "apr_…", "ticket": "tv1.…", "status": "pending", "expires_at": "…"}}}}
//! ```

use super::{json_body, read_body};
use crate::auth::Role;
use crate::error::ApiError;
use crate::state::AppState;
use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use toolvet::{CallRequest, Decision};

/// The handler.
pub async fn evaluation(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    state.authorize(&headers, &[Role::Agent])?;
    let limit = state.current.load().settings.max_body_bytes;
    let value = json_body(&read_body(body, limit).await?)?;
    let request = to_call(&value).map_err(|m| ApiError::bad_request("invalid-evaluation", m))?;
    let verdict = state.host.check(&request).await;
    state.metrics.record_verdict(&request.call.name, &verdict);
    let mut toolvet = super::check::verdict_json(&request, &verdict);
    if let Some(map) = toolvet.as_object_mut() {
        map.remove("checks");
    }
    Ok(Json(json!({
        "decision": verdict.decision == Decision::Allow,
        "context": {"toolvet": toolvet},
    })))
}

/// The call an evaluation request stands for.
fn to_call(value: &Value) -> Result<CallRequest, String> {
    let object = |v: Option<&Value>, what: &str| -> Result<Map<String, Value>, String> {
        match v {
            None | Some(Value::Null) => Ok(Map::new()),
            Some(Value::Object(m)) => Ok(m.clone()),
            Some(_) => Err(format!("`{what}` must be an object")),
        }
    };
    let top = value
        .as_object()
        .ok_or("the evaluation request must be a JSON object")?;
    let subject = object(top.get("subject"), "subject")?;
    let action = object(top.get("action"), "action")?;
    let resource = object(top.get("resource"), "resource")?;
    let context = object(top.get("context"), "context")?;
    let subject_props = object(subject.get("properties"), "subject.properties")?;
    let resource_props = object(resource.get("properties"), "resource.properties")?;
    let tool = action
        .get("name")
        .and_then(Value::as_str)
        .ok_or("`action.name` (the tool's name) is required")?;
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
    CallRequest::from_value(call).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_onto_the_call_shape() {
        let call = to_call(&json!({
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
    fn bad_requests_name_the_field() {
        let e = to_call(&json!({"action": {}})).unwrap_err();
        assert!(e.contains("action.name"), "{e}");
        let e = to_call(
            &json!({"action": {"name": "x"}, "resource": {"properties": {"arguments": [1]}}}),
        )
        .unwrap_err();
        assert!(e.contains("call.arguments"), "{e}");
    }
}
