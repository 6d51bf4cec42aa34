//! The plain objects JavaScript passes in (a call, its tool, its run) and
//! gets back (verdicts, approval requests), with their conversions from
//! and to the core's types. Field names are camelCase in JavaScript
//! (`runId`, `durationUs`); the JSON the CLI prints uses snake_case.

use napi_derive::napi;
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// A proposed tool call: the framework's call id, the tool's name and
/// its arguments (a JSON object; absent means `{}`).
#[napi(object)]
#[derive(Debug, Clone)]
pub struct ToolCall {
    /// The framework's call id (binds approvals to this call).
    pub id: Option<String>,
    /// The tool's name; never empty.
    pub name: String,
    /// The arguments, a JSON object. Taken as any value so that a
    /// non-object is the core's invalid-call deny with the CLI's message
    /// (napi would read a string as an empty object).
    #[napi(ts_type = "Record<string, unknown>")]
    pub arguments: Option<Value>,
}

/// What the agent's owner declared about the tool.
#[napi(object)]
#[derive(Debug, Clone, Default)]
pub struct ToolInfo {
    /// Free-text description.
    pub description: Option<String>,
    /// `low`, `medium` or `high` by convention.
    pub risk: Option<String>,
    /// A person must approve every call.
    pub requires_approval: Option<bool>,
    /// Free-form labels.
    pub tags: Option<Vec<String>>,
    /// JSON Schema of the arguments (validated as [`ToolCall::arguments`]).
    #[napi(ts_type = "Record<string, unknown>")]
    pub parameters_schema: Option<Value>,
}

/// The run a call belongs to.
#[napi(object)]
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    /// Agent name.
    pub agent: Option<String>,
    /// Run (conversation, session) id; approvals are bound to it.
    pub run_id: Option<String>,
    /// On whose behalf the agent acts.
    pub principal: Option<String>,
    /// Key/value attributes, e.g. `cwd`.
    pub attributes: Option<HashMap<String, String>>,
    /// Earlier calls of the run, oldest first.
    pub history: Option<Vec<PriorCall>>,
    /// Never set: the host keeps each run's labels itself (raised by its
    /// result checks, [`crate::host::NativeHost::check_result`]) and puts
    /// them into the run's later calls. A call or result that carries
    /// any (even `[]`) is refused as invalid
    /// ([`toolvet::run_labels::LABELS_SENT`]).
    #[napi(ts_type = "never")]
    pub labels: Option<Value>,
}

/// What happened to an earlier call of the run.
#[napi(string_enum = "lowercase")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Allowed; the tool ran.
    Allowed,
    /// Denied; the tool did not run.
    Denied,
    /// Escalated; no answer yet.
    Escalated,
    /// Approved by a person; the tool ran.
    Approved,
    /// Rejected by a person; the tool did not run.
    Rejected,
}

/// An earlier call of the run.
#[napi(object)]
#[derive(Debug, Clone)]
pub struct PriorCall {
    /// Tool name.
    pub name: String,
    /// Arguments (a JSON object; absent means `{}`; validated as
    /// [`ToolCall::arguments`]).
    #[napi(ts_type = "Record<string, unknown>")]
    pub arguments: Option<Value>,
    /// What happened to it.
    pub outcome: Outcome,
}

impl Outcome {
    fn as_str(&self) -> &'static str {
        match self {
            Outcome::Allowed => "allowed",
            Outcome::Denied => "denied",
            Outcome::Escalated => "escalated",
            Outcome::Approved => "approved",
            Outcome::Rejected => "rejected",
        }
    }
}

/// The core's call shape for `call`, `tool` and `context`, resuming with
/// `ticket` when one is given; validated as `toolvet check` validates its
/// input.
///
/// # Errors
/// [`toolvet::CallError`] naming the problem (an empty tool name,
/// nesting too deep, ...).
pub fn call_request(
    call: ToolCall,
    tool: Option<ToolInfo>,
    context: Option<CallContext>,
    ticket: Option<String>,
) -> Result<toolvet::CallRequest, toolvet::CallError> {
    toolvet::CallRequest::from_value(request_value(call, tool, context, ticket)?)
}

