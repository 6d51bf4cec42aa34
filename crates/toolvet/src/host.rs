//! The host: a loaded policy that vets calls, and replaces itself with a
//! new policy atomically.

use crate::approval::Approvals;
use crate::audit::DecisionLogStats;
use crate::cache::{ArtifactCache, CacheOutcome};
use crate::call::CallRequest;
use crate::config::{HostSettings, Policy};
use crate::error::Error;
use crate::generation::{Generation, host_failure};
use crate::load_options::LoadOptions;
use crate::verdict::Verdict;
use arc_swap::ArcSwap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Loaded checks ready to vet calls: `Send + Sync + Clone + 'static`, cheap
/// to clone (clones share everything), safe to use from many tasks and
/// threads at once. [`Host::reload`] swaps in a new policy for every clone.
#[derive(Clone)]
pub struct Host {
    shared: Arc<Shared>,
}

struct Shared {
    current: ArcSwap<Generation>,
    /// One reload at a time.
    reloading: tokio::sync::Mutex<()>,
    options: LoadOptions,
}

impl fmt::Debug for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let current = self.shared.current.load();
        f.debug_struct("Host")
            .field("policy", &current.source)
            .field("policy_sha256", &current.policy_sha256)
            .field("generation", &current.number)
            .field(
                "checks",
                &current.checks.iter().map(|c| &*c.name).collect::<Vec<_>>(),
            )
            .field("approvals", &current.approvals)
            .finish()
    }
}

/// What the host knows about one configured check, for `toolvet` commands
/// and embedders.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CheckSummary {
    /// The check's name.
    pub name: String,
    /// Plugin file.
    pub plugin: PathBuf,
    /// The tool globs in force (config, else the plugin's own).
    pub tools: Vec<String>,
    /// What `describe` said, if the check loaded: name, version.
    pub plugin_name: Option<String>,
    /// Plugin version.
    pub plugin_version: Option<String>,
    /// Hex sha256 of the plugin file, if loaded.
    pub sha256: Option<String>,
    /// Whether the compiled artifact came from the cache.
    pub cached: Option<bool>,
    /// Whether the compiled artifact is in the cache now (false: the cache
    /// is unusable, see the logs).
    pub cache_stored: Option<bool>,
    /// This check's own read + compile (or cache load) time, in µs.
    /// Components compile one at a time, so this is not the time of the
    /// whole batch. For a check started from a snapshot, the snapshot's.
    pub compile_us: Option<u64>,
    /// Whether `describe` and `configure` were skipped at load because the
    /// artifact cache records that this component accepted these settings
    /// (and this memory cap) before; `describe`'s answer comes from that
    /// record and the first call configures an instance.
    pub deferred: Option<bool>,
    /// Whether fresh instances start from a snapshot taken after
    /// `configure` (`[host] preinitialize`).
    pub snapshot: Option<bool>,
    /// The load error, for a broken check (`continue_on_errors`).
    pub load_error: Option<String>,
    /// The contract version line the component speaks (`0.1.0`, `0.2.0`),
    /// if loaded.
    pub contract: Option<&'static str>,
    /// Whether it vets tool results ([`Host::check_result`]), if loaded.
    pub vets_results: Option<bool>,
}

impl Host {
    /// Load every check of the policy file at `path`.
    ///
    /// # Errors
    /// As [`Host::load`], plus [`Error::Config`] for the file itself.
    pub async fn from_file(path: &Path) -> Result<Host, Error> {
        Host::load(Policy::from_file(path)?).await
    }

