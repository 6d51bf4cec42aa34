//! Approvals: an escalated call becomes an **approval request** that a
//! person approves or rejects; the resumed call carries the request's
//! **ticket** and is vetted again.
//!
//! ```text
//! check(call)                 → escalate, approval {id, ticket, expires_at, escalations}
//! Approvals::decide(id, …)    → approved by alice (scope once | run)
//! check(call + ticket)        → the checks run again; deny still wins;
//!                               the escalations are covered → allow, ticket consumed
//! check(call + same ticket)   → deny, approval.replayed
//! ```
//!
//! The pieces:
//! - [`ticket`]: tickets are HMAC-SHA256-signed claims binding the request
//!   id to the call (tool name, sha256 of the canonical arguments, call
//!   id, run id) and an expiry. The key comes from the policy
//!   (`[approvals] key_file` or `key_env`), never from a call.
//! - [`Ledger`]: where requests live (pending, approved, rejected,
//!   consumed; expired is pending past its expiry). [`SqliteLedger`] is the
//!   default, [`MemoryLedger`] lives as long as the process, and other
//!   crates implement the trait (Postgres in `toolvet serve`).
//! - [`Approvals`]: the handle that servers, bindings and the CLI use to
//!   list, read and decide requests; the [`crate::Host`] uses the same
//!   handle to open requests and settle resumed calls.
//!
//! Every refusal of a resumed call is a deny with its own `approval.*`
//! rule ([`rules`]), never an allow.

pub(crate) mod key;
mod ledger;
mod local;
pub mod pending;
pub mod reviewer;
mod settle;
mod sqlite;
pub(crate) mod ticket;
mod trust;

pub use ledger::{Decided, Ledger, LedgerError, MemoryLedger, Opened};

/// The rules every [`Ledger`] follows, for ledgers implemented in other
/// crates (the Postgres ledger of `toolvet serve`): the same rules as
/// [`MemoryLedger`] and [`SqliteLedger`], so every store answers alike.
pub mod ledger_rules {
    pub use super::ledger::{decide_against, may_be_same_call, open_against, reviewed, same_asker};
    pub use super::pending::{PendingNow, pending_refusal};
}
pub use pending::{PendingCounts, PendingLimits, RunCount};
pub use reviewer::{ReviewerKey, ReviewerSigner, SignedDecision};
pub use sqlite::SqliteLedger;
pub use trust::ApprovalTrust;

use crate::audit::DecisionLog;
use crate::config::{ApprovalSettings, LedgerLocation, Policy};
use crate::error::Error;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::broadcast;

/// The rule ids of the host's approval decisions, as they appear in
/// verdicts (`rule`) and decision records.
pub mod rules {
    /// Allowed: the resumed call's escalations were approved (scope `once`).
    pub const APPROVED: &str = "approval.approved";
    /// Allowed: the same tool and arguments were approved for this run
    /// (scope `run`).
    pub const RUN_SCOPE: &str = "approval.run-scope";
    /// Denied: a person rejected the request; the reason is their message.
    pub const REJECTED: &str = "approval.rejected";
    /// The ticket is not a ticket (shape, encoding, size).
    pub const MALFORMED: &str = "approval.malformed-ticket";
    /// The ticket's signature does not match: forged or tampered with.
    pub const FORGED: &str = "approval.forged-ticket";
    /// The ticket was signed with another key, or for another realm
    /// (another policy's ledger).
    pub const FOREIGN: &str = "approval.foreign-ticket";
    /// The ticket or the request has expired.
    pub const EXPIRED: &str = "approval.expired";
    /// The ticket names a request this ledger does not hold.
    pub const UNKNOWN: &str = "approval.unknown-request";
    /// A ticket came with a call that no check escalates: there is nothing
    /// to approve, so the ticket is meaningless and refused.
    pub const NOT_ESCALATED: &str = "approval.not-escalated";
    /// The ticket was already used (scope `once`).
    pub const REPLAYED: &str = "approval.replayed";
    /// The ticket was issued for another tool.
    pub const TOOL_CHANGED: &str = "approval.tool-changed";
    /// The ticket was issued for other arguments.
    pub const ARGUMENTS_CHANGED: &str = "approval.arguments-changed";
    /// The ticket was issued in another run.
    pub const RUN_MISMATCH: &str = "approval.run-mismatch";
    /// The ticket was issued for another call id.
    pub const CALL_MISMATCH: &str = "approval.call-mismatch";
    /// The ticket was issued for the call with other values of the context
    /// attributes an approval is bound to ([`super::BOUND_ATTRIBUTES`]:
    /// another working directory, agent tool or MCP server).
    pub const CONTEXT_CHANGED: &str = "approval.context-changed";
    /// The ticket was issued to another principal or agent: an approval
    /// serves only the principal and agent that asked.
    pub const PRINCIPAL_MISMATCH: &str = "approval.principal-mismatch";
    /// The call id was used before, in this run, for a different call.
    pub const CALL_ID_REUSED: &str = "approval.call-id-reused";
    /// The approval does not cover what the call escalates now (the policy
    /// changed since the request was made, or a rule over the run's earlier
    /// calls, such as loop detection, escalates it now).
    pub const NOT_COVERED: &str = "approval.not-covered";
    /// The ledger could not be read or written.
    pub const LEDGER: &str = "approval.ledger-unavailable";
    /// A ticket came to a policy without an `[approvals]` table.
    pub const DISABLED: &str = "approval.disabled";
    /// Denied: too many requests already wait for a person (per run, per
    /// principal or in all: [`super::pending`]); no request is opened.
    pub const TOO_MANY_PENDING: &str = "approval.too-many-pending";
    /// The policy lists reviewer keys and the approval carries no valid
    /// signature by one of them (an approval written into the ledger by
    /// hand, or a signed decision that does not match the request).
    pub const UNSIGNED: &str = "approval.unsigned-decision";
}