/// The JSON of the core's call shape (`toolvet check`'s input) for
/// [`call_request`] and [`crate::results::result_request`].
///
/// # Errors
/// [`toolvet::CallError`] for a context that carries `labels`.
pub(crate) fn request_value(
    call: ToolCall,
    tool: Option<ToolInfo>,
    context: Option<CallContext>,
    ticket: Option<String>,
) -> Result<Value, toolvet::CallError> {
    let object = |v: Option<Value>| v.unwrap_or_else(|| Value::Object(Map::new()));
    let mut request = json!({
        "call": {
            "id": call.id.unwrap_or_default(),
            "name": call.name,
            "arguments": object(call.arguments),
        },
    });
    if let Some(tool) = tool {
        request["tool"] = json!({
            "description": tool.description,
            "risk": tool.risk,
            "requires_approval": tool.requires_approval.unwrap_or(false),
            "tags": tool.tags.unwrap_or_default(),
            "parameters_schema": tool.parameters_schema,
        });
    }
    if let Some(context) = context {
        if context.labels.is_some_and(|l| !l.is_null()) {
            return Err(toolvet::CallError::new(toolvet::run_labels::LABELS_SENT));
        }
        let history: Vec<Value> = context
            .history
            .unwrap_or_default()
            .into_iter()
            .map(|p| {
                json!({
                    "name": p.name,
                    "arguments": object(p.arguments),
                    "outcome": p.outcome.as_str(),
                })
            })
            .collect();
        request["context"] = json!({
            "agent": context.agent,
            "run_id": context.run_id,
            "principal": context.principal,
            "attributes": context.attributes.unwrap_or_default(),
            "history": history,
        });
    }
    if let Some(ticket) = ticket {
        request["approval"] = json!({ "ticket": ticket });
    }
    Ok(request)
}

/// Allow, deny or escalate.
#[napi(string_enum = "lowercase")]
#[derive(Debug, PartialEq, Eq)]
pub enum Decision {
    /// The call may run.
    Allow,
    /// The call must not run; the reason is for the model.
    Deny,
    /// A person must approve the call first.
    Escalate,
}

/// One check's answer.
#[napi(string_enum = "lowercase")]
#[derive(Debug, PartialEq, Eq)]
pub enum CheckDecision {
    /// The call may run as far as this check is concerned.
    Allow,
    /// No opinion.
    Abstain,
    /// The call must not run.
    Deny,
    /// A person must approve the call first.
    Escalate,
}

/// Whether a check's decision counts.
#[napi(string_enum = "lowercase")]
#[derive(Debug, PartialEq, Eq)]
pub enum Mode {
    /// The decision counts.
    Enforce,
    /// Recorded, never changes the verdict.
    Monitor,
}

/// Where an approval request stands.
#[napi(string_enum = "lowercase")]
#[derive(Debug, PartialEq, Eq)]
pub enum ApprovalStatus {
    /// Waiting for a person.
    Pending,
    /// Approved; the ticket has not been used yet.
    Approved,
    /// Rejected.
    Rejected,
    /// Approved and used by a resumed call.
    Consumed,
    /// Nobody answered before it expired.
    Expired,
}

/// How far an approval reaches.
#[napi(string_enum = "lowercase")]
#[derive(Debug, PartialEq, Eq)]
pub enum Scope {
    /// This call, once.
    Once,
    /// The same tool and arguments for the rest of the run.
    Run,
}

/// A person's answer.
#[napi(string_enum = "lowercase")]
#[derive(Debug, PartialEq, Eq)]
pub enum ReviewDecision {
    /// Let the call run.
    Approve,
    /// Do not let it run.
    Reject,
}

/// How a check failed.
#[napi(object)]
#[derive(Debug, Clone)]
pub struct CheckError {
    /// `timeout`, `out-of-memory`, `trap`, `oversized-result`,
    /// `malformed-result`, `load-failed`, `invalid-settings`,
    /// `overloaded`, `oversized-call` or `host-error`.
    pub kind: String,
    /// What happened.
    pub message: String,
}

/// What one check did with the call.
#[napi(object)]
#[derive(Debug)]
pub struct CheckOutcome {
    /// The check's name from the policy.
    pub check: String,
    /// Enforce or monitor.
    pub mode: Mode,
    /// The decision that counts (a failed check's `on_error`).
    pub decision: CheckDecision,
    /// The check's rule id (deny / escalate).
    pub rule: Option<String>,
    /// The check's reason (deny / escalate, or the failure).
    pub reason: Option<String>,
    /// Wall time of the check, µs.
    pub duration_us: f64,
    /// Set when the check failed.
    pub error: Option<CheckError>,
}

