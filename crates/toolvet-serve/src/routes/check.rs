//! `POST /v1/check`: one call in the call shape, the verdict out; and
//! `POST /v1/check-result`: a call that ran with its result, the result
//! verdict out.
//!
//! The answer is the verdict JSON `toolvet check` prints (with `tool` and
//! `call_id`); a deny or an escalate is a normal answer (200), not an HTTP
//! error. On escalate, `approval` holds the request and its ticket; the
//! resumed call sends `"approval": {"ticket": "…"}`. The body is parsed
//! by `toolvet_serve_body::check_call`. The call's `context.principal`
//! is settled by the agent token ([`crate::auth::Speaker::principal_for`]):
//! a bound token speaks only for its principals.

use super::read_body;
use crate::error::ApiError;
use crate::state::AppState;
use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use std::sync::Arc;

/// The handler of `POST /v1/check`.
pub(super) async fn check(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (speaker, current, body) = agent_body(&state, &headers, body).await?;
    let mut request = toolvet_serve_body::check_call(&body)?;
    settle_speaker(&speaker, &current, &mut request)?;
    let (request, verdict) = crate::runs::vet(&state, &current, request).await?;
    state.metrics.record_verdict(&request.call.name, &verdict);
    Ok(Json(toolvet_serve_body::verdict_answer(&request, &verdict)))
}

/// The handler of `POST /v1/check-result`: a call that ran, with what it
/// returned (`result`); the answer is the result verdict `toolvet
/// check-result` prints. The labels it raises are kept in the run's record
/// for its later calls ([`crate::runs::vet_result`]); a withheld one is
/// listed for the reviewer page ([`crate::withheld`]).
pub(super) async fn check_result(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (speaker, current, body) = agent_body(&state, &headers, body).await?;
    let mut item = toolvet_serve_body::result_call(&body)?;
    settle_speaker(&speaker, &current, &mut item.request)?;
    let (request, verdict) = crate::runs::vet_result(&state, &current, item).await?;
    if verdict.action == toolvet::tool_result::ResultAction::Withhold {
        let entry = crate::withheld::WithheldResult::new("check-result", &request, &verdict);
        state.withheld.record(entry);
    }
    Ok(Json(toolvet_serve_body::result_answer(&request, &verdict)))
}

/// The agent token's speaker, the policy in force and the body, read
/// within the policy's `max_body_bytes`.
async fn agent_body(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
) -> Result<
    (
        crate::auth::Speaker,
        Arc<crate::state::Current>,
        bytes::Bytes,
    ),
    ApiError,
> {
    let (speaker, current) = state.authorize_agent(headers)?;
    let body = read_body(body, current.settings.max_body_bytes).await?;
    Ok((speaker, current, body))
}

/// Settle the call's principal and agent by the agent token: a bound token
/// speaks only for its principals and agents.
fn settle_speaker(
    speaker: &crate::auth::Speaker,
    current: &crate::state::Current,
    request: &mut toolvet::CallRequest,
) -> Result<(), ApiError> {
    request.context.principal = speaker.principal_for(
        request.context.principal.as_deref(),
        "context.principal",
        &current.tokens,
    )?;
    request.context.agent = speaker.agent_for(
        request.context.agent.as_deref(),
        "context.agent",
        &current.tokens,
    )?;
    Ok(())
}
