//! The webhook: each new approval request is POSTed as JSON to
//! `[serve] webhook_url`, with its arguments redacted
//! ([`crate::redact::redact_all`]), retried a bounded number of times
//! (`webhook_retries`, backing off from 250 ms) on connection errors, 5xx
//! and 429. Deliveries run in the background and never hold up a verdict;
//! a full queue drops the announcement (logged and counted).
//!
//! ```json
//! {"event": "approval.requested", "id": "apr_…", "tool": "deploy",
//!  "agent": "ci-bot", "run_id": "r1", "call_id": "c1", "attributes": {"cwd": "/srv/app"},
//!  "principal": "alice@acme.com",
//!  "escalations": [{"check": "tools", "rule": "tool-policy.approve", "reason": "…"}],
//!  "created_at": "…", "expires_at": "…", "arguments": {"env": "[redacted]"}}
//! ```

use crate::metrics::Metrics;
use crate::redact::redact_all;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use toolvet::ApprovalRequest;

/// Announcements waiting for delivery.
const QUEUE: usize = 1024;

/// Deliveries in flight at once.
const IN_FLIGHT: usize = 8;

/// Sends new requests to the webhook.
#[derive(Debug, Clone)]
pub struct Webhook {
    queue: mpsc::Sender<serde_json::Value>,
    metrics: Arc<Metrics>,
}

impl Webhook {
    /// Start delivering to `url`.
    ///
    /// # Errors
    /// The HTTP client cannot be built.
    pub fn start(
        url: String,
        retries: u32,
        timeout: Duration,
        metrics: Arc<Metrics>,
    ) -> Result<Webhook, String> {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("toolvet-serve/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("webhook client: {e}"))?;
        let (queue, mut jobs) = mpsc::channel::<serde_json::Value>(QUEUE);
        let slots = Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT));
        let deliveries = metrics.clone();
        tokio::spawn(async move {
            while let Some(body) = jobs.recv().await {
                let Ok(slot) = slots.clone().acquire_owned().await else {
                    return;
                };
                let (client, url, metrics) = (client.clone(), url.clone(), deliveries.clone());
                tokio::spawn(async move {
                    let ok = deliver(&client, &url, &body, retries).await;
                    metrics
                        .webhook
                        .with_label_values(&[if ok { "delivered" } else { "failed" }])
                        .inc();
                    drop(slot);
                });
            }
        });
        Ok(Webhook { queue, metrics })
    }

    /// Queue the announcement of `request`.
    pub fn announce(&self, request: &ApprovalRequest) {
        let arguments = serde_json::from_str::<serde_json::Value>(request.arguments.get())
            .map(|v| redact_all(&v))
            .unwrap_or(serde_json::Value::Null);
        let body = json!({
            "event": "approval.requested",
            "id": request.id,
            "tool": request.call.tool,
            "agent": request.agent,
            "run_id": request.call.run_id,
            "call_id": request.call.call_id,
            "attributes": request.call.attributes,
            "principal": request.principal,
            "escalations": request.escalations,
            "created_at": request.created_at,
            "expires_at": request.expires_at,
            "arguments": arguments,
        });
        if self.queue.try_send(body).is_err() {
            self.metrics.webhook.with_label_values(&["failed"]).inc();
            tracing::error!(target: "toolvet::serve", id = %request.id,
                "the webhook queue is full; this approval request is not announced");
        }
    }
}

/// POST `body` to `url`, retrying up to `retries` times; true once a 2xx
/// answer came.
async fn deliver(
    client: &reqwest::Client,
    url: &str,
    body: &serde_json::Value,
    retries: u32,
) -> bool {
    let mut pause = Duration::from_millis(250);
    for attempt in 0..=retries {
        let retry = match client.post(url).json(body).send().await {
            Ok(r) if r.status().is_success() => return true,
            Ok(r) => {
                let status = r.status();
                tracing::warn!(target: "toolvet::serve", attempt, %status, "webhook answered an error");
                status.is_server_error() || status == reqwest::StatusCode::TOO_MANY_REQUESTS
            }
            Err(e) => {
                // Without the URL: it may carry a secret path.
                tracing::warn!(target: "toolvet::serve", attempt, "webhook delivery failed: {}", e.without_url());
                true
            }
        };
        if !retry || attempt == retries {
            break;
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_secs(5));
    }
    tracing::error!(target: "toolvet::serve", id = %body["id"], "webhook: giving up on this announcement");
    false
}
