//! `toolvet serve`: toolvet as an HTTP sidecar.
//!
//! A [`Server`] loads a policy into a [`toolvet::Host`] and serves it:
//! agents vet calls (`POST /v1/check`, or AuthZEN's
//! `POST /access/v1/evaluation`), people answer approval requests (the
//! approvals API and the reviewer page at `/ui`), and operators probe and
//! scrape it (`/healthz`, `/readyz`, `/metrics`). The policy reloads on
//! SIGHUP and on file changes; several replicas share approvals through a
//! Postgres ledger ([`PostgresProvider`]). `docs/serve.md` is the guide.
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! let server = toolvet_serve::Server::bind(toolvet_serve::ServeOptions {
//!     config: "toolvet.toml".into(),
//!     listen: None, // `[serve] listen`, else 127.0.0.1:8700
//! })
//! .await?;
//! server.run_until_signalled().await
//! # }
//! ```
//!
//! Data flows one way: settings and tokens ([`settings`], [`auth`]) →
//! state → routes → the host; events and the webhook hang off the host's
//! approvals.

pub mod auth;
mod error;
mod events;
mod listener;
pub mod metrics;
mod redact;
mod reload;
mod routes;
mod runs;
pub mod settings;
pub mod shown;
mod state;
mod webhook;
pub mod withheld;

pub use error::ApiError;
pub use listener::Listen;
pub use reload::ReloadError;
pub use settings::ServeSettings;
pub use toolvet_postgres::{PostgresLedger, PostgresProvider};

use anyhow::Context as _;
use arc_swap::ArcSwap;
use state::{AppState, Current};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use toolvet::{Host, LoadOptions};

/// What [`Server::bind`] takes.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The policy file.
    pub config: PathBuf,
    /// Where to listen; `None`: the policy's `[serve] listen`.
    pub listen: Option<Listen>,
}

/// A bound server, ready to run.
#[derive(Debug)]
pub struct Server {
    state: Arc<AppState>,
    bound: listener::Bound,
}

/// Stops a running [`Server`] (the same as SIGTERM) and reloads it (the
/// same as SIGHUP).
#[derive(Debug, Clone)]
pub struct ServerHandle {
    state: Arc<AppState>,
}

impl ServerHandle {
    /// Begin a graceful shutdown.
    pub fn shutdown(&self) {
        self.state.shutdown.send_replace(true);
    }

    /// Reload the policy file now.
    ///
    /// # Errors
    /// A [`ReloadError`]: why the new policy was refused (the old one
    /// keeps serving).
    pub async fn reload(&self) -> Result<u64, ReloadError> {
        reload::reload(&self.state, "requested").await
    }

    /// The host the server vets with.
    pub fn host(&self) -> &Host {
        &self.state.host
    }

    /// Keep `verdict`, which withheld the result of `request` (`via`:
    /// through what, e.g. `ext-mcp`), for the reviewer page
    /// ([`withheld`]).
    pub fn record_withheld(
        &self,
        via: &'static str,
        request: &toolvet::CallRequest,
        verdict: &toolvet::tool_result::ResultVerdict,
    ) {
        let entry = withheld::WithheldResult::new(via, request, verdict);
        self.state.withheld.record(entry);
    }

    /// Whether `authorization` (an `Authorization` header's value) carries
    /// one of the server's gateway tokens, as they are now (they reload
    /// with the policy): the ExtMcp gRPC service's callers.
    pub fn admits_gateway(&self, authorization: Option<&[u8]>) -> bool {
        self.state
            .current
            .load()
            .tokens
            .authorize(authorization, &[auth::Role::Gateway])
            .is_ok()
    }

    /// Whether any gateway token is configured.
    pub fn has_gateway_tokens(&self) -> bool {
        self.state.current.load().tokens.has(auth::Role::Gateway)
    }

    /// Completes once a graceful shutdown has begun (SIGTERM, SIGINT,
    /// [`ServerHandle::shutdown`]).
    pub async fn stopping(&self) {
        let mut down = self.state.shutdown.subscribe();
        let _ = down.wait_for(|d| *d).await;
    }
}

impl Server {
    /// Load the policy (with Postgres ledgers available), check the
    /// `[serve]` table and tokens, and bind the listener.
    ///
    /// # Errors
    /// A policy, table, token or ledger problem, or an address that
    /// cannot be bound; the message says which.
    pub async fn bind(options: ServeOptions) -> anyhow::Result<Server> {
        Self::bind_observed(options, None).await
    }

    /// As [`Server::bind`], with `observer` told of the checks compiled
    /// while the policy loads (and at every reload): see
    /// [`toolvet::progress`].
    ///
    /// # Errors
    /// As [`Server::bind`].
    pub async fn bind_observed(
        options: ServeOptions,
        observer: Option<Arc<dyn toolvet::progress::LoadObserver>>,
    ) -> anyhow::Result<Server> {
        let policy = toolvet_preset::policy_from_file(&options.config)?;
        let current = Current::of(&policy).map_err(anyhow::Error::msg)?;
        let provider = toolvet_preset::ledger_provider();
        let host = Host::load_with(
            policy,
            LoadOptions {
                observer,
                ..toolvet_preset::server_options(provider.clone())
            },
        )
        .await?;
        let listen = match options.listen {
            Some(l) => l,
            None => Listen::Tcp(current.settings.listen.parse().context("[serve] listen")?),
        };
        let bound = listener::Bound::bind(
            &listen,
            current.settings.unix_socket_mode,
            current.settings.listen_backlog,
        )
        .with_context(|| format!("cannot listen on {listen:?}"))?;
        let metrics = Arc::new(metrics::Metrics::new());
        metrics.generation.set(host.generation() as i64);
        let max_runs = current.settings.max_runs;
        let state = Arc::new(AppState {
            policy_path: options.config,
            current: ArcSwap::from_pointee(current),
            metrics,
            reload: Mutex::new(state::ReloadStatus::default()),
            events: tokio::sync::broadcast::channel(1024).0,
            provider,
            generation: tokio::sync::watch::channel(host.generation()).0,
            shutdown: tokio::sync::watch::channel(false).0,
            runs: toolvet::run_history::Runs::new(max_runs),
            withheld: withheld::Withheld::default(),
            host,
        });
        Ok(Server { state, bound })
    }

    /// The TCP address it listens on (`None` on a Unix socket).
    pub fn local_addr(&self) -> Option<std::net::SocketAddr> {
        self.bound.tcp_addr()
    }

    /// A handle to stop or reload the server once it runs.
    pub fn handle(&self) -> ServerHandle {
        ServerHandle {
            state: self.state.clone(),
        }
    }

    /// Serve until [`ServerHandle::shutdown`], then drain the requests in
    /// flight and flush the decision log.
    pub async fn run(self) -> anyhow::Result<()> {
        let state = self.state;
        let current = state.current.load_full();
        let settings = &current.settings;
        let webhook = match &settings.webhook_url {
            Some(url) => Some(
                webhook::Webhook::start(
                    url.clone(),
                    settings.webhook_retries,
                    settings.webhook_timeout,
                    state.metrics.clone(),
                )
                .map_err(anyhow::Error::msg)?,
            ),
            None => None,
        };
        tokio::spawn(events::forward(state.clone(), webhook));
        tokio::spawn(reload::on_sighup(state.clone()));
        if settings.watch {
            tokio::spawn(reload::on_file_change(state.clone()));
        }
        tracing::info!(target: "toolvet::serve", listen = %self.bound.describe(),
            policy = %state.policy_path.display(), generation = state.host.generation(), "serving");
        let mut down = state.shutdown.subscribe();
        let limits = listener::ConnectionLimits {
            idle: settings.idle_timeout,
            grace: settings.shutdown_grace,
        };
        listener::serve(
            self.bound,
            routes::router(state.clone()),
            limits,
            async move {
                let _ = down.wait_for(|d| *d).await;
            },
        )
        .await;
        if let Err(e) = state
            .host
            .flush_decision_log(std::time::Duration::from_secs(10))
            .await
        {
            tracing::error!(target: "toolvet::serve", "decision log at shutdown: {e}");
        }
        Ok(())
    }

    /// [`Server::run`], shutting down gracefully on SIGTERM or SIGINT.
    pub async fn run_until_signalled(self) -> anyhow::Result<()> {
        use tokio::signal::unix::{SignalKind, signal};
        let handle = self.handle();
        let mut term = signal(SignalKind::terminate()).context("listening for SIGTERM")?;
        let mut int = signal(SignalKind::interrupt()).context("listening for SIGINT")?;
        tokio::spawn(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            handle.shutdown();
        });
        self.run().await
    }
}