/// A point in time, in milliseconds since the Unix epoch. Serialized as
/// RFC 3339 (`2026-12-01T09:00:00.000Z`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnixMillis(pub u64);

impl UnixMillis {
    /// Now, by the system clock.
    pub fn now() -> UnixMillis {
        UnixMillis(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
                .unwrap_or(0),
        )
    }
}

impl fmt::Display for UnixMillis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = i64::try_from(self.0).unwrap_or(i64::MAX);
        match jiff::Timestamp::from_millisecond(ms) {
            Ok(t) => write!(f, "{t:.3}"),
            Err(_) => write!(f, "@{}ms", self.0),
        }
    }
}

impl Serialize for UnixMillis {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for UnixMillis {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        let t: jiff::Timestamp = text.parse().map_err(serde::de::Error::custom)?;
        u64::try_from(t.as_millisecond())
            .map(UnixMillis)
            .map_err(|_| serde::de::Error::custom("a time before 1970"))
    }
}

/// The call an approval request is bound to. A resumed call must match
/// every field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoundCall {
    /// The tool's name.
    pub tool: String,
    /// Hex sha256 of the canonical JSON of the arguments
    /// ([`crate::CallRequest::arguments_sha256`]).
    pub arguments_sha256: String,
    /// The framework's call id (`""` when the call had none).
    pub call_id: String,
    /// The run the call belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The call's values of the context attributes that say where and
    /// through what it runs ([`BOUND_ATTRIBUTES`]; those it had, by name).
    /// The same tool name and arguments are another call in another
    /// directory, under another agent tool or on another MCP server, so a
    /// person is shown these and a ticket is bound to them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attributes: BTreeMap<String, String>,
}

/// The context attributes an approval is bound to, besides the tool, the
/// arguments, the run, the call id, the principal and the agent:
/// - [`crate::home::CWD_ATTRIBUTE`] (`cwd`): the working directory
///   (`sudo rm -rf build` approved in one project is another call in
///   another);
/// - [`AGENT_TOOL_ATTRIBUTE`] (`agent_tool`): the agent's own name of the
///   tool, which a hook vets under a bare name too (`mcp__good__rotate`
///   and `mcp__evil__rotate` are both `rotate`);
/// - [`MCP_SERVER_ATTRIBUTE`] (`mcp.server`): the MCP server the call goes
///   to (`toolvet mcp`, ExtMcp backends).
pub const BOUND_ATTRIBUTES: &[&str] = &[
    crate::home::CWD_ATTRIBUTE,
    AGENT_TOOL_ATTRIBUTE,
    MCP_SERVER_ATTRIBUTE,
];

/// The call-context attribute naming the tool as the agent calls it,
/// when a front end vets it under another name (a hook: `Bash`,
/// `mcp__github__merge_pull_request`).
pub const AGENT_TOOL_ATTRIBUTE: &str = "agent_tool";

/// The call-context attribute naming the MCP server a call goes to
/// (`toolvet mcp`'s `--name`, an ExtMcp backend).
pub const MCP_SERVER_ATTRIBUTE: &str = "mcp.server";

impl BoundCall {
    /// What `request` is bound to, with `arguments_sha256` its digest.
    pub(crate) fn of(request: &crate::CallRequest, arguments_sha256: String) -> BoundCall {
        BoundCall {
            tool: request.call.name.clone(),
            arguments_sha256,
            call_id: request.call.id.clone(),
            run_id: request.context.run_id.clone(),
            attributes: bound_attributes(request),
        }
    }
}

/// `request`'s values of [`BOUND_ATTRIBUTES`].
pub(crate) fn bound_attributes(request: &crate::CallRequest) -> BTreeMap<String, String> {
    BOUND_ATTRIBUTES
        .iter()
        .filter_map(|k| request.attribute(k).map(|v| (k.to_string(), v.to_string())))
        .collect()
}

