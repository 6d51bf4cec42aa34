//! The request bodies of `toolvet serve` on arbitrary bytes, through the
//! parsers its routes run (`toolvet_serve_body`): every input goes to all
//! three.
//!
//! - `POST /v1/check`: the body is the call `toolvet check` reads from the
//!   same text (the core's parse), or it is refused as a 400
//!   `invalid-call` with the CLI's message (`the body is not UTF-8`,
//!   `malformed JSON: …`, the core's call error).
//! - `POST /access/v1/evaluation`: an accepted request names the call's
//!   tool in `action.name`, its arguments in `resource.properties` (`{}`
//!   when absent) and a ticket only when `context.approval_ticket` holds
//!   one; a refusal is `invalid-call` for text that is not JSON and
//!   `invalid-evaluation` otherwise.
//! - `POST /v1/approvals/{id}/decision`: a review only for a JSON object
//!   (never a positional array) with no other keys and no key twice, `decision` exactly `approve` or `reject` and a
//!   named reviewer; everything else is a 400 `invalid-call` (not JSON) or
//!   `invalid-decision`.
//!
//! Every call that parses is vetted by a real host, and the answer built
//! from its verdict says allow (`"decision": "allow"`, AuthZEN `true`)
//! exactly when the policy allows the call. The policy has no checks and
//! no approvals, and allows by default within 256-byte arguments and 2 KiB
//! calls, so which calls it allows is known from the call alone: a body
//! that does not parse gets no verdict at all, and one that parses is
//! allowed only within the limits and without a ticket. Nothing may panic.

use serde_json::{Value, json};
use std::path::Path;
use std::sync::OnceLock;
use toolvet::{CallRequest, Decision, Host, Policy, Verdict, approval::ReviewDecision};
use toolvet_serve_body::{self as body, INVALID_CALL, INVALID_DECISION, INVALID_EVALUATION};

/// `max_arguments_bytes` of the fuzz policy.
const MAX_ARGUMENTS: usize = 256;
/// `max_call_bytes` of the fuzz policy.
const MAX_CALL: usize = 2048;

/// The host of the fuzz policy, loaded once per process.
fn host() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(|| {
        let text = format!(
            "[host]\ndefault_decision = \"allow\"\nallow_without_checks = true\n\
             max_arguments_bytes = {MAX_ARGUMENTS}\nmax_call_bytes = {MAX_CALL}\n"
        );
        let policy = Policy::from_toml(&text, Path::new("serve_body.toml"), Path::new("/"))
            .expect("the fuzz policy is valid");
        toolvet::block_on(Host::load(policy)).expect("a policy without checks loads")
    })
}

/// Whether the fuzz policy allows `request`: exactly the calls within its
/// size limits that bring no approval ticket (it has no `[approvals]`, so
/// a ticket is refused: `approval.disabled`).
fn policy_allows(request: &CallRequest) -> bool {
    request.call.arguments.get().len() <= MAX_ARGUMENTS
        && request.size_bytes() <= MAX_CALL
        && request.approval.is_none()
}

/// The verdict of the host on `request`, which must match the policy.
fn vetted(request: &CallRequest) -> Verdict {
    let verdict = host().check_blocking(request);
    assert_eq!(
        verdict.decision == Decision::Allow,
        policy_allows(request),
        "{verdict:?}"
    );
    assert_ne!(verdict.decision, Decision::Escalate, "no check escalates");
    verdict
}

/// What `toolvet check` makes of `data` as one call: `None` for bytes that
/// are not UTF-8 (it refuses such a file before parsing), else the call or
/// its message (the core's strict parse refuses duplicate keys and inexact
/// numbers, with their key path; the call is read from its own text).
fn as_the_cli_reads_it(data: &[u8]) -> Option<Result<CallRequest, String>> {
    let text = std::str::from_utf8(data).ok()?;
    Some(match toolvet::strict_json::parse_json_strict(text) {
        Err(e) => Err(e.to_string()),
        Ok(_) => CallRequest::from_json(text).map_err(|e| e.to_string()),
    })
}

