//! Hot reload: on SIGHUP and when the policy, a plugin or a token file
//! changes, the policy is read and loaded completely, then swapped in. A
//! policy that fails (to parse, in its `[serve]` table, or to load) leaves
//! the old one serving; the failure is logged, counted
//! (`toolvet_reloads_total{result="failure"}`) and shown by `/readyz`.
//!
//! Settings that belong to the listening socket (`listen`,
//! `unix_socket_mode`, timeouts, the concurrency cap, the webhook) take
//! effect at the next start; tokens and everything the host does take
//! effect at once.

use crate::auth::{AGENT_TOKEN_ENV, REVIEWER_TOKEN_ENV, TokenError};
use crate::settings::SettingsError;
use crate::state::{AppState, Current};
use notify::Watcher as _;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Why a policy was refused, at a reload ([`crate::ServerHandle::reload`],
/// SIGHUP, a changed file: the old policy keeps serving) or when the
/// server starts. Its text (`Display`) is what the log, `/readyz`
/// (`reload.last_error`) and the command line show: each variant names
/// the policy file, or the file, line or variable at fault.
#[derive(Debug, thiserror::Error)]
pub enum ReloadError {
    /// The policy file cannot be read, does not parse, or has a table no
    /// front end reads (the core's message, naming the file and line).
    #[error(transparent)]
    Policy(#[from] toolvet::ConfigError),
    /// The `[serve]` table is refused.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// The tokens are refused: a token file, a short token, a token in
    /// two roles.
    #[error(transparent)]
    Tokens(#[from] TokenError),
    /// No agent token is set anywhere.
    #[error(
        "{}: no agent token: set [serve] agent_tokens_sha256 or agent_token_file, or ${}",
        .policy.display(),
        AGENT_TOKEN_ENV
    )]
    NoAgentToken {
        /// The policy file.
        policy: PathBuf,
    },
    /// The policy has `[approvals]` and no reviewer token is set.
    #[error(
        "{}: the policy has [approvals] but no reviewer token: set [serve] reviewer_tokens_sha256 \
         or reviewer_token_file, or ${}",
        .policy.display(),
        REVIEWER_TOKEN_ENV
    )]
    NoReviewerToken {
        /// The policy file.
        policy: PathBuf,
    },
    /// `[serve] reviewer_passphrase_file` cannot be read, or is not
    /// private.
    #[error(
        "{}: [serve] reviewer_passphrase_file {}: {source}",
        .policy.display(),
        .file.display()
    )]
    PassphraseUnreadable {
        /// The policy file.
        policy: PathBuf,
        /// The passphrase file.
        file: PathBuf,
        /// Why it cannot be used.
        source: toolvet::private_file::PrivateFileError,
    },
    /// The passphrase unlocks none of `[approvals] reviewer_keys`.
    #[error(
        "{}: [serve] reviewer_passphrase_file {}: {source}",
        .policy.display(),
        .file.display()
    )]
    PassphraseUnlocksNone {
        /// The policy file.
        policy: PathBuf,
        /// The passphrase file.
        file: PathBuf,
        /// The core's refusal.
        source: toolvet::approval::ApprovalError,
    },
    /// The host failed to load the policy's checks.
    #[error(transparent)]
    Load(#[from] toolvet::Error),
}

/// How long file events are gathered before one reload.
const SETTLE: Duration = Duration::from_millis(300);

/// Load the policy file again and swap it in. Returns the new generation.
///
/// # Errors
/// Why the new policy was refused (the old one keeps serving).
pub(crate) async fn reload(state: &AppState, why: &str) -> Result<u64, ReloadError> {
    let result = try_reload(state).await;
    let mut status = state.reload.lock().unwrap_or_else(|p| p.into_inner());
    status.last_attempt = Some(toolvet::approval::UnixMillis::now().to_string());
    match &result {
        Ok(generation) => {
            status.succeeded += 1;
            status.last_error = None;
            state.metrics.record_reload(true);
            state.metrics.generation.set(*generation as i64);
            tracing::info!(target: "toolvet::serve", generation, why, "policy reloaded");
        }
        Err(e) => {
            status.failed += 1;
            status.last_error = Some(e.to_string());
            state.metrics.record_reload(false);
            tracing::error!(target: "toolvet::serve", why, "policy reload failed, the old policy keeps serving: {e}");
        }
    }
    result
}

async fn try_reload(state: &AppState) -> Result<u64, ReloadError> {
    let policy = toolvet_preset::policy_from_file(&state.policy_path)?;
    let current = Current::of(&policy)?;
    let generation = state.host.reload(policy).await?;
    state.current.store(Arc::new(current));
    state.generation.send_replace(generation);
    Ok(generation)
}

/// Reload on every SIGHUP, until shutdown.
pub(crate) async fn on_sighup(state: Arc<AppState>) {
    let Ok(mut hangups) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
    else {
        tracing::error!(target: "toolvet::serve", "cannot listen for SIGHUP; reload by file change only");
        return;
    };
    let mut shutdown = state.shutdown.subscribe();
    loop {
        tokio::select! {
            _ = hangups.recv() => { let _ = reload(&state, "SIGHUP").await; }
            _ = shutdown.changed() => return,
        }
    }
}

/// Reload when a watched file changes, until shutdown. The directories of
/// the watched files are watched (editors replace files by renaming), and
/// the set is renewed after each reload.
pub(crate) async fn on_file_change(state: Arc<AppState>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<PathBuf>();
    let mut watcher = match notify::recommended_watcher(
        move |event: notify::Result<notify::Event>| {
            if let Ok(event) = event
                && !matches!(event.kind, notify::EventKind::Access(_))
            {
                for path in event.paths {
                    let _ = tx.send(path);
                }
            }
        },
    ) {
        Ok(w) => w,
        Err(e) => {
            tracing::error!(target: "toolvet::serve", "cannot watch the policy files ({e}); reload with SIGHUP");
            return;
        }
    };
    let mut shutdown = state.shutdown.subscribe();
    let mut watching: HashSet<PathBuf> = HashSet::new();
    loop {
        let files: HashSet<PathBuf> = state
            .current
            .load()
            .watched
            .iter()
            .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
            .collect();
        let dirs: HashSet<PathBuf> = files
            .iter()
            .filter_map(|f| f.parent().map(PathBuf::from))
            .collect();
        for dir in dirs.difference(&watching.clone()) {
            if let Err(e) = watcher.watch(dir, notify::RecursiveMode::NonRecursive) {
                tracing::warn!(target: "toolvet::serve", dir = %dir.display(), "cannot watch: {e}");
            }
            watching.insert(dir.clone());
        }
        // Wait for a change to one of the files, then let it settle.
        loop {
            tokio::select! {
                path = rx.recv() => match path {
                    None => return,
                    Some(path) => {
                        let path = path.canonicalize().unwrap_or(path);
                        if files.contains(&path) || files.iter().any(|f| !f.exists() && f.file_name() == path.file_name()) {
                            break;
                        }
                    }
                },
                _ = shutdown.changed() => return,
            }
        }
        tokio::time::sleep(SETTLE).await;
        while rx.try_recv().is_ok() {}
        let _ = reload(&state, "file changed").await;
    }
}
