//! The rule ids of the host's approval decisions, as they appear in
//! verdicts (`rule`) and decision records: every refusal of a resumed call
//! is a deny with its own `approval.*` rule, never an allow.

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
/// principal or in all: [`crate::approval::pending`]); no request is opened.
pub const TOO_MANY_PENDING: &str = "approval.too-many-pending";
/// The policy lists reviewer keys and the approval carries no valid
/// signature by one of them (an approval written into the ledger by
/// hand, or a signed decision that does not match the request).
pub const UNSIGNED: &str = "approval.unsigned-decision";
