//! `toolvet inspect`: what a plugin file is, what it imports and exports
//! (and which imports the sandbox denies or restricts), whether it
//! implements a compatible `toolvet:check/plugin`, and what its `describe`
//! says.

use crate::bindings::CONTRACT_VERSIONS;
use crate::cache::ArtifactCache;
use crate::error::LoadErrorKind;
use crate::instance::InstanceLimits;
use crate::plugin;
use crate::progress::{LoadEvent, LoadObserver};
use serde::Serialize;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The result of inspecting a plugin file.
#[derive(Debug, Serialize)]
pub struct Inspection {
    /// Hex sha256 of the file.
    pub sha256: String,
    /// Size of the file, in bytes.
    pub size_bytes: u64,
    /// Whether its compiled form came from the artifact cache (`false`:
    /// compiled now, and stored there for the next inspect or load).
    pub cached: bool,
    /// Every import name of the component, e.g. `wasi:io/streams@0.2.6`.
    pub imports: Vec<String>,
    /// Every import with what the host's sandbox makes of it: which ones
    /// it denies (sockets, files), restricts, or does not provide.
    pub import_access: Vec<ImportAccess>,
    /// Every export name, e.g. `toolvet:check/check@0.1.0`.
    pub exports: Vec<String>,
    /// The `toolvet:check` versions it exports.
    pub contract_versions: Vec<String>,
    /// The contract versions this host implements, oldest first
    /// (`["0.1.0", "0.2.0"]`: any release of those lines loads).
    pub host_contract_versions: &'static [&'static str],
    /// Whether the host can load it (links against what the host provides).
    pub compatible: bool,
    /// Why not, when not compatible.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incompatibility: Option<String>,
    /// What `describe` returned, when compatible.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub describe: Option<Describe>,
}

/// What a plugin's `describe` returned.
#[derive(Debug, Serialize)]
pub struct Describe {
    /// Plugin name.
    pub name: String,
    /// Plugin version.
    pub version: String,
    /// Description.
    pub description: String,
    /// Default tool globs.
    pub tools: Vec<String>,
}

/// How the host treats one import of a plugin ([`Inspection::import_access`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Linked and working as specified (`wasi:io`, clocks, the
    /// `toolvet:check` host import).
    Provided,
    /// Linked, but bounded or empty (stdout captured into the check's log,
    /// an empty environment, random bytes capped per call).
    Restricted,
    /// Linked so the plugin loads, but every use is refused: sockets (no
    /// network) and the filesystem (no preopened directory).
    Denied,
    /// Not provided by this host at all: the plugin cannot load.
    Missing,
}

impl Access {
    /// The name shown (`provided`, `restricted`, `denied`, `missing`).
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Provided => "provided",
            Access::Restricted => "restricted",
            Access::Denied => "denied",
            Access::Missing => "missing",
        }
    }
}

/// One import of a plugin and what the host's sandbox makes of it.
#[derive(Debug, Clone, Serialize)]
pub struct ImportAccess {
    /// The import's name, e.g. `wasi:sockets/tcp@0.2.6`.
    pub name: String,
    /// What using it does.
    pub access: Access,
    /// In a few words, e.g. `no network: TCP, UDP and name lookup are refused`.
    pub note: &'static str,
}

/// What the sandbox (`sandbox.rs`, SECURITY.md) makes of the import
/// `name`. Keep in step with `StoreState::new` and the linker
/// (`plugin::linker`).
pub fn import_access(name: &str) -> (Access, &'static str) {
    let unversioned = name.split('@').next().unwrap_or(name);
    let (package, interface) = unversioned.split_once('/').unwrap_or((unversioned, ""));
    match (package, interface) {
        ("wasi:sockets", _) => (
            Access::Denied,
            "no network: TCP, UDP and name lookup are refused",
        ),
        ("wasi:filesystem", _) => (Access::Denied, "no file access: no directory is preopened"),
        ("wasi:cli", "environment") => (
            Access::Restricted,
            "empty: no environment variables, arguments or working directory",
        ),
        ("wasi:cli", "stdin") => (Access::Restricted, "empty"),
        ("wasi:cli", "stdout" | "stderr") => (
            Access::Restricted,
            "captured into the check's log (at most max_log_bytes per call)",
        ),
        ("wasi:cli", "terminal-input" | "terminal-output") => (Access::Restricted, "no terminal"),
        ("wasi:cli", "terminal-stdin" | "terminal-stdout" | "terminal-stderr") => {
            (Access::Restricted, "not a terminal")
        }
        ("wasi:cli", "exit") => (Access::Provided, "ends the call as a failure (a trap)"),
        ("wasi:random", "random" | "insecure") => (Access::Restricted, "at most 64 KiB per call"),
        ("wasi:random", _) => (Access::Provided, ""),
        ("wasi:clocks" | "wasi:io", _) => (Access::Provided, ""),
        ("toolvet:check", "dns" | "http" | "kv") => (
            Access::Denied,
            "a capability: the component does not load unless the policy grants it, and no \
             policy can grant one yet",
        ),
        ("toolvet:check", _) => (Access::Provided, "the check contract"),
        _ => (Access::Missing, "not provided by this host"),
    }
}

/// Inspect the component at `path` (see [`inspect_with`]), with the
/// default artifact cache (`$TOOLVET_CACHE_DIR`, else the user's cache
/// directory) and no progress reports.
///
/// # Errors
/// As [`inspect_with`].
pub async fn inspect(path: &Path) -> Result<Inspection, LoadErrorKind> {
    inspect_with(path, None).await
}

