//! One loaded policy (a *generation* of a [`crate::Host`]): its checks,
//! limits, decision log and approvals, and the evaluation of one call into
//! a verdict.
//!
//! Data flows one way: [`Policy`] → [`Generation::load`] (loaded checks) →
//! [`Generation::evaluate`] (refuse, select, run, combine, settle
//! approvals) → [`Verdict`] → decision log.

use crate::approval::{Approvals, rules as approval_rules};
use crate::audit::{DecisionLog, Unrecorded};
use crate::bindings::{PluginInfo, wit};
use crate::cache::ArtifactCache;
use crate::call::{CallRequest, Outcome, PriorCall};
use crate::config::{CheckConfig, HostSettings, Isolation, LogFailure, Policy};
use crate::error::{Error, LoadError, LoadErrorKind};
use crate::instance::{Failure, InstanceLimits, LiveInstance, WitCall};
use crate::plugin::{self, Compiled};
use crate::plugin_log::PluginLog;
use crate::progress::{LoadEvent, LoadObserver};
use crate::text::{panic_message, truncate};
use crate::verdict::{CheckDecision, CheckError, CheckOutcome, Decision, ErrorKind, Verdict};
use futures_util::FutureExt as _;
use globset::GlobSet;
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use wasmtime::Engine;

/// Rule of a verdict denied because its decision record cannot be written.
pub(crate) const DECISION_LOG_RULE: &str = "toolvet.decision-log";
/// Rule of a verdict denied because the host itself failed.
pub(crate) const HOST_ERROR_RULE: &str = "toolvet.host-error";
/// Rule of a verdict denied because the host was loaded for another tool
/// ([`crate::LoadOptions::only_tool`]).
pub(crate) const HOST_SCOPE_RULE: &str = "toolvet.host-scope";

pub(crate) struct Generation {
    pub number: u64,
    pub source: PathBuf,
    pub policy_sha256: String,
    pub engine: &'static Engine,
    pub settings: HostSettings,
    pub checks: Vec<LoadedCheck>,
    slots: Semaphore,
    queued: AtomicUsize,
    pub decision_log: Option<DecisionLog>,
    pub approvals: Option<Approvals>,
    pub cache: Option<ArtifactCache>,
    /// The one tool this generation vets, when loaded with
    /// [`crate::LoadOptions::only_tool`]: its checks are those that can
    /// select that tool, so a call to any other tool is denied.
    only_tool: Option<String>,
    /// toolvet's own state paths, handed to every check on every call
    /// ([`crate::state_paths`]).
    pub state_paths: crate::state_paths::StatePaths,
}

/// One configured check after loading.
pub(crate) struct LoadedCheck {
    pub config: CheckConfig,
    pub name: Arc<str>,
    /// Where its plugin's output goes, with the budget its calls share.
    log: PluginLog,
    pub tools: GlobSet,
    settings_json: String,
    limits: InstanceLimits,
    pub state: Result<Ready, LoadError>,
}

pub(crate) struct Ready {
    /// The component instances are made from: with `snapshot`, the
    /// pre-initialised one.
    pub compiled: Compiled,
    pub info: PluginInfo,
    /// Instances start configured (a snapshot taken after `configure`):
    /// no `configure` call per instance.
    pub snapshot: bool,
    /// `describe` and `configure` were skipped at load: this component
    /// accepted these settings before (a record in the artifact cache).
    pub deferred: bool,
    /// Configured instances ready for a call. With `isolation = "reuse"`,
    /// warm instances returned after their calls (at most
    /// `reuse_pool_size`); with per-call isolation, only the instance
    /// configured at load time, which has seen no call and serves the
    /// first one.
    pool: Mutex<Vec<LiveInstance>>,
}

/// Refuse a policy that lists no checks while every call it does not
/// decide is allowed (`default_decision = "allow"`), unless it says so
/// with `[host] allow_without_checks = true`: an emptied or truncated
/// policy file must block, never let every call through unvetted.
fn refuse_unvetted(policy: &Policy) -> Result<(), Error> {
    let host = &policy.host;
    if !policy.checks.is_empty()
        || host.default_decision != crate::config::DefaultDecision::Allow
        || host.allow_without_checks
    {
        return Ok(());
    }
    Err(Error::Config(crate::error::ConfigError::Invalid {
        path: policy.source.clone(),
        line: 0,
        message:
            "the policy lists no checks and `default_decision` is \"allow\", so every call would \
                  be allowed unvetted; add a [[check]], set [host] default_decision = \"deny\" or \
                  \"escalate\", or set [host] allow_without_checks = true if that is meant"
                .into(),
    }))
}

