//! `POST /access/v1/evaluation`: the OpenID AuthZEN Authorization API 1.0
//! evaluation endpoint, for policy-enforcement points that speak it.
//!
//! The request's parts map onto the call shape as
//! `toolvet_serve_body::evaluation_request` says. AuthZEN's `decision` is a
//! boolean: true only for allow. toolvet's own decision, rule and reason,
//! and on escalate the approval request (id, ticket, expiry), ride in the
//! answer's `context` (`toolvet_serve_body::evaluation_answer`).

use super::read_body;
use crate::error::ApiError;
use crate::state::AppState;
use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use serde_json::Value;
use std::sync::Arc;

/// The handler.
pub(super) async fn evaluation(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    let (speaker, current) = state.authorize_agent(&headers)?;
    let limit = current.settings.max_body_bytes;
    let mut request = toolvet_serve_body::evaluation_call(&read_body(body, limit).await?)?;
    // The principal is the token's to say when it is bound.
    request.context.principal = speaker.principal_for(
        request.context.principal.as_deref(),
        "subject.properties.principal",
        &current.tokens,
    )?;
    request.context.agent = speaker.agent_for(
        request.context.agent.as_deref(),
        "subject.id",
        &current.tokens,
    )?;
    let (request, verdict) = crate::runs::vet(&state, &current, request).await?;
    state.metrics.record_verdict(&request.call.name, &verdict);
    Ok(Json(toolvet_serve_body::evaluation_answer(
        &request, &verdict,
    )))
}
