//! `toolvet inspect`: what a plugin file is, what it imports and exports,
//! whether it implements a compatible `toolvet:check/plugin`, and what its
//! `describe` says.

use crate::bindings::CONTRACT_VERSION;
use crate::error::LoadErrorKind;
use crate::instance::InstanceLimits;
use crate::plugin;
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
    /// Every import name of the component, e.g. `wasi:io/streams@0.2.6`.
    pub imports: Vec<String>,
    /// Every export name, e.g. `toolvet:check/check@0.1.0`.
    pub exports: Vec<String>,
    /// The `toolvet:check` versions it exports.
    pub contract_versions: Vec<String>,
    /// The version this host implements.
    pub host_contract_version: &'static str,
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

/// Inspect the component at `path`. `describe` runs in the usual sandbox
/// with a 2 s deadline and a 256 MiB memory cap.
///
/// # Errors
/// The file cannot be read, is not a component, or does not compile.
pub async fn inspect(path: &Path) -> Result<Inspection, LoadErrorKind> {
    let engine = crate::engine::shared_engine().map_err(LoadErrorKind::Compile)?;
    let (bytes, sha256) = plugin::read_component(path)?;
    let component = plugin::compile(engine, &bytes)?;
    let (imports, exports) = plugin::interface_names(engine, &component);
    let contract_versions = crate::contract::contract_versions(engine, &component);
    let linker = plugin::linker(engine).map_err(|e| LoadErrorKind::Compile(format!("{e:#}")))?;
    let mut inspection = Inspection {
        sha256,
        size_bytes: bytes.len() as u64,
        imports,
        exports,
        contract_versions,
        host_contract_version: CONTRACT_VERSION,
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
