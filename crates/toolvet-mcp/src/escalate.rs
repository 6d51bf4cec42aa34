//! Asking the person through the client when a call escalates.
//!
//! - A client on a session revision (≤ 2025-11-25) that declared
//!   `elicitation`: an `elicitation/create` form (one boolean, `approve`)
//!   while the `tools/call` waits. Only `accept` with `approve: true`
//!   approves; decline, cancel, `approve: false` reject; no answer in
//!   `[mcp] ask_timeout_ms` leaves the request pending (a deny naming it).
//! - A 2026-07-28 client that declares `elicitation`: the `tools/call` is
//!   answered `input_required` with the same form and a `requestState`
//!   sealed by rmcp's `RequestStateCodec` (HMAC-SHA256 with this process's
//!   random key, a TTL of `ask_timeout_ms`, and the session, tool and
//!   argument digest as associated data); the retry carries the answer.
//! - Otherwise: a deny naming the approval request, which a person
//!   approves with `toolvet approvals approve`; the same call made again
//!   then runs (once).
//!
//! The answer is recorded in the approval ledger (reviewer
//! `mcp-client:<client name>`), and the call is checked again with the
//! request's ticket, so the ledger, not the client, has the last word.

use crate::proxy::Gate;
use rmcp::model::{
    CallToolRequestParams, ElicitRequestParams, ElicitResult, ElicitationAction, InputRequest,
    InputRequiredResult, ProtocolVersion, SealOptions,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};
use std::sync::Arc;
use toolvet::{CallRequest, Decision, Scope, Verdict};

/// The key of the approval question in `inputRequests`.
const INPUT_KEY: &str = "toolvet-approval";

/// What vetting a `tools/call` came to.
pub enum Decided {
    /// The final verdict.
    Verdict(Verdict),
    /// Answer `input_required`: the client asks the person and retries.
    AskAgain(InputRequiredResult),
}

#[derive(serde::Serialize, serde::Deserialize)]
struct SealedState {
    /// The approval request.
    id: String,
    /// Its ticket.
    ticket: String,
}

fn binding(gate: &Gate, request: &CallRequest) -> Vec<u8> {
    format!(
        "{}|{}|{}",
        gate.run_id,
        request.call.name,
        request.arguments_sha256()
    )
    .into_bytes()
}

fn form(request: &CallRequest, verdict: &Verdict) -> ElicitRequestParams {
    let schema = json!({
        "type": "object",
        "properties": {"approve": {"type": "boolean", "title": "Approve this call"}},
        "required": ["approve"],
    });
    let schema = serde_json::from_value(schema).expect("a flat boolean form is a valid schema");
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: crate::vet::question(request, verdict),
        requested_schema: schema,
    }
}

/// Whether `answer` approves: `accept` with `approve: true`, nothing else.
pub fn approves(answer: &ElicitResult) -> bool {
    answer.action == ElicitationAction::Accept
        && answer
            .content
            .as_ref()
            .and_then(|c| c.get("approve"))
            .and_then(Value::as_bool)
            == Some(true)
}

/// Vet `request` (the call in `params`) and, when it escalates, ask.
pub async fn decide(
    gate: &Arc<Gate>,
    request: &CallRequest,
    params: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Decided {
    if let Some(state) = &params.request_state {
        return Decided::Verdict(resume(gate, request, state, params, context).await);
    }
    let verdict = gate.check(request).await;
    if verdict.decision != Decision::Escalate {
        return Decided::Verdict(verdict);
    }
    let Some(approval) = verdict.approval.clone() else {
        return Decided::Verdict(verdict);
    };
    let Some(ticket) = approval.ticket.clone() else {
        return Decided::Verdict(verdict);
    };
    let capabilities = context.client_capabilities();
    let elicits = capabilities
        .as_ref()
        .is_some_and(|c| c.elicitation.is_some());
    if !elicits {
        return Decided::Verdict(verdict);
    }
    let modern = context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    if modern {
        let state = SealedState {
            id: approval.id.clone(),
            ticket,
        };
        let ad = binding(gate, request);
        let options = SealOptions::new()
            .associated_data(&ad)
            .ttl(gate.config().ask_timeout());
        let Ok(sealed) = gate.codec.seal_json_with(&state, &options) else {
            return Decided::Verdict(verdict);
        };
        let mut result = InputRequiredResult::from_request_state(sealed);
        result.input_requests = Some(
            [(
                INPUT_KEY.to_string(),
                InputRequest::Elicitation(rmcp::model::ElicitRequest::new(form(request, &verdict))),
            )]
            .into_iter()
            .collect(),
        );
        return Decided::AskAgain(result);
    }
    let asked = tokio::time::timeout(
        gate.config().ask_timeout(),
        context.peer.create_elicitation(form(request, &verdict)),
    )
    .await;
    match asked {
        Ok(Ok(answer)) => {
            let reviewer = reviewer(context);
            Decided::Verdict(
                settle(
                    gate,
                    request,
                    &approval.id,
                    &ticket,
                    &reviewer,
                    approves(&answer),
                )
                .await,
            )
        }
        // No answer: the request stays pending for `toolvet approvals`.
        _ => Decided::Verdict(verdict),
    }
}

fn reviewer(context: &RequestContext<RoleServer>) -> String {
    let name = context
        .client_info()
        .map(|i| i.name)
        .unwrap_or_else(|| "unknown".into());
    format!("mcp-client:{name}")
}

/// Record the person's answer in the ledger and check the call again with
/// the ticket.
async fn settle(
    gate: &Gate,
    request: &CallRequest,
    id: &str,
    ticket: &str,
    reviewer: &str,
    approved: bool,
) -> Verdict {
    if let Some(approvals) = gate.host().approvals() {
        let decided = if approved {
            approvals.approve(id, reviewer, None, Scope::Once).await
        } else {
            approvals
                .reject(id, reviewer, Some("declined in the MCP client"))
                .await
        };
        if let Err(e) = decided {
            // Decided elsewhere first (the first decision stands), or the
            // ledger failed: the re-check below says which.
            tracing::info!(target: "toolvet::mcp", "approval {id}: {e}");
        }
    }
    gate.check_with_ticket(request, ticket).await
}

/// A 2026-07-28 retry: the sealed state must be the one issued for this
/// very call in this session, and the answer must be there.
async fn resume(
    gate: &Gate,
    request: &CallRequest,
    state: &str,
    params: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Verdict {
    let refused = |reason: String| {
        let mut v = gate_deny(reason);
        v.decided_by = None;
        v
    };
    let opened: SealedState = match gate.codec.open_json_with(state, &binding(gate, request)) {
        Ok(s) => s,
        Err(e) => {
            return refused(format!(
                "the requestState is not one toolvet issued for this call in this session ({e}); make the call anew"
            ));
        }
    };
    let answer = params
        .input_responses
        .as_ref()
        .and_then(|r| r.get(INPUT_KEY))
        .and_then(|v| serde_json::from_value::<ElicitResult>(v.clone()).ok());
    let Some(answer) = answer else {
        return refused("the retry carries no answer to toolvet's approval question".into());
    };
    settle(
        gate,
        request,
        &opened.id,
        &opened.ticket,
        &reviewer(context),
        approves(&answer),
    )
    .await
}

fn gate_deny(reason: String) -> Verdict {
    Verdict {
        decision: Decision::Deny,
        decided_by: None,
        rule: Some("mcp.request-state".into()),
        reason: Some(reason),
        approval: None,
        checks: Vec::new(),
        duration_us: 0,
    }
}