impl Generation {
    /// Load every check of `policy` (see [`crate::Host::load`]), reusing
    /// what `previous` (the generation being replaced) already has: its
    /// compiled components by digest, its decision log and approvals when
    /// their settings are unchanged.
    pub async fn load(
        mut policy: Policy,
        number: u64,
        options: &crate::load_options::LoadOptions,
        previous: Option<&Generation>,
    ) -> Result<Generation, Error> {
        let provider = options.ledger_provider.as_deref();
        policy.validate()?;
        let engine = crate::engine::shared_engine().map_err(Error::Engine)?;
        let linker = Arc::new(plugin::linker(engine).map_err(|e| Error::Engine(format!("{e:#}")))?);
        let cache = open_cache(&policy, engine);
        // From the whole policy too: a check left out here is still one
        // whose plugin file no tool may replace.
        let state_paths = crate::state_paths::StatePaths::for_policy(
            &policy,
            &options.extra_state_paths,
            &options.extra_secret_paths,
        )
        .map_err(|message| {
            Error::Config(crate::error::ConfigError::Invalid {
                path: policy.source.clone(),
                line: 0,
                message,
            })
        })?;
        // The whole policy's digest, before `only_tool` leaves checks out
        // (a policy built in code is hashed over its checks).
        let policy_sha256 = policy.sha256();
        refuse_unvetted(&policy)?;
        if let Some(tool) = &options.only_tool {
            policy
                .checks
                .retain(|check| may_select(check, tool, cache.as_ref()));
        }
        let settings = &policy.host;
        let loaded: HashMap<String, Compiled> = previous
            .map(|p| {
                p.checks
                    .iter()
                    .filter_map(|c| c.state.as_ref().ok())
                    // A snapshot is of one check's settings: only plain
                    // components are shared by digest.
                    .filter(|r| !r.snapshot)
                    .map(|r| (r.compiled.sha256.clone(), r.compiled.clone()))
                    .collect()
            })
            .unwrap_or_default();

        // Find every component (in parallel), then compile the missing
        // ones one after another (see `compile_all`), from the blocking pool
        // so the caller's executor is never held.
        let observer = options.observer.clone();
        let compiled: Vec<Result<Compiled, LoadErrorKind>> = {
            let configs: Vec<PluginToLoad> = policy
                .checks
                .iter()
                .map(|c| PluginToLoad {
                    check: c.name.clone(),
                    path: c.plugin.clone(),
                    pin: c.sha256.clone(),
                })
                .collect();
            let (cache, linker, observer) = (cache.clone(), linker.clone(), observer.clone());
            let count = configs.len();
            tokio::task::spawn_blocking(move || {
                compile_all(
                    engine,
                    &linker,
                    cache.as_ref(),
                    &configs,
                    &loaded,
                    observer.as_deref(),
                )
            })
            .await
            .unwrap_or_else(|e| {
                let kind = LoadErrorKind::Host(format!("the compile task failed: {e}"));
                (0..count).map(|_| Err(kind.clone())).collect()
            })
        };

        // Describe and configure every check concurrently (in parallel on a
        // multi-threaded runtime): language runtimes take milliseconds.
        let initializing: Vec<_> = policy
            .checks
            .iter()
            .zip(compiled)
            .map(|(config, compiled)| {
                let name: Arc<str> = Arc::from(config.name.as_str());
                let settings_json = config.settings.to_string();
                let limits = InstanceLimits {
                    timeout: Duration::from_millis(config.timeout_ms),
                    deadline: None,
                    memory_bytes: (config.memory_mb as usize) << 20,
                    log_bytes: settings.max_log_bytes,
                    result_bytes: settings.max_result_bytes,
                };
                let log = PluginLog::new(name.clone());
                // `describe` and `configure` at load get the load-time
                // bound (language runtimes initialise lazily), or the
                // check's own deadline when that is longer.
                let load_limits = InstanceLimits {
                    timeout: Duration::from_millis(settings.load_timeout_ms).max(limits.timeout),
                    ..limits
                };
                // A check whose failures are let through (`on_error =
                // "allow"`) is always configured at load, so broken settings
                // fail the load instead of abstaining on every call.
                let may_defer = config.on_error != crate::config::OnError::Allow;
                let task = tokio::spawn(initialize(
                    engine,
                    linker.clone(),
                    compiled,
                    cache.clone(),
                    log.clone(),
                    config.plugin.clone(),
                    settings_json.clone(),
                    load_limits,
                    may_defer,
                    // Fresh instances start from a snapshot; a reused
                    // instance is configured once anyway, unless the host
                    // serves one call (`preinitialize_reused`).
                    settings.preinitialize
                        && (config.isolation == crate::config::Isolation::PerCall
                            || options.preinitialize_reused),
                    observer.clone(),
                ));
                (name, log, settings_json, limits, task)
            })
            .collect();

        let mut checks = Vec::with_capacity(policy.checks.len());
        let mut errors = Vec::new();
        for (config, (name, log, settings_json, limits, task)) in
            policy.checks.iter().zip(initializing)
        {
            // A panic in the host while loading is the host's failure, not
            // the plugin's.
            let state: Result<Ready, LoadErrorKind> = task.await.unwrap_or_else(|e| {
                Err(LoadErrorKind::Host(format!("the loading task failed: {e}")))
            });
            let state = state.map_err(|kind| LoadError {
                policy: policy.source.clone(),
                line: config.line,
                check: config.name.clone(),
                plugin: config.plugin.clone(),
                kind,
            });
            let globs = match (&config.tools, &state) {
                (Some(t), _) => t.clone(),
                (None, Ok(r)) => {
                    if r.info.tools.is_empty() {
                        tracing::warn!(
                            "{}:{}: check `{}`: its plugin declares no tools (`describe` \
                             returned `tools = []`) and the policy gives no `tools`, so it \
                             never runs; set `tools` in its [[check]] table",
                            policy.source.display(),
                            config.line,
                            config.name
                        );
                    }
                    r.info.tools.clone()
                }
                // A broken check with no configured globs applies to every
                // tool, so its `on_error` is never silently skipped.
                (None, Err(_)) => vec!["*".to_string()],
            };
            let tools = crate::config::compile_globs(&globs).expect("validated when loading");
            if let Err(e) = &state {
                errors.push(e.clone());
            }
            checks.push(LoadedCheck {
                config: config.clone(),
                name,
                log,
                tools,
                settings_json,
                limits,
                state,
            });
        }
        if !errors.is_empty() && !settings.continue_on_errors {
            return Err(Error::Load(errors));
        }
        for e in &errors {
            tracing::error!("{e}; its on_error decision applies to every call");
        }
        let decision_log = match previous.and_then(|p| p.decision_log.as_ref()) {
            Some(log) if log.serves(&policy.host, options.redactor.as_ref()) => Some(log.clone()),
            _ => DecisionLog::open_for(&policy, options.redactor.clone())?,
        };
        let approvals = Approvals::load(
            &policy,
            provider,
            decision_log.clone(),
            previous.and_then(|p| p.approvals.as_ref()),
        )
        .await?;
        Ok(Generation {
            number,
            policy_sha256,
            source: policy.source.clone(),
            engine,
            slots: Semaphore::new(settings.max_concurrent_checks),
            queued: AtomicUsize::new(0),
            settings: policy.host,
            checks,
            decision_log,
            approvals,
            cache,
            only_tool: options.only_tool.clone(),
            state_paths,
        })
    }

