//! `/ui`: the reviewer page, plain HTML, CSS and JavaScript compiled into
//! the binary (no build step, nothing from another origin).
//!
//! The page holds no secret: it asks for a reviewer token, keeps it in the
//! tab's session storage and sends it as a bearer token with every API
//! call. It builds every element with `textContent`, never HTML, so
//! arguments, reasons and names (attacker-controlled) are shown, not run;
//! the Content-Security-Policy allows scripts and styles from this origin
//! only, and no inline code, as a second wall.

use axum::http::header;
use axum::response::{IntoResponse, Response};

const INDEX: &str = include_str!("../../ui/index.html");
const SCRIPT: &str = include_str!("../../ui/app.js");
const STYLE: &str = include_str!("../../ui/app.css");

const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
                   img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CONTENT_SECURITY_POLICY, CSP),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "no-referrer"),
            (header::X_FRAME_OPTIONS, "DENY"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

/// `GET /ui`.
pub(super) async fn index() -> Response {
    asset("text/html; charset=utf-8", INDEX)
}

/// `GET /ui/app.js`.
pub(super) async fn script() -> Response {
    asset("text/javascript; charset=utf-8", SCRIPT)
}

/// `GET /ui/app.css`.
pub(super) async fn style() -> Response {
    asset("text/css; charset=utf-8", STYLE)
}