/// One check that escalated a call: what a person is asked to approve.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Escalation {
    /// The check's name.
    pub check: String,
    /// Its rule id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Its reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Where an approval request stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ApprovalStatus {
    /// Waiting for a person.
    Pending,
    /// Approved; the ticket has not been used yet.
    Approved,
    /// Rejected; the resumed call is denied with the reviewer's message.
    Rejected,
    /// Approved and used by a resumed call (scope `once`: never again).
    Consumed,
    /// Nobody answered before it expired (a pending request past its
    /// `expires_at`; an approved request past it can no longer be used).
    Expired,
}

impl ApprovalStatus {
    /// `pending`, `approved`, `rejected`, `consumed` or `expired`.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalStatus::Pending => "pending",
            ApprovalStatus::Approved => "approved",
            ApprovalStatus::Rejected => "rejected",
            ApprovalStatus::Consumed => "consumed",
            ApprovalStatus::Expired => "expired",
        }
    }
}

impl fmt::Display for ApprovalStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How far an approval reaches, chosen by the reviewer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// This call, once (the default): the ticket is consumed by the
    /// resumed call.
    #[default]
    Once,
    /// The same tool with the same arguments digest is allowed for the
    /// rest of the run without asking again. Only for calls with a run id.
    Run,
}

impl Scope {
    /// `once` or `run`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Once => "once",
            Scope::Run => "run",
        }
    }
}

/// A person's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReviewDecision {
    /// Let the call run.
    Approve,
    /// Do not let it run; the model reads the message.
    Reject,
}

/// Longest reviewer identity accepted, in bytes.
pub const MAX_REVIEWER_BYTES: usize = 256;
/// Longest reviewer message accepted, in bytes.
pub const MAX_MESSAGE_BYTES: usize = 4096;

/// A validated decision of a person about one request: built only through
/// [`Review::approve`], [`Review::reject`] or [`Review::parse`], so an empty
/// or malformed answer is never an approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Review {
    decision: ReviewDecision,
    reviewer: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    scope: Scope,
}

impl Review {
    /// An approval by `reviewer` (who must be named) for `scope`.
    ///
    /// # Errors
    /// [`ApprovalError::InvalidReview`] for an empty, oversized or
    /// control-character reviewer.
    pub fn approve(reviewer: &str, scope: Scope) -> Result<Review, ApprovalError> {
        Ok(Review {
            decision: ReviewDecision::Approve,
            reviewer: valid_reviewer(reviewer)?,
            message: None,
            scope,
        })
    }

    /// A rejection by `reviewer`.
    ///
    /// # Errors
    /// As [`Review::approve`].
    pub fn reject(reviewer: &str) -> Result<Review, ApprovalError> {
        Ok(Review {
            decision: ReviewDecision::Reject,
            reviewer: valid_reviewer(reviewer)?,
            message: None,
            scope: Scope::Once,
        })
    }

    /// The same review with `message` (shown to the model on a rejection,
    /// recorded on an approval).
    ///
    /// # Errors
    /// [`ApprovalError::InvalidReview`] for a message over
    /// [`MAX_MESSAGE_BYTES`] or with control characters other than
    /// newline and tab.
    pub fn with_message(mut self, message: &str) -> Result<Review, ApprovalError> {
        let message = message.trim();
        if message.len() > MAX_MESSAGE_BYTES {
            return Err(ApprovalError::InvalidReview(format!(
                "`message` is {} bytes, over the limit of {MAX_MESSAGE_BYTES}",
                message.len()
            )));
        }
        if message
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
        {
            return Err(ApprovalError::InvalidReview(
                "`message` holds control characters".into(),
            ));
        }
        self.message = (!message.is_empty()).then(|| message.to_string());
        Ok(self)
    }

    /// A review from the words of an API or command line: `decision` is
    /// exactly `approve` or `reject`, `scope` `once` (default) or `run`
    /// (approvals only).
    ///
    /// # Errors
    /// [`ApprovalError::InvalidReview`] naming the field: a missing or
    /// unknown decision, a missing reviewer, a scope on a rejection.
    pub fn parse(
        decision: &str,
        reviewer: &str,
        message: Option<&str>,
        scope: Option<&str>,
    ) -> Result<Review, ApprovalError> {
        let scope = match scope {
            None | Some("") => None,
            Some("once") => Some(Scope::Once),
            Some("run") => Some(Scope::Run),
            Some(other) => {
                return Err(ApprovalError::InvalidReview(format!(
                    "`scope` must be `once` or `run`, not {other:?}"
                )));
            }
        };
        let review = match decision {
            "approve" => Review::approve(reviewer, scope.unwrap_or_default())?,
            "reject" if scope.is_some() => {
                return Err(ApprovalError::InvalidReview(
                    "`scope` applies to approvals only".into(),
                ));
            }
            "reject" => Review::reject(reviewer)?,
            "" => {
                return Err(ApprovalError::InvalidReview(
                    "`decision` is missing: say `approve` or `reject`".into(),
                ));
            }
            other => {
                return Err(ApprovalError::InvalidReview(format!(
                    "`decision` must be `approve` or `reject`, not {other:?}"
                )));
            }
        };
        match message {
            Some(m) => review.with_message(m),
            None => Ok(review),
        }
    }