    /// The verdict about one call (never fails: every failure is a deny or
    /// the failed check's `on_error`).
    pub async fn evaluate(self: &Arc<Self>, request: &CallRequest) -> Verdict {
        let started = Instant::now();
        let (mut verdict, ran) = match AssertUnwindSafe(self.decide(request)).catch_unwind().await {
            Ok(decided) => decided,
            Err(panic) => (host_failure(&panic_message(&panic)), Vec::new()),
        };
        verdict.duration_us = started.elapsed().as_micros() as u64;
        self.record(request, verdict, &ran)
    }

    /// What the checks decide about `request`, combined, without settling
    /// approvals (no request is opened, a ticket is ignored) and without a
    /// decision record. See [`crate::Host::preview`].
    pub async fn preview(self: &Arc<Self>, request: &CallRequest) -> Verdict {
        let started = Instant::now();
        let decided = AssertUnwindSafe(async {
            if let Some(refusal) = self.refuse_unvettable(request) {
                return refusal;
            }
            self.combined(request).await.0
        })
        .catch_unwind()
        .await;
        let mut verdict = decided.unwrap_or_else(|panic| host_failure(&panic_message(&panic)));
        verdict.duration_us = started.elapsed().as_micros() as u64;
        verdict
    }

    /// Run the checks that apply to `request` (with its history brought up
    /// to date by the ledger) and combine their outcomes.
    async fn combined(self: &Arc<Self>, request: &CallRequest) -> (Verdict, Vec<usize>) {
        let history = match &self.approvals {
            Some(a) => a.reflect_history(request).await,
            None => None,
        };
        let history = history.as_deref().unwrap_or(&request.context.history);
        let attributes = self.state_paths.attributes(&request.context.attributes);
        let wit_call = Arc::new(to_wit(
            request,
            history,
            self.settings.max_history,
            attributes,
        ));
        let applicable: Vec<usize> = self
            .checks
            .iter()
            .enumerate()
            .filter(|(_, c)| c.tools.is_match(&request.call.name))
            .map(|(i, _)| i)
            .collect();
        let outcomes = self.run_checks(&applicable, wit_call).await;
        let verdict = crate::verdict::combine(
            self.settings.combine,
            outcomes,
            self.settings.default_decision,
            0,
        );
        (verdict, applicable)
    }

    /// Everything but the record: the verdict, and the indices of the
    /// checks whose outcomes it holds.
    async fn decide(self: &Arc<Self>, request: &CallRequest) -> (Verdict, Vec<usize>) {
        if let Some(refusal) = self.refuse_unvettable(request) {
            return (refusal, Vec::new());
        }
        if let Some(log) = &self.decision_log
            && log.on_failure() == LogFailure::Deny
            && !log.is_healthy()
        {
            return (
                Verdict::by_host(
                    Decision::Deny,
                    DECISION_LOG_RULE,
                    "the decision log cannot be written, so no call may run until it can \
                     ([host] decision_log_on_failure = \"deny\")",
                    Vec::new(),
                ),
                Vec::new(),
            );
        }
        let claims = match &self.approvals {
            Some(approvals) => {
                match approvals.verify_claim(request, crate::approval::types::UnixMillis::now()) {
                    Ok(claims) => claims,
                    Err(refusal) => {
                        let verdict = Verdict::by_host(
                            Decision::Deny,
                            refusal.rule,
                            refusal.reason,
                            Vec::new(),
                        );
                        return (verdict, Vec::new());
                    }
                }
            }
            None if request.approval.is_some() => {
                let refusal = Verdict::by_host(
                    Decision::Deny,
                    approval_rules::DISABLED,
                    "the call carries an approval ticket, but this policy has no [approvals]; \
                     nothing here can approve it",
                    Vec::new(),
                );
                return (refusal, Vec::new());
            }
            None => None,
        };
        let (verdict, applicable) = self.combined(request).await;
        let verdict = match &self.approvals {
            Some(approvals) => approvals.settle(request, verdict, claims).await,
            None => verdict,
        };
        (verdict, applicable)
    }

