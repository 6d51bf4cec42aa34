//! `POST /v1/check`: one call in the call shape, the verdict out.
//!
//! The answer is the verdict JSON `toolvet check` prints (with `tool` and
//! `call_id`); a deny or an escalate is a normal answer (200), not an HTTP
//! error. On escalate, `approval` holds the request and its ticket; the
//! resumed call sends `"approval": {"ticket": "…"}`.

use super::{json_body, read_body};
use crate::auth::Role;
use crate::error::ApiError;
use crate::state::AppState;
use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use std::sync::Arc;
use toolvet::{CallRequest, Verdict};

/// The handler.
pub async fn check(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<serde_json::Value>, ApiError> {
    state.authorize(&headers, &[Role::Agent])?;
    let limit = state.current.load().settings.max_body_bytes;
    let value = json_body(&read_body(body, limit).await?)?;
    let request = CallRequest::from_value(value)
        .map_err(|e| ApiError::bad_request("invalid-call", e.to_string()))?;
    let verdict = state.host.check(&request).await;
    state.metrics.record_verdict(&request.call.name, &verdict);
    Ok(Json(verdict_json(&request, &verdict)))
}

/// The verdict as `toolvet check` prints it.
pub(crate) fn verdict_json(request: &CallRequest, verdict: &Verdict) -> serde_json::Value {
    let mut value = serde_json::to_value(verdict).unwrap_or_default();
    if let Some(map) = value.as_object_mut() {
        map.insert("tool".into(), request.call.name.clone().into());
        map.insert("call_id".into(), request.call.id.clone().into());
    }
    value
}
