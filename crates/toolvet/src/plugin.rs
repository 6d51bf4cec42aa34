//! Loading a plugin file into a ready-to-run check: read, verify the pin,
//! compile (or load from the artifact cache), link, pre-instantiate,
//! `describe`, `configure`.

use crate::bindings::{CONTRACT_VERSION, Linked, PluginInfo};
use crate::cache::{ACCEPTED_RECORD, ArtifactCache, CacheOutcome, FileStamp};
use crate::error::LoadErrorKind;
use crate::instance::{InstanceLimits, LiveInstance};
use crate::plugin_log::PluginLog;
use crate::sandbox::StoreState;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wasmtime::Engine;
use wasmtime::component::{Component, Linker};

/// The linker every plugin is instantiated with: WASI 0.2 (sandboxed by
/// [`StoreState`]) and the `toolvet:check/host` import.
pub(crate) fn linker(engine: &Engine) -> wasmtime::Result<Linker<StoreState>> {
    let mut linker = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
    crate::bindings::add_to_linker(&mut linker, |s| s)?;
    Ok(linker)
}

/// Largest plugin file accepted, in bytes (Python and JavaScript
/// components are 12-20 MiB).
pub(crate) const MAX_PLUGIN_BYTES: u64 = 256 << 20;

/// Open `path` and check it is a regular file within [`MAX_PLUGIN_BYTES`].
/// Returns the open file and its length in bytes. The file is opened
/// without blocking, so a FIFO or a device in its place is refused instead
/// of hanging the load.
fn open_component(path: &Path) -> Result<(File, std::fs::Metadata), LoadErrorKind> {
    let read = |e: std::io::Error| LoadErrorKind::Read(Arc::new(e));
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut options,
        rustix::fs::OFlags::NONBLOCK.bits() as i32,
    );
    let file = options.open(path).map_err(read)?;
    let meta = file.metadata().map_err(read)?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file (a FIFO, socket or device)"
        };
        return Err(LoadErrorKind::NotAFile(what.into()));
    }
    if meta.len() > MAX_PLUGIN_BYTES {
        return Err(LoadErrorKind::NotAFile(format!(
            "{} bytes, over the {MAX_PLUGIN_BYTES}-byte limit for a plugin",
            meta.len()
        )));
    }
    Ok((file, meta))
}

/// Read an open plugin file and check it is a component (not empty, not
/// another format, not a core module). Returns the bytes and their hex
/// sha256.
fn read_open_component(file: &File, len: u64) -> Result<(Vec<u8>, String), LoadErrorKind> {
    let bytes =
        crate::cache::read_open_file(file, len).map_err(|e| LoadErrorKind::Read(Arc::new(e)))?;
    if bytes.is_empty() {
        return Err(LoadErrorKind::NotAComponent("the file is empty".into()));
    }
    if !bytes.starts_with(b"\0asm") || bytes.len() < 8 {
        return Err(LoadErrorKind::NotAComponent(
            "the file does not start with the WebAssembly magic bytes `\\0asm`".into(),
        ));
    }
    // Bytes 4..8: version 1 + layer 0 is a core module; layer 1 a component.
    if bytes[4..8] == [1, 0, 0, 0] {
        return Err(LoadErrorKind::NotAComponent(
            "this is a core WebAssembly module; toolvet needs a component \
             (build for wasm32-wasip2, or wrap with `wasm-tools component new`)"
                .into(),
        ));
    }
    let sha256 = hex::encode(Sha256::digest(&bytes));
    Ok((bytes, sha256))
}

/// Read `path` and check it is a component. Returns the bytes and their hex
/// sha256.
pub(crate) fn read_component(path: &Path) -> Result<(Vec<u8>, String), LoadErrorKind> {
    let (file, meta) = open_component(path)?;
    read_open_component(&file, meta.len())
}