    /// Approve or reject.
    pub fn decision(&self) -> ReviewDecision {
        self.decision
    }

    /// Who decided.
    pub fn reviewer(&self) -> &str {
        &self.reviewer
    }

    /// Their message.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// How far an approval reaches.
    pub fn scope(&self) -> Scope {
        self.scope
    }
}

fn valid_reviewer(reviewer: &str) -> Result<String, ApprovalError> {
    let reviewer = reviewer.trim();
    if reviewer.is_empty() {
        return Err(ApprovalError::InvalidReview(
            "`reviewer` is missing: say who decides".into(),
        ));
    }
    if reviewer.len() > MAX_REVIEWER_BYTES {
        return Err(ApprovalError::InvalidReview(format!(
            "`reviewer` is over {MAX_REVIEWER_BYTES} bytes"
        )));
    }
    if reviewer.chars().any(char::is_control) {
        return Err(ApprovalError::InvalidReview(
            "`reviewer` holds control characters".into(),
        ));
    }
    Ok(reviewer.to_string())
}

/// What a person decided about a request, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewRecord {
    /// Approve or reject.
    pub decision: ReviewDecision,
    /// Who decided.
    pub reviewer: String,
    /// Their message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// How far an approval reaches.
    pub scope: Scope,
    /// When.
    pub decided_at: UnixMillis,
}

/// One approval request, as the ledger holds it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ApprovalRequest {
    /// Stable id, `apr_` and 32 hex digits.
    pub id: String,
    /// Where it stands (pending past `expires_at` reads as expired).
    pub status: ApprovalStatus,
    /// The call it is bound to.
    pub call: BoundCall,
    /// The call's arguments (JSON object), for the person deciding. They
    /// are attacker-controlled: escape them wherever they are shown.
    pub arguments: Box<RawValue>,
    /// The agent that made the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// On whose behalf.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub principal: Option<String>,
    /// The checks that escalated, with their rules and reasons.
    pub escalations: Vec<Escalation>,
    /// When it was made.
    pub created_at: UnixMillis,
    /// When it expires: a pending request can no longer be decided, an
    /// approved one no longer used.
    pub expires_at: UnixMillis,
    /// What a person decided, once they did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<ReviewRecord>,
    /// When a resumed call used the approval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consumed_at: Option<UnixMillis>,
}

impl ApprovalRequest {
    /// The status as of `now`: a pending (or approved, unused) request
    /// past its expiry reads as expired.
    pub fn status_at(&self, now: UnixMillis) -> ApprovalStatus {
        match self.status {
            ApprovalStatus::Pending | ApprovalStatus::Approved if now >= self.expires_at => {
                ApprovalStatus::Expired
            }
            status => status,
        }
    }

    /// What a person reads and decides about this request, as a digest:
    /// hex sha256 of the JSON of `{"call", "principal", "agent",
    /// "escalations"}` (the bound call with its arguments' digest, on whose
    /// behalf, which agent, and the checks' rules and reasons; field order
    /// fixed, attributes sorted). The reviewer page and `toolvet approvals
    /// approve` show a request and hand this back with the decision
    /// ([`Approvals::decide_shown`]), so a ledger row rewritten between the
    /// reading and the decision is not decided.
    pub fn review_sha256(&self) -> String {
        use sha2::Digest;
        #[derive(Serialize)]
        struct Shown<'a> {
            call: &'a BoundCall,
            principal: &'a Option<String>,
            agent: &'a Option<String>,
            escalations: &'a [Escalation],
        }
        let json = serde_json::to_vec(&Shown {
            call: &self.call,
            principal: &self.principal,
            agent: &self.agent,
            escalations: &self.escalations,
        })
        .expect("a request serializes");
        hex::encode(sha2::Sha256::digest(&json))
    }
}

/// The `approval` object of a verdict: the request behind an escalate
/// (with the ticket that resumes the call once it is approved), or the
/// approval a resumed call was settled by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerdictApproval {
    /// The request id.
    pub id: String,
    /// Where the request stands.
    pub status: ApprovalStatus,
    /// The ticket a resumed call carries (`"approval": {"ticket": …}`);
    /// present while the request is pending or approved and unused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket: Option<String>,
    /// When the request was made.
    pub created_at: UnixMillis,
    /// When it (and its ticket) expire.
    pub expires_at: UnixMillis,
    /// The escalating checks, with their rules and reasons.
    pub escalations: Vec<Escalation>,
    /// Who decided, once someone did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviewer: Option<String>,
    /// Their message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The approval's scope, once approved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// `true` when this verdict opened the request: the ledger held no
    /// request for the call before. An adapter that receives a person's
    /// answer through its framework accepts it only for a request that was
    /// not opened by the same ask (else the framework answers a call
    /// toolvet never held). Serialized only when `true`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub opened: bool,
}

