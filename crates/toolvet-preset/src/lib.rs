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
//! - where a call's paths really are ([`RealPathsLocator`]): the links on
//!   the file system the tools run on, looked up before the checks run, in
//!   [`options`] (the front ends beside the tools) and not in
//!   [`server_options`] (`toolvet serve`, whose file system is not the
//!   agent's);
//! - the front ends' policy tables ([`FRONT_END_TABLES`]): every program
//!   reads a policy with [`policy_from_file`] or [`policy_from_toml`],
//!   which refuse any other table, so a file that loads in one front end
//!   loads in all of them.
//!
//! A front end starts from [`options`] and sets its own fields on top
//! (`..toolvet_preset::options()`): an observer, `only_tool`, its own state
//! paths. The core library alone ([`toolvet::LoadOptions::default`])
//! has neither, and refuses a policy that needs them with an error that
//! says so.

mod real_paths;
mod redact;

use std::path::Path;
use std::sync::Arc;
use toolvet::{ConfigError, LoadOptions, Policy, approval::Approvals};

pub use real_paths::RealPathsLocator;
pub use redact::SecretsRedactor;
pub use toolvet_postgres::PostgresProvider;

/// A Postgres ledger provider. One per process: it keeps one pool (and,
/// for `toolvet serve`, one `LISTEN` connection) per ledger URL, so every
/// load and reload of a policy in the process shares them.
pub fn ledger_provider() -> Arc<PostgresProvider> {
    Arc::new(PostgresProvider::new())
}

/// The preset of a host away from the tools, with the ledger provider
/// `provider` (`toolvet serve`, which keeps it to relay the ledger's
/// notices): paths are judged as written, since this machine's file system
/// is not the agent's.
pub fn server_options(provider: Arc<PostgresProvider>) -> LoadOptions {
    LoadOptions {
        ledger_provider: Some(provider),
        redactor: Some(Arc::new(SecretsRedactor::new())),
        front_end_tables: FRONT_END_TABLES,
        ..LoadOptions::default()
    }
}

/// The preset of a front end beside the tools (`toolvet check`, `toolvet
/// mcp`, the hooks, the Python and Node packages): [`server_options`] with
/// a new ledger provider, and each call's paths looked up on this
/// machine's file system ([`RealPathsLocator`]). A program that judges
/// calls made elsewhere (case files, benchmarks, a replayed log) sets
/// `locator: None`.
pub fn options() -> LoadOptions {
    LoadOptions {
        locator: Some(Arc::new(RealPathsLocator)),
        ..server_options(ledger_provider())
    }
}

/// The approvals of `policy` with the preset's ledger provider and
/// redactor, for a front end that decides requests without loading the
/// checks (`toolvet approvals`): so a Postgres ledger opens, and a policy
/// with `decision_log_arguments` is accepted and its approval records
/// redacted, as when a host loads it. `None` when the policy has no
/// `[approvals]` table.
///
/// # Errors
/// As [`toolvet::approval::Approvals::open_with`].
pub async fn open_approvals(policy: &Policy) -> Result<Option<Approvals>, toolvet::Error> {
    let options = server_options(ledger_provider());
    Approvals::open_with(policy, options.ledger_provider.as_deref(), options.redactor).await
}

/// The policy tables of toolvet's front ends, besides the core's
/// (`[host]`, `[approvals]`, `[[check]]`): `[serve]` (`toolvet serve`),
/// `[mcp]` (`toolvet mcp`), `[hooks]` (`toolvet hook`). Each front end
/// validates its own table and ignores the others'.
pub const FRONT_END_TABLES: &[&str] = &["serve", "mcp", "hooks"];

/// Read a policy file as every front end does: [`Policy::from_file`], then
/// any table besides the core's and [`FRONT_END_TABLES`] refused.
///
/// # Errors
/// [`ConfigError`] naming the file and, where it applies, the line, the
/// check, the key or the unknown table.
pub fn policy_from_file(path: &Path) -> Result<Policy, ConfigError> {
    let policy = Policy::from_file(path)?;
    policy.refuse_tables_besides(FRONT_END_TABLES)?;
    Ok(policy)
}

/// Policy text read as [`policy_from_file`] reads a file: `source` names
/// it in errors, relative paths resolve against `base_dir`.
///
/// # Errors
/// As [`policy_from_file`].
pub fn policy_from_toml(text: &str, source: &Path, base_dir: &Path) -> Result<Policy, ConfigError> {
    let policy = Policy::from_toml(text, source, base_dir)?;
    policy.refuse_tables_besides(FRONT_END_TABLES)?;
    Ok(policy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_front_end_table_reads_and_any_other_is_refused_with_its_line() {
        let dir = Path::new("/p");
        let policy = policy_from_toml(
            "[serve]\nlisten = \"127.0.0.1:1\"\n[mcp]\nhide_denied = false\n[hooks.tools]\nShell = \"bash\"\n",
            &dir.join("toolvet.toml"),
            dir,
        )
        .unwrap();
        assert_eq!(
            policy.front_ends().keys().collect::<Vec<_>>(),
            ["hooks", "mcp", "serve"]
        );
        let e = policy_from_toml("[host]\n\n[hoks]\nx = 1\n", &dir.join("toolvet.toml"), dir)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "/p/toolvet.toml:3: unknown table `[hoks]`: this program reads [host], [approvals], \
             [[check]], [serve], [mcp], [hooks]"
        );
    }
}
