//! The values of approvals: requests, reviews, statuses, the time they
//! are kept in, list queries and events, and the errors. The rule ids of a
//! resumed call's verdicts are in `rules.rs`, the call a request is bound
//! to in `bound.rs`.
//! Plain data shared by the verdict, the decision log and the ledgers;
//! the service that acts on them is [`super::Approvals`].

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::fmt;

use super::bound::BoundCall;
// The rule ids, where the service and the decisions have always found
// them beside the values.
pub(crate) use super::rules;

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
    /// ([`super::Approvals::decide_shown`]), so a ledger row rewritten between the
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

/// Which requests [`super::Approvals::list`] returns.
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
/// ([`super::Approvals::subscribe`]): the request as it is after the event.
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

/// A ledger that could not do what was asked. Every such failure fails
/// closed: a call that needs the ledger is denied
/// ([`super::rules::LEDGER`]).
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum LedgerError {
    /// The store cannot be reached, is locked past its timeout, or a write
    /// failed (e.g. a full disk).
    #[error("the approval ledger is unavailable: {0}")]
    Unavailable(String),
    /// The store holds something this host cannot read (a corrupt file, a
    /// newer schema).
    #[error("the approval ledger is corrupt or from a newer toolvet: {0}")]
    Corrupt(String),
}

/// Whether `request` lets its tool and arguments run again in its run
/// (approved with scope `run`, used or not).
pub(crate) fn grants_run(request: &ApprovalRequest) -> bool {
    matches!(
        request.status,
        ApprovalStatus::Approved | ApprovalStatus::Consumed
    ) && request
        .review
        .as_ref()
        .is_some_and(|r| r.decision == ReviewDecision::Approve && r.scope == Scope::Run)
}
