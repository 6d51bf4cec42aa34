//! The host: loaded checks, and the evaluation of one call into a verdict.
//!
//! Data flows one way: [`Policy`] → [`Host::load`] (loaded checks) →
//! [`Host::check`] (select, run, combine) → [`Verdict`] → decision log.

use crate::audit::DecisionLog;
use crate::bindings::{PluginInfo, wit};
use crate::cache::{ArtifactCache, CacheOutcome};
use crate::call::{CallRequest, Outcome};
use crate::config::{CheckConfig, HostSettings, Isolation, OnError, Policy};
use crate::error::{Error, LoadError, LoadErrorKind};
use crate::instance::{Failure, InstanceLimits, LiveInstance, WitCall};
use crate::plugin::{self, Compiled};
use crate::sandbox::StoreState;
use crate::verdict::{CheckError, CheckOutcome, Decision, ErrorKind, Verdict, combine};
use globset::GlobSet;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use wasmtime::Engine;
use wasmtime::component::Linker;

/// Loaded checks ready to vet calls. Cheap to clone (shared state); safe to
/// use from many tasks at once.
#[derive(Clone)]
pub struct Host {
    inner: Arc<Inner>,
}

struct Inner {
    engine: &'static Engine,
    settings: HostSettings,
    checks: Vec<LoadedCheck>,
    slots: Semaphore,
    queued: AtomicUsize,
    decision_log: Option<DecisionLog>,
    policy_sha256: String,
    cache: Option<ArtifactCache>,
}

/// One configured check after loading.
struct LoadedCheck {
    config: CheckConfig,
    name: Arc<str>,
    tools: GlobSet,
    settings_json: String,
    limits: InstanceLimits,
    state: Result<Ready, LoadError>,
}

struct Ready {
    compiled: Compiled,
    info: PluginInfo,
    /// `describe` and `configure` were skipped at load: this component
    /// accepted these settings before (a record in the artifact cache).
    deferred: bool,
    /// Configured instances ready for a call. With `isolation = "reuse"`,
    /// warm instances returned after their calls (at most
    /// `reuse_pool_size`); with per-call isolation, only the instance
    /// configured at load time, which has seen no call and serves the
    /// first one.
    pool: Mutex<Vec<LiveInstance>>,
}

/// What the host knows about one configured check, for `toolvet` commands
/// and embedders.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CheckSummary {
    /// The check's name.
    pub name: String,
    /// Plugin file.
    pub plugin: std::path::PathBuf,
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
    /// Read + compile (or cache load) time, in µs.
    pub compile_us: Option<u64>,
    /// Whether `describe` and `configure` were skipped at load because the
    /// artifact cache records that this component accepted these settings
    /// (and this memory cap) before; `describe`'s answer comes from that
    /// record and the first call configures an instance.
    pub deferred: Option<bool>,
    /// The load error, for a broken check (`continue_on_errors`).
    pub load_error: Option<String>,
}

impl Host {
    /// Load every check of the policy file at `path`.
    ///
    /// # Errors
    /// As [`Host::load`], plus [`Error::Config`] for the file itself.
    pub async fn from_file(path: &Path) -> Result<Host, Error> {
        Host::load(Policy::from_file(path)?).await
    }