/// Inspect the component at `path`. Its compiled form comes from the
/// default artifact cache, as when a policy loads it (a plugin inspected or
/// loaded before is not compiled again), and is stored there when it has to
/// be compiled; `observer` hears of that compile
/// ([`LoadEvent::CompileStarted`] with the file's name, and so on). A cache
/// that cannot be used is logged and the component compiled without it.
/// `describe` runs in the usual sandbox with a 2 s deadline and a 256 MiB
/// memory cap.
///
/// # Errors
/// The file cannot be read, is not a component, or does not compile.
pub async fn inspect_with(
    path: &Path,
    observer: Option<&dyn LoadObserver>,
) -> Result<Inspection, LoadErrorKind> {
    let engine = crate::engine::shared_engine().map_err(LoadErrorKind::Compile)?;
    let cache = ArtifactCache::default_dir().and_then(|dir| {
        ArtifactCache::open(&dir, engine)
            .map_err(|e| {
                tracing::warn!(dir = %dir.display(), "artifact cache unusable, compiling without it: {e}")
            })
            .ok()
    });
    let found = plugin::find(
        engine,
        cache.as_ref(),
        path,
        None,
        &|_| None,
        plugin::WhenMissing::Read,
    )?;
    let (sha256, size_bytes) = (found.sha256.clone(), found.size);
    let (component, cached) = match found.state {
        plugin::FoundState::Cached(component) => (component, true),
        plugin::FoundState::Loaded(_) => unreachable!("nothing was loaded before"),
        plugin::FoundState::Later { .. } => unreachable!("found with `WhenMissing::Read`"),
        plugin::FoundState::Missing { bytes, stamp } => {
            let check = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            crate::progress::report(observer, || LoadEvent::CompileStarted {
                checks: vec![check.clone()],
            });
            crate::progress::report(observer, || LoadEvent::Compiling {
                check: check.clone(),
                index: 0,
            });
            let sha = sha256.clone();
            let in_cache = cache.clone();
            let compiled = tokio::task::spawn_blocking(move || {
                plugin::compile_found(engine, in_cache.as_ref(), &sha, &bytes, stamp.as_ref())
            })
            .await
            .unwrap_or_else(|e| Err(LoadErrorKind::Host(format!("the compile task failed: {e}"))));
            let elapsed = compiled.as_ref().map_or(Duration::ZERO, |c| c.2);
            crate::progress::report(observer, || LoadEvent::Compiled {
                check,
                index: 0,
                elapsed,
                ok: compiled.is_ok(),
            });
            crate::progress::report(observer, || LoadEvent::CompileFinished { elapsed });
            (compiled?.0, false)
        }
    };
    let (imports, exports) = plugin::interface_names(engine, &component);
    let import_access = imports
        .iter()
        .map(|name| {
            let (access, note) = import_access(name);
            ImportAccess {
                name: name.clone(),
                access,
                note,
            }
        })
        .collect();
    let contract_versions = crate::contract::contract_versions(engine, &component);
    let linker = plugin::linker(engine).map_err(|e| LoadErrorKind::Compile(format!("{e:#}")))?;
    let mut inspection = Inspection {
        sha256,
        size_bytes,
        cached,
        imports,
        import_access,
        exports,
        contract_versions,
        host_contract_versions: &CONTRACT_VERSIONS,
        compatible: false,
        incompatibility: None,
        describe: None,
    };
    match plugin::prepare(engine, &linker, &component) {
        Err(e) => inspection.incompatibility = Some(e.to_string()),
        Ok(pre) => {
            inspection.compatible = true;
            let limits = InstanceLimits {
                timeout: Duration::from_secs(2),
                deadline: None,
                memory_bytes: 256 << 20,
                log_bytes: 64 << 10,
                result_bytes: 1 << 20,
            };
            let log = crate::plugin_log::PluginLog::new(Arc::from("inspect"));
            let mut instance = crate::instance::LiveInstance::new(engine, &pre, limits, log)
                .await
                .map_err(|f| LoadErrorKind::Failed {
                    export: "instantiate",
                    message: f.message,
                })?;
            let info = instance
                .describe(limits)
                .await
                .map_err(|f| LoadErrorKind::Failed {
                    export: "describe",
                    message: f.message,
                })?;
            plugin::check_plugin_info(&info)?;
            inspection.describe = Some(Describe {
                name: info.name,
                version: info.version,
                description: info.description,
                tools: info.tools,
            });
        }
    }
    Ok(inspection)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sockets_and_files_are_denied_and_unknown_packages_missing() {
        for name in [
            "wasi:sockets/tcp@0.2.6",
            "wasi:sockets/ip-name-lookup@0.2.0",
            "wasi:filesystem/preopens@0.2.3",
            "wasi:filesystem/types@0.2.0",
        ] {
            assert_eq!(import_access(name).0, Access::Denied, "{name}");
        }
        assert_eq!(
            import_access("wasi:cli/environment@0.2.0").0,
            Access::Restricted
        );
        assert_eq!(import_access("wasi:cli/stdout@0.2.0").0, Access::Restricted);
        assert_eq!(import_access("wasi:io/streams@0.2.6").0, Access::Provided);
        assert_eq!(
            import_access("toolvet:check/host@0.1.0").0,
            Access::Provided
        );
        assert_eq!(
            import_access("wasi:http/outgoing-handler@0.2.0").0,
            Access::Missing
        );
        assert_eq!(import_access("nonsense").0, Access::Missing);
    }
}