    /// Load every check of `policy`: each component comes from the
    /// artifact cache, or compiles on the blocking pool (one component at a
    /// time, each on all cores; [`LoadOptions::observer`] hears of it),
    /// then each check is described and configured (concurrently). A check whose component
    /// accepted the same settings and memory cap at an earlier load
    /// (recorded in the artifact cache) is not instantiated now: its
    /// recorded `describe` answer is used and its first call configures an
    /// instance (within that call's `timeout_ms`), so a one-shot process
    /// pays only for the checks the call selects. Should that configure
    /// fail after all, the call gets the check's `on_error` decision;
    /// checks with `on_error = "allow"` are therefore always configured at
    /// load. The decision log and the approvals ledger (when configured)
    /// are opened too.
    ///
    /// Works on any executor or none: without a Tokio runtime, the work
    /// runs on toolvet's own.
    ///
    /// # Errors
    /// [`Error::Config`] for a policy that fails [`Policy::validate`];
    /// [`Error::Load`] listing every check that failed to load, unless
    /// `continue_on_errors` is set (broken checks then answer their
    /// `on_error` decision on every call); [`Error::Engine`] if wasmtime
    /// cannot start; [`Error::DecisionLog`] and [`Error::Approvals`] for a
    /// decision log or ledger that cannot be opened.
    pub async fn load(policy: Policy) -> Result<Host, Error> {
        Host::load_with(policy, LoadOptions::default()).await
    }

    /// As [`Host::load`], with `options`.
    ///
    /// # Errors
    /// As [`Host::load`].
    pub async fn load_with(policy: Policy, options: LoadOptions) -> Result<Host, Error> {
        let loading = options.clone();
        let generation =
            crate::runtime::on_runtime(
                async move { Generation::load(policy, 1, &loading, None).await },
            )
            .await
            .map_err(|e| Error::Engine(format!("the loading task failed: {e}")))??;
        Ok(Host {
            shared: Arc::new(Shared {
                current: ArcSwap::from_pointee(generation),
                reloading: tokio::sync::Mutex::new(()),
                options,
            }),
        })
    }

    /// Replace the policy of this host and all its clones. The new policy
    /// is loaded completely (every check compiled, described and
    /// configured; components whose digest did not change are reused) and
    /// only then swapped in; calls in flight finish on the old policy. If
    /// the new policy fails to load, the old one keeps serving and the
    /// error is returned. Returns the new generation number.
    ///
    /// # Errors
    /// As [`Host::load`].
    pub async fn reload(&self, policy: Policy) -> Result<u64, Error> {
        let shared = self.shared.clone();
        crate::runtime::on_runtime(async move {
            let _one_at_a_time = shared.reloading.lock().await;
            let previous = shared.current.load_full();
            let number = previous.number + 1;
            let next = Generation::load(policy, number, &shared.options, Some(&previous)).await?;
            shared.current.store(Arc::new(next));
            tracing::info!(generation = number, "policy reloaded");
            Ok(number)
        })
        .await
        .map_err(|e| Error::Engine(format!("the reload task failed: {e}")))?
    }

    /// Vet one call: run every check whose tool globs match the tool name,
    /// combine, and settle approvals (an escalate opens an approval
    /// request; a call carrying a ticket is a resume). Never fails: a check
    /// that fails answers its `on_error` decision, recorded with the error
    /// kind, and a failure of the host itself is a deny (rule
    /// `toolvet.host-error`). Calls whose arguments exceed
    /// `max_arguments_bytes`, or whose whole text exceeds `max_call_bytes`,
    /// are denied (rule `toolvet.oversized-call`) before any check runs.
    ///
    /// Plugin code runs on the calling task's runtime and yields to it at
    /// every epoch tick (1 ms), so a slow check does not hold a worker.
    /// Outside a Tokio runtime (another executor), the call runs on
    /// toolvet's own runtime; it never panics for want of one.
    pub async fn check(&self, request: &CallRequest) -> Verdict {
        if crate::runtime::in_tokio() {
            return self.shared.current.load_full().evaluate(request).await;
        }
        let (host, request) = (self.clone(), request.clone());
        crate::runtime::on_runtime(async move { host.current().evaluate(&request).await })
            .await
            .unwrap_or_else(|e| host_failure(&e.to_string()))
    }

    /// What the checks would decide about `request` now, for deciding
    /// what to *show* (e.g. which tools an MCP `tools/list` lists), never
    /// for letting a call run: the checks run and combine as in
    /// [`Host::check`], but no approval request is opened, a ticket the
    /// call carries is ignored, and nothing is written to the decision
    /// log. An oversized call and a host failure are deny, as in `check`.
    pub async fn preview(&self, request: &CallRequest) -> Verdict {
        if crate::runtime::in_tokio() {
            return self.current().preview(request).await;
        }
        let (host, request) = (self.clone(), request.clone());
        crate::runtime::on_runtime(async move { host.current().preview(&request).await })
            .await
            .unwrap_or_else(|e| host_failure(&e.to_string()))
    }