    /// Load every check of `policy`: components compile in parallel (or
    /// come from the artifact cache), then each is described and configured
    /// (concurrently). A check whose component accepted the same settings
    /// and memory cap at an earlier load (recorded in the artifact cache)
    /// is not instantiated now: its recorded `describe` answer is used and
    /// its first call configures an instance (within that call's
    /// `timeout_ms`), so a one-shot process pays only for the checks the
    /// call selects. Should that configure fail after all, the call gets
    /// the check's `on_error` decision; checks with `on_error = "allow"`
    /// are therefore always configured at load.
    ///
    /// # Errors
    /// [`Error::Config`] for a policy that fails [`Policy::validate`];
    /// [`Error::Load`] listing every check that failed to load, unless
    /// `continue_on_errors` is set (broken checks then answer their
    /// `on_error` decision on every call); [`Error::Engine`] if wasmtime
    /// cannot start.
    pub async fn load(policy: Policy) -> Result<Host, Error> {
        policy.validate()?;
        let engine = crate::engine::shared_engine().map_err(Error::Engine)?;
        let linker = plugin::linker(engine).map_err(|e| Error::Engine(format!("{e:#}")))?;
        let cache = open_cache(&policy, engine);
        let settings = &policy.host;

        // Compile in parallel on OS threads: compilation is CPU-bound.
        let compiled: Vec<Result<Compiled, LoadErrorKind>> = std::thread::scope(|scope| {
            let handles: Vec<_> = policy
                .checks
                .iter()
                .map(|c| {
                    let (linker, cache) = (&linker, cache.as_ref());
                    scope.spawn(move || {
                        plugin::compile_plugin(
                            engine,
                            linker,
                            cache,
                            &c.plugin,
                            c.sha256.as_deref(),
                        )
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("compile thread panicked"))
                .collect()
        });

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
                };
                // A check whose failures are let through (`on_error =
                // "allow"`) is always configured at load, so broken settings
                // fail the load instead of abstaining on every call.
                let may_defer = config.on_error != OnError::Allow;
                let task = tokio::spawn({
                    let (name, settings_json) = (name.clone(), settings_json.clone());
                    let cache = cache.clone();
                    async move {
                        let compiled = compiled?;
                        let key = cache.as_ref().map(|c| {
                            plugin::load_key(
                                c,
                                &compiled.sha256,
                                &settings_json,
                                limits.memory_bytes,
                            )
                        });
                        // Accepted before: the first call configures an
                        // instance, as any fresh instance is configured.
                        if let Some(info) = cache
                            .as_ref()
                            .zip(key.as_deref())
                            .filter(|_| may_defer)
                            .and_then(|(c, key)| plugin::remembered_accepted(c, key))
                        {
                            return Ok(Ready {
                                compiled,
                                info,
                                deferred: true,
                                pool: Mutex::new(Vec::new()),
                            });
                        }
                        let (info, instance) =
                            plugin::initialize(engine, &compiled, &settings_json, limits, name)
                                .await?;
                        if let (Some(cache), Some(key)) = (&cache, &key) {
                            plugin::remember_accepted(cache, key, &info);
                        }
                        Ok(Ready {
                            compiled,
                            info,
                            deferred: false,
                            pool: Mutex::new(vec![instance]),
                        })
                    }
                });
                (name, settings_json, limits, task)
            })
            .collect();

        let mut checks = Vec::with_capacity(policy.checks.len());
        let mut errors = Vec::new();
        for (config, (name, settings_json, limits, task)) in policy.checks.iter().zip(initializing)
        {
            let state: Result<Ready, LoadErrorKind> = task.await.unwrap_or_else(|e| {
                Err(LoadErrorKind::Failed {
                    export: "configure",
                    message: format!("the loading task failed: {e}"),
                })
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
                (None, Ok(r)) => r.info.tools.clone(),
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
        let decision_log = match &settings.decision_log {
            Some(path) => Some(DecisionLog::open(path).map_err(|e| {
                Error::Config(crate::error::ConfigError::Invalid {
                    path: policy.source.clone(),
                    line: 0,
                    message: format!("[host] `decision_log` {}: {e}", path.display()),
                })
            })?),
            None => None,
        };
        let policy_sha256 = std::fs::read(&policy.source)
            .map(|b| hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&b)))
            .unwrap_or_default();
        Ok(Host {
            inner: Arc::new(Inner {
                engine,
                slots: Semaphore::new(settings.max_concurrent_checks),
                queued: AtomicUsize::new(0),
                settings: policy.host,
                checks,
                decision_log,
                policy_sha256,
                cache,
            }),
        })
    }

    /// One summary per configured check, in policy order.
    pub fn checks(&self) -> Vec<CheckSummary> {
        self.inner
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
                    load_error: c.state.as_ref().err().map(|e| e.to_string()),
                }
            })
            .collect()
    }

    /// The host settings in force.
    pub fn settings(&self) -> &HostSettings {
        &self.inner.settings
    }

    /// The compiled-artifact cache the checks loaded through, if it was
    /// usable; its [`ArtifactCache::entries_in_use`] are what this policy
    /// needs to start from the cache again (`toolvet cache prune`).
    pub fn artifact_cache(&self) -> Option<&ArtifactCache> {
        self.inner.cache.as_ref()
    }

    /// Vet one call: run every check whose tool globs match the tool name,
    /// then combine. Never fails: a check that fails answers its `on_error`
    /// decision, recorded with the error kind. Calls whose arguments exceed
    /// `max_arguments_bytes`, or whose whole text exceeds `max_call_bytes`,
    /// are denied (rule `toolvet.oversized-call`) before any check runs.
    ///
    /// # Panics
    /// Outside a Tokio runtime (it uses Tokio's timer). Plugin code runs on
    /// the calling task's thread; a spinning check holds it for at most its
    /// deadline.
    pub async fn check(&self, request: &CallRequest) -> Verdict {
        let started = Instant::now();
        let inner = &self.inner;
        let arguments = request.call.arguments.get().len();
        let whole = request.size_bytes();
        let refusal = if arguments > inner.settings.max_arguments_bytes {
            Some(format!(
                "the call's arguments are {arguments} bytes, over the host's {}-byte limit",
                inner.settings.max_arguments_bytes
            ))
        } else if whole > inner.settings.max_call_bytes {
            Some(format!(
                "the call (arguments, tool info, context and history) is {whole} bytes, \
                 over the host's {}-byte limit",
                inner.settings.max_call_bytes
            ))
        } else {
            None
        };
        if let Some(message) = refusal {
            let verdict = oversized_call(message, started);
            self.record(request, &verdict);
            return verdict;
        }
        let wit_call = Arc::new(to_wit(request, inner.settings.max_history));
        let applicable: Vec<usize> = inner
            .checks
            .iter()
            .enumerate()
            .filter(|(_, c)| c.tools.is_match(&request.call.name))
            .map(|(i, _)| i)
            .collect();
        let outcomes = if inner.settings.parallel_checks && applicable.len() > 1 {
            let tasks: Vec<_> = applicable
                .iter()
                .map(|&i| {
                    let (inner, call) = (self.inner.clone(), wit_call.clone());
                    tokio::spawn(async move { inner.run_check(i, &call).await })
                })
                .collect();
            let mut outcomes = Vec::with_capacity(tasks.len());
            for (task, &i) in tasks.into_iter().zip(&applicable) {
                outcomes.push(match task.await {
                    Ok(outcome) => outcome,
                    Err(e) => inner.failed_outcome(
                        i,
                        Failure {
                            kind: ErrorKind::Trap,
                            message: format!("check task failed: {e}"),
                        },
                        0,
                    ),
                });
            }
            outcomes
        } else {
            let mut outcomes = Vec::with_capacity(applicable.len());
            for &i in &applicable {
                outcomes.push(inner.run_check(i, &wit_call).await);
            }
            outcomes
        };
        let verdict = combine(
            outcomes,
            inner.settings.default_decision,
            started.elapsed().as_micros() as u64,
        );
        self.record(request, &verdict);
        verdict
    }

    fn record(&self, request: &CallRequest, verdict: &Verdict) {
        let tool = request.call.name.as_str();
        match verdict.decision {
            Decision::Deny => {
                tracing::info!(target: "tool.denied", tool, rule = verdict.rule.as_deref(), reason = verdict.reason.as_deref(), "denied")
            }
            Decision::Escalate => {
                tracing::info!(target: "tool.escalated", tool, rule = verdict.rule.as_deref(), reason = verdict.reason.as_deref(), "escalated")
            }
            _ => tracing::debug!(target: "tool.allowed", tool, "allowed"),
        }
        if let Some(log) = &self.inner.decision_log {
            let digests: Vec<Option<&str>> = verdict
                .checks
                .iter()
                .map(|o| {
                    self.inner
                        .checks
                        .iter()
                        .find(|c| c.config.name == o.check)
                        .and_then(|c| c.state.as_ref().ok())
                        .map(|r| r.compiled.sha256.as_str())
                })
                .collect();
            if let Err(e) = log.append(request, verdict, &digests, &self.inner.policy_sha256) {
                tracing::error!("cannot write the decision log: {e}");
            }
        }
    }
}

