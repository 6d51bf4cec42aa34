//! Pre-initialised checks: a check's component snapshotted after its
//! `configure(settings)` ran, so that every fresh instance starts
//! configured.
//!
//! The snapshot rewrites the component (with `component-init-transform`,
//! the pre-initialiser componentize-py uses): the configured instance's
//! linear memory becomes the component's data segments and its mutable
//! globals their initial values, and the start functions are removed. The
//! result is an ordinary component, compiled and cached like any other, so
//! wasmtime's copy-on-write memory images apply: a fresh instance maps the
//! configured memory's pages from the compiled artifact and writes its own
//! copies of the pages it dirties. Nothing of one call survives into the
//! next: every call still gets a fresh instance, now one that need not run
//! `configure`.
//!
//! What a snapshot keeps, and what it does not:
//! - the memory and mutable globals of the instance after `describe` and
//!   `configure`: parsed settings, compiled matchers, and whatever a
//!   language runtime initialised in them, **including its random-number
//!   state** — every instance of one snapshot starts with the same seed
//!   unless the runtime draws fresh randomness on use (see SECURITY.md);
//! - tables are not captured: components that change tables at run time
//!   are refused by the transform and run without a snapshot, as are
//!   components with several memories or nested components;
//! - no host resources: a `configure` that leaves WASI resources open (a
//!   stream, a pollable) is not snapshotted, since the handles would dangle
//!   in every fresh instance. Such a check runs `configure` per call, as
//!   before.
//!
//! The snapshot is taken in a store with the check's memory cap and
//! deadline (the load-time bound), on a second engine that compiles
//! without optimisations (the instrumented component runs once; its
//! compiled form is cached, so a change of settings takes a new snapshot
//! without compiling the instrumented runtime again). A
//! `configure` that loops or allocates without bound fails the load,
//! naming the check.

use crate::bindings::PluginInfo;
use crate::cache::{ArtifactCache, CacheOutcome};
use crate::error::LoadErrorKind;
use crate::instance::{InstanceLimits, LiveInstance};
use crate::loader::{CheckToLoad, Loader};
use crate::plugin::Compiled;
use crate::plugin_log::PluginLog;
use crate::progress::LoadEvent;
use crate::sandbox::StoreState;
use futures_util::FutureExt as _;
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Instant;
use wasmtime::component::{Component, Linker};

/// The transform that instruments and snapshots components, as pinned in
/// Cargo.toml: part of the cache names of what it makes, so another version
/// makes other entries.
const TRANSFORM: &str = "component-init-transform 0.3.1";

/// Why a component has no snapshot.
#[derive(Debug)]
pub(crate) enum NoSnapshot {
    /// The component cannot be pre-initialised (its shape, or resources
    /// left open by `configure`): it runs `configure` per instance.
    Unsupported(String),
    /// `describe` or `configure` failed: a load error.
    Failed(LoadErrorKind),
}

