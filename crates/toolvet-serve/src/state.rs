//! What every handler shares: the host, the tokens and settings of the
//! policy in force, the metrics, the reload status and the event stream.

use crate::auth::{Role, Tokens};
use crate::error::ApiError;
use crate::events::StreamEvent;
use crate::metrics::Metrics;
use crate::reload::ReloadError;
use crate::settings::ServeSettings;
use arc_swap::ArcSwap;
use axum::http::{HeaderMap, header};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::sync::{broadcast, watch};
use toolvet::{Host, Policy, approval::ReviewerSigner, config::LedgerLocation};
use toolvet_postgres::PostgresProvider;

/// What the server takes from the policy in force; swapped on reload.
#[derive(Debug)]
pub(crate) struct Current {
    /// The `[serve]` table.
    pub settings: ServeSettings,
    /// The accepted tokens.
    pub tokens: Tokens,
    /// The Postgres ledger URL, when the ledger is Postgres.
    pub postgres_url: Option<String>,
    /// Files whose change triggers a reload: the policy, its plugins and
    /// token files.
    pub watched: Vec<PathBuf>,
    /// The reviewer key the server signs its reviewers' approvals with
    /// (`[serve] reviewer_passphrase_file`), unlocked at load.
    pub signer: Option<Arc<ReviewerSigner>>,
}

impl Current {
    /// The server's view of `policy`.
    ///
    /// # Errors
    /// A bad `[serve]` table, an unreadable token file, a token in two
    /// roles, no agent token, approvals without a reviewer token, or a
    /// `reviewer_passphrase_file` that is not private or unlocks none of
    /// the policy's `reviewer_keys`.
    pub(crate) fn of(policy: &Policy) -> Result<Current, ReloadError> {
        let settings = ServeSettings::from_policy(policy)?;
        let tokens = Tokens::load(&settings, |v| std::env::var(v).ok())?;
        if !tokens.has(Role::Agent) {
            return Err(ReloadError::NoAgentToken {
                policy: policy.source().to_path_buf(),
            });
        }
        if policy.approvals().is_some() && !tokens.has(Role::Reviewer) {
            return Err(ReloadError::NoReviewerToken {
                policy: policy.source().to_path_buf(),
            });
        }
        let postgres_url = match policy.approvals().map(|a| &a.ledger) {
            Some(LedgerLocation::Postgres(url)) => Some(url.clone()),
            _ => None,
        };
        let mut watched = vec![policy.source().to_path_buf()];
        watched.extend(policy.checks().iter().map(|c| c.plugin.clone()));
        watched.extend(settings.agent_token_file.clone());
        watched.extend(
            settings
                .bound_agent_tokens
                .iter()
                .filter_map(|entry| match &entry.token {
                    crate::settings::TokenSource::File(path) => Some(path.clone()),
                    crate::settings::TokenSource::Sha256(_) => None,
                }),
        );
        watched.extend(settings.reviewer_token_file.clone());
        watched.extend(settings.reviewer_passphrase_file.clone());
        let signer = match &settings.reviewer_passphrase_file {
            None => None,
            Some(path) => Some(Arc::new(unlock(policy, path)?)),
        };
        watched.extend(settings.gateway_token_file.clone());
        watched.extend(settings.metrics_token_file.clone());
        Ok(Current {
            settings,
            tokens,
            postgres_url,
            watched,
            signer,
        })
    }
}

/// The reviewer key whose passphrase is in the private file `path`.
fn unlock(policy: &Policy, path: &Path) -> Result<ReviewerSigner, ReloadError> {
    let text = toolvet::private_file::read_private(path).map_err(|source| {
        ReloadError::PassphraseUnreadable {
            policy: policy.source().to_path_buf(),
            file: path.to_path_buf(),
            source,
        }
    })?;
    let passphrase = text.strip_suffix('\n').unwrap_or(&text);
    let passphrase = passphrase.strip_suffix('\r').unwrap_or(passphrase);
    let keys = policy
        .approvals()
        .map(|a| a.reviewer_keys.as_slice())
        .unwrap_or_default();
    ReviewerSigner::unlock(passphrase.as_bytes(), keys).map_err(|source| {
        ReloadError::PassphraseUnlocksNone {
            policy: policy.source().to_path_buf(),
            file: path.to_path_buf(),
            source,
        }
    })
}

