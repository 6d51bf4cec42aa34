//! Whether a component speaks this host's contract (`toolvet:check@0.1.x`),
//! decided before it is ever instantiated, with the reason when it does not:
//! the versions it exports and imports of `toolvet:check/*`, and the types
//! of its `check` exports against the host's bindings.

use crate::bindings::exports::toolvet::check::check::PluginInfo;
use crate::bindings::{CHECK_INTERFACE, CONTRACT_VERSION, wit};
use crate::error::LoadErrorKind;
use crate::sandbox::StoreState;
use wasmtime::Engine;
use wasmtime::component::types::ComponentItem;
use wasmtime::component::{Component, InstancePre};

/// The package every interface of the contract belongs to.
const CONTRACT_PACKAGE: &str = "toolvet:check/";

/// The versions of `toolvet:check/check` a component exports, e.g.
/// `["0.1.0"]`.
#[cfg(feature = "inspect")]
pub(crate) fn contract_versions(engine: &Engine, component: &Component) -> Vec<String> {
    component
        .component_type()
        .exports(engine)
        .filter_map(|(name, _)| {
            name.strip_prefix(CHECK_INTERFACE)
                .and_then(|rest| rest.strip_prefix('@'))
                .map(str::to_string)
        })
        .collect()
}

/// Whether a contract version is compatible with this host: a release (no
/// pre-release part) with the same major and, for 0.x, the same minor
/// version (semver). `Err` says why not.
pub(crate) fn compatible(version: &str) -> Result<(), String> {
    let ours = semver::Version::parse(CONTRACT_VERSION).expect("the host's version is semver");
    let theirs = semver::Version::parse(version)
        .map_err(|e| format!("`{version}` is not a semver version ({e})"))?;
    if !theirs.pre.is_empty() {
        return Err(format!(
            "{version} is a pre-release, which promises nothing about the {CONTRACT_VERSION} contract"
        ));
    }
    let same_line = theirs.major == ours.major && (ours.major != 0 || theirs.minor == ours.minor);
    if same_line {
        Ok(())
    } else {
        Err(format!(
            "{version} is not compatible with {CONTRACT_VERSION}"
        ))
    }
}

/// Refuse a component that does not export `toolvet:check/check`, or that
/// exports or imports an interface of the contract at a version this host
/// does not speak, naming the interface and the version.
pub(crate) fn refuse_other_versions(
    engine: &Engine,
    component: &Component,
) -> Result<(), LoadErrorKind> {
    let ty = component.component_type();
    let exports: Vec<String> = ty.exports(engine).map(|(n, _)| n.to_string()).collect();
    let imports: Vec<String> = ty.imports(engine).map(|(n, _)| n.to_string()).collect();
    if !exports
        .iter()
        .any(|n| n == CHECK_INTERFACE || n.starts_with(&format!("{CHECK_INTERFACE}@")))
    {
        return Err(LoadErrorKind::Incompatible(format!(
            "the component does not export `{CHECK_INTERFACE}`; it implements another world"
        )));
    }
    let named = exports
        .iter()
        .map(|n| ("exports", n))
        .chain(imports.iter().map(|n| ("imports", n)));
    for (direction, name) in named {
        let Some(rest) = name.strip_prefix(CONTRACT_PACKAGE) else {
            continue;
        };
        let (interface, version) = rest.split_once('@').unwrap_or((rest, ""));
        if version.is_empty() {
            return Err(LoadErrorKind::Incompatible(format!(
                "the component {direction} `{name}` without a version; this host speaks \
                 toolvet:check@{CONTRACT_VERSION}"
            )));
        }
        compatible(version).map_err(|why| {
            LoadErrorKind::Incompatible(format!(
                "the component {direction} `toolvet:check/{interface}@{version}`: this host \
                 speaks toolvet:check@{CONTRACT_VERSION}, and {why}"
            ))
        })?;
    }
    Ok(())
}

/// Check the types of the `toolvet:check/check` exports against the
/// host's bindings before any instance exists, so a contract with, say,
/// the cases of `decision` swapped is refused at load as incompatible,
/// with wasmtime's reason, instead of failing at its first instantiation.
///
/// This is the check `bindgen!`'s generated code makes when it looks the
/// exports up in a new instance (`ComponentFunc::typecheck`), made here on
/// the pre-instantiated component; wasmtime is pinned, so it stays the
/// same check.
pub(crate) fn typecheck_exports(
    component: &Component,
    pre: &InstancePre<StoreState>,
) -> Result<(), LoadErrorKind> {
    let incompatible = |what: String| LoadErrorKind::Incompatible(what);
    let interface = component
        .component_type()
        .exports(component.engine())
        .map(|(name, _)| name.to_string())
        .find(|name| name.starts_with(&format!("{CHECK_INTERFACE}@")))
        .ok_or_else(|| incompatible(format!("no `{CHECK_INTERFACE}` export")))?;
    let (_, index) = component
        .get_export(None, interface.as_str())
        .ok_or_else(|| incompatible(format!("no `{interface}` export")))?;
    let instance_type = pre.instance_type();
    let func = |name: &str| match component.get_export(Some(&index), name) {
        Some((ComponentItem::ComponentFunc(func), _)) => Ok(func),
        Some(_) => Err(incompatible(format!(
            "`{interface}` exports `{name}`, but not as a function"
        ))),
        None => Err(incompatible(format!(
            "`{interface}` does not export `{name}`"
        ))),
    };
    let mismatch = |name: &str, e: wasmtime::Error| {
        incompatible(format!(
            "`{interface}`'s `{name}` does not have the type of the \
             toolvet:check@{CONTRACT_VERSION} contract: {e:#}"
        ))
    };
    func("describe")?
        .typecheck::<(), (PluginInfo,)>(&instance_type)
        .map_err(|e| mismatch("describe", e))?;
    func("configure")?
        .typecheck::<(&str,), (Result<(), String>,)>(&instance_type)
        .map_err(|e| mismatch("configure", e))?;
    func("check")?
        .typecheck::<(&wit::ToolCall, &wit::ToolInfo, &wit::CallContext), (wit::Decision,)>(
            &instance_type,
        )
        .map_err(|e| mismatch("check", e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::compatible;

    #[test]
    fn contract_compatibility_follows_semver_for_0x() {
        assert!(compatible("0.1.0").is_ok());
        assert!(compatible("0.1.7").is_ok());
        assert!(compatible("0.1.7+build.5").is_ok());
        for (version, why) in [
            ("0.2.0", "not compatible"),
            ("1.0.0", "not compatible"),
            ("9.0.0", "not compatible"),
            ("0.1.0-rc.1", "pre-release"),
            ("0.1.5-alpha", "pre-release"),
            ("garbage", "not a semver version"),
            ("0.1", "not a semver version"),
        ] {
            let e = compatible(version).unwrap_err();
            assert!(e.contains(why), "{version}: {e}");
        }
    }
}