/// The engine that runs instrumented components once (the snapshot
/// engine), started on first use: the shared engine's settings without
/// optimisation and without the pooling allocator.
///
/// # Errors
/// The engine's configuration error, as text.
pub(crate) fn engine() -> Result<&'static wasmtime::Engine, String> {
    static ENGINE: OnceLock<Result<wasmtime::Engine, String>> = OnceLock::new();
    ENGINE
        .get_or_init(|| {
            let engine = wasmtime::Engine::new(&crate::engine::init_config())
                .map_err(|e| format!("{e:#}"))?;
            crate::engine::start_epoch_ticker(&engine);
            Ok(engine)
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The fingerprint of the snapshot engine's artifacts in the cache
/// ([`crate::cache::ArtifactCache::for_engine`]), from an engine of its
/// settings made for the purpose (the snapshot engine itself is not
/// started, nor its epoch ticker); `None` if such an engine cannot start.
pub(crate) fn engine_fingerprint() -> Option<String> {
    let engine = wasmtime::Engine::new(&crate::engine::init_config()).ok()?;
    Some(crate::engine::engine_fingerprint(&engine))
}

fn init_linker(engine: &wasmtime::Engine) -> Result<&'static Linker<StoreState>, String> {
    static LINKER: OnceLock<Result<Linker<StoreState>, String>> = OnceLock::new();
    LINKER
        .get_or_init(|| crate::plugin::linker(engine).map_err(|e| format!("{e:#}")))
        .as_ref()
        .map_err(Clone::clone)
}

/// The snapshot of a check whose plugin file's digest is `sha256`: what
/// `describe` said, and the snapshot component compiled and linked (its
/// `sha256` is the plugin file's, for decision records). `None` when the component cannot be snapshotted (it
/// then runs `configure` per instance); an error when `describe` or
/// `configure` failed. With a cache, the compiled snapshot and the
/// `describe` answer are kept under a key covering the plugin's digest,
/// the settings, the memory cap, the engine and the contract (see
/// [`crate::plugin::load_key`]); a later load maps them without running the
/// plugin at all.
pub(crate) async fn load_or_take(
    loader: &Loader,
    check: &CheckToLoad,
    sha256: &str,
) -> Result<Option<(PluginInfo, Compiled)>, LoadErrorKind> {
    let (engine, linker, cache) = (loader.engine, &loader.linker, loader.cache.as_ref());
    let (settings, limits) = (check.settings_json.as_str(), check.limits);
    let started = Instant::now();
    let key = cache.map(|c| {
        let load = crate::plugin::load_key(c, sha256, settings, limits.memory_bytes);
        (snapshot_name(&load), load)
    });
    // Hosts loading the same check at once (tests, a reload racing a
    // start) take its snapshot once: the others wait, then find it cached.
    let _taking = match (&key, cache) {
        (Some((name, _)), Some(cache)) => {
            let in_process = taking(name).lock_owned().await;
            // And hosts in other processes sharing the cache.
            let (cache, name) = (cache.clone(), name.clone());
            let across = tokio::task::spawn_blocking(move || cache.lock_entry(&name))
                .await
                .ok()
                .flatten();
            Some((in_process, across))
        }
        _ => None,
    };
    if let (Some(cache), Some((name, load))) = (cache, &key)
        && let Some(info) = crate::plugin::remembered_accepted(cache, load)
        && let Some(component) = cache.load(engine, name)
    {
        let compiled = crate::plugin::link(
            engine,
            linker,
            component,
            sha256.to_string(),
            CacheOutcome::Hit,
            started.elapsed(),
        )?;
        return Ok(Some((info, compiled)));
    }
    let observer = loader.observer.as_deref();
    let name = check.log.check().to_string();
    crate::progress::report(observer, || LoadEvent::SnapshotStarted {
        check: name.clone(),
    });
    let taking_started = Instant::now();
    let taken = take_and_compile(loader, check, sha256, key).await;
    crate::progress::report(observer, || LoadEvent::SnapshotFinished {
        check: name,
        elapsed: taking_started.elapsed(),
        ok: matches!(taken, Ok(Some(_))),
    });
    taken
}

/// The part of [`load_or_take`] after the cache had no snapshot: take it,
/// compile it and store it.
async fn take_and_compile(
    loader: &Loader,
    check: &CheckToLoad,
    expected: &str,
    key: Option<(String, String)>,
) -> Result<Option<(PluginInfo, Compiled)>, LoadErrorKind> {
    let (engine, linker, cache) = (loader.engine, &loader.linker, loader.cache.as_ref());
    let (plugin, settings, limits, log) = (
        &check.plugin,
        &check.settings_json,
        check.limits,
        &check.log,
    );
    let bytes = crate::plugin::read_component_again(plugin, expected)?;
    let sha256 = expected.to_string();
    // The transform's future is not `Send`: it runs on a thread of the
    // blocking pool, on a runtime of its own.
    let taken = {
        let (settings, log, cache) = (settings.to_string(), log.clone(), cache.cloned());
        tokio::task::spawn_blocking(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| NoSnapshot::Unsupported(format!("no runtime for the snapshot: {e}")))?
                .block_on(take(&bytes, &sha256, &settings, limits, log, cache))
        })
        .await
        .map_err(|e| LoadErrorKind::Host(format!("the snapshot task failed: {e}")))?
    };
    let (info, snapshot) = match taken {
        Ok(taken) => taken,
        Err(NoSnapshot::Failed(kind)) => return Err(kind),
        Err(NoSnapshot::Unsupported(why)) => {
            tracing::info!(
                check = log.check(),
                "no snapshot, `configure` runs in every fresh instance: {why}"
            );
            return Ok(None);
        }
    };
    crate::plugin::check_plugin_info(&info)?;
    crate::config::compile_globs(&info.tools)
        .map_err(|(_, m)| LoadErrorKind::BadGlob(format!("{m} in `describe().tools`")))?;
    let cached = cache.cloned();
    let name = key.as_ref().map(|(name, _)| name.clone());
    // One compile at a time in this process, as the plugins' own compiles
    // (`compile_us` is then the snapshot's own compile time).
    let (compiled_snapshot, elapsed) = tokio::task::spawn_blocking(move || {
        crate::plugin::one_compile_at_a_time(|| match (&cached, &name) {
            (Some(cache), Some(name)) => cache.compile_and_store(engine, &snapshot, name),
            _ => Component::new(engine, &snapshot).map(|c| (c, CacheOutcome::Uncached)),
        })
    })
    .await
    .map_err(|e| LoadErrorKind::Host(format!("compiling the snapshot: {e}")))?;
    let (component, outcome) =
        compiled_snapshot.map_err(|e| LoadErrorKind::Compile(format!("the snapshot: {e:#}")))?;
    if let (Some(cache), Some((_, load))) = (cache, &key) {
        crate::plugin::remember_accepted(cache, load, &info);
    }
    let compiled = crate::plugin::link(
        engine,
        linker,
        component,
        expected.to_string(),
        outcome,
        elapsed,
    )?;
    Ok(Some((info, compiled)))
}

