//! The routes, and the layers around them.
//!
//! | route | role |
//! |---|---|
//! | `POST /v1/check` | agent |
//! | `POST /v1/check-result` | agent |
//! | `POST /access/v1/evaluation` (AuthZEN 1.0) | agent |
//! | `GET /v1/approvals?status=&limit=&after=` | reviewer |
//! | `GET /v1/approvals/{id}` | agent or reviewer |
//! | `POST /v1/approvals/{id}/decision` | reviewer |
//! | `GET /v1/approvals/events` (Server-Sent Events) | reviewer |
//! | `GET /v1/results/withheld` | reviewer |
//! | `GET /healthz` | none |
//! | `GET /readyz`, `/metrics` | metrics or reviewer (none with `probes_need_token = false`) |
//! | `GET /ui` (the reviewer page; its API calls need a reviewer token) | none |
//!
//! The API routes (`/v1`, `/access`) sit behind the concurrency cap (503
//! with `Retry-After` beyond it); every route has the request timeout.

mod approvals;
mod authzen;
mod check;
mod health;
mod ui;
mod withheld;

use crate::error::ApiError;
use crate::state::AppState;
use axum::Router;
use axum::body::Body;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::Bytes;
use std::sync::Arc;
use tokio::sync::Semaphore;

/// The whole application.
pub(crate) fn router(state: Arc<AppState>) -> Router {
    let settings = state.current.load().settings.clone();
    let slots = Arc::new(Semaphore::new(settings.max_concurrent_requests));
    let api = Router::new()
        .route("/v1/check", post(check::check))
        .route("/v1/check-result", post(check::check_result))
        .route("/access/v1/evaluation", post(authzen::evaluation))
        .route("/v1/approvals", get(approvals::list))
        .route("/v1/approvals/events", get(approvals::events))
        .route("/v1/approvals/{id}", get(approvals::show))
        .route("/v1/approvals/{id}/decision", post(approvals::decide))
        .route("/v1/results/withheld", get(withheld::list))
        .layer(middleware::from_fn_with_state(
            (state.clone(), slots),
            concurrency_cap,
        ));
    Router::new()
        .merge(api)
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(health::metrics))
        .route("/ui", get(ui::index))
        .route("/ui/", get(ui::index))
        .route("/ui/app.js", get(ui::script))
        .route("/ui/app.css", get(ui::style))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(state.clone(), count))
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            settings.request_timeout,
        ))
        .with_state(state)
}

async fn not_found() -> ApiError {
    ApiError::not_found("no such route")
}

/// Count every answer by route and status.
async fn count(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |p| p.as_str().to_string());
    let response = next.run(request).await;
    state
        .metrics
        .record_http(&route, response.status().as_u16());
    response
}

/// At most `max_concurrent_requests` API requests at once; the rest are
/// refused at once (503 with `Retry-After`), not queued.
async fn concurrency_cap(
    State((state, slots)): State<(Arc<AppState>, Arc<Semaphore>)>,
    request: Request,
    next: Next,
) -> Response {
    let Ok(permit) = slots.try_acquire_owned() else {
        state.metrics.overloaded.inc();
        let retry = state.current.load().settings.retry_after_s;
        let mut response = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "overloaded",
            format!("the server is at its limit of concurrent requests; retry in {retry} s"),
        )
        .into_response();
        if let Ok(v) = HeaderValue::from_str(&retry.to_string()) {
            response.headers_mut().insert(header::RETRY_AFTER, v);
        }
        return response;
    };
    let _slot = Slot::taken(permit, &state.metrics.in_flight);
    next.run(request).await
}

/// A request's slot: counted in `toolvet_requests_in_flight` from when it
/// is taken until the request ends, whether it answers or its connection
/// drops it.
struct Slot {
    _permit: tokio::sync::OwnedSemaphorePermit,
    in_flight: prometheus::IntGauge,
}

impl Slot {
    fn taken(permit: tokio::sync::OwnedSemaphorePermit, in_flight: &prometheus::IntGauge) -> Slot {
        in_flight.inc();
        Slot {
            _permit: permit,
            in_flight: in_flight.clone(),
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.in_flight.dec();
    }
}

/// The body of `body`, at most `limit` bytes.
///
/// # Errors
/// 413 over the limit; 400 for a body that breaks off.
pub(crate) async fn read_body(body: Body, limit: usize) -> Result<Bytes, ApiError> {
    axum::body::to_bytes(body, limit).await.map_err(|e| {
        let too_large = std::error::Error::source(&e)
            .is_some_and(|s| s.is::<http_body_util::LengthLimitError>());
        if too_large {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "body-too-large",
                format!("the request body is over the server's limit of {limit} bytes"),
            )
        } else {
            ApiError::bad_request(
                "bad-body",
                format!("the request body could not be read: {e}"),
            )
        }
    })
}