/// Which requests [`Approvals::list`] returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StatusFilter {
    /// Waiting for a person and not expired (the default).
    #[default]
    Pending,
    /// Approved and not used yet.
    Approved,
    /// Rejected.
    Rejected,
    /// Approved and used.
    Consumed,
    /// Expired without an answer.
    Expired,
    /// Every request.
    All,
}

impl std::str::FromStr for StatusFilter {
    type Err = ApprovalError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "pending" => StatusFilter::Pending,
            "approved" => StatusFilter::Approved,
            "rejected" => StatusFilter::Rejected,
            "consumed" => StatusFilter::Consumed,
            "expired" => StatusFilter::Expired,
            "all" => StatusFilter::All,
            other => {
                return Err(ApprovalError::InvalidQuery(format!(
                    "`status` must be pending, approved, rejected, consumed, expired or all, not {other:?}"
                )));
            }
        })
    }
}

impl StatusFilter {
    /// Whether a request with `status` (as of now) passes.
    pub fn accepts(self, status: ApprovalStatus) -> bool {
        match self {
            StatusFilter::All => true,
            StatusFilter::Pending => status == ApprovalStatus::Pending,
            StatusFilter::Approved => status == ApprovalStatus::Approved,
            StatusFilter::Rejected => status == ApprovalStatus::Rejected,
            StatusFilter::Consumed => status == ApprovalStatus::Consumed,
            StatusFilter::Expired => status == ApprovalStatus::Expired,
        }
    }
}

/// Most requests one page holds.
pub const MAX_PAGE: usize = 500;

/// A page request: oldest first, `limit` at a time, after the request
/// named by `after` (the previous page's last id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListQuery {
    /// Which requests.
    pub status: StatusFilter,
    /// Page size, 1..=[`MAX_PAGE`].
    pub limit: usize,
    /// Continue after this request id.
    pub after: Option<String>,
}

impl Default for ListQuery {
    fn default() -> Self {
        ListQuery {
            status: StatusFilter::Pending,
            limit: 100,
            after: None,
        }
    }
}

/// Something that happened to a request, for live views
/// ([`Approvals::subscribe`]): the request as it is after the event.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", content = "request", rename_all = "lowercase")]
pub enum ApprovalEvent {
    /// A call escalated and a new request waits for a person.
    Requested(ApprovalRequest),
    /// A person approved or rejected it.
    Decided(ApprovalRequest),
    /// A resumed call used the approval.
    Consumed(ApprovalRequest),
}

/// Why an approvals operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApprovalError {
    /// No request has this id.
    #[error("no approval request `{0}`")]
    NotFound(String),
    /// The request was decided before: the first decision stands.
    #[error(
        "approval request `{id}` was already {status} by {reviewer}; the first decision stands"
    )]
    AlreadyDecided {
        /// The request.
        id: String,
        /// Its status.
        status: ApprovalStatus,
        /// Who decided it.
        reviewer: String,
    },
    /// The request expired before anyone decided.
    #[error("approval request `{0}` has expired; the call must be asked again")]
    Expired(String),
    /// The request is no longer what the person deciding was shown (its
    /// ledger row changed after it was read): nothing was decided.
    #[error(
        "approval request `{0}` changed after it was shown (its ledger row was rewritten); \
         nothing was decided: read it again"
    )]
    Changed(String),
    /// A malformed decision (never taken for an approval).
    #[error("invalid decision: {0}")]
    InvalidReview(String),
    /// A malformed list query.
    #[error("invalid query: {0}")]
    InvalidQuery(String),
    /// The ledger failed.
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    /// The signing key could not be loaded (the message never holds the
    /// key).
    #[error("signing key: {0}")]
    Key(String),
    /// The policy names a ledger this build cannot open.
    #[error("{0}")]
    Unsupported(String),
}

impl From<tokio::task::JoinError> for ApprovalError {
    fn from(e: tokio::task::JoinError) -> Self {
        ApprovalError::Ledger(LedgerError::Unavailable(format!(
            "the approvals task failed: {e}"
        )))
    }
}

/// Opens the ledger a policy names, for ledgers the core library does not
/// implement (Postgres, in `toolvet serve`). Return `Ok(None)` to leave a
/// location to the default (SQLite, memory).
#[async_trait::async_trait]
pub trait LedgerProvider: Send + Sync + fmt::Debug {
    /// The ledger at `location`, or `None` when this provider does not
    /// handle it.
    ///
    /// # Errors
    /// The ledger could not be reached or set up.
    async fn open(&self, location: &LedgerLocation)
    -> Result<Option<Arc<dyn Ledger>>, LedgerError>;
}

/// The approvals of one policy: its ledger, its signing key, and the
/// decision log the approval events go to. Cheap to clone.
#[derive(Clone)]
pub struct Approvals {
    inner: Arc<Inner>,
}