/// The lock held while the snapshot `name` is looked up, taken and
/// stored in this process.
fn taking(name: &str) -> Arc<tokio::sync::Mutex<()>> {
    static TAKING: OnceLock<Mutex<HashMap<String, Weak<tokio::sync::Mutex<()>>>>> = OnceLock::new();
    let mut taking = TAKING
        .get_or_init(Default::default)
        .lock()
        .expect("not poisoned");
    taking.retain(|_, lock| lock.strong_count() > 0);
    if let Some(lock) = taking.get(name).and_then(Weak::upgrade) {
        return lock;
    }
    let lock = Arc::new(tokio::sync::Mutex::new(()));
    taking.insert(name.to_string(), Arc::downgrade(&lock));
    lock
}

/// The cache name of the snapshot of a load key (distinct from any
/// component's digest). The domain names the transform's version
/// ([`TRANSFORM`]): another transform makes other snapshots.
fn snapshot_name(load_key: &str) -> String {
    cache_name("snapshot", load_key)
}

/// The hex sha256 of `toolvet {kind} v1, {TRANSFORM}\0{key}`: a cache name
/// of something the transform made, for `key`.
fn cache_name(kind: &str, key: &str) -> String {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    hasher.update(format!("toolvet {kind} v1, {TRANSFORM}\0{key}").as_bytes());
    hex::encode(hasher.finalize())
}

/// The cache name of the compiled instrumented copy of the component
/// `component_sha256`.
///
/// Named for the plugin, not for the instrumented bytes: the transform's
/// output for one input differs from run to run only in order (of the
/// getters inside the module it adds, of their exports, of that module's
/// instantiation arguments: it collects them in hash maps). What it adds is
/// fixed by the input: the transform reads the instance only through
/// exports named for what they return (`component-init-get-memory`,
/// `component-init-get-module{M}-global{G}`, M and G the module's and the
/// global's indices in the input), and builds the snapshot from the
/// original component's bytes, what it found in them, and the values
/// read. So any run's instrumented copy answers this run's reads alike
/// (reviewed against the transform's source, 2026-12-07). The domain names
/// the transform's version ([`TRANSFORM`]): another version may instrument
/// differently.
fn instrumented_name(component_sha256: &str) -> String {
    cache_name("instrumented", component_sha256)
}