    /// Vet what the tool of `request` returned, after it ran (the call
    /// allowed, or approved by a person): the checks of contract 0.2 that
    /// export `result-check` and whose tool globs match the call answer
    /// allow, withhold or redact, and may raise run labels. Combined:
    /// withhold beats redact beats allow; every redacting check's masks are
    /// applied by the host ([`crate::tool_result`]). Never fails: a check
    /// that fails withholds the result unless its `on_error` is `allow`
    /// (then it abstains), a failure of the host withholds, and a result
    /// whose text with its call is over `max_call_bytes` is withheld (rule
    /// [`crate::tool_result::OVERSIZED_RESULT_RULE`]) before any check
    /// runs. With no result check in the policy, every result passes.
    ///
    /// Runs like [`Host::check`]: on the calling task's runtime, or on
    /// toolvet's own outside one.
    pub async fn check_result(
        &self,
        request: &CallRequest,
        result: &crate::tool_result::ToolResult,
    ) -> crate::tool_result::ResultVerdict {
        if crate::runtime::in_tokio() {
            return self.current().evaluate_result(request, result).await;
        }
        let (host, request, result) = (self.clone(), request.clone(), result.clone());
        crate::runtime::on_runtime(async move {
            host.current().evaluate_result(&request, &result).await
        })
        .await
        .unwrap_or_else(|e| {
            tracing::error!(target: "toolvet::host", "the host failed while vetting a result: {e}");
            crate::tool_result::ResultVerdict::by_host(
                crate::generation::HOST_ERROR_RULE,
                "toolvet failed while vetting this result, so it is withheld; the error is \
                     in the host's log"
                    .into(),
                Vec::new(),
            )
        })
    }

    /// Whether any check of the policy in force may vet results: one that
    /// exports `result-check`, or one that failed to load (it answers its
    /// `on_error`). When false, [`Host::check_result`] passes every result
    /// untouched, so a front end may skip it.
    pub fn vets_results(&self) -> bool {
        self.current().checks.iter().any(|c| match &c.state {
            Ok(ready) => ready.compiled.pre.vets_results(),
            Err(_) => true,
        })
    }

    /// [`Host::check_result`] for synchronous callers (as
    /// [`Host::check_blocking`]). Blocks until the verdict is ready.
    pub fn check_result_blocking(
        &self,
        request: &CallRequest,
        result: &crate::tool_result::ToolResult,
    ) -> crate::tool_result::ResultVerdict {
        let (host, request, result) = (self.clone(), request.clone(), result.clone());
        crate::runtime::block_on(async move { host.check_result(&request, &result).await })
    }

    /// [`Host::check`] for synchronous callers: a plain thread with no
    /// runtime (bindings with their interpreter lock released, hooks); the
    /// checks run on the calling thread. Blocks until the verdict is ready.
    /// Called from inside a Tokio runtime it still works, but blocks that
    /// runtime's worker: use [`Host::check`] there.
    pub fn check_blocking(&self, request: &CallRequest) -> Verdict {
        let (host, request) = (self.clone(), request.clone());
        crate::runtime::block_on(async move { host.check(&request).await })
    }

    /// How the host understands `request`'s call: its tool facts
    /// ([`crate::facts`]) and the checks it would reach, with what routed
    /// it to each. Runs no check and records nothing.
    pub fn explain(&self, request: &CallRequest) -> crate::facts::Explanation {
        Self::explain_in(&self.current(), request, 0)
    }