    async fn run_checks(
        self: &Arc<Self>,
        applicable: &[usize],
        call: Arc<WitCall>,
    ) -> Vec<CheckOutcome> {
        if !(self.settings.parallel_checks && applicable.len() > 1) {
            let mut outcomes = Vec::with_capacity(applicable.len());
            for &i in applicable {
                outcomes.push(self.run_check(i, &call).await);
            }
            return outcomes;
        }
        let tasks: Vec<_> = applicable
            .iter()
            .map(|&i| {
                let (this, call) = (self.clone(), call.clone());
                tokio::spawn(async move { this.run_check(i, &call).await })
            })
            .collect();
        let mut outcomes = Vec::with_capacity(tasks.len());
        for (task, &i) in tasks.into_iter().zip(applicable) {
            outcomes.push(match task.await {
                Ok(outcome) => outcome,
                // A panic in the host while running the check.
                Err(e) => self.failed_outcome(
                    i,
                    Failure {
                        kind: ErrorKind::HostError,
                        message: format!(
                            "the host failed running check `{}`: {e}",
                            self.checks[i].name
                        ),
                    },
                    0,
                ),
            });
        }
        outcomes
    }

    /// A deny for a call this generation cannot vet: one to a tool it was
    /// not loaded for, or an oversized one.
    fn refuse_unvettable(&self, request: &CallRequest) -> Option<Verdict> {
        match &self.only_tool {
            Some(tool) if *tool != request.call.name => Some(Verdict::by_host(
                Decision::Deny,
                HOST_SCOPE_RULE,
                format!(
                    "this host loaded only the checks for calls to `{}`, so it cannot vet a \
                     call to `{}`",
                    crate::display::visible(tool),
                    crate::display::visible(&request.call.name)
                ),
                Vec::new(),
            )),
            _ => self
                .refuse_oversized(request)
                .or_else(|| self.refuse_state_paths(request)),
        }
    }

    /// A deny for a call whose own `toolvet.state_paths` or
    /// `toolvet.secret_paths` attribute is not a JSON array of absolute
    /// paths: the host's paths could not be added to it, and a check
    /// failing on it would leave the guard rails to its `on_error`.
    fn refuse_state_paths(&self, request: &CallRequest) -> Option<Verdict> {
        let why = self.state_paths.refusal(&request.context.attributes)?;
        Some(Verdict::by_host(
            Decision::Deny,
            crate::state_paths::INVALID_STATE_PATHS_RULE,
            format!("{why}; toolvet cannot vet this call"),
            Vec::new(),
        ))
    }

    fn refuse_oversized(&self, request: &CallRequest) -> Option<Verdict> {
        let arguments = request.call.arguments.get().len();
        let whole = request.size_bytes();
        let message = if arguments > self.settings.max_arguments_bytes {
            format!(
                "the call's arguments are {arguments} bytes, over the host's {}-byte limit",
                self.settings.max_arguments_bytes
            )
        } else if whole > self.settings.max_call_bytes {
            format!(
                "the call (arguments, tool info, context and history) is {whole} bytes, \
                 over the host's {}-byte limit",
                self.settings.max_call_bytes
            )
        } else {
            return None;
        };
        Some(Verdict::by_host(
            Decision::Deny,
            format!("toolvet.{}", ErrorKind::OversizedCall.as_str()),
            message,
            Vec::new(),
        ))
    }

    /// Emit the verdict's event and queue its decision record. A verdict
    /// whose record cannot be queued follows `decision_log_on_failure`.
    fn record(&self, request: &CallRequest, verdict: Verdict, ran: &[usize]) -> Verdict {
        let tool = request.call.name.as_str();
        match verdict.decision {
            Decision::Deny => {
                tracing::info!(target: "tool.denied", tool, rule = verdict.rule.as_deref(), reason = verdict.reason.as_deref(), "denied")
            }
            Decision::Escalate => {
                tracing::info!(target: "tool.escalated", tool, rule = verdict.rule.as_deref(), reason = verdict.reason.as_deref(), approval = verdict.approval.as_ref().map(|a| a.id.as_str()), "escalated")
            }
            Decision::Allow => tracing::debug!(target: "tool.allowed", tool, "allowed"),
        }
        let Some(log) = &self.decision_log else {
            return verdict;
        };
        let digests: Vec<Option<&str>> = ran
            .iter()
            .map(|&i| {
                self.checks[i]
                    .state
                    .as_ref()
                    .ok()
                    .map(|r| r.compiled.sha256.as_str())
            })
            .collect();
        match log.append_verdict(request, &verdict, &digests, &self.policy_sha256) {
            Ok(()) => verdict,
            Err(Unrecorded::QueueFull | Unrecorded::Closed)
                if log.on_failure() == LogFailure::Deny && verdict.decision != Decision::Deny =>
            {
                Verdict::by_host(
                    Decision::Deny,
                    DECISION_LOG_RULE,
                    "the decision log is falling behind, so this call could not be recorded \
                     and may not run ([host] decision_log_on_failure = \"deny\")",
                    verdict.checks,
                )
            }
            Err(_) => verdict,
        }
    }

