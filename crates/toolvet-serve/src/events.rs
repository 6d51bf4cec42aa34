//! Approval events for live views, and the webhook trigger.
//!
//! One task follows the approvals of the policy in force (and follows
//! again after a reload):
//! - with a Postgres ledger, the event stream is fed from the database's
//!   notices, so it holds every replica's events (each read back from the
//!   ledger);
//! - otherwise from the host's in-process events.
//!
//! New requests made by *this* server go to the webhook (so with several
//! replicas each request is announced once, by the replica that made it).

use crate::state::AppState;
use crate::webhook::Webhook;
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;
use toolvet::{approval::ApprovalEvent, approval::Approvals};
use toolvet_postgres::LedgerNotice;

/// What `/v1/approvals/events` sends.
#[derive(Debug, Clone)]
pub(crate) enum StreamEvent {
    /// A request was made, decided or used.
    Approval(Box<ApprovalEvent>),
    /// Events may have been missed: read the list again.
    Resync,
}

impl StreamEvent {
    /// The SSE event name: `requested`, `decided`, `consumed` or `resync`.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            StreamEvent::Approval(e) => match e.as_ref() {
                ApprovalEvent::Requested(_) => "requested",
                ApprovalEvent::Decided(_) => "decided",
                ApprovalEvent::Consumed(_) => "consumed",
            },
            StreamEvent::Resync => "resync",
        }
    }

    /// The SSE data: the event as JSON, its request with the texts a
    /// person reads ([`crate::shown::request`]).
    pub(crate) fn data(&self) -> String {
        let value = match self {
            StreamEvent::Approval(e) => {
                let request = match e.as_ref() {
                    ApprovalEvent::Requested(r)
                    | ApprovalEvent::Decided(r)
                    | ApprovalEvent::Consumed(r) => r,
                };
                serde_json::json!({"event": self.name(), "request": crate::shown::request(request)})
            }
            StreamEvent::Resync => serde_json::json!({"event": "resync"}),
        };
        value.to_string()
    }
}

/// Forward events until the server shuts down.
pub(crate) async fn forward(state: Arc<AppState>, webhook: Option<Webhook>) {
    let mut generation = state.generation.subscribe();
    let mut shutdown = state.shutdown.subscribe();
    loop {
        generation.borrow_and_update();
        let Some(approvals) = state.host.approvals() else {
            tokio::select! {
                _ = generation.changed() => continue,
                _ = shutdown.changed() => return,
            }
        };
        let remote = state
            .current
            .load()
            .postgres_url
            .as_deref()
            .and_then(|url| state.provider.ledger(url));
        let mut local = approvals.subscribe();
        let mut notices = remote.as_ref().map(|l| l.notices());
        loop {
            let notice = async {
                match notices.as_mut() {
                    Some(n) => n.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                event = local.recv() => match event {
                    Ok(event) => {
                        if let (ApprovalEvent::Requested(request), Some(hook)) = (&event, &webhook) {
                            hook.announce(request);
                        }
                        if notices.is_none() {
                            let _ = state.events.send(StreamEvent::Approval(Box::new(event)));
                        }
                    }
                    Err(RecvError::Lagged(missed)) => {
                        tracing::warn!(target: "toolvet::serve", missed, "approval events fell behind");
                        let _ = state.events.send(StreamEvent::Resync);
                    }
                    Err(RecvError::Closed) => break,
                },
                notice = notice => match notice {
                    Ok(LedgerNotice::Changed(n)) => {
                        if let Some(event) = read_back(&approvals, &n.event, &n.id).await {
                            let _ = state.events.send(StreamEvent::Approval(Box::new(event)));
                        }
                    }
                    Ok(LedgerNotice::Resync) | Err(RecvError::Lagged(_)) => {
                        let _ = state.events.send(StreamEvent::Resync);
                    }
                    Err(RecvError::Closed) => break,
                },
                _ = generation.changed() => break,
                _ = shutdown.changed() => return,
            }
        }
    }
}

/// The event a ledger notice stands for, with the request as the ledger
/// holds it now.
async fn read_back(approvals: &Approvals, event: &str, id: &str) -> Option<ApprovalEvent> {
    let request = match approvals.get(id).await {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(target: "toolvet::serve", "reading back approval `{id}`: {e}");
            return None;
        }
    };
    match event {
        "requested" => Some(ApprovalEvent::Requested(request)),
        "decided" => Some(ApprovalEvent::Decided(request)),
        "consumed" => Some(ApprovalEvent::Consumed(request)),
        _ => None,
    }
}
