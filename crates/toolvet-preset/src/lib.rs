//! What every toolvet front end loads a policy with, so the same policy
//! file means the same thing in `toolvet check`, `toolvet serve`, the
//! hooks, the MCP proxy and the Python and Node packages:
//!
//! - approval ledgers the core does not implement: `[approvals] ledger =
//!   "postgres://…"` through [`toolvet_postgres::PostgresProvider`];
//! - the decision log's redactor ([`SecretsRedactor`]: the credential
//!   detectors of `secrets-detect`, the library secrets-guard finds
//!   secrets with), which `[host] decision_log_arguments = true` requires.
//!
//! A front end starts from [`options`] and sets its own fields on top
//! (`..toolvet_preset::options()`): an observer, `only_tool`, its own state
//! paths. The core library alone ([`toolvet::LoadOptions::default`])
//! has neither, and refuses a policy that needs them with an error that
//! says so.

mod redact;

use std::sync::Arc;
use toolvet::LoadOptions;

pub use redact::SecretsRedactor;
pub use toolvet_postgres::PostgresProvider;

/// A Postgres ledger provider. One per process: it keeps one pool (and,
/// for `toolvet serve`, one `LISTEN` connection) per ledger URL, so every
/// load and reload of a policy in the process shares them.
pub fn ledger_provider() -> Arc<PostgresProvider> {
    Arc::new(PostgresProvider::new())
}

/// The preset with the ledger provider `provider` (for a front end that
/// keeps it, as `toolvet serve` does to relay the ledger's notices).
pub fn load_options(provider: Arc<PostgresProvider>) -> LoadOptions {
    LoadOptions {
        ledger_provider: Some(provider),
        redactor: Some(Arc::new(SecretsRedactor::new())),
        ..LoadOptions::default()
    }
}

/// The preset with a new ledger provider ([`ledger_provider`]).
pub fn options() -> LoadOptions {
    load_options(ledger_provider())
}
