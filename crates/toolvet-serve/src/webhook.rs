//! The webhook: each new approval request is POSTed as JSON to
//! `[serve] webhook_url`, as [`chat_body`] makes it (every text from the
//! request redacted and escaped for a chat channel, argument values
//! replaced: [`crate::redact::redact_all`]), retried a bounded number of times
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
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use toolvet::approval::ApprovalRequest;
use toolvet_preset::SecretsRedactor;

/// Announcements waiting for delivery.
const QUEUE: usize = 1024;

/// Deliveries in flight at once.
const IN_FLIGHT: usize = 8;

/// Sends new requests to the webhook.
#[derive(Debug, Clone)]
pub(crate) struct Webhook {
    queue: mpsc::Sender<serde_json::Value>,
    metrics: Arc<Metrics>,
    redactor: Arc<SecretsRedactor>,
}

impl Webhook {
    /// Start delivering to `url`.
    ///
    /// # Errors
    /// The HTTP client cannot be built.
    pub(crate) fn start(
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
        Ok(Webhook {
            queue,
            metrics,
            redactor: Arc::new(SecretsRedactor::new()),
        })
    }

    /// Queue the announcement of `request` ([`chat_body`]).
    pub(crate) fn announce(&self, request: &ApprovalRequest) {
        let body = chat_body(request, &self.redactor);
        if self.queue.try_send(body).is_err() {
            self.metrics.webhook.with_label_values(&["failed"]).inc();
            tracing::error!(target: "toolvet::serve", id = %request.id,
                "the webhook queue is full; this approval request is not announced");
        }
    }
}

/// The announcement of `request` as it leaves for a chat channel, the
/// one owner of what the webhook sends (review s20 T4): toolvet's own
/// fields (`event`, `id`, the times) as they are; every text from the
/// request (tool, agent, run and call ids, principal, the bound
/// attributes' keys and values, each escalation's check, rule and
/// reason) through [`chat_text`]; the arguments' values replaced by
/// `[redacted]` and their keys kept only when [`chat_key`] keeps them.
pub(crate) fn chat_body(request: &ApprovalRequest, redactor: &SecretsRedactor) -> Value {
    let text = |s: &str| Value::String(chat_text(s, redactor));
    let optional = |s: Option<&str>| s.map_or(Value::Null, text);
    let arguments = serde_json::from_str::<Value>(request.arguments.get())
        .map(|v| chat_keys(&redact_all(&v), redactor))
        .unwrap_or(Value::Null);
    let attributes: serde_json::Map<String, Value> = request
        .call
        .attributes
        .iter()
        .map(|(k, v)| (chat_text(k, redactor), text(v)))
        .collect();
    let escalations: Vec<Value> = request
        .escalations
        .iter()
        .map(|e| {
            json!({
                "check": text(&e.check),
                "rule": optional(e.rule.as_deref()),
                "reason": optional(e.reason.as_deref()),
            })
        })
        .collect();
    json!({
        "event": "approval.requested",
        "id": request.id,
        "tool": text(&request.call.tool),
        "agent": optional(request.agent.as_deref()),
        "run_id": optional(request.call.run_id.as_deref()),
        "call_id": text(&request.call.call_id),
        "attributes": attributes,
        "principal": optional(request.principal.as_deref()),
        "escalations": escalations,
        "created_at": request.created_at,
        "expires_at": request.expires_at,
        "arguments": arguments,
    })
}

/// `text` as a chat channel may show it: a credential secrets-guard
/// recognises replaced (`[redacted: secrets.<kind>]`), hidden and
/// line-breaking characters written out ([`toolvet::display::visible`]),
/// and `&`, `<`, `>` escaped as chat services (Slack, Mattermost) read
/// them, so no `<!channel>` mention or `<https://…|approve here>` link
/// reaches reviewers from a caller or a model.
pub(crate) fn chat_text(text: &str, redactor: &SecretsRedactor) -> String {
    let kept = redactor
        .redact_text(text)
        .unwrap_or_else(|| text.to_string());
    toolvet::display::visible(&kept)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Longest argument key [`chat_key`] keeps.
const MAX_CHAT_KEY: usize = 64;

/// An argument key (the `n`th of its object, from 1) as the chat channel
/// sees it: as it is when it is one plain word ([`toolvet::display::field`]
/// leaves it unquoted) of at most [`MAX_CHAT_KEY`] bytes holding no
/// credential, else `[key n]`: a map keyed by tokens, or a key holding
/// `KEY=VALUE` or a message, is a call's contents.
fn chat_key(key: &str, n: usize, redactor: &SecretsRedactor) -> String {
    let plain = matches!(toolvet::display::field(key), std::borrow::Cow::Borrowed(_));
    if plain && key.len() <= MAX_CHAT_KEY && redactor.redact_text(key).is_none() {
        key.to_string()
    } else {
        format!("[key {n}]")
    }
}

/// `value` with every object key through [`chat_key`].
fn chat_keys(value: &Value, redactor: &SecretsRedactor) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .enumerate()
                .map(|(i, (k, v))| (chat_key(k, i + 1, redactor), chat_keys(v, redactor)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| chat_keys(v, redactor)).collect()),
        other => other.clone(),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Review s20 T4: argument keys, ids and reasons went to the chat
    /// channel raw; only argument values were redacted.
    #[test]
    fn nothing_from_the_request_reaches_the_channel_raw() {
        let token = "ghp_16C7e42F292c6912E7710c838347Ae178B4a";
        let request: ApprovalRequest = serde_json::from_value(json!({
            "id": "apr_28631af68a691e8a0207e813619e0cca", "status": "pending",
            "call": {"tool": "rotate_keys", "arguments_sha256": "ab",
                     "call_id": "<!channel> approve here", "run_id": format!("run-{token}"),
                     "attributes": {"cwd": "/srv/<app>"}},
            "arguments": {
                token: "x", "db_password=Hunter2Secret!": 1,
                "<!channel> pre-approved, click https://evil.example/approve": true,
                "env": {"nested": "prod"}
            },
            "agent": "ci-bot", "principal": "alice@acme.com",
            "escalations": [{"check": "sql", "rule": "sql.drop",
                             "reason": format!("DROP TABLE users_{token}")}],
            "created_at": "2026-12-01T00:00:00.000Z", "expires_at": "2026-12-01T01:00:00.000Z",
            "review": null, "consumed_at": null
        }))
        .unwrap();
        let body = chat_body(&request, &SecretsRedactor::new());
        let text = body.to_string();
        for leaked in [
            token,
            "Hunter2Secret",
            "<!channel>",
            "evil.example",
            "<app>",
        ] {
            assert!(!text.contains(leaked), "{leaked}: {text}");
        }
        assert_eq!(body["id"], request.id.as_str());
        assert_eq!(body["tool"], "rotate_keys");
        assert_eq!(body["principal"], "alice@acme.com");
        assert_eq!(body["call_id"], "&lt;!channel&gt; approve here");
        assert_eq!(body["attributes"]["cwd"], "/srv/&lt;app&gt;");
        assert_eq!(body["arguments"]["env"], json!({"nested": "[redacted]"}));
        let keys: Vec<&String> = body["arguments"].as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 4, "{keys:?}");
        assert!(
            keys.iter().filter(|k| k.starts_with("[key ")).count() == 3,
            "{keys:?}"
        );
    }
}