/// What [`AppState::authorize_as`] found: the token's roles, who it
/// speaks as when it is an agent token, and the tokens in force.
pub(crate) type Authorized = (Vec<Role>, Option<crate::auth::Speaker>, Arc<Current>);

/// How the last reload went.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct ReloadStatus {
    /// Successful reloads since start.
    pub succeeded: u64,
    /// Failed reloads since start.
    pub failed: u64,
    /// The error of the last reload, when it failed (the old policy keeps
    /// serving).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// When the last reload was tried (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_attempt: Option<String>,
}

/// The server's shared state.
#[derive(Debug)]
pub(crate) struct AppState {
    /// The host (its clones share the policy in force).
    pub host: Host,
    /// The policy file.
    pub policy_path: PathBuf,
    /// What the server takes from the policy in force.
    pub current: ArcSwap<Current>,
    /// Metrics.
    pub metrics: Arc<Metrics>,
    /// The last reload.
    pub reload: Mutex<ReloadStatus>,
    /// Approval events for `/v1/approvals/events`.
    pub events: broadcast::Sender<StreamEvent>,
    /// Opens Postgres ledgers.
    pub provider: Arc<PostgresProvider>,
    /// The generation in force; changes on every successful reload.
    pub generation: watch::Sender<u64>,
    /// True once shutdown began: event streams end so connections drain.
    pub shutdown: watch::Sender<bool>,
    /// Each run's calls so far (`[serve] run_history = "server"`), at most
    /// `[serve] max_runs` of them as the server started ([`crate::runs`]).
    pub runs: toolvet::run_history::Runs,
    /// The last results a check withheld, for the reviewer page.
    pub withheld: crate::withheld::Withheld,
}

impl AppState {
    /// Let a request in when its bearer token has one of `needs`.
    ///
    /// # Errors
    /// 401 or 403 ([`ApiError`]).
    pub(crate) fn authorize(
        &self,
        headers: &HeaderMap,
        needs: &'static [Role],
    ) -> Result<(), ApiError> {
        let current = self.current.load();
        current
            .tokens
            .authorize(
                headers.get(header::AUTHORIZATION).map(|v| v.as_bytes()),
                needs,
            )
            .map(drop)
            .map_err(ApiError::from)
    }

    /// Let a request in when its bearer token is an agent token; who it
    /// speaks as, and the tokens in force (to settle its principal with
    /// [`crate::auth::Speaker::principal_for`]).
    ///
    /// # Errors
    /// 401 or 403 ([`ApiError`]).
    pub(crate) fn authorize_agent(
        &self,
        headers: &HeaderMap,
    ) -> Result<(crate::auth::Speaker, Arc<Current>), ApiError> {
        let current = self.current.load_full();
        let authorization = headers.get(header::AUTHORIZATION).map(|v| v.as_bytes());
        current
            .tokens
            .authorize(authorization, &[Role::Agent])
            .map_err(ApiError::from)?;
        let speaker = bearer(authorization)
            .and_then(|t| current.tokens.speaker_of(t))
            .ok_or_else(|| {
                ApiError::from(crate::auth::Refused::Unauthenticated {
                    needs: &[Role::Agent],
                })
            })?;
        Ok((speaker, current))
    }

    /// The roles of the request's token, and who it speaks as when it is
    /// an agent token.
    ///
    /// # Errors
    /// 401 or 403 ([`ApiError`]).
    pub(crate) fn authorize_as(
        &self,
        headers: &HeaderMap,
        needs: &'static [Role],
    ) -> Result<Authorized, ApiError> {
        let current = self.current.load_full();
        let authorization = headers.get(header::AUTHORIZATION).map(|v| v.as_bytes());
        let roles = current
            .tokens
            .authorize(authorization, needs)
            .map_err(ApiError::from)?;
        let speaker = bearer(authorization).and_then(|t| current.tokens.speaker_of(t));
        Ok((roles, speaker, current))
    }

    /// The approvals of the policy in force.
    ///
    /// # Errors
    /// 409 when the policy has no `[approvals]`.
    pub(crate) fn approvals(&self) -> Result<toolvet::approval::Approvals, ApiError> {
        self.host.approvals().ok_or_else(ApiError::approvals_off)
    }
}

/// The token of an `Authorization: Bearer …` value, as
/// [`crate::auth::Tokens::authorize`] reads it.
fn bearer(authorization: Option<&[u8]>) -> Option<&str> {
    let v = std::str::from_utf8(authorization?).ok()?;
    let (scheme, token) = v.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}
