//! `/healthz` (the process answers; no token), `/readyz` (a policy is
//! loaded and the ledger answers; with the policy's digest and generation,
//! and the last reload) and `/metrics`, both with a metrics or reviewer
//! token unless `probes_need_token = false`.

use crate::auth::Role;
use crate::error::ApiError;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use toolvet::{approval::ListQuery, approval::MAX_PAGE, approval::StatusFilter};

/// How long `/readyz` waits for the ledger.
const LEDGER_PROBE: Duration = Duration::from_secs(2);

/// Most pending requests counted for the gauge at one scrape.
const PENDING_COUNT_CAP: usize = 20 * MAX_PAGE;

/// `/readyz` and `/metrics` name the tools called, the policy's digest and
/// the ledger's state: unless `probes_need_token = false`, a metrics or
/// reviewer token (never an agent's: the agent must not learn what the
/// policy holds) is needed.
fn probe_allowed(state: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    if state.current.load().settings.probes_need_token {
        state.authorize(headers, &[Role::Metrics, Role::Reviewer])?;
    }
    Ok(())
}

/// `GET /healthz`: the process answers. It says nothing else, so it needs
/// no token (liveness probes send none).
pub(super) async fn healthz() -> Json<serde_json::Value> {
    Json(json!({"status": "ok"}))
}

/// `GET /readyz`: 200 when ready, 503 when the ledger does not answer or
/// the server is shutting down.
pub(super) async fn readyz(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    probe_allowed(&state, &headers)?;
    let ledger = match state.host.approvals() {
        None => json!({"configured": false}),
        Some(a) => match tokio::time::timeout(LEDGER_PROBE, a.ping()).await {
            Ok(Ok(())) => json!({"configured": true, "reachable": true}),
            Ok(Err(e)) => json!({"configured": true, "reachable": false, "error": e.to_string()}),
            Err(_) => json!({"configured": true, "reachable": false,
                "error": format!("no answer within {} s", LEDGER_PROBE.as_secs())}),
        },
    };
    let draining = *state.shutdown.borrow();
    let ready = ledger["reachable"] != json!(false) && !draining;
    let reload = state
        .reload
        .lock()
        .map(|r| serde_json::to_value(&*r).unwrap_or_default())
        .unwrap_or_default();
    let body = json!({
        "ready": ready,
        "draining": draining,
        // Not the policy's path: it tells where the ledger, key and state
        // live on the machine.
        "policy": {
            "sha256": state.host.policy_sha256(),
            "generation": state.host.generation(),
            "checks": state.host.checks().len(),
        },
        "ledger": ledger,
        "reload": reload,
        "decision_log": state.host.decision_log_stats(),
    });
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    Ok((status, Json(body)).into_response())
}

/// `GET /metrics`.
pub(super) async fn metrics(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    probe_allowed(&state, &headers)?;
    if let Some(approvals) = state.host.approvals() {
        match count_pending(&approvals).await {
            Ok(n) => state.metrics.approvals_pending.set(n as i64),
            Err(e) => tracing::warn!(target: "toolvet::serve", "counting pending approvals: {e}"),
        }
    }
    state.metrics.generation.set(state.host.generation() as i64);
    state.metrics.record_log(state.host.decision_log_stats());
    Ok((
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        state.metrics.render(),
    )
        .into_response())
}

async fn count_pending(
    approvals: &toolvet::approval::Approvals,
) -> Result<usize, toolvet::approval::ApprovalError> {
    let mut query = ListQuery {
        status: StatusFilter::Pending,
        limit: MAX_PAGE,
        after: None,
    };
    let mut count = 0;
    while count < PENDING_COUNT_CAP {
        let page = tokio::time::timeout(LEDGER_PROBE, approvals.list(&query))
            .await
            .map_err(|_| {
                toolvet::approval::ApprovalError::Ledger(
                    toolvet::approval::LedgerError::Unavailable("no answer in time".into()),
                )
            })??;
        count += page.len();
        match page.last() {
            Some(last) if page.len() == MAX_PAGE => query.after = Some(last.id.clone()),
            _ => break,
        }
    }
    Ok(count)
}