/// The bytes of the plugin file at `path`, found earlier with the digest
/// `expected` (hex sha256): a file changed since is a load error
/// ([`LoadErrorKind::Changed`]).
pub(crate) fn read_component_again(path: &Path, expected: &str) -> Result<Vec<u8>, LoadErrorKind> {
    let (bytes, actual) = read_component(path)?;
    if actual != expected {
        return Err(LoadErrorKind::Changed {
            expected: expected.to_string(),
            actual,
        });
    }
    Ok(bytes)
}

fn compile_error(e: wasmtime::Error) -> LoadErrorKind {
    LoadErrorKind::Compile(format!("{e:#}"))
}

/// Names of a component's imports and exports.
#[cfg(feature = "inspect")]
pub(crate) fn interface_names(
    engine: &Engine,
    component: &Component,
) -> (Vec<String>, Vec<String>) {
    let ty = component.component_type();
    (
        ty.imports(engine).map(|(n, _)| n.to_string()).collect(),
        ty.exports(engine).map(|(n, _)| n.to_string()).collect(),
    )
}

/// Link and pre-instantiate a component, explaining contract mismatches.
pub(crate) fn prepare(
    engine: &Engine,
    linker: &Linker<StoreState>,
    component: &Component,
) -> Result<Linked<StoreState>, LoadErrorKind> {
    let (line, vets_results) = crate::contract::read_contract(engine, component)?;
    let pre = linker
        .instantiate_pre(component)
        .map_err(|e| LoadErrorKind::Incompatible(format!("{e:#}")))?;
    crate::contract::typecheck_exports(component, &pre, line, vets_results)?;
    Linked::new(pre, line, vets_results).map_err(|e| LoadErrorKind::Incompatible(format!("{e:#}")))
}

/// Bounds on what `describe` may return: name and version (bytes), the
/// description (bytes), the number of tool globs and the length of each.
const MAX_INFO_NAME: usize = 128;
const MAX_INFO_DESCRIPTION: usize = 4096;
const MAX_INFO_TOOLS: usize = 256;
const MAX_INFO_TOOL: usize = 256;

/// Refuse a `describe` result that is absurdly large: a plugin cannot make
/// the host keep megabytes of metadata or compile a million globs.
pub(crate) fn check_plugin_info(info: &PluginInfo) -> Result<(), LoadErrorKind> {
    let too_big = |what: &str, limit: usize| LoadErrorKind::Failed {
        export: "describe",
        message: format!("returned an oversized result: {what} over {limit}"),
    };
    if info.name.len() > MAX_INFO_NAME || info.version.len() > MAX_INFO_NAME {
        return Err(too_big("name or version", MAX_INFO_NAME));
    }
    if info.description.len() > MAX_INFO_DESCRIPTION {
        return Err(too_big("description", MAX_INFO_DESCRIPTION));
    }
    if info.tools.len() > MAX_INFO_TOOLS {
        return Err(too_big("number of tool globs", MAX_INFO_TOOLS));
    }
    if info.tools.iter().any(|t| t.len() > MAX_INFO_TOOL) {
        return Err(too_big("tool glob length", MAX_INFO_TOOL));
    }
    Ok(())
}

/// Longest `configure` error message kept, in bytes: the plugin writes it,
/// so it is cut before it reaches load errors and logs.
const MAX_SETTINGS_ERROR: usize = 4096;

/// A component compiled and linked, not yet initialised.
#[derive(Clone)]
pub(crate) struct Compiled {
    pub pre: Linked<StoreState>,
    pub sha256: String,
    pub cache: CacheOutcome,
    /// Its own read and compile (or cache load) time, in µs: compiles run
    /// one at a time, so this is not inflated by other checks compiling.
    pub compile_us: u64,
}

/// A plugin file opened and identified: its component from the cache or
/// the policy being replaced, or its bytes still to compile
/// ([`compile_found`]), or left to compile later ([`WhenMissing::Later`]).
pub(crate) struct Found {
    /// Hex sha256 of the file.
    pub sha256: String,
    /// Size of the file, in bytes (what `toolvet inspect` reports).
    #[cfg_attr(
        not(feature = "inspect"),
        allow(dead_code, reason = "read by `toolvet inspect` only")
    )]
    pub size: u64,
    /// Time spent finding it (open, hash, cache lookup).
    pub spent: Duration,
    pub state: FoundState,
}