struct Inner {
    ledger: Arc<dyn Ledger>,
    signer: ticket::Signer,
    ttl_ms: u64,
    settings: ApprovalSettings,
    log: Option<DecisionLog>,
    events: broadcast::Sender<ApprovalEvent>,
    /// Set by [`Approvals::guard_same_user`]; shared with the approvals
    /// of the policies that replace this one.
    same_user: Arc<AtomicBool>,
}

impl fmt::Debug for Approvals {
    /// Shows the ledger and realm, never the key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Approvals")
            .field("ledger", &self.inner.ledger)
            .field("realm", &self.inner.signer.realm())
            .field("ttl_ms", &self.inner.ttl_ms)
            .finish_non_exhaustive()
    }
}

/// Buffered events per subscriber; a subscriber that falls further behind
/// misses events (and learns how many).
const EVENT_BUFFER: usize = 1024;

impl Approvals {
    /// The approvals of `policy`, with the ledger it names (SQLite or
    /// memory) and its own decision log, for tools that decide requests
    /// without loading the checks (`toolvet approvals`). `None` when the
    /// policy has no `[approvals]` table.
    ///
    /// # Errors
    /// [`Error::Approvals`] when the key or the ledger cannot be opened
    /// (a Postgres ledger needs [`Approvals::open_with`]);
    /// [`Error::DecisionLog`] when the decision log cannot be opened.
    pub async fn open(policy: &Policy) -> Result<Option<Approvals>, Error> {
        Self::open_with(policy, None).await
    }

    /// As [`Approvals::open`], with `provider` opening the ledgers it
    /// handles.
    ///
    /// # Errors
    /// As [`Approvals::open`].
    pub async fn open_with(
        policy: &Policy,
        provider: Option<&dyn LedgerProvider>,
    ) -> Result<Option<Approvals>, Error> {
        // Approval records hold no arguments: no redactor is needed.
        let log = DecisionLog::open_for(policy, None)?;
        Self::load(policy, provider, log, None).await
    }

    /// Open the approvals of `policy` with the host's decision log,
    /// reusing `previous` (the approvals of the policy this one replaces)
    /// when the table is unchanged.
    pub(crate) async fn load(
        policy: &Policy,
        provider: Option<&dyn LedgerProvider>,
        log: Option<DecisionLog>,
        previous: Option<&Approvals>,
    ) -> Result<Option<Approvals>, Error> {
        let Some(settings) = &policy.approvals else {
            return Ok(None);
        };
        if let Some(previous) = previous.filter(|p| &p.inner.settings == settings) {
            return Ok(Some(Approvals {
                inner: Arc::new(Inner {
                    ledger: previous.inner.ledger.clone(),
                    signer: previous.inner.signer.clone(),
                    ttl_ms: previous.inner.ttl_ms,
                    settings: settings.clone(),
                    log,
                    events: previous.inner.events.clone(),
                    same_user: previous.inner.same_user.clone(),
                }),
            }));
        }
        let failed = |source: ApprovalError| Error::Approvals {
            policy: policy.source.clone(),
            source,
        };
        let key = key::load(&settings.key).map_err(failed)?;
        let ledger = open_ledger(&settings.ledger, provider)
            .await
            .map_err(failed)?;
        let realm = settings
            .realm
            .clone()
            .unwrap_or_else(|| realm_of(&ledger.default_realm()));
        Ok(Some(Approvals {
            inner: Arc::new(Inner {
                ledger,
                signer: ticket::Signer::new(key, realm),
                ttl_ms: settings.ttl_s.saturating_mul(1000),
                settings: settings.clone(),
                log,
                events: broadcast::channel(EVENT_BUFFER).0,
                same_user: previous
                    .map(|p| p.inner.same_user.clone())
                    .unwrap_or_default(),
            }),
        }))
    }

    /// The ledger behind these approvals.
    pub fn ledger(&self) -> &Arc<dyn Ledger> {
        &self.inner.ledger
    }

    /// Declare that these approvals serve a front end running as the
    /// agent's user, inside the agent's process or beside it (the Python
    /// and Node packages): the ledger is then a file the agent can write,
    /// so under a policy without `reviewer_keys`
    /// ([`ApprovalTrust::Unsigned`]) an approval or run grant found in it
    /// counts only when it was decided through this process
    /// ([`Approvals::decide`], the front end recording the person's answer
    /// it obtained itself); any other is denied
    /// (`approval.unsigned-decision`). Under reviewer keys the signature
    /// rule applies as always. Kept by the approvals of a reloaded policy.
    /// `toolvet serve`, whose ledger the agents reach only through its
    /// API, does not call it.
    pub fn guard_same_user(&self) {
        self.inner.same_user.store(true, Ordering::SeqCst);
    }

    /// Whether [`Approvals::guard_same_user`] was called.
    pub fn guards_same_user(&self) -> bool {
        self.inner.same_user.load(Ordering::SeqCst)
    }

