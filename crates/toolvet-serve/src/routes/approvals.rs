//! The approvals API: list, read and decide requests, and follow them as
//! Server-Sent Events.

use super::read_body;
use crate::auth::Role;
use crate::error::ApiError;
use crate::events::StreamEvent;
use crate::state::AppState;
use axum::Json;
use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::{Stream, StreamExt};
use serde::Deserialize;
use serde_json::json;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::wrappers::errors::BroadcastStreamRecvError;
use toolvet::{approval::ListQuery, approval::MAX_PAGE, approval::StatusFilter};

/// The query of `GET /v1/approvals`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ListParams {
    status: Option<String>,
    limit: Option<usize>,
    after: Option<String>,
}

/// `GET /v1/approvals?status=pending&limit=100&after=apr_…`: one page,
/// oldest first; `next` is the `after` of the next page (null on the last).
/// Every request carries `shown`, its texts as a person reads them
/// ([`crate::shown`]). The first page (no `after`) also carries `pending`:
/// how many requests wait in all and for the runs with most
/// ([`pending_counts`]).
pub(super) async fn list(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    params: Result<Query<ListParams>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    state.authorize(&headers, &[Role::Reviewer])?;
    let Query(params) =
        params.map_err(|e| ApiError::bad_request("invalid-query", e.body_text()))?;
    let status: StatusFilter = params.status.as_deref().unwrap_or("pending").parse()?;
    let first_page = params.after.is_none();
    let limit = params.limit.unwrap_or(100);
    let approvals = state.approvals()?;
    let page = approvals
        .list(&ListQuery {
            status,
            limit,
            after: params.after,
        })
        .await?;
    let next = (page.len() == limit && limit <= MAX_PAGE)
        .then(|| page.last().map(|r| r.id.clone()))
        .flatten();
    let requests: Vec<_> = page.iter().map(crate::shown::request).collect();
    let mut answer = json!({"requests": requests, "next": next});
    // The counts come with the first page, so a reviewer sees how many wait
    // (and for which runs) however many pages they read.
    if first_page {
        answer["pending"] = pending_counts(&approvals.pending_counts().await?);
    }
    Ok(Json(answer))
}

/// Most runs named in `pending.by_run`.
const RUNS_SHOWN: usize = 20;

/// `pending` of the list's first page: `total`, `without_run`, `complete`
/// (false: there are at least `total`), `limits`, and `by_run` for the
/// [`RUNS_SHOWN`] runs with most pending requests, each with its run id
/// `shown` as a person reads it.
fn pending_counts(counts: &toolvet::approval::PendingCounts) -> serde_json::Value {
    let by_run: Vec<_> = counts
        .by_run
        .iter()
        .take(RUNS_SHOWN)
        .map(|r| {
            json!({"run_id": r.run_id, "count": r.count,
                "shown": toolvet::display::identifier(&r.run_id)})
        })
        .collect();
    json!({
        "total": counts.total,
        "complete": counts.complete,
        "without_run": counts.without_run,
        "runs": counts.by_run.len(),
        "by_run": by_run,
        "limits": counts.limits,
    })
}

/// `GET /v1/approvals/{id}`: one request, with its status as of now.
/// Agents may read it (they hold the id from their escalate verdict), but
/// only a request their token may speak for
/// ([`crate::auth::Speaker::may_read`]): a bound agent token reads only
/// its principals' requests.
pub(super) async fn show(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (roles, speaker, current) = state.authorize_as(&headers, &[Role::Agent, Role::Reviewer])?;
    let request = state.approvals()?.get(&id).await?;
    if !roles.contains(&Role::Reviewer)
        && let Some(speaker) = speaker
        && !speaker.may_read(request.principal.as_deref(), &current.tokens)
    {
        return Err(ApiError::new(
            axum::http::StatusCode::FORBIDDEN,
            "principal-forbidden",
            format!(
                "approval request `{id}` was asked on behalf of a principal {} does not speak for",
                speaker.name()
            ),
        ));
    }
    Ok(Json(crate::shown::request(&request)))
}

/// `POST /v1/approvals/{id}/decision` with `{"decision": "approve" |
/// "reject", "reviewer": "…", "message": "…", "scope": "once" | "run",
/// "shown": "…"}`. Anything malformed is a 400 and never an approval
/// (`toolvet_serve_body::decision_shown`). An approval names the request
/// as the reviewer read it: `shown` is the `review_sha256` the request's
/// JSON carries, and a request whose ledger row changed since is a 409
/// `request-changed`, not approved (review s15 N8); an approval without
/// `shown` is a 400. Under a policy with `[approvals] reviewer_keys`, an
/// approval is signed with the server's reviewer key when `[serve]
/// reviewer_passphrase_file` names one.
pub(super) async fn decide(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Body,
) -> Result<Json<serde_json::Value>, ApiError> {
    state.authorize(&headers, &[Role::Reviewer])?;
    let limit = state.current.load().settings.max_body_bytes;
    let (review, shown) = toolvet_serve_body::decision_shown(&read_body(body, limit).await?)?;
    let decision = match review.decision() {
        toolvet::approval::ReviewDecision::Approve => "approve",
        toolvet::approval::ReviewDecision::Reject => "reject",
    };
    let approvals = state.approvals()?;
    // Under reviewer keys, the server's own key signs its reviewers'
    // approvals (`[serve] reviewer_passphrase_file`).
    let signer = approvals
        .requires_signed_approvals()
        .then(|| state.current.load().signer.clone())
        .flatten();
    let decided = match (review.decision(), shown, signer.as_deref()) {
        (toolvet::approval::ReviewDecision::Approve, Some(shown), Some(signer)) => {
            approvals.decide_signed(&id, review, signer, &shown).await?
        }
        (_, Some(shown), _) => approvals.decide_shown(&id, review, &shown).await?,
        (toolvet::approval::ReviewDecision::Reject, None, _) => {
            approvals.decide(&id, review).await?
        }
        (toolvet::approval::ReviewDecision::Approve, None, _) => {
            approvals.get(&id).await?; // an unknown id is a 404 first
            return Err(ApiError::new(
                axum::http::StatusCode::BAD_REQUEST,
                "invalid-decision",
                "invalid decision: an approval must carry `shown`, the `review_sha256` of the \
                 request as the reviewer read it (GET /v1/approvals/{id}), so that a request \
                 rewritten since is not approved",
            ));
        }
    };
    state
        .metrics
        .approvals_decided
        .with_label_values(&[decision])
        .inc();
    Ok(Json(crate::shown::request(&decided)))
}

/// `GET /v1/approvals/events`: `requested`, `decided` and `consumed`
/// events (data: `{"event": …, "request": {…}}`), and `resync` when
/// events may have been missed. The stream ends when the server shuts
/// down.
pub(super) async fn events(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    state.authorize(&headers, &[Role::Reviewer])?;
    let mut shutdown = state.shutdown.subscribe();
    let ended = async move {
        let _ = shutdown.wait_for(|down| *down).await;
    };
    let hello =
        futures_util::stream::once(async { Ok(Event::default().event("ready").data("{}")) });
    let stream = BroadcastStream::new(state.events.subscribe())
        .map(|item| {
            let event = match item {
                Ok(e) => e,
                Err(BroadcastStreamRecvError::Lagged(_)) => StreamEvent::Resync,
            };
            Ok(Event::default().event(event.name()).data(event.data()))
        })
        .take_until(ended);
    Ok(
        Sse::new(hello.chain(stream))
            .keep_alive(KeepAlive::new().interval(Duration::from_secs(15))),
    )
}