/// What [`find`] found.
pub(crate) enum FoundState {
    /// The policy being replaced has it already, compiled and linked.
    Loaded(Compiled),
    /// A verified artifact in the cache, mapped.
    Cached(Component),
    /// Not compiled anywhere yet: the file's bytes, and its stamp (to
    /// remember its digest once the artifact is stored).
    Missing {
        bytes: Vec<u8>,
        stamp: Option<FileStamp>,
    },
    /// Not taken from the cache nor read for compiling now
    /// ([`WhenMissing::Later`]): [`finish`] maps it from the cache, or reads
    /// the file again (refusing it if its digest is no longer this one) and
    /// compiles it.
    Later {
        path: std::path::PathBuf,
        stamp: Option<FileStamp>,
    },
}

/// What [`find`] does with a component the policy being replaced has not
/// loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WhenMissing {
    /// Map it from the cache, else keep its bytes to compile now
    /// ([`FoundState::Missing`]).
    Read,
    /// Leave it ([`FoundState::Later`]), and do not look for it in the
    /// cache either: a check that will be snapshotted runs only its
    /// snapshot, so its own component is compiled or mapped only if no
    /// snapshot can be taken. Its digest is remembered by the file's stamp
    /// all the same, so a later load need not hash the file again.
    Later,
}

/// Open `path`, verify the optional sha256 pin, and find its component:
/// in `loaded` (the policy being replaced, by digest), in the cache, or
/// not yet compiled. Quick (no compiling); the host runs it for several
/// checks in parallel.
///
/// With a cache, a plugin file whose stamp (see [`crate::cache`]) matches
/// the one recorded at an earlier load is neither read nor hashed: its
/// recorded digest picks the artifact. `when_missing` says whether a
/// component found nowhere is kept to compile now or left for later.
pub(crate) fn find(
    engine: &Engine,
    cache: Option<&ArtifactCache>,
    path: &Path,
    sha256_pin: Option<&str>,
    loaded: &dyn Fn(&str) -> Option<Compiled>,
    when_missing: WhenMissing,
) -> Result<Found, LoadErrorKind> {
    let started = Instant::now();
    let (file, meta) = open_component(path)?;
    let size = meta.len();
    let found = |sha256: String, state: FoundState| Found {
        sha256,
        size,
        spent: started.elapsed(),
        state,
    };
    let stamp = cache.and(FileStamp::of(&meta));
    // A remembered digest that contradicts the pin is not trusted: the file
    // is hashed, so a mismatch reports the file's real digest.
    let remembered = cache
        .zip(stamp.as_ref())
        .and_then(|(cache, stamp)| cache.remembered_digest(stamp))
        .filter(|sha256| sha256_pin.is_none_or(|pin| pin == sha256));
    if let Some(sha256) = &remembered {
        if let Some(reused) = loaded(sha256) {
            return Ok(found(sha256.clone(), FoundState::Loaded(reused)));
        }
        if when_missing == WhenMissing::Later {
            let path = path.to_path_buf();
            return Ok(found(sha256.clone(), FoundState::Later { path, stamp }));
        }
        if let Some(component) = cache.and_then(|c| c.load(engine, sha256)) {
            return Ok(found(sha256.clone(), FoundState::Cached(component)));
        }
    }
    let (bytes, sha256) = read_open_component(&file, size)?;
    check_pin(sha256_pin, &sha256)?;
    if let Some(reused) = loaded(&sha256) {
        return Ok(found(sha256, FoundState::Loaded(reused)));
    }
    if when_missing == WhenMissing::Later {
        if let (Some(cache), Some(stamp)) = (cache, &stamp) {
            cache.remember_digest(stamp, &sha256);
        }
        let path = path.to_path_buf();
        return Ok(found(sha256, FoundState::Later { path, stamp }));
    }
    if let Some(cache) = cache {
        let tried = remembered.as_deref() == Some(sha256.as_str());
        if let Some(component) = (!tried).then(|| cache.load(engine, &sha256)).flatten() {
            if let Some(stamp) = &stamp {
                cache.remember_digest(stamp, &sha256);
            }
            return Ok(found(sha256, FoundState::Cached(component)));
        }
    }
    Ok(found(sha256, FoundState::Missing { bytes, stamp }))
}

