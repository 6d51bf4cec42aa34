//! The loading environment (the [`Loader`]): the engine, the linker, the
//! compiled-artifact cache and the observer one load works with, in the
//! spirit of wasmtime's `CodeBuilder` or Kubewarden's
//! `EvaluationEnvironmentBuilder`; and its first step, finding and
//! compiling every check's component ([`Loader::compile_all`]).
//!
//! `loading.rs` drives a load with it; `snapshot.rs` snapshots a check with
//! it.

use crate::cache::ArtifactCache;
use crate::config::Policy;
use crate::error::{Error, LoadErrorKind};
use crate::instance::InstanceLimits;
use crate::plugin::{self, Compiled};
use crate::plugin_log::PluginLog;
use crate::progress::{LoadEvent, LoadObserver};
use crate::sandbox::StoreState;
use crate::text::panic_message;
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use wasmtime::Engine;
use wasmtime::component::Linker;

/// What every step of one load works with.
pub(crate) struct Loader {
    /// The engine components are compiled for and instances run on.
    pub engine: &'static Engine,
    /// The host's imports (WASI and the `toolvet:check` host side).
    pub linker: Linker<StoreState>,
    /// Where compiled components, snapshots and accepted settings are
    /// kept; `None` when the policy has no cache or it is unusable.
    pub cache: Option<ArtifactCache>,
    /// Who hears of long steps (compiles, snapshots).
    pub observer: Option<Arc<dyn LoadObserver>>,
}

/// One check's plugin file, for [`Loader::compile_all`].
pub(crate) struct PluginToLoad {
    /// The check's name, for the observer.
    pub check: String,
    /// The plugin file.
    pub path: PathBuf,
    /// The pinned SHA-256 (hex), if the policy gives one.
    pub pin: Option<String>,
    /// Whether its component is mapped or compiled now
    /// ([`plugin::WhenMissing::Read`]) or only if needed
    /// ([`plugin::WhenMissing::Later`], for a check that will be
    /// snapshotted).
    pub when_missing: plugin::WhenMissing,
}

/// A check's component after [`Loader::compile_all`].
pub(crate) enum Prepared {
    /// Compiled (or found compiled) and linked.
    Compiled(Compiled),
    /// Left for later ([`plugin::WhenMissing::Later`]):
    /// [`Loader::compile_later`] maps or compiles it if no snapshot can be
    /// taken.
    Later(plugin::Found),
}

impl Prepared {
    /// The plugin file's hex sha256.
    pub(crate) fn sha256(&self) -> &str {
        match self {
            Prepared::Compiled(compiled) => &compiled.sha256,
            Prepared::Later(found) => &found.sha256,
        }
    }
}

/// One check to describe and configure (or snapshot) at load, once its
/// component is compiled.
pub(crate) struct CheckToLoad {
    /// Its plugin file (read again to snapshot it).
    pub plugin: PathBuf,
    /// Its settings, as the JSON text `configure` receives.
    pub settings_json: String,
    /// The load-time bounds of `describe` and `configure`.
    pub limits: InstanceLimits,
    /// Where its plugin's output goes.
    pub log: PluginLog,
    /// `describe` and `configure` may wait for the first call when the
    /// cache records that the component accepted these settings before.
    pub may_defer: bool,
    /// Snapshot the component after `configure`, so fresh instances start
    /// configured.
    pub preinitialize: bool,
}

impl Loader {
    /// The environment for loading `policy`: the shared engine, a linker
    /// for it, and the policy's artifact cache when it opens (a cache that
    /// does not is warned about and left out). Fails only when the engine
    /// or the linker cannot be made.
    pub(crate) fn new(
        policy: &Policy,
        observer: Option<Arc<dyn LoadObserver>>,
    ) -> Result<Loader, Error> {
        let engine = crate::engine::shared_engine().map_err(Error::Engine)?;
        let linker = plugin::linker(engine).map_err(|e| Error::Engine(format!("{e:#}")))?;
        let cache = open_cache(policy, engine);
        Ok(Loader {
            engine,
            linker,
            cache,
            observer,
        })
    }

    /// Every check's component, linked (`loaded`: the components of the
    /// policy being replaced, by digest): first each plugin file is found (read,
    /// pinned, looked up in the cache and in `loaded`) in
    /// parallel, one thread each; then the components found nowhere compile
    /// one after another, each on all cores (wasmtime compiles a component's
    /// functions in parallel), so each check's compile time is its own,
    /// except those its [`PluginToLoad::when_missing`] leaves for later
    /// ([`Prepared::Later`]). The observer hears of the compiles.
    pub(crate) fn compile_all(
        &self,
        configs: &[PluginToLoad],
        loaded: &HashMap<String, Compiled>,
    ) -> Vec<Result<Prepared, LoadErrorKind>> {
        let (engine, linker, cache) = (self.engine, &self.linker, self.cache.as_ref());
        let observer = self.observer.as_deref();
        /// Where one check's component is after the first step.
        enum Step {
            Done(Result<Prepared, LoadErrorKind>),
            ToCompile(plugin::Found),
        }
        let finish = |found| plugin::finish(engine, linker, cache, found).map(Prepared::Compiled);
        let reuse = |sha256: &str| loaded.get(sha256).cloned();
        // Find each plugin, and link those that need no compiling.
        let mut steps: Vec<Step> = std::thread::scope(|scope| {
            let handles: Vec<_> = configs
                .iter()
                .map(|config| {
                    let (reuse, finish) = (&reuse, &finish);
                    scope.spawn(move || {
                        match plugin::find(
                            engine,
                            cache,
                            &config.path,
                            config.pin.as_deref(),
                            reuse,
                            config.when_missing,
                        ) {
                            Ok(found) => match found.state {
                                plugin::FoundState::Missing { .. } => Step::ToCompile(found),
                                plugin::FoundState::Later { .. } => {
                                    Step::Done(Ok(Prepared::Later(found)))
                                }
                                _ => Step::Done(finish(found)),
                            },
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
                let result = result.map(Prepared::Compiled);
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

    /// Map (from the cache) or compile, and link, a component
    /// [`Loader::compile_all`] left for later
    /// (`check`'s, whose snapshot could not be taken), from the blocking
    /// pool; the observer does not hear of it (a component the snapshot
    /// transform refuses: no shipped check).
    pub(crate) async fn compile_later(
        self: &Arc<Self>,
        check: &str,
        found: plugin::Found,
    ) -> Result<Compiled, LoadErrorKind> {
        tracing::info!(
            check,
            "compiling its component: no snapshot of it could be taken"
        );
        let loader = self.clone();
        tokio::task::spawn_blocking(move || {
            std::panic::catch_unwind(AssertUnwindSafe(|| {
                plugin::finish(loader.engine, &loader.linker, loader.cache.as_ref(), found)
            }))
            .unwrap_or_else(|p| Err(panicked(p)))
        })
        .await
        .unwrap_or_else(|e| Err(LoadErrorKind::Host(format!("the compile task failed: {e}"))))
    }
}

/// The load error of a compile that panicked.
fn panicked(panic: Box<dyn std::any::Any + Send>) -> LoadErrorKind {
    LoadErrorKind::Host(format!("compiling panicked: {}", panic_message(&panic)))
}

/// The policy's artifact cache ([`ArtifactCache::dir_for`]), when it
/// opens.
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