/// Pre-initialise `component` (the plugin file's bytes): instantiate it
/// instrumented, call `describe` and `configure(settings)` under `limits`
/// (the load-time deadline), and return what `describe` said with the
/// snapshot component's bytes. With a `cache`, the compiled instrumented
/// component is kept there ([`instrumented_name`]): it depends on the
/// component (`component_sha256`) only, so the next snapshot of the same
/// component with other settings skips the compile (8-15 s for a Python or
/// JavaScript runtime, even when the `configure` that follows fails).
pub(crate) async fn take(
    component: &[u8],
    component_sha256: &str,
    settings: &str,
    limits: InstanceLimits,
    log: PluginLog,
    cache: Option<ArtifactCache>,
) -> Result<(PluginInfo, Vec<u8>), NoSnapshot> {
    // The transform instruments what it is given without validating it
    // first: an invalid component is refused here, before it is read, and
    // is then compiled as it is (`Loader::compile_later`), whose error
    // names the check.
    wasmparser::Validator::new_with_features(wasmparser::WasmFeatures::all())
        .validate_all(component)
        .map_err(|e| NoSnapshot::Unsupported(format!("not a valid component: {e}")))?;
    let engine = engine().map_err(|e| NoSnapshot::Unsupported(format!("no engine: {e}")))?;
    let cache = cache.map(|c| (c.for_engine(engine), instrumented_name(component_sha256)));
    let linker =
        init_linker(engine).map_err(|e| NoSnapshot::Unsupported(format!("no linker: {e}")))?;
    // What went wrong inside the initialiser, typed (the transform carries
    // only `anyhow` errors).
    let outcome: Arc<Mutex<Option<Result<PluginInfo, NoSnapshot>>>> = Arc::default();
    let initialise = {
        let (outcome, settings) = (outcome.clone(), settings.to_string());
        move |instrumented: Vec<u8>| {
            async move {
                let result =
                    configured(engine, linker, instrumented, &settings, limits, log, cache).await;
                let (answer, invoker) = match result {
                    Ok((info, instance)) => (Ok(info), Some(instance)),
                    Err(e) => (Err(e), None),
                };
                let failed = answer.is_err();
                *outcome.lock().expect("not poisoned") = Some(answer);
                match invoker {
                    Some(instance) => {
                        Ok(Box::new(Measure(instance))
                            as Box<dyn component_init_transform::Invoker>)
                    }
                    None => {
                        debug_assert!(failed);
                        Err(anyhow::anyhow!("the component was not initialised"))
                    }
                }
            }
            .boxed()
        }
    };
    let transformed = AssertUnwindSafe(component_init_transform::initialize(component, initialise))
        .catch_unwind()
        .await;
    let recorded = outcome.lock().expect("not poisoned").take();
    match (transformed, recorded) {
        (Ok(Ok(bytes)), Some(Ok(info))) => Ok((info, bytes)),
        // describe/configure failed, or left resources open.
        (_, Some(Err(why))) => Err(why),
        // The transform refused the component's shape (before or after
        // running it).
        (Ok(Err(e)), _) => Err(NoSnapshot::Unsupported(format!("{e:#}"))),
        (Ok(Ok(_)), None) => Err(NoSnapshot::Unsupported(
            "the initialiser did not run".into(),
        )),
        (Err(panic), _) => Err(NoSnapshot::Unsupported(format!(
            "the pre-initialiser failed: {}",
            crate::text::panic_message(&panic)
        ))),
    }
}

/// Compile the instrumented component (or load it from `cache`),
/// instantiate it, `describe` and `configure` it, and check it holds no
/// host resources.
async fn configured(
    engine: &'static wasmtime::Engine,
    linker: &'static Linker<StoreState>,
    instrumented: Vec<u8>,
    settings: &str,
    limits: InstanceLimits,
    log: PluginLog,
    cache: Option<(ArtifactCache, String)>,
) -> Result<(PluginInfo, LiveInstance), NoSnapshot> {
    let component = tokio::task::spawn_blocking(move || match &cache {
        Some((cache, name)) => cache
            .load_or_compile(engine, name, &instrumented)
            .map(|(c, _)| c),
        None => Component::new(engine, &instrumented),
    })
    .await
    .map_err(|e| NoSnapshot::Unsupported(format!("compiling the instrumented component: {e}")))?
    .map_err(|e| NoSnapshot::Unsupported(format!("compiling the instrumented component: {e:#}")))?;
    let pre = crate::plugin::prepare(engine, linker, &component).map_err(NoSnapshot::Failed)?;
    let (info, instance) =
        crate::plugin::describe_and_configure(engine, &pre, settings, limits, log)
            .await
            .map_err(NoSnapshot::Failed)?;
    if !instance.holds_no_resources() {
        return Err(NoSnapshot::Unsupported(
            "`configure` left host resources open (streams or pollables), which a snapshot cannot keep".into(),
        ));
    }
    Ok((info, instance))
}