/// Compile a component [`find`] did not find (and store it in the cache),
/// holding the process-wide compile lock: one component compiles at a
/// time, on all cores (wasmtime compiles its functions in parallel), so
/// its time is its own and not shared with other compiles. Returns the
/// component, how it was stored, and its own compile time (the wait for
/// the lock excluded).
pub(crate) fn compile_found(
    engine: &Engine,
    cache: Option<&ArtifactCache>,
    sha256: &str,
    bytes: &[u8],
    stamp: Option<&FileStamp>,
) -> Result<(Component, CacheOutcome, Duration), LoadErrorKind> {
    let (result, elapsed) = one_compile_at_a_time(|| match cache {
        Some(cache) => cache.compile_and_store(engine, bytes, sha256),
        None => Component::new(engine, bytes).map(|c| (c, CacheOutcome::Uncached)),
    });
    let (component, outcome) = result.map_err(compile_error)?;
    if let (Some(cache), Some(stamp)) = (cache, stamp) {
        cache.remember_digest(stamp, sha256);
    }
    Ok((component, outcome, elapsed))
}

/// Run `compile` while holding the process-wide compile lock, and time it
/// from when the lock is held. Compiling is CPU-bound and every compile
/// already uses every core, so compiling several components at once only
/// makes each take as long as all of them (and their reported times
/// meaningless).
pub(crate) fn one_compile_at_a_time<T>(compile: impl FnOnce() -> T) -> (T, Duration) {
    static COMPILING: Mutex<()> = Mutex::new(());
    let _one = COMPILING.lock().unwrap_or_else(|e| e.into_inner());
    let started = Instant::now();
    let out = compile();
    (out, started.elapsed())
}

/// Compile (if needed) and link what [`find`] found.
pub(crate) fn finish(
    engine: &Engine,
    linker: &Linker<StoreState>,
    cache: Option<&ArtifactCache>,
    found: Found,
) -> Result<Compiled, LoadErrorKind> {
    let Found {
        sha256,
        spent,
        state,
        ..
    } = found;
    match state {
        FoundState::Loaded(compiled) => Ok(compiled),
        FoundState::Cached(component) => {
            link(engine, linker, component, sha256, CacheOutcome::Hit, spent)
        }
        FoundState::Missing { bytes, stamp } => {
            let (component, outcome, elapsed) =
                compile_found(engine, cache, &sha256, &bytes, stamp.as_ref())?;
            link(engine, linker, component, sha256, outcome, spent + elapsed)
        }
        FoundState::Later { path, stamp } => {
            let started = Instant::now();
            // Another check of the same file may have compiled it since.
            if let Some(component) = cache.and_then(|c| c.load(engine, &sha256)) {
                let spent = spent + started.elapsed();
                return link(engine, linker, component, sha256, CacheOutcome::Hit, spent);
            }
            let bytes = read_component_again(&path, &sha256)?;
            let read = started.elapsed();
            let (component, outcome, elapsed) =
                compile_found(engine, cache, &sha256, &bytes, stamp.as_ref())?;
            link(
                engine,
                linker,
                component,
                sha256,
                outcome,
                spent + read + elapsed,
            )
        }
    }
}

/// Link a compiled component into a [`Compiled`] that took `spent` to
/// read and compile (or load from the cache).
pub(crate) fn link(
    engine: &Engine,
    linker: &Linker<StoreState>,
    component: Component,
    sha256: String,
    cache: CacheOutcome,
    spent: Duration,
) -> Result<Compiled, LoadErrorKind> {
    let compile_us = spent.as_micros() as u64;
    let pre = prepare(engine, linker, &component)?;
    Ok(Compiled {
        pre,
        sha256,
        cache,
        compile_us,
    })
}