    /// [`Host::explain`] of a call `depth` wrapping tools deep.
    fn explain_in(
        current: &Generation,
        request: &CallRequest,
        depth: usize,
    ) -> crate::facts::Explanation {
        let facts = current.facts.facts(request);
        let checks = current
            .checks
            .iter()
            .filter_map(|c| {
                let via = c.routes_for(&request.call.name, &facts);
                (!via.is_empty()).then(|| crate::facts::CheckRoute {
                    check: c.config.name.clone(),
                    via,
                })
            })
            .collect();
        let (makes, unvettable) = match current.facts.wrapped_calls(request) {
            Ok(calls) if depth < crate::evaluation::MAX_WRAPPED_DEPTH => (
                calls
                    .iter()
                    .map(|c| Self::explain_in(current, c, depth + 1))
                    .collect(),
                None,
            ),
            Ok(calls) if calls.is_empty() => (Vec::new(), None),
            Ok(_) => (
                Vec::new(),
                Some(format!(
                    "it is made through more than {} tools that call other tools",
                    crate::evaluation::MAX_WRAPPED_DEPTH
                )),
            ),
            Err(why) => (Vec::new(), Some(why)),
        };
        crate::facts::Explanation {
            tool: request.call.name.clone(),
            facts,
            checks,
            makes,
            unvettable,
        }
    }

    fn current(&self) -> Arc<Generation> {
        self.shared.current.load_full()
    }

    /// One summary per configured check, in policy order (for a host
    /// loaded with [`LoadOptions::only_tool`], per check it loaded).
    pub fn checks(&self) -> Vec<CheckSummary> {
        self.current()
            .checks
            .iter()
            .map(|c| {
                let ready = c.state.as_ref().ok();
                CheckSummary {
                    name: c.config.name.clone(),
                    plugin: c.config.plugin.clone(),
                    tools: c
                        .config
                        .tools
                        .clone()
                        .or_else(|| ready.map(|r| r.info.tools.clone()))
                        .unwrap_or_else(|| vec!["*".into()]),
                    plugin_name: ready.map(|r| r.info.name.clone()),
                    plugin_version: ready.map(|r| r.info.version.clone()),
                    sha256: ready.map(|r| r.compiled.sha256.clone()),
                    cached: ready.map(|r| r.compiled.cache == CacheOutcome::Hit),
                    cache_stored: ready.map(|r| r.compiled.cache != CacheOutcome::Uncached),
                    compile_us: ready.map(|r| r.compiled.compile_us),
                    deferred: ready.map(|r| r.deferred),
                    snapshot: ready.map(|r| r.snapshot),
                    load_error: c.state.as_ref().err().map(|e| e.to_string()),
                    contract: ready.map(|r| r.compiled.pre.contract().version()),
                    vets_results: ready.map(|r| r.compiled.pre.vets_results()),
                }
            })
            .collect()
    }

    /// The host settings in force.
    pub fn settings(&self) -> HostSettings {
        self.current().settings.clone()
    }

    /// The policy file in force (or the name a policy built in code gave).
    pub fn policy_source(&self) -> PathBuf {
        self.current().source.clone()
    }

    /// Hex sha256 of the policy in force ([`Policy::sha256`]).
    pub fn policy_sha256(&self) -> String {
        self.current().policy_sha256.clone()
    }

    /// How many policies this host has loaded: 1 after [`Host::load`], one
    /// more after every successful [`Host::reload`].
    pub fn generation(&self) -> u64 {
        self.current().number
    }

    /// The paths of toolvet's own state that the policy in force and the
    /// front end ([`LoadOptions::extra_state_paths`],
    /// [`LoadOptions::extra_secret_paths`]) name: every call's checks get
    /// them in the `toolvet.state_paths` and `toolvet.secret_paths`
    /// attributes, unioned with what the caller sent there.
    pub fn state_paths(&self) -> crate::state_paths::StatePaths {
        self.current().state_paths.clone()
    }

    /// The approvals of the policy in force, when it has an
    /// `[approvals]` table.
    pub fn approvals(&self) -> Option<Approvals> {
        self.current().approvals.clone()
    }

    /// Say that this host runs as the agent's user, so the ledger is a
    /// file the agent can write: an approval or rejection read from it
    /// counts only when signed (`[approvals] reviewer_keys`) or recorded
    /// through this process ([`Approvals::guard_same_user`]; it holds
    /// across reloads). Every front end that runs beside the agent calls
    /// it (the hooks, `toolvet mcp`, the Python and Node packages); no
    /// effect without `[approvals]`.
    pub fn guard_same_user(&self) {
        if let Some(approvals) = self.approvals() {
            approvals.guard_same_user();
        }
    }