/// Reads the instrumented instance's memory and globals for the
/// transform.
struct Measure(LiveInstance);

#[async_trait::async_trait]
impl component_init_transform::Invoker for Measure {
    async fn call_s32(&mut self, function: &str) -> anyhow::Result<i32> {
        Ok(self.0.call_getter::<(i32,)>(function).await?.0)
    }
    async fn call_s64(&mut self, function: &str) -> anyhow::Result<i64> {
        Ok(self.0.call_getter::<(i64,)>(function).await?.0)
    }
    async fn call_f32(&mut self, function: &str) -> anyhow::Result<f32> {
        Ok(self.0.call_getter::<(f32,)>(function).await?.0)
    }
    async fn call_f64(&mut self, function: &str) -> anyhow::Result<f64> {
        Ok(self.0.call_getter::<(f64,)>(function).await?.0)
    }
    async fn call_list_u8(&mut self, function: &str) -> anyhow::Result<Vec<u8>> {
        Ok(self.0.call_getter::<(Vec<u8>,)>(function).await?.0)
    }
}

#[cfg(test)]
mod tests {
    /// Snapshot names are what they were before the instrumented copies
    /// had names too (so no cache's snapshots are taken again).
    #[test]
    fn snapshot_names_are_unchanged() {
        use sha2::Digest;
        let before = hex::encode(sha2::Sha256::digest(
            b"toolvet snapshot v1, component-init-transform 0.3.1\0key",
        ));
        assert_eq!(super::snapshot_name("key"), before);
        assert_ne!(super::cache_name("instrumented", "key"), before);
    }

    /// A component that does not validate is refused before the
    /// transform reads it (it would instrument it unvalidated), as a
    /// component that cannot be snapshotted: the loader then compiles it
    /// as it is, and that error names the check.
    #[tokio::test]
    async fn an_invalid_component_is_refused_before_the_transform_reads_it() {
        // A component's preamble, then a core module section whose length
        // runs past the end of the file.
        let bytes = b"\0asm\x0d\0\x01\0\x01\xff\x01\0asm";
        let limits = crate::instance::InstanceLimits {
            timeout: std::time::Duration::from_secs(5),
            deadline: None,
            memory_bytes: 64 << 20,
            log_bytes: 4096,
            result_bytes: 1 << 20,
        };
        let log = crate::plugin_log::PluginLog::new("broken".into());
        match super::take(bytes, "00", "{}", limits, log, None).await {
            Err(super::NoSnapshot::Unsupported(why)) => {
                assert!(why.starts_with("not a valid component: "), "{why}")
            }
            Err(super::NoSnapshot::Failed(e)) => panic!("{e:?}"),
            Ok(_) => panic!("a snapshot of an invalid component"),
        }
    }

    /// The validator is the parser the transform reads components with:
    /// the version Cargo.toml pins is the one the transform depends on in
    /// Cargo.lock.
    #[test]
    fn the_validator_is_the_transforms_parser() {
        let manifest = include_str!("../../../Cargo.toml");
        let lock = include_str!("../../../Cargo.lock");
        let pinned = manifest
            .lines()
            .find_map(|l| l.trim().strip_prefix("wasmparser = \"="))
            .and_then(|rest| rest.strip_suffix('"'))
            .expect("Cargo.toml pins wasmparser");
        let (name, _) = super::TRANSFORM.split_once(' ').unwrap();
        let transform = lock
            .split("[[package]]")
            .find(|p| p.contains(&format!("name = \"{name}\"")))
            .expect("the transform is in Cargo.lock");
        assert!(
            transform.contains(&format!("\"wasmparser {pinned}\""))
                || transform.contains("\"wasmparser\""),
            "{transform}"
        );
    }

    /// [`super::TRANSFORM`] names the version Cargo.toml pins.
    #[test]
    fn the_transform_named_in_cache_names_is_the_one_pinned() {
        let manifest = include_str!("../../../Cargo.toml");
        let (name, version) = super::TRANSFORM.split_once(' ').unwrap();
        let pin = format!("{name} = \"={version}\"");
        assert!(
            manifest.lines().any(|l| l.trim() == pin),
            "Cargo.toml pins {pin}"
        );
    }
}