fn check_pin(pin: Option<&str>, sha256: &str) -> Result<(), LoadErrorKind> {
    match pin {
        Some(pin) if pin != sha256 => Err(LoadErrorKind::DigestMismatch {
            expected: pin.to_string(),
            actual: sha256.to_string(),
        }),
        _ => Ok(()),
    }
}

/// Call `describe` and `configure(settings)` on a fresh instance, with the
/// load-time deadline in `limits` (`[host] load_timeout_ms`, at least the
/// check's `timeout_ms`). Returns what `describe` said and the configured
/// instance, which has seen no call yet.
pub(crate) async fn initialize(
    engine: &Engine,
    compiled: &Compiled,
    settings: &str,
    limits: InstanceLimits,
    log: PluginLog,
) -> Result<(PluginInfo, LiveInstance), LoadErrorKind> {
    describe_and_configure(engine, &compiled.pre, settings, limits, log).await
}

/// Instantiate `pre`, call `describe` (its answer checked) and
/// `configure(settings)`, with the load-time deadline in `limits`.
pub(crate) async fn describe_and_configure(
    engine: &Engine,
    pre: &Linked<StoreState>,
    settings: &str,
    limits: InstanceLimits,
    log: PluginLog,
) -> Result<(PluginInfo, LiveInstance), LoadErrorKind> {
    let failed = |export: &'static str| {
        move |f: crate::instance::Failure| LoadErrorKind::Failed {
            export,
            message: f.message,
        }
    };
    let mut instance = LiveInstance::new(engine, pre, limits, log)
        .await
        .map_err(failed("instantiate"))?;
    let info = instance
        .describe(limits)
        .await
        .map_err(failed("describe"))?;
    check_plugin_info(&info)?;
    crate::config::compile_globs(&info.tools)
        .map_err(|(_, m)| LoadErrorKind::BadGlob(format!("{m} in `describe().tools`")))?;
    instance
        .configure(settings, limits)
        .await
        .map_err(failed("configure"))?
        .map_err(|m| {
            LoadErrorKind::InvalidSettings(crate::text::truncate(m, MAX_SETTINGS_ERROR))
        })?;
    Ok((info, instance))
}

