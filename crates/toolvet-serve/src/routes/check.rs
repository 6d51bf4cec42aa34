//! `POST /v1/check`: one call in the call shape, the verdict out.
//!
//! The answer is the verdict JSON `toolvet check` prints (with `tool` and
//! `call_id`); a deny or an escalate is a normal answer (200), not an HTTP
//! error. On escalate, `approval` holds the request and its ticket; the
//! resumed call sends `"approval": {"ticket": "…"}`. The body is parsed
//! by `toolvet_serve_body::check_call`.

use super::read_body;
use crate::auth::Role;
use crate::error::ApiError;
use crate::state::AppState;
use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use std::sync::Arc;

/// The handler.
pub async fn check(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<serde_json::Value>, ApiError> {
    state.authorize(&headers, &[Role::Agent])?;
    let limit = state.current.load().settings.max_body_bytes;
    let request = toolvet_serve_body::check_call(&read_body(body, limit).await?)?;
    let verdict = state.host.check(&request).await;
    state.metrics.record_verdict(&request.call.name, &verdict);
    Ok(Json(toolvet_serve_body::verdict_answer(&request, &verdict)))
}