impl Inner {
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

        let result = self.run_instance(check, ready, call, started).await;
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
        // One budget for admission + instantiate + configure + check.
        let limits = InstanceLimits {
            deadline: Some(started + check.limits.timeout),
            ..check.limits
        };
        let reuse = check.config.isolation == Isolation::Reuse;
        let ready_instance = ready.pool.lock().expect("pool lock").pop();
        let mut instance = match ready_instance {
            Some(instance) => instance,
            None => {
                let mut instance =
                    LiveInstance::new(self.engine, &ready.compiled.pre, limits, check.name.clone())
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
        if reuse {
            let mut pool = ready.pool.lock().expect("pool lock");
            if pool.len() < self.settings.reuse_pool_size {
                pool.push(instance);
            }
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
            wit::Decision::Allow => (Decision::Allow, None),
            wit::Decision::Abstain => (Decision::Abstain, None),
            wit::Decision::Deny(r) => (Decision::Deny, Some(r)),
            wit::Decision::Escalate(r) => (Decision::Escalate, Some(r)),
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
        tracing::warn!(check = %check.name, kind = failure.kind.as_str(), "{}", failure.message);
        // `on_error = "allow"` lets the call through as far as this check
        // is concerned: it abstains, so the other checks and
        // `default_decision` still decide (a broken check never turns a
        // default deny into an allow).
        let decision = match check.config.on_error {
            OnError::Allow => Decision::Abstain,
            other => Decision::from(other),
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
        decision: Decision,
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

/// Cut `s` to at most `max` bytes at a character boundary, marking the cut.
pub(crate) fn truncate(mut s: String, max: usize) -> String {
    if s.len() <= max {
        return s;
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.truncate(end);
    s.push('…');
    s
}

fn oversized_call(message: String, started: Instant) -> Verdict {
    Verdict {
        decision: Decision::Deny,
        decided_by: None,
        rule: Some(format!("toolvet.{}", ErrorKind::OversizedCall.as_str())),
        reason: Some(message),
        checks: Vec::new(),
        duration_us: started.elapsed().as_micros() as u64,
    }
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
/// `max_history` entries of the history.
fn to_wit(request: &CallRequest, max_history: usize) -> WitCall {
    let history = &request.context.history;
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
            attributes: request
                .context
                .attributes
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        },
    }
}

// `StoreState` must stay `Send` so checks can run on any runtime thread.
const _: fn() = || {
    fn assert_send<T: Send>() {}
    assert_send::<StoreState>();
    assert_send::<Linker<StoreState>>();
};

#[cfg(test)]
mod tests {
    use super::truncate;

    #[test]
    fn truncate_respects_char_boundaries() {
        assert_eq!(truncate("short".into(), 10), "short");
        let cut = truncate("ééééé".into(), 6);
        assert!(cut.len() <= 6 && cut.ends_with('…'), "{cut}");
    }
}