    /// Run check `index` on one call, always producing an outcome.
    async fn run_check(&self, index: usize, call: &WitCall) -> CheckOutcome {
        let started = Instant::now();
        let check = &self.checks[index];
        let elapsed = || started.elapsed().as_micros() as u64;
        let ready = match &check.state {
            Ok(ready) => ready,
            Err(e) => {
                let failure = Failure {
                    kind: ErrorKind::LoadFailed,
                    message: format!("check `{}` failed to load: {}", check.name, e.kind),
                };
                return self.failed_outcome(index, failure, elapsed());
            }
        };
        // Admission: a bounded queue in front of a bounded number of slots.
        // The wait for a slot is bounded by the check's own deadline, and
        // the queue count is released even if the caller drops this future.
        let overloaded = |why: String| Failure {
            kind: ErrorKind::Overloaded,
            message: format!(
                "check `{}` did not run: host overloaded ({why})",
                check.name
            ),
        };
        let queued = QueueSlot::enter(&self.queued, self.settings.max_queued_checks);
        let Some(queued) = queued else {
            let why = format!("{} calls queued", self.settings.max_queued_checks);
            return self.failed_outcome(index, overloaded(why), elapsed());
        };
        // A free slot is taken at once; only a full host arms a timer.
        let permit = match self.slots.try_acquire() {
            Ok(permit) => Ok(permit),
            Err(_) => tokio::time::timeout_at(
                (started + check.limits.timeout).into(),
                self.slots.acquire(),
            )
            .await
            .map(|permit| permit.expect("the semaphore is never closed")),
        };
        drop(queued);
        let _permit = match permit {
            Ok(permit) => permit,
            Err(_) => {
                let why = format!(
                    "no slot free within {} ms",
                    check.limits.timeout.as_millis()
                );
                return self.failed_outcome(index, overloaded(why), elapsed());
            }
        };
        let result = AssertUnwindSafe(self.run_instance(check, ready, call, started))
            .catch_unwind()
            .await
            .unwrap_or_else(|panic| {
                Err(Failure {
                    kind: ErrorKind::HostError,
                    message: format!(
                        "the host failed running check `{}`: {}",
                        check.name,
                        panic_message(&panic)
                    ),
                })
            });
        match result {
            Ok(decision) => self.decided_outcome(index, decision, elapsed()),
            Err(failure) => self.failed_outcome(index, failure, elapsed()),
        }
    }

    /// Get an instance (fresh, or warm from the pool), call `check`, and
    /// return a warm instance to the pool on success. The check's budget
    /// started at `started` (before admission).
    async fn run_instance(
        &self,
        check: &LoadedCheck,
        ready: &Ready,
        call: &WitCall,
        started: Instant,
    ) -> Result<wit::Decision, Failure> {
        #[cfg(test)]
        tests::maybe_panic(&check.name);
        // One budget for admission + instantiate + configure + check.
        let limits = InstanceLimits {
            deadline: Some(started + check.limits.timeout),
            ..check.limits
        };
        let reuse = check.config.isolation == Isolation::Reuse;
        let ready_instance = ready.pool.lock().ok().and_then(|mut pool| pool.pop());
        let mut instance = match ready_instance {
            Some(instance) => instance,
            None if ready.snapshot => {
                LiveInstance::new(self.engine, &ready.compiled.pre, limits, check.log.clone())
                    .await?
            }
            None => {
                let mut instance =
                    LiveInstance::new(self.engine, &ready.compiled.pre, limits, check.log.clone())
                        .await?;
                instance
                    .configure(&check.settings_json, limits)
                    .await?
                    .map_err(|m| Failure {
                        kind: ErrorKind::InvalidSettings,
                        message: format!("check `{}` rejected its settings: {m}", check.name),
                    })?;
                instance
            }
        };
        let decision = instance.check(call, limits).await?;
        if reuse
            && let Ok(mut pool) = ready.pool.lock()
            && pool.len() < self.settings.reuse_pool_size
        {
            pool.push(instance);
        }
        Ok(decision)
    }