    /// The compiled-artifact cache the checks loaded through, if it was
    /// usable; its [`ArtifactCache::entries_in_use`] are what this policy
    /// needs to start from the cache again (`toolvet cache prune`).
    pub fn artifact_cache(&self) -> Option<ArtifactCache> {
        self.current().cache.clone()
    }

    /// [`Host::check`], then wait (at most `timeout`) until the verdict's
    /// decision record is in the decision log file: for one-shot processes
    /// (hooks, `toolvet check`) that must not report a verdict the log does
    /// not hold. With `decision_log_on_failure = "deny"` (the default), a
    /// verdict whose record could not be written becomes a deny (rule
    /// `toolvet.decision-log`); with `"continue"` it stands and the failure
    /// is logged. Without a decision log this is [`Host::check`].
    pub async fn check_recorded(&self, request: &CallRequest, timeout: Duration) -> Verdict {
        let generation = self.current();
        let verdict = self.check(request).await;
        let Some(log) = &generation.decision_log else {
            return verdict;
        };
        let this = log.clone();
        let flushed = crate::runtime::on_runtime(async move { this.flush(timeout).await })
            .await
            .unwrap_or_else(|e| Err(crate::audit::FlushError::Task(e.to_string())));
        match flushed {
            Ok(()) => verdict,
            Err(why) => {
                tracing::error!(target: "toolvet::audit", path = %log.path().display(), "a verdict's record is not in the decision log: {why}");
                if log.on_failure() == crate::config::LogFailure::Deny
                    && verdict.decision != crate::verdict::Decision::Deny
                {
                    let denied = Verdict::by_host(
                        crate::verdict::Decision::Deny,
                        crate::generation::DECISION_LOG_RULE,
                        "the decision log cannot be written, so this call may not run \
                         ([host] decision_log_on_failure = \"deny\")",
                        verdict.checks,
                    );
                    let _ = log.append_verdict(request, &denied, &[], &generation.policy_sha256);
                    denied
                } else {
                    verdict
                }
            }
        }
    }

    /// For one-shot processes (`toolvet check-result`, the hooks) after
    /// vetting a result: wait (at most `timeout`) until its decision record
    /// is in the decision log file. `None` when it is (or the policy keeps
    /// no log, or `decision_log_on_failure = "continue"`: the failure is
    /// then only logged); else the withhold to answer instead (rule
    /// `toolvet.decision-log`), as [`Host::check_recorded`] denies a call.
    pub async fn result_recorded(
        &self,
        timeout: Duration,
    ) -> Option<crate::tool_result::ResultVerdict> {
        let failed = self.flush_decision_log(timeout).await.err()?;
        tracing::error!(target: "toolvet::audit", "a result's record is not in the decision log: {failed}");
        (self.settings().decision_log_on_failure == crate::config::LogFailure::Deny).then(|| {
            crate::tool_result::ResultVerdict::withheld_by_host(
                crate::generation::DECISION_LOG_RULE,
                "the decision log cannot be written, so this result may not reach the model \
                 ([host] decision_log_on_failure = \"deny\")"
                    .into(),
            )
        })
    }

    /// Wait (at most `timeout`) until every decision record of the calls
    /// vetted so far is in the decision log file. `Ok` when the policy has
    /// no decision log.
    ///
    /// # Errors
    /// The log cannot be written, or the timeout passed.
    pub async fn flush_decision_log(
        &self,
        timeout: Duration,
    ) -> Result<(), crate::audit::FlushError> {
        let Some(log) = self.current().decision_log.clone() else {
            return Ok(());
        };
        crate::runtime::on_runtime(async move { log.flush(timeout).await })
            .await
            .unwrap_or_else(|e| Err(crate::audit::FlushError::Task(e.to_string())))
    }

    /// The decision log's counters, when the policy has one.
    pub fn decision_log_stats(&self) -> Option<DecisionLogStats> {
        self.current().decision_log.as_ref().map(|l| l.stats())
    }
}

// A `Host` is shared across threads and tasks and moved into bindings.
const _: fn() = || {
    fn embeddable<T: Send + Sync + Clone + fmt::Debug + 'static>() {}
    embeddable::<Host>();
    embeddable::<Approvals>();
};