/// One check that escalated a call.
#[napi(object)]
#[derive(Debug, Clone)]
pub struct Escalation {
    /// The check's name.
    pub check: String,
    /// Its rule id.
    pub rule: Option<String>,
    /// Its reason.
    pub reason: Option<String>,
}

/// The approval request behind an escalate (with the ticket a resumed
/// call carries), or the approval a resumed call was settled by.
#[napi(object)]
#[derive(Debug)]
pub struct VerdictApproval {
    /// The request id, `apr_…`.
    pub id: String,
    /// Where the request stands.
    pub status: ApprovalStatus,
    /// The ticket that resumes the call (pending or approved and unused).
    pub ticket: Option<String>,
    /// When the request was made (RFC 3339).
    pub created_at: String,
    /// When it and its ticket expire (RFC 3339).
    pub expires_at: String,
    /// The escalating checks.
    pub escalations: Vec<Escalation>,
    /// Who decided, once someone did.
    pub reviewer: Option<String>,
    /// Their message.
    pub message: Option<String>,
    /// The approval's scope, once approved.
    pub scope: Option<Scope>,
    /// `true` when this verdict opened the request (the ledger held none
    /// for the call before). The adapters take a person's approval given
    /// through the framework only for a request they did not just open.
    pub opened: bool,
}

/// The verdict about one call.
#[napi(object)]
#[derive(Debug)]
pub struct Verdict {
    /// Allow, deny or escalate.
    pub decision: Decision,
    /// The check whose outcome decided, if one did.
    pub decided_by: Option<String>,
    /// The deciding rule id: a check's, or the host's (`toolvet.*`,
    /// `approval.*`).
    pub rule: Option<String>,
    /// The message for the model (deny) or the approver (escalate).
    pub reason: Option<String>,
    /// The approval request behind an escalate, or the approval a resumed
    /// call was allowed or refused by.
    pub approval: Option<VerdictApproval>,
    /// Every check that applied, in policy order.
    pub checks: Vec<CheckOutcome>,
    /// Wall time of the verdict in the host, µs.
    pub duration_us: f64,
}

/// The call an approval request is bound to.
#[napi(object)]
#[derive(Debug)]
pub struct BoundCall {
    /// The tool's name.
    pub tool: String,
    /// Hex sha256 of the canonical JSON of the arguments.
    pub arguments_sha256: String,
    /// The framework's call id (`""` when the call had none).
    pub call_id: String,
    /// The run the call belongs to.
    pub run_id: Option<String>,
    /// The call's bound context attributes (`cwd`, `agent_tool`,
    /// `mcp.server`, those it had); a ticket is refused under other values.
    pub attributes: HashMap<String, String>,
}

/// What a person decided, as recorded.
#[napi(object)]
#[derive(Debug)]
pub struct ReviewRecord {
    /// Approve or reject.
    pub decision: ReviewDecision,
    /// Who decided.
    pub reviewer: String,
    /// Their message.
    pub message: Option<String>,
    /// How far an approval reaches.
    pub scope: Scope,
    /// When (RFC 3339).
    pub decided_at: String,
}

/// One approval request, as the ledger holds it.
#[napi(object)]
#[derive(Debug)]
pub struct ApprovalRequest {
    /// `apr_` and 32 hex digits.
    pub id: String,
    /// Where it stands, as of now.
    pub status: ApprovalStatus,
    /// The call it is bound to.
    pub call: BoundCall,
    /// The call's arguments as JSON text (a JSON object), for the
    /// TypeScript layer to `JSON.parse`: napi would build the object with
    /// property sets, which make a `__proto__` key the object's prototype
    /// and hide it from a reviewer. Attacker-controlled: escape them
    /// wherever they are shown.
    pub arguments_json: String,
    /// The agent that made the call.
    pub agent: Option<String>,
    /// On whose behalf.
    pub principal: Option<String>,
    /// The checks that escalated.
    pub escalations: Vec<Escalation>,
    /// When it was made (RFC 3339).
    pub created_at: String,
    /// When it expires (RFC 3339).
    pub expires_at: String,
    /// What a person decided, once they did.
    pub review: Option<ReviewRecord>,
    /// When a resumed call used the approval (RFC 3339).
    pub consumed_at: Option<String>,
    /// What a person reads and decides, as a digest (hex sha256 of the
    /// bound call, principal, agent and escalations): a review screen
    /// hands it back as `shown` with the decision, so a request rewritten
    /// in the ledger after it was read is not approved.
    pub review_sha256: String,
}