    fn decided_outcome(
        &self,
        index: usize,
        decision: wit::Decision,
        duration_us: u64,
    ) -> CheckOutcome {
        let check = &self.checks[index];
        let (kind, reason) = match decision {
            wit::Decision::Allow => (CheckDecision::Allow, None),
            wit::Decision::Abstain => (CheckDecision::Abstain, None),
            wit::Decision::Deny(r) => (CheckDecision::Deny, Some(r)),
            wit::Decision::Escalate(r) => (CheckDecision::Escalate, Some(r)),
        };
        let Some(reason) = reason else {
            return self.outcome(index, kind, None, None, duration_us, None);
        };
        let size = reason.message.len() + reason.rule.as_ref().map_or(0, String::len);
        if size > self.settings.max_result_bytes {
            let failure = Failure {
                kind: ErrorKind::OversizedResult,
                message: format!(
                    "check `{}` returned a {size}-byte reason, over the {}-byte limit",
                    check.name, self.settings.max_result_bytes
                ),
            };
            return self.failed_outcome(index, failure, duration_us);
        }
        let message = truncate(reason.message, self.settings.max_reason_bytes);
        let rule = reason.rule.map(|r| truncate(r, MAX_RULE_BYTES));
        self.outcome(index, kind, rule, Some(message), duration_us, None)
    }

    fn failed_outcome(&self, index: usize, failure: Failure, duration_us: u64) -> CheckOutcome {
        let check = &self.checks[index];
        // A failure message can quote the plugin (e.g. a settings error).
        let failure = Failure {
            message: truncate(failure.message, self.settings.max_reason_bytes),
            ..failure
        };
        tracing::warn!(check = %check.name, kind = failure.kind.as_str(), "{}", crate::display::visible(&failure.message));
        // `on_error = "allow"` lets the call through as far as this check
        // is concerned: it abstains, so the other checks and
        // `default_decision` still decide. A failure of the host itself is
        // always a deny.
        let decision = match failure.kind {
            ErrorKind::HostError => CheckDecision::Deny,
            _ => CheckDecision::from(check.config.on_error),
        };
        self.outcome(
            index,
            decision,
            Some(format!("toolvet.{}", failure.kind.as_str())),
            Some(failure.message.clone()),
            duration_us,
            Some(CheckError {
                kind: failure.kind,
                message: failure.message,
            }),
        )
    }

    fn outcome(
        &self,
        index: usize,
        decision: CheckDecision,
        rule: Option<String>,
        reason: Option<String>,
        duration_us: u64,
        error: Option<CheckError>,
    ) -> CheckOutcome {
        let check = &self.checks[index];
        CheckOutcome {
            check: check.config.name.clone(),
            mode: check.config.mode,
            decision,
            rule,
            reason,
            duration_us,
            error,
        }
    }
}

/// One check's plugin file, for [`compile_all`].
struct PluginToLoad {
    check: String,
    path: PathBuf,
    pin: Option<String>,
}