/// The property, on one input (any bytes).
pub fn run(data: &[u8]) {
    let json = body::json(data);
    check(data);
    evaluation(data, json.as_ref().ok());
    decision(data, json.as_ref().ok());
}

/// `POST /v1/check`.
fn check(data: &[u8]) {
    match (body::check_call(data), as_the_cli_reads_it(data)) {
        (Ok(request), Some(Ok(cli))) => {
            assert_eq!(
                serde_json::to_string(&request).expect("serialisable"),
                serde_json::to_string(&cli).expect("serialisable"),
                "the server and the CLI read different calls"
            );
            let verdict = vetted(&request);
            let answer = body::verdict_answer(&request, &verdict);
            assert_eq!(answer["decision"], verdict.decision.as_str());
            assert_eq!(answer["tool"], request.call.name.as_str());
            assert_eq!(answer["call_id"], request.call.id.as_str());
        }
        (Err(e), Some(Err(message))) => {
            assert_eq!(e.kind, INVALID_CALL);
            assert_eq!(e.message, message, "not the CLI's message");
        }
        (Err(e), None) => {
            assert_eq!(e.kind, INVALID_CALL);
            assert_eq!(e.message, "the body is not UTF-8");
        }
        (server, cli) => panic!("the server and the CLI disagree: {server:?} against {cli:?}"),
    }
}

/// `POST /access/v1/evaluation`; `value` is the body as JSON, if it is.
fn evaluation(data: &[u8], value: Option<&Value>) {
    let request = match body::evaluation_call(data) {
        Ok(request) => request,
        Err(e) => {
            let kind = if value.is_some() {
                INVALID_EVALUATION
            } else {
                INVALID_CALL
            };
            assert_eq!(e.kind, kind, "{e}");
            assert!(!e.message.is_empty());
            return;
        }
    };
    let value = value.expect("an accepted evaluation is JSON");
    assert_eq!(
        value.pointer("/action/name").and_then(Value::as_str),
        Some(request.call.name.as_str())
    );
    let arguments: Value =
        serde_json::from_str(request.call.arguments.get()).expect("arguments are JSON");
    assert_eq!(
        Some(&arguments),
        Some(
            value
                .pointer("/resource/properties/arguments")
                .unwrap_or(&json!({}))
        )
    );
    assert_eq!(
        request.approval.as_ref().map(|a| a.ticket.as_str()),
        value
            .pointer("/context/approval_ticket")
            .map(|t| t.as_str().expect("an accepted ticket is a string"))
    );
    let verdict = vetted(&request);
    let answer = body::evaluation_answer(&request, &verdict);
    assert_eq!(
        answer["decision"],
        Value::Bool(verdict.decision == Decision::Allow)
    );
    assert_eq!(
        answer["context"]["toolvet"]["decision"],
        verdict.decision.as_str()
    );
    assert!(answer["context"]["toolvet"].get("checks").is_none());
}

/// `POST /v1/approvals/{id}/decision`; `value` is the body as JSON.
fn decision(data: &[u8], value: Option<&Value>) {
    let review = match body::decision(data) {
        Ok(review) => review,
        Err(e) => {
            let kind = if value.is_some() {
                INVALID_DECISION
            } else {
                INVALID_CALL
            };
            assert_eq!(e.kind, kind, "{e}");
            assert!(!e.message.is_empty());
            return;
        }
    };
    let value = value.expect("an accepted decision is JSON");
    let fields = value
        .as_object()
        .expect("an accepted decision is an object");
    assert!(
        fields
            .keys()
            .all(|k| ["decision", "reviewer", "message", "scope"].contains(&k.as_str())),
        "{value}"
    );
    let said = match review.decision() {
        ReviewDecision::Approve => "approve",
        ReviewDecision::Reject => "reject",
    };
    assert_eq!(fields["decision"], said);
    let reviewer = fields["reviewer"].as_str().expect("a named reviewer");
    assert_eq!(review.reviewer(), reviewer.trim());
    assert!(!review.reviewer().is_empty());
}