/// What the host knows about one configured check.
#[napi(object)]
#[derive(Debug)]
pub struct CheckSummary {
    /// The check's name.
    pub name: String,
    /// Plugin file.
    pub plugin: String,
    /// The tool globs in force.
    pub tools: Vec<String>,
    /// The plugin's name (`describe`), if it loaded.
    pub plugin_name: Option<String>,
    /// The plugin's version, if it loaded.
    pub plugin_version: Option<String>,
    /// The load error of a broken check (`continue_on_errors`).
    pub load_error: Option<String>,
}

impl From<toolvet::Decision> for Decision {
    fn from(d: toolvet::Decision) -> Self {
        match d {
            toolvet::Decision::Allow => Decision::Allow,
            toolvet::Decision::Deny => Decision::Deny,
            toolvet::Decision::Escalate => Decision::Escalate,
        }
    }
}

impl From<toolvet::verdict::CheckDecision> for CheckDecision {
    fn from(d: toolvet::verdict::CheckDecision) -> Self {
        match d {
            toolvet::verdict::CheckDecision::Allow => CheckDecision::Allow,
            toolvet::verdict::CheckDecision::Abstain => CheckDecision::Abstain,
            toolvet::verdict::CheckDecision::Deny => CheckDecision::Deny,
            toolvet::verdict::CheckDecision::Escalate => CheckDecision::Escalate,
        }
    }
}

impl From<toolvet::approval::ApprovalStatus> for ApprovalStatus {
    fn from(s: toolvet::approval::ApprovalStatus) -> Self {
        match s {
            toolvet::approval::ApprovalStatus::Pending => ApprovalStatus::Pending,
            toolvet::approval::ApprovalStatus::Approved => ApprovalStatus::Approved,
            toolvet::approval::ApprovalStatus::Rejected => ApprovalStatus::Rejected,
            toolvet::approval::ApprovalStatus::Consumed => ApprovalStatus::Consumed,
            toolvet::approval::ApprovalStatus::Expired => ApprovalStatus::Expired,
        }
    }
}

impl From<toolvet::approval::Scope> for Scope {
    fn from(s: toolvet::approval::Scope) -> Self {
        match s {
            toolvet::approval::Scope::Once => Scope::Once,
            toolvet::approval::Scope::Run => Scope::Run,
        }
    }
}

impl From<toolvet::approval::Escalation> for Escalation {
    fn from(e: toolvet::approval::Escalation) -> Self {
        Escalation {
            check: e.check,
            rule: e.rule,
            reason: e.reason,
        }
    }
}

fn escalations(list: Vec<toolvet::approval::Escalation>) -> Vec<Escalation> {
    list.into_iter().map(Escalation::from).collect()
}

impl From<toolvet::verdict::CheckOutcome> for CheckOutcome {
    fn from(o: toolvet::verdict::CheckOutcome) -> Self {
        CheckOutcome {
            check: o.check,
            mode: o.mode.into(),
            decision: o.decision.into(),
            rule: o.rule,
            reason: o.reason,
            duration_us: o.duration_us as f64,
            error: o.error.map(CheckError::from),
        }
    }
}

impl From<toolvet::config::Mode> for Mode {
    fn from(m: toolvet::config::Mode) -> Self {
        match m {
            toolvet::config::Mode::Enforce => Mode::Enforce,
            toolvet::config::Mode::Monitor => Mode::Monitor,
        }
    }
}

impl From<toolvet::verdict::CheckError> for CheckError {
    fn from(e: toolvet::verdict::CheckError) -> Self {
        CheckError {
            kind: e.kind.as_str().to_string(),
            message: e.message,
        }
    }
}

impl From<toolvet::approval::VerdictApproval> for VerdictApproval {
    fn from(a: toolvet::approval::VerdictApproval) -> Self {
        VerdictApproval {
            id: a.id,
            status: a.status.into(),
            ticket: a.ticket,
            created_at: a.created_at.to_string(),
            expires_at: a.expires_at.to_string(),
            escalations: escalations(a.escalations),
            reviewer: a.reviewer,
            message: a.message,
            scope: a.scope.map(Scope::from),
            opened: a.opened,
        }
    }
}

