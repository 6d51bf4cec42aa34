//! The `[approvals]` table's shapes: where requests are kept
//! ([`LedgerLocation`]), the ticket key ([`KeySource`]) and the table
//! itself ([`ApprovalSettings`]). Parsed and checked in `validation.rs`.

use std::path::PathBuf;

/// Default time an approval request waits for a person, in seconds.
pub const DEFAULT_APPROVAL_TTL_S: u64 = 3600;
/// Longest accepted approval time-to-live, in seconds (30 days).
pub const MAX_APPROVAL_TTL_S: u64 = 30 * 24 * 3600;
/// Default time a run's labels are kept in the ledger after the last
/// result that raised one, in seconds (24 hours).
pub const DEFAULT_LABEL_TTL_S: u64 = 24 * 3600;
/// Longest accepted label time-to-live, in seconds (30 days).
pub const MAX_LABEL_TTL_S: u64 = 30 * 24 * 3600;

/// Where approval requests are kept (`[approvals] ledger`).
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LedgerLocation {
    /// `"memory"`: in this process only, gone when it exits (tests, one
    /// long-running process).
    Memory,
    /// An SQLite file (any other value, relative to the policy file):
    /// created when missing, survives restarts, shared by the processes
    /// of one machine.
    Sqlite(PathBuf),
    /// `postgres://…` or `postgresql://…`: a Postgres database shared by
    /// several servers (`toolvet serve` provides it; the core library
    /// itself does not).
    Postgres(String),
}

impl std::fmt::Debug for LedgerLocation {
    /// A Postgres URL is shown without its user info (it may hold a
    /// password).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LedgerLocation::Memory => f.write_str("Memory"),
            LedgerLocation::Sqlite(p) => f.debug_tuple("Sqlite").field(p).finish(),
            LedgerLocation::Postgres(url) => {
                f.debug_tuple("Postgres").field(&redact_url(url)).finish()
            }
        }
    }
}

/// `url` without the user info before `@` in its authority.
pub(crate) fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return "<unparsable URL>".into();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://…@{}", &rest[at + 1..]),
        None => url.to_string(),
    }
}

/// Where the approval signing key comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeySource {
    /// A file holding at least 32 random bytes, relative to the policy
    /// file; created with mode 0600 when missing. A file that others can
    /// read is refused.
    File(PathBuf),
    /// An environment variable holding the key as hex or base64 (at least
    /// 32 bytes once decoded).
    Env(String),
}

/// The `[approvals]` table: escalated calls become approval requests a
/// person approves or rejects, and a resumed call carries the ticket.
///
/// ```toml
/// [approvals]
/// ledger = "state/approvals.db"     # SQLite file; or "memory"; or postgres://… (toolvet-preset)
/// key_file = "state/approvals.key"  # or key_env = "TOOLVET_APPROVAL_KEY"
/// ttl_s = 3600                      # how long a request waits for a person
/// label_ttl_s = 86400               # how long a run's labels are kept (toolvet serve)
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalSettings {
    /// Where requests are kept.
    pub ledger: LedgerLocation,
    /// The HMAC-SHA256 key that signs tickets. Never logged or echoed.
    pub key: KeySource,
    /// How long a request waits for a person and its ticket stays valid,
    /// in seconds (1..=30 days). Default 3600.
    pub ttl_s: u64,
    /// The name tickets are issued under; a ticket naming another realm is
    /// refused. Default: the ledger's location (its file, or its Postgres
    /// host and database), so two policies with separate ledgers never
    /// accept each other's tickets even if they share a key.
    pub realm: Option<String>,
    /// `reviewer_keys`: when any are listed, an approval counts only with
    /// a decision signed by one of them
    /// ([`crate::approval::reviewer`]).
    pub reviewer_keys: Vec<crate::approval::ReviewerKey>,
    /// `max_pending_per_run`: most requests of one run waiting for a
    /// person; past it an escalate is a deny (`approval.too-many-pending`,
    /// [`crate::approval::pending`]). Default 100.
    pub max_pending_per_run: usize,
    /// `max_pending_per_principal`: the same, per principal. Default 100.
    pub max_pending_per_principal: usize,
    /// `max_pending`: the same, in all. Default 1000.
    pub max_pending: usize,
    /// `label_ttl_s`: how long the ledger keeps a run's labels (raised by
    /// result checks, [`crate::tool_result::RunLabel`]) after the last
    /// result of the run that raised one, in seconds (1..=30 days); then
    /// the run's later calls are vetted without them. Default 86400 (24
    /// hours). Used by the front ends that keep labels in the ledger
    /// (`toolvet serve`, so replicas share them).
    pub label_ttl_s: u64,
}