    /// The realm tickets are issued under: the policy's `realm`, else a
    /// digest of the ledger's location (`ledger:` and 32 hex digits).
    pub fn realm(&self) -> &str {
        self.inner.signer.realm()
    }

    /// One page of requests, oldest first.
    ///
    /// # Errors
    /// [`ApprovalError::InvalidQuery`] for a limit outside
    /// 1..=[`MAX_PAGE`]; [`ApprovalError::Ledger`].
    pub async fn list(&self, query: &ListQuery) -> Result<Vec<ApprovalRequest>, ApprovalError> {
        if !(1..=MAX_PAGE).contains(&query.limit) {
            return Err(ApprovalError::InvalidQuery(format!(
                "`limit` must be 1..={MAX_PAGE}"
            )));
        }
        let mut page = crate::runtime::on_runtime({
            let (ledger, query) = (self.inner.ledger.clone(), query.clone());
            async move { ledger.list(&query, UnixMillis::now()).await }
        })
        .await??;
        let now = UnixMillis::now();
        for request in &mut page {
            request.status = request.status_at(now);
        }
        Ok(page)
    }

    /// The request `id`, with its status as of now.
    ///
    /// # Errors
    /// [`ApprovalError::NotFound`]; [`ApprovalError::Ledger`].
    pub async fn get(&self, id: &str) -> Result<ApprovalRequest, ApprovalError> {
        let ledger = self.inner.ledger.clone();
        let key = id.to_string();
        let found = crate::runtime::on_runtime(async move { ledger.get(&key).await }).await??;
        let mut request = found.ok_or_else(|| ApprovalError::NotFound(id.to_string()))?;
        request.status = request.status_at(UnixMillis::now());
        Ok(request)
    }

    /// Record a person's decision about request `id`. The first decision
    /// stands; the decision is written to the decision log.
    ///
    /// # Errors
    /// [`ApprovalError::NotFound`], [`ApprovalError::AlreadyDecided`],
    /// [`ApprovalError::Expired`]; [`ApprovalError::InvalidReview`] for a
    /// `run` scope on a request without a run id;
    /// [`ApprovalError::Ledger`].
    pub async fn decide(&self, id: &str, review: Review) -> Result<ApprovalRequest, ApprovalError> {
        if review.decision() == ReviewDecision::Approve && self.requires_signed_approvals() {
            return Err(ApprovalError::InvalidReview(
                "this policy counts only approvals signed with a reviewer key ([approvals] \
                 reviewer_keys): approve with `toolvet approvals approve`, which asks for the \
                 reviewer's passphrase"
                    .into(),
            ));
        }
        self.decide_unchecked(id, review).await
    }

    /// [`Approvals::decide`] of the request a person was shown: `shown` is
    /// the [`ApprovalRequest::review_sha256`] of the request as they read
    /// it. An approval is recorded only while the pending request still has
    /// that digest, read in the same step that seals the approval; a
    /// rejection is recorded whatever the row says (it only ever denies).
    ///
    /// # Errors
    /// [`ApprovalError::Changed`] when the request's digest is no longer
    /// `shown`; as [`Approvals::decide`].
    pub async fn decide_shown(
        &self,
        id: &str,
        review: Review,
        shown: &str,
    ) -> Result<ApprovalRequest, ApprovalError> {
        if review.decision() == ReviewDecision::Approve && self.requires_signed_approvals() {
            return self.decide(id, review).await;
        }
        let this = self.clone();
        let (id, shown) = (id.to_string(), shown.to_string());
        crate::runtime::on_runtime(async move { this.decide_now(&id, review, Some(&shown)).await })
            .await?
    }

    /// [`Approvals::decide`] without the signature rule (rejections, and
    /// approvals whose signed decision is stored).
    pub(crate) async fn decide_unchecked(
        &self,
        id: &str,
        review: Review,
    ) -> Result<ApprovalRequest, ApprovalError> {
        let this = self.clone();
        let id = id.to_string();
        crate::runtime::on_runtime(async move { this.decide_now(&id, review, None).await }).await?
    }