/// The key under which a load is remembered: this host's version, contract
/// and engine fingerprint, the component's sha256, the settings it is
/// configured with and its memory cap (bytes), hashed.
pub(crate) fn load_key(
    cache: &ArtifactCache,
    component_sha256: &str,
    settings: &str,
    memory_bytes: usize,
) -> String {
    let mut hasher = Sha256::new();
    for part in [
        env!("CARGO_PKG_VERSION"),
        CONTRACT_VERSION,
        cache.fingerprint(),
        component_sha256,
        settings,
        &memory_bytes.to_string(),
    ] {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    hex::encode(hasher.finalize())
}

/// Record that the component and settings of `key` loaded: `describe`
/// returned `info` and `configure` accepted the settings.
pub(crate) fn remember_accepted(cache: &ArtifactCache, key: &str, info: &PluginInfo) {
    let record = serde_json::json!({
        "name": info.name,
        "version": info.version,
        "description": info.description,
        "tools": info.tools,
        "roles": info.roles.iter().map(|r| crate::facts::Role::from_wit(*r)).collect::<Vec<_>>(),
        "effects": crate::facts::Effects::from_wit(info.effects),
    });
    cache.store_record(ACCEPTED_RECORD, key, record.to_string().as_bytes());
}

/// What `describe` returned when the component and settings of `key` last
/// loaded, if that was recorded and the record is still valid (same
/// bounds as a live `describe`).
pub(crate) fn remembered_accepted(cache: &ArtifactCache, key: &str) -> Option<PluginInfo> {
    #[derive(serde::Deserialize)]
    struct Recorded {
        name: String,
        version: String,
        description: String,
        tools: Vec<String>,
        // Required: a record from a host that did not keep them must not
        // stand for a check that routes by roles or effects.
        roles: Vec<crate::facts::Role>,
        effects: crate::facts::Effects,
    }
    let r: Recorded = serde_json::from_slice(&cache.record(ACCEPTED_RECORD, key)?).ok()?;
    let info = PluginInfo {
        name: r.name,
        version: r.version,
        description: r.description,
        tools: r.tools,
        roles: r.roles.iter().map(|r| r.to_wit()).collect(),
        effects: r.effects.to_wit(),
    };
    check_plugin_info(&info).ok()?;
    crate::config::compile_globs(&info.tools).ok()?;
    Some(info)
}

/// The tool globs the plugin at `path` declared when it last loaded with
/// `settings` and `memory_bytes`, found without reading or loading the
/// component: the file's stamp gives its remembered digest (as in
/// [`find`]), and that digest with the settings gives the accepted record.
/// With them, whether it also routes calls by roles or effects (then it
/// may apply to a call to any tool).
/// `None` when any of that is unknown (a first load, a changed file, a
/// digest that contradicts the pin), in which case the check must be
/// loaded to learn them.
pub(crate) fn remembered_tools(
    cache: &ArtifactCache,
    path: &Path,
    sha256_pin: Option<&str>,
    settings: &str,
    memory_bytes: usize,
) -> Option<(Vec<String>, bool)> {
    let stamp = FileStamp::of(&std::fs::metadata(path).ok()?)?;
    let sha256 = cache
        .remembered_digest(&stamp)
        .filter(|sha256| sha256_pin.is_none_or(|pin| pin == sha256))?;
    let key = load_key(cache, &sha256, settings, memory_bytes);
    remembered_accepted(cache, &key).map(|info| {
        (
            info.tools,
            !info.roles.is_empty() || info.effects != crate::bindings::wit::Effects::empty(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_components_are_refused_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        let cases: [(&str, &[u8], &str); 3] = [
            ("empty.wasm", b"", "empty"),
            ("garbage.wasm", b"MZ\x90\x00garbage", "magic bytes"),
            ("core.wasm", b"\0asm\x01\0\0\0", "core WebAssembly module"),
        ];
        for (name, bytes, expected) in cases {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            let err = read_component(&path).unwrap_err().to_string();
            assert!(err.contains(expected), "{name}: {err}");
        }
        let err = read_component(&dir.path().join("missing.wasm"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("cannot read plugin file"), "{err}");
    }

    /// A component left for later and then changed on disk is refused when
    /// it is finally read, with or without a cache: the host never compiles
    /// bytes other than those it hashed (and checked against a pin).
    #[test]
    fn a_file_changed_after_it_was_found_for_later_is_refused() {
        // An empty component, and the same with a custom section.
        const FIRST: &[u8] = b"\0asm\x0d\0\x01\0";
        const SECOND: &[u8] = b"\0asm\x0d\0\x01\0\0\x05\x04test";
        let engine = crate::engine::shared_engine().unwrap();
        let linker = linker(engine).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let cache = ArtifactCache::open(&dir.path().join("cache"), engine).unwrap();
        let path = dir.path().join("check.wasm");
        for cache in [None, Some(&cache)] {
            std::fs::write(&path, FIRST).unwrap();
            let found = find(engine, cache, &path, None, &|_| None, WhenMissing::Later).unwrap();
            assert!(matches!(found.state, FoundState::Later { .. }));
            let first = found.sha256.clone();
            std::fs::write(&path, SECOND).unwrap();
            match finish(engine, &linker, cache, found) {
                Err(LoadErrorKind::Changed { expected, actual }) => {
                    assert_eq!(expected, first);
                    assert_ne!(actual, first);
                }
                Err(other) => panic!("{other}"),
                Ok(_) => panic!("changed bytes were compiled"),
            }
        }
    }
}