impl From<toolvet::Verdict> for Verdict {
    fn from(v: toolvet::Verdict) -> Self {
        Verdict {
            decision: v.decision.into(),
            decided_by: v.decided_by,
            rule: v.rule,
            reason: v.reason,
            approval: v.approval.map(VerdictApproval::from),
            checks: v.checks.into_iter().map(CheckOutcome::from).collect(),
            duration_us: v.duration_us as f64,
        }
    }
}

impl From<toolvet::approval::ApprovalRequest> for ApprovalRequest {
    fn from(r: toolvet::approval::ApprovalRequest) -> Self {
        let review_sha256 = r.review_sha256();
        ApprovalRequest {
            review_sha256,
            id: r.id,
            status: r.status.into(),
            call: BoundCall {
                tool: r.call.tool,
                arguments_sha256: r.call.arguments_sha256,
                call_id: r.call.call_id,
                run_id: r.call.run_id,
                attributes: r.call.attributes.into_iter().collect(),
            },
            // The ledger holds the text of a JSON object.
            arguments_json: r.arguments.get().to_owned(),
            agent: r.agent,
            principal: r.principal,
            escalations: escalations(r.escalations),
            created_at: r.created_at.to_string(),
            expires_at: r.expires_at.to_string(),
            review: r.review.map(|review| ReviewRecord {
                decision: match review.decision {
                    toolvet::approval::ReviewDecision::Approve => ReviewDecision::Approve,
                    toolvet::approval::ReviewDecision::Reject => ReviewDecision::Reject,
                },
                reviewer: review.reviewer,
                message: review.message,
                scope: review.scope.into(),
                decided_at: review.decided_at.to_string(),
            }),
            consumed_at: r.consumed_at.map(|t| t.to_string()),
        }
    }
}

impl From<toolvet::host::CheckSummary> for CheckSummary {
    fn from(c: toolvet::host::CheckSummary) -> Self {
        CheckSummary {
            name: c.name,
            plugin: c.plugin.display().to_string(),
            tools: c.tools,
            plugin_name: c.plugin_name,
            plugin_version: c.plugin_version,
            load_error: c.load_error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, arguments: Value) -> ToolCall {
        ToolCall {
            id: Some("c1".into()),
            name: name.into(),
            arguments: Some(arguments),
        }
    }

    #[test]
    fn a_call_with_its_tool_and_run_becomes_the_core_call_shape() {
        let context = CallContext {
            run_id: Some("r1".into()),
            attributes: Some(HashMap::from([("cwd".into(), "/w".into())])),
            history: Some(vec![PriorCall {
                name: "ls".into(),
                arguments: None,
                outcome: Outcome::Escalated,
            }]),
            ..CallContext::default()
        };
        let tool = ToolInfo {
            risk: Some("high".into()),
            requires_approval: Some(true),
            ..ToolInfo::default()
        };
        let r = call_request(
            call("bash", json!({"command": "ls"})),
            Some(tool),
            Some(context),
            Some("tv1.t".into()),
        )
        .unwrap();
        assert_eq!(r.call.id, "c1");
        assert_eq!(r.call.arguments.get(), r#"{"command":"ls"}"#);
        assert_eq!(r.tool.risk.as_deref(), Some("high"));
        assert!(r.tool.requires_approval);
        assert_eq!(r.context.run_id.as_deref(), Some("r1"));
        assert_eq!(r.attribute("cwd"), Some("/w"));
        assert_eq!(
            r.context.history[0].outcome,
            toolvet::call::Outcome::Escalated
        );
        assert_eq!(r.context.history[0].arguments.get(), "{}");
        assert_eq!(r.approval.unwrap().ticket, "tv1.t");
    }

    #[test]
    fn missing_arguments_are_an_empty_object_and_bad_calls_are_call_errors() {
        let bare = ToolCall {
            id: None,
            name: "ls".into(),
            arguments: None,
        };
        let r = call_request(bare, None, None, None).unwrap();
        assert_eq!((r.call.id.as_str(), r.call.arguments.get()), ("", "{}"));
        let e = call_request(call(" ", json!({})), None, None, None).unwrap_err();
        assert_eq!(e.message(), "`call.name` must not be empty");
        let e = call_request(call("ls", json!("rm -rf /")), None, None, None).unwrap_err();
        assert_eq!(
            e.message(),
            "`call.arguments` must be a JSON object, got a string"
        );
    }
}