    /// Record `review` on request `id`; an approval is sealed first, and
    /// only while the request's [`ApprovalRequest::review_sha256`] is
    /// `shown`, when given.
    async fn decide_now(
        &self,
        id: &str,
        review: Review,
        shown: Option<&str>,
    ) -> Result<ApprovalRequest, ApprovalError> {
        if review.scope() == Scope::Run {
            let request = self
                .inner
                .ledger
                .get(id)
                .await?
                .ok_or_else(|| ApprovalError::NotFound(id.to_string()))?;
            if request.call.run_id.is_none() {
                return Err(ApprovalError::InvalidReview(
                    "scope `run` needs a call made with a run id; approve it `once`".into(),
                ));
            }
        }
        let now = UnixMillis::now();
        // Without reviewer keys an approval counts only with toolvet's
        // seal, stored first and removed if the decision is not recorded.
        let sealed =
            review.decision() == ReviewDecision::Approve && !self.requires_signed_approvals();
        if sealed {
            self.put_seal(id, &review, now, shown).await?;
        }
        let decided = self.inner.ledger.decide(id, &review, now).await;
        if sealed && !matches!(decided, Ok(Decided::Done(_))) {
            self.drop_seal(id).await;
        }
        let request = match decided? {
            Decided::Done(request) => {
                if review.decision() == ReviewDecision::Approve {
                    local::note_decided(&request.id);
                }
                request
            }
            Decided::NotFound => return Err(ApprovalError::NotFound(id.to_string())),
            Decided::Expired(_) => return Err(ApprovalError::Expired(id.to_string())),
            Decided::NotPending(request) => {
                return Err(ApprovalError::AlreadyDecided {
                    id: id.to_string(),
                    status: request.status_at(now),
                    reviewer: request
                        .review
                        .map(|r| r.reviewer)
                        .unwrap_or_else(|| "nobody".into()),
                });
            }
        };
        self.record_event(&ApprovalEvent::Decided(request.clone()));
        Ok(request)
    }

    /// Approve request `id` (a shorthand for [`Approvals::decide`]).
    ///
    /// # Errors
    /// As [`Review::approve`] and [`Approvals::decide`].
    pub async fn approve(
        &self,
        id: &str,
        reviewer: &str,
        message: Option<&str>,
        scope: Scope,
    ) -> Result<ApprovalRequest, ApprovalError> {
        let review = Review::approve(reviewer, scope)?;
        let review = match message {
            Some(m) => review.with_message(m)?,
            None => review,
        };
        self.decide(id, review).await
    }

    /// Reject request `id` (a shorthand for [`Approvals::decide`]).
    ///
    /// # Errors
    /// As [`Review::reject`] and [`Approvals::decide`].
    pub async fn reject(
        &self,
        id: &str,
        reviewer: &str,
        message: Option<&str>,
    ) -> Result<ApprovalRequest, ApprovalError> {
        let review = Review::reject(reviewer)?;
        let review = match message {
            Some(m) => review.with_message(m)?,
            None => review,
        };
        self.decide(id, review).await
    }

    /// The ticket of `request`: the same request always gets the same
    /// ticket.
    pub fn ticket(&self, request: &ApprovalRequest) -> String {
        self.inner.signer.issue(request)
    }

    /// New, decided and consumed requests as they happen in this process.
    pub fn subscribe(&self) -> broadcast::Receiver<ApprovalEvent> {
        self.inner.events.subscribe()
    }

    /// Whether the ledger answers.
    ///
    /// # Errors
    /// [`ApprovalError::Ledger`].
    pub async fn ping(&self) -> Result<(), ApprovalError> {
        let ledger = self.inner.ledger.clone();
        crate::runtime::on_runtime(async move { ledger.ping().await }).await??;
        Ok(())
    }

    /// Write `event` to the decision log and tell subscribers.
    fn record_event(&self, event: &ApprovalEvent) {
        if let Some(log) = &self.inner.log {
            log.append_event(event);
        }
        // No subscribers is not an error.
        let _ = self.inner.events.send(event.clone());
    }
}

/// The realm of a ledger whose stable name is `location` (a file's path, a
/// database's URL): `ledger:` and 32 hex digits of a sha256 of it, so
/// tickets, which the agent holds, never show where the ledger is, and
/// tickets of two ledgers are still told apart.
pub(crate) fn realm_of(location: &str) -> String {
    use sha2::Digest;
    let mut digest = sha2::Sha256::new();
    digest.update(b"toolvet approvals realm\0");
    digest.update(location.as_bytes());
    format!("ledger:{}", hex::encode(&digest.finalize()[..16]))
}

/// Open the ledger at `location`: the provider's, else the built-in ones.
async fn open_ledger(
    location: &LedgerLocation,
    provider: Option<&dyn LedgerProvider>,
) -> Result<Arc<dyn Ledger>, ApprovalError> {
    if let Some(provider) = provider
        && let Some(ledger) = provider.open(location).await?
    {
        return Ok(ledger);
    }
    match location {
        LedgerLocation::Memory => Ok(Arc::new(MemoryLedger::new())),
        LedgerLocation::Sqlite(path) => {
            let path = path.clone();
            let ledger = tokio::task::spawn_blocking(move || SqliteLedger::open(&path))
                .await
                .map_err(|e| {
                    ApprovalError::Ledger(LedgerError::Unavailable(format!(
                        "opening the SQLite ledger failed: {e}"
                    )))
                })??;
            Ok(Arc::new(ledger))
        }
        LedgerLocation::Postgres(url) => Err(ApprovalError::Unsupported(format!(
            "`ledger = \"{}\"` is a Postgres ledger, which `toolvet serve` provides; \
             this program has no Postgres support",
            crate::config::redact_url(url)
        ))),
    }
}
