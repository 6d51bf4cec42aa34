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
//! - `ticket` (private): tickets are HMAC-SHA256-signed claims binding the request
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

mod bound;
mod decision;
pub(crate) mod key;
pub mod labels;
mod ledger;
mod local;
pub mod pending;
pub mod reviewer;
pub mod rules;
mod service;
mod settle;
mod sqlite;
pub(crate) mod ticket;
mod trust;
pub(crate) mod types;

pub use labels::KeptLabels;
pub use ledger::{Decided, Ledger, MemoryLedger, Opened};

/// The rules every [`Ledger`] follows, for ledgers implemented in other
/// crates (the Postgres ledger of `toolvet serve`): the same rules as
/// [`MemoryLedger`] and [`SqliteLedger`], so every store answers alike.
pub mod ledger_rules {
    pub use super::labels::{NewLabel, expiry, new_labels, stored_label};
    pub use super::ledger::{decide_against, may_be_same_call, open_against, reviewed, same_asker};
    pub use super::pending::{PendingNow, pending_refusal};
}
pub(crate) use bound::bound_attributes;
pub use bound::{AGENT_TOOL_ATTRIBUTE, BOUND_ATTRIBUTES, BoundCall, MCP_SERVER_ATTRIBUTE};
pub use pending::{PendingCounts, PendingLimits, RunCount};
pub use reviewer::{ReviewerKey, ReviewerKeyError, ReviewerSigner, SignedDecision};
pub use service::{Approvals, LedgerProvider};
pub use sqlite::SqliteLedger;
pub use trust::ApprovalTrust;
pub use types::{
    ApprovalError, ApprovalEvent, ApprovalRequest, ApprovalStatus, Escalation, LedgerError,
    ListQuery, MAX_MESSAGE_BYTES, MAX_PAGE, MAX_REVIEWER_BYTES, Review, ReviewDecision,
    ReviewRecord, Scope, StatusFilter, UnixMillis, VerdictApproval,
};
