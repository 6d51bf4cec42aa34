//! Loading a policy into a [`Generation`]: [`Generation::load`] validates
//! the policy, has the [`Loader`] find and compile every check's component,
//! then describes and configures (or snapshots) every check concurrently,
//! and opens the decision log and approvals, reusing what the generation
//! being replaced already has.

use crate::approval::Approvals;
use crate::audit::DecisionLog;
use crate::cache::ArtifactCache;
use crate::config::{CheckConfig, Policy};
use crate::error::{Error, LoadError, LoadErrorKind};
use crate::generation::{Generation, LoadedCheck, Ready};
use crate::instance::InstanceLimits;
use crate::loader::{CheckToLoad, Loader, PluginToLoad, Prepared};
use crate::plugin::{self, Compiled};
use crate::plugin_log::PluginLog;
use std::collections::HashMap;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Semaphore;

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
    pub(crate) async fn load(
        mut policy: Policy,
        number: u64,
        options: &crate::load_options::LoadOptions,
        previous: Option<&Generation>,
    ) -> Result<Generation, Error> {
        let provider = options.ledger_provider.as_deref();
        policy.validate()?;
        policy.refuse_tables_besides(options.front_end_tables)?;
        let loader = Arc::new(Loader::new(&policy, options.observer.clone())?);
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
        // A tool that calls another one (`use_mcp_tool`) is vetted with the
        // checks of the call it makes, whichever tool that is: all of them.
        if let Some(tool) = &options.only_tool
            && !crate::facts::FactFinder::default().wraps(tool)
        {
            policy
                .checks
                .retain(|check| may_select(check, tool, loader.cache.as_ref()));
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

        // Fresh instances start from a snapshot; a reused instance is
        // configured once anyway, unless the host serves one call
        // (`preinitialize_reused`).
        let preinitialize = |config: &CheckConfig| {
            settings.preinitialize
                && (config.isolation == crate::config::Isolation::PerCall
                    || options.preinitialize_reused)
        };
        // Find every component (in parallel), then compile the missing
        // ones one after another (see `compile_all`), from the blocking pool
        // so the caller's executor is never held. A check to snapshot runs
        // only its snapshot: its own component compiles only if no snapshot
        // can be taken.
        let compiled: Vec<Result<Prepared, LoadErrorKind>> = {
            let configs: Vec<PluginToLoad> = policy
                .checks
                .iter()
                .map(|c| PluginToLoad {
                    check: c.name.clone(),
                    path: c.plugin.clone(),
                    pin: c.sha256.clone(),
                    when_missing: if preinitialize(c) {
                        plugin::WhenMissing::Later
                    } else {
                        plugin::WhenMissing::Read
                    },
                })
                .collect();
            let count = configs.len();
            let loader = loader.clone();
            tokio::task::spawn_blocking(move || loader.compile_all(&configs, &loaded))
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
                let check = CheckToLoad {
                    plugin: config.plugin.clone(),
                    settings_json: settings_json.clone(),
                    limits: load_limits,
                    log: log.clone(),
                    may_defer,
                    preinitialize: preinitialize(config),
                };
                let task = tokio::spawn(loader.clone().initialize(compiled, check));
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
            // A policy's own `tools` says exactly where the check applies:
            // its plugin's roles and effects then route nothing more.
            let routes = match &state {
                Ok(_) if config.tools.is_some() => crate::generation::Routes::default(),
                Ok(r) => crate::generation::Routes {
                    roles: r
                        .info
                        .roles
                        .iter()
                        .map(|r| crate::facts::Role::from_wit(*r))
                        .collect(),
                    effects: crate::facts::Effects::from_wit(r.info.effects),
                },
                Err(_) => crate::generation::Routes::default(),
            };
            if let Err(e) = &state {
                errors.push(e.clone());
            }
            checks.push(LoadedCheck {
                config: config.clone(),
                name,
                log,
                tools,
                routes,
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
            engine: loader.engine,
            slots: Semaphore::new(settings.max_concurrent_checks),
            queued: AtomicUsize::new(0),
            settings: policy.host,
            checks,
            decision_log,
            approvals,
            cache: loader.cache.clone(),
            only_tool: options.only_tool.clone(),
            state_paths,
            locator: options.locator.clone(),
            caller_is_host: options.caller_is_host,
            facts: crate::facts::FactFinder::default(),
        })
    }
}

/// Whether `check` must be loaded for a call to `tool`. It is left out
/// only when the artifact cache records that this very plugin file (by its
/// stamp, and its pin if any) loaded with these settings and memory cap
/// before, so it would load now too, it routes no call by roles or
/// effects (or the policy gives its `tools`, which turns that off), and its globs (the policy's `tools`,
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
    let Some((declared, routes)) = remembered else {
        return true;
    };
    if routes && check.tools.is_none() {
        // Roles and effects are found per call: any tool may reach it.
        return true;
    }
    let globs = check.tools.as_ref().unwrap_or(&declared);
    crate::config::compile_globs(globs).map_or(true, |set| set.is_match(tool))
}

impl Loader {
    /// Snapshot one check at load (its component `prepared`, or why it
    /// failed), or describe and configure it, or defer that to its first
    /// call when its component accepted the same settings before.
    async fn initialize(
        self: Arc<Self>,
        prepared: Result<Prepared, LoadErrorKind>,
        check: CheckToLoad,
    ) -> Result<Ready, LoadErrorKind> {
        let prepared = prepared?;
        if check.preinitialize
            && let Some((info, snapshot)) =
                crate::snapshot::load_or_take(&self, &check, prepared.sha256()).await?
        {
            return Ok(Ready {
                compiled: snapshot,
                info,
                snapshot: true,
                deferred: false,
                pool: Mutex::new(Vec::new()),
            });
        }
        let compiled = match prepared {
            Prepared::Compiled(compiled) => compiled,
            Prepared::Later(found) => self.compile_later(check.log.check(), found).await?,
        };
        let cache = &self.cache;
        let key = cache.as_ref().map(|c| {
            plugin::load_key(
                c,
                &compiled.sha256,
                &check.settings_json,
                check.limits.memory_bytes,
            )
        });
        // Accepted before: the first call configures an instance, as any
        // fresh instance is configured.
        if let Some(info) = cache
            .as_ref()
            .zip(key.as_deref())
            .filter(|_| check.may_defer)
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
        let (info, instance) = plugin::initialize(
            self.engine,
            &compiled,
            &check.settings_json,
            check.limits,
            check.log,
        )
        .await?;
        if let (Some(cache), Some(key)) = (cache, &key) {
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
}
