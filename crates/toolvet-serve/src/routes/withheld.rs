//! `GET /v1/results/withheld`: the last results a check withheld
//! ([`crate::withheld`]), for the reviewer page.

use crate::auth::Role;
use crate::error::ApiError;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use serde_json::json;
use std::sync::Arc;

/// `GET /v1/results/withheld` (reviewer): `{"results": [...]}`, newest
/// first, at most [`crate::withheld::MAX_WITHHELD`]; each with `at`,
/// `via`, `principal`, `agent`, `run_id`, `tool`, `call_id`, `rule` and
/// `reason` as a person reads them, never the content.
pub(super) async fn list(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
) -> Result<Json<serde_json::Value>, ApiError> {
    state.authorize(&headers, &[Role::Reviewer])?;
    Ok(Json(json!({"results": state.withheld.newest_first()})))
}