/// Every check's component, linked: first each plugin file is found (read,
/// pinned, looked up in the cache and in the policy being replaced) in
/// parallel, one thread each; then the components found nowhere compile
/// one after another, each on all cores (wasmtime compiles a component's
/// functions in parallel), so each check's compile time is its own. The
/// observer hears of the compiles.
fn compile_all(
    engine: &'static Engine,
    linker: &wasmtime::component::Linker<crate::sandbox::StoreState>,
    cache: Option<&ArtifactCache>,
    configs: &[PluginToLoad],
    loaded: &HashMap<String, Compiled>,
    observer: Option<&dyn LoadObserver>,
) -> Vec<Result<Compiled, LoadErrorKind>> {
    /// Where one check's component is after the first step.
    enum Step {
        Done(Result<Compiled, LoadErrorKind>),
        ToCompile(plugin::Found),
    }
    let panicked = |panic: Box<dyn std::any::Any + Send>| {
        LoadErrorKind::Host(format!("compiling panicked: {}", panic_message(&panic)))
    };
    let reuse = |sha256: &str| loaded.get(sha256).cloned();
    // Find each plugin, and link those that need no compiling.
    let mut steps: Vec<Step> = std::thread::scope(|scope| {
        let handles: Vec<_> = configs
            .iter()
            .map(|config| {
                let reuse = &reuse;
                scope.spawn(move || {
                    match plugin::find(engine, cache, &config.path, config.pin.as_deref(), reuse) {
                        Ok(found) if matches!(found.state, plugin::FoundState::Missing { .. }) => {
                            Step::ToCompile(found)
                        }
                        Ok(found) => Step::Done(plugin::finish(engine, linker, cache, found)),
                        Err(e) => Step::Done(Err(e)),
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| Step::Done(Err(panicked(p)))))
            .collect()
    });
    let to_compile: Vec<usize> = (0..steps.len())
        .filter(|&i| matches!(steps[i], Step::ToCompile(_)))
        .collect();
    if !to_compile.is_empty() {
        let started = Instant::now();
        let mut this_batch: HashMap<String, Compiled> = HashMap::new();
        crate::progress::report(observer, || LoadEvent::CompileStarted {
            checks: to_compile
                .iter()
                .map(|&i| configs[i].check.clone())
                .collect(),
        });
        for (index, &i) in to_compile.iter().enumerate() {
            let check = &configs[i].check;
            crate::progress::report(observer, || LoadEvent::Compiling {
                check: check.clone(),
                index,
            });
            let this = Instant::now();
            let placeholder = Step::Done(Err(LoadErrorKind::Host(String::new())));
            let Step::ToCompile(found) = std::mem::replace(&mut steps[i], placeholder) else {
                unreachable!("listed as to compile");
            };
            // Two checks of one plugin file compile it once.
            let result = match this_batch.get(&found.sha256) {
                Some(compiled) => Ok(compiled.clone()),
                None => std::panic::catch_unwind(AssertUnwindSafe(|| {
                    plugin::finish(engine, linker, cache, found)
                }))
                .unwrap_or_else(|p| Err(panicked(p))),
            };
            if let Ok(compiled) = &result {
                this_batch.insert(compiled.sha256.clone(), compiled.clone());
            }
            crate::progress::report(observer, || LoadEvent::Compiled {
                check: check.clone(),
                index,
                elapsed: this.elapsed(),
                ok: result.is_ok(),
            });
            steps[i] = Step::Done(result);
        }
        crate::progress::report(observer, || LoadEvent::CompileFinished {
            elapsed: started.elapsed(),
        });
    }
    steps
        .into_iter()
        .map(|step| match step {
            Step::Done(result) => result,
            Step::ToCompile(_) => unreachable!("every step compiled above"),
        })
        .collect()
}

/// Whether `check` must be loaded for a call to `tool`. It is left out
/// only when the artifact cache records that this very plugin file (by its
/// stamp, and its pin if any) loaded with these settings and memory cap
/// before, so it would load now too, and its globs (the policy's `tools`,
/// else those its plugin declared then) do not match `tool`. A check that
/// may fail to load is always loaded: its load error fails the host, as
/// in a host for every tool.
fn may_select(check: &CheckConfig, tool: &str, cache: Option<&ArtifactCache>) -> bool {
    let remembered = cache.and_then(|cache| {
        plugin::remembered_tools(
            cache,
            &check.plugin,
            check.sha256.as_deref(),
            &check.settings.to_string(),
            (check.memory_mb as usize) << 20,
        )
    });
    let Some(declared) = remembered else {
        return true;
    };
    let globs = check.tools.as_ref().unwrap_or(&declared);
    crate::config::compile_globs(globs).map_or(true, |set| set.is_match(tool))
}

/// Describe and configure one check at load, or defer that to its first
/// call when its component accepted the same settings before.
#[allow(clippy::too_many_arguments)]
async fn initialize(
    engine: &'static Engine,
    linker: Arc<wasmtime::component::Linker<crate::sandbox::StoreState>>,
    compiled: Result<Compiled, LoadErrorKind>,
    cache: Option<ArtifactCache>,
    log: PluginLog,
    plugin_path: PathBuf,
    settings_json: String,
    limits: InstanceLimits,
    may_defer: bool,
    preinitialize: bool,
    observer: Option<Arc<dyn LoadObserver>>,
) -> Result<Ready, LoadErrorKind> {
    let compiled = compiled?;
    if preinitialize
        && let Some((info, snapshot)) = crate::snapshot::load_or_take(
            engine,
            &linker,
            cache.as_ref(),
            &plugin_path,
            &compiled,
            &settings_json,
            limits,
            log.clone(),
            observer.as_deref(),
        )
        .await?
    {
        return Ok(Ready {
            compiled: snapshot,
            info,
            snapshot: true,
            deferred: false,
            pool: Mutex::new(Vec::new()),
        });
    }
    let key = cache
        .as_ref()
        .map(|c| plugin::load_key(c, &compiled.sha256, &settings_json, limits.memory_bytes));
    // Accepted before: the first call configures an instance, as any
    // fresh instance is configured.
    if let Some(info) = cache
        .as_ref()
        .zip(key.as_deref())
        .filter(|_| may_defer)
        .and_then(|(c, key)| plugin::remembered_accepted(c, key))
    {
        return Ok(Ready {
            compiled,
            info,
            snapshot: false,
            deferred: true,
            pool: Mutex::new(Vec::new()),
        });
    }
    let (info, instance) =
        plugin::initialize(engine, &compiled, &settings_json, limits, log).await?;
    if let (Some(cache), Some(key)) = (&cache, &key) {
        plugin::remember_accepted(cache, key, &info);
    }
    Ok(Ready {
        compiled,
        info,
        snapshot: false,
        deferred: false,
        pool: Mutex::new(vec![instance]),
    })
}

/// A place in the admission queue, released on drop (also when the caller
/// abandons the call while it waits).
struct QueueSlot<'a>(&'a AtomicUsize);

impl<'a> QueueSlot<'a> {
    /// Take a place unless `max` are taken.
    fn enter(count: &'a AtomicUsize, max: usize) -> Option<Self> {
        count
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()
            .map(|_| QueueSlot(count))
    }
}

impl Drop for QueueSlot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Longest rule id kept, in bytes.
const MAX_RULE_BYTES: usize = 128;

/// The verdict when the host itself failed: always deny.
pub(crate) fn host_failure(why: &str) -> Verdict {
    tracing::error!(target: "toolvet::host", "the host failed while vetting a call: {why}");
    Verdict::by_host(
        Decision::Deny,
        HOST_ERROR_RULE,
        "toolvet failed while vetting this call, so it is denied; the error is in the host's log",
        Vec::new(),
    )
}

fn open_cache(policy: &Policy, engine: &Engine) -> Option<ArtifactCache> {
    let dir = ArtifactCache::dir_for(&policy.host)?;
    match ArtifactCache::open(&dir, engine) {
        Ok(cache) => Some(cache),
        Err(e) => {
            tracing::warn!(dir = %dir.display(), "compiled-artifact cache unusable, compiling every start: {e}");
            None
        }
    }
}

/// Convert a call to the WIT types once per verdict, keeping the newest
/// `max_history` entries of `history`, with `attributes` (the call's, with
/// the host's state paths: [`crate::state_paths::StatePaths::attributes`]).
fn to_wit(
    request: &CallRequest,
    history: &[PriorCall],
    max_history: usize,
    attributes: Vec<(String, String)>,
) -> WitCall {
    let skip = history.len().saturating_sub(max_history);
    WitCall {
        call: wit::ToolCall {
            id: request.call.id.clone(),
            name: request.call.name.clone(),
            arguments: request.call.arguments.get().to_string(),
        },
        tool: wit::ToolInfo {
            description: request.tool.description.clone(),
            risk: request.tool.risk.clone(),
            requires_approval: request.tool.requires_approval,
            tags: request.tool.tags.clone(),
            parameters_schema: request
                .tool
                .parameters_schema
                .as_ref()
                .map(|s| s.get().to_string()),
        },
        context: wit::CallContext {
            agent: request.context.agent.clone(),
            run_id: request.context.run_id.clone(),
            principal: request.context.principal.clone(),
            history: history[skip..]
                .iter()
                .map(|p| wit::PriorCall {
                    name: p.name.clone(),
                    arguments: p.arguments.get().to_string(),
                    outcome: match p.outcome {
                        Outcome::Allowed => wit::Outcome::Allowed,
                        Outcome::Denied => wit::Outcome::Denied,
                        Outcome::Escalated => wit::Outcome::Escalated,
                        Outcome::Approved => wit::Outcome::Approved,
                        Outcome::Rejected => wit::Outcome::Rejected,
                    },
                })
                .collect(),
            attributes,
        },
    }
}

#[cfg(test)]
mod tests {
    use crate::{CheckDecision, Decision, ErrorKind, Host, Policy};
    use std::path::{Path, PathBuf};

    /// The check whose runs panic inside the host (only this test module's
    /// checks are named `boom`).
    static PANIC_ANYWHERE: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

    /// Panic, as a bug in the host would, when the test asked for it.
    pub(super) fn maybe_panic(check: &str) {
        if PANIC_ANYWHERE.lock().unwrap().as_deref() == Some(check) {
            panic!("injected host bug in `{check}`");
        }
    }

    fn fixture() -> Option<PathBuf> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/hostile/hostile.wasm");
        path.exists().then_some(path)
    }

    fn policy(plugin: &Path, parallel: bool) -> Policy {
        let text = format!(
            "[host]\nparallel_checks = {parallel}\n\
             [[check]]\nname = \"boom\"\nplugin = \"{p}\"\non_error = \"allow\"\n\
             [[check]]\nname = \"calm\"\nplugin = \"{p}\"\n",
            p = plugin.display()
        );
        Policy::from_toml(&text, Path::new("t.toml"), Path::new("/")).unwrap()
    }

    /// A panic inside the host while it runs a check is the host's failure,
    /// not the plugin's: recorded as `host-error` and a deny even though
    /// the check's `on_error` is `allow` (before, a task's `JoinError` was
    /// reported as the plugin's `trap`, and a panic on the sequential path
    /// reached the caller).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panic_in_the_host_is_a_host_error_and_denies() {
        let Some(plugin) = fixture() else {
            eprintln!("skipped: build the hostile fixtures first (bash tests/hostile/build.sh)");
            return;
        };
        *PANIC_ANYWHERE.lock().unwrap() = Some("boom".into());
        for parallel in [false, true] {
            let host = Host::load(policy(&plugin, parallel)).await.unwrap();
            let call = crate::CallRequest::new("any", &serde_json::json!({})).unwrap();
            let v = host.check(&call).await;
            assert_eq!(v.decision, Decision::Deny, "parallel {parallel}: {v:?}");
            let boom = v.checks.iter().find(|o| o.check == "boom").unwrap();
            assert_eq!(boom.decision, CheckDecision::Deny);
            assert_eq!(
                boom.error.as_ref().unwrap().kind,
                ErrorKind::HostError,
                "{boom:?}"
            );
            assert!(
                boom.reason
                    .as_deref()
                    .unwrap()
                    .contains("injected host bug"),
                "{boom:?}"
            );
            // The other check ran normally.
            let calm = v.checks.iter().find(|o| o.check == "calm").unwrap();
            assert_eq!(calm.decision, CheckDecision::Allow);
        }
        *PANIC_ANYWHERE.lock().unwrap() = None;
    }
}
