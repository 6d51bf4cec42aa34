//! The one error shape of every route, and the one place that maps
//! failures to HTTP status codes.
//!
//! ```json
//! {"error": {"kind": "invalid-call", "message": "`call.name` must not be empty"}}
//! ```
//!
//! 401 and 403 bodies also carry `required_role`.

use crate::auth::Refused;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use toolvet::approval::ApprovalError;

/// A refused or failed request.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    kind: &'static str,
    message: String,
    required_role: Option<Vec<&'static str>>,
}

impl ApiError {
    /// An error with `status`, a kebab-case `kind` and a message.
    pub fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            kind,
            message: message.into(),
            required_role: None,
        }
    }

    /// 400: the body is not a valid call or request.
    pub fn bad_request(kind: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, kind, message)
    }

    /// 404 for a route or object that does not exist.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not-found", message)
    }

    /// 409: the policy in force has no `[approvals]` table.
    pub fn approvals_off() -> ApiError {
        ApiError::new(
            StatusCode::CONFLICT,
            "approvals-disabled",
            "the policy in force has no [approvals] table",
        )
    }

    /// The status code.
    pub fn status(&self) -> StatusCode {
        self.status
    }
}

impl From<Refused> for ApiError {
    fn from(r: Refused) -> Self {
        let (status, kind) = match r {
            Refused::Unauthenticated { .. } => (StatusCode::UNAUTHORIZED, "unauthenticated"),
            Refused::Forbidden { .. } => (StatusCode::FORBIDDEN, "forbidden"),
        };
        ApiError {
            status,
            kind,
            message: r.message(),
            required_role: Some(r.needs().iter().map(|r| r.as_str()).collect()),
        }
    }
}

impl From<toolvet_serve_body::BodyError> for ApiError {
    /// A body the parsers refused: 400 with their kind and message.
    fn from(e: toolvet_serve_body::BodyError) -> Self {
        ApiError::bad_request(e.kind, e.message)
    }
}

impl From<ApprovalError> for ApiError {
    fn from(e: ApprovalError) -> Self {
        let (status, kind) = match &e {
            ApprovalError::NotFound(_) => (StatusCode::NOT_FOUND, "not-found"),
            ApprovalError::AlreadyDecided { .. } => (StatusCode::CONFLICT, "already-decided"),
            ApprovalError::Expired(_) => (StatusCode::CONFLICT, "expired"),
            ApprovalError::Changed(_) => (StatusCode::CONFLICT, "request-changed"),
            ApprovalError::InvalidReview(_) => (StatusCode::BAD_REQUEST, "invalid-decision"),
            ApprovalError::InvalidQuery(_) => (StatusCode::BAD_REQUEST, "invalid-query"),
            ApprovalError::Ledger(_) => (StatusCode::SERVICE_UNAVAILABLE, "ledger-unavailable"),
            _ => (StatusCode::INTERNAL_SERVER_ERROR, "approvals"),
        };
        if status.is_server_error() {
            tracing::error!(target: "toolvet::serve", "approvals: {e}");
        }
        ApiError::new(status, kind, e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({"error": {"kind": self.kind, "message": self.message}});
        if let Some(roles) = &self.required_role {
            body["required_role"] = json!(roles.join(" or "));
        }
        let mut response = (self.status, axum::Json(body)).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"toolvet\""),
            );
        }
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        response
    }
}
