//! Whether a component speaks one of this host's contracts
//! (`toolvet:check@0.1.x` or `@0.2.x`), decided before it is ever
//! instantiated, with the reason when it does not: the versions it exports
//! and imports of `toolvet:check/*`, the capabilities it imports, and the
//! types of its exports against the host's bindings.

use crate::bindings::{
    CHECK_INTERFACE, CONTRACT_VERSIONS, Contract, PluginInfo, RESULT_INTERFACE, v01, wit,
};
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

/// The contract line a version belongs to: a release (no pre-release
/// part) of one of the lines this host speaks (`CONTRACT_VERSIONS`; for
/// 0.x, the same minor version, as semver says). `Err` says why not.
pub(crate) fn compatible(version: &str) -> Result<Contract, String> {
    let theirs = semver::Version::parse(version)
        .map_err(|e| format!("`{version}` is not a semver version ({e})"))?;
    let spoken = CONTRACT_VERSIONS.join(" and ");
    if !theirs.pre.is_empty() {
        return Err(format!(
            "{version} is a pre-release, which promises nothing about the {spoken} contracts"
        ));
    }
    [Contract::V01, Contract::V02]
        .into_iter()
        .find(|line| {
            let ours =
                semver::Version::parse(line.version()).expect("the host's versions are semver");
            theirs.major == ours.major && (ours.major != 0 || theirs.minor == ours.minor)
        })
        .ok_or_else(|| format!("{version} is not compatible with {spoken}"))
}

/// The interfaces of each contract line a component may export or import
/// (without package and version), besides the capabilities.
fn known_interfaces(line: Contract) -> &'static [&'static str] {
    match line {
        Contract::V01 => &["check", "host", "types"],
        Contract::V02 => &["check", "result-check", "host", "types"],
    }
}

/// The capability interfaces of 0.2 (`dns`, `http`, `kv`): a check may
/// import one only when the policy grants it, and no policy grants one yet
/// (#35), so a component importing one does not load.
const CAPABILITIES: [&str; 3] = ["dns", "http", "kv"];

/// What a component's type says about it, read before it is instantiated:
/// the contract line it speaks and whether it vets results.
///
/// # Errors
/// `Incompatible`, naming the interface and version, when the component
/// does not export `toolvet:check/check`, exports it at two lines, exports
/// or imports an interface of the contract at a version this host does not
/// speak or of another line than its `check`, or imports a capability the
/// policy does not grant it.
pub(crate) fn read_contract(
    engine: &Engine,
    component: &Component,
) -> Result<(Contract, bool), LoadErrorKind> {
    let incompatible = LoadErrorKind::Incompatible;
    let ty = component.component_type();
    let exports: Vec<String> = ty.exports(engine).map(|(n, _)| n.to_string()).collect();
    let imports: Vec<String> = ty.imports(engine).map(|(n, _)| n.to_string()).collect();
    let spoken = CONTRACT_VERSIONS.join(" and ");
    let named = exports
        .iter()
        .map(|n| ("exports", n))
        .chain(imports.iter().map(|n| ("imports", n)));
    let mut ours = Vec::new();
    for (direction, name) in named {
        let Some(rest) = name.strip_prefix(CONTRACT_PACKAGE) else {
            continue;
        };
        let (interface, version) = rest.split_once('@').unwrap_or((rest, ""));
        if version.is_empty() {
            return Err(incompatible(format!(
                "the component {direction} `{name}` without a version; this host speaks \
                 toolvet:check@{spoken}"
            )));
        }
        let line = compatible(version).map_err(|why| {
            incompatible(format!(
                "the component {direction} `toolvet:check/{interface}@{version}`: this host \
                 speaks toolvet:check@{spoken}, and {why}"
            ))
        })?;
        ours.push((direction, interface, version, line));
    }
    let lines: std::collections::BTreeSet<&str> = ours
        .iter()
        .filter(|(d, i, _, _)| *d == "exports" && *i == "check")
        .map(|(_, _, v, _)| *v)
        .collect();
    let Some((_, _, check_version, line)) = ours
        .iter()
        .find(|(d, i, _, _)| *d == "exports" && *i == "check")
        .copied()
    else {
        return Err(incompatible(format!(
            "the component does not export `{CHECK_INTERFACE}`; it implements another world"
        )));
    };
    if lines.len() > 1 {
        let found: Vec<&str> = lines.into_iter().collect();
        return Err(incompatible(format!(
            "the component exports `{CHECK_INTERFACE}` at {}: one contract per component",
            found.join(" and ")
        )));
    }
    for (direction, interface, version, other) in &ours {
        if *other != line {
            return Err(incompatible(format!(
                "the component {direction} `toolvet:check/{interface}@{version}` but exports \
                 `{CHECK_INTERFACE}@{check_version}`: one contract per component"
            )));
        }
        if line == Contract::V02 && *direction == "imports" && CAPABILITIES.contains(interface) {
            return Err(incompatible(format!(
                "the component imports the capability `toolvet:check/{interface}@{version}`, \
                 which the policy does not grant it (no capability can be granted yet)"
            )));
        }
        if !known_interfaces(line).contains(interface) {
            return Err(incompatible(format!(
                "the component {direction} `toolvet:check/{interface}@{version}`, which is not \
                 an interface of toolvet:check@{}",
                line.version()
            )));
        }
    }
    let vets_results = ours
        .iter()
        .any(|(d, i, _, _)| *d == "exports" && *i == "result-check");
    Ok((line, vets_results))
}

/// Check the types of the contract's exports against the host's bindings
/// before any instance exists, so a contract with, say, the cases of
/// `decision` swapped is refused at load as incompatible, with wasmtime's
/// reason, instead of failing at its first instantiation.
///
/// This is the check `bindgen!`'s generated code makes when it looks the
/// exports up in a new instance (`ComponentFunc::typecheck`), made here on
/// the pre-instantiated component; wasmtime is pinned, so it stays the
/// same check.
pub(crate) fn typecheck_exports(
    component: &Component,
    pre: &InstancePre<StoreState>,
    line: Contract,
    vets_results: bool,
) -> Result<(), LoadErrorKind> {
    let typed = Typed { component, line };
    let instance_type = pre.instance_type();
    match line {
        Contract::V01 => {
            let f = |name| typed.func(CHECK_INTERFACE, name);
            f("describe")?
                .typecheck::<(), (v01::exports::toolvet::check::check::PluginInfo,)>(&instance_type)
                .map_err(|e| typed.mismatch("describe", e))?;
            f("configure")?
                .typecheck::<(&str,), (Result<(), String>,)>(&instance_type)
                .map_err(|e| typed.mismatch("configure", e))?;
            use v01::toolvet::check::types as wit01;
            f("check")?
                .typecheck::<(&wit01::ToolCall, &wit01::ToolInfo, &wit01::CallContext), (wit01::Decision,)>(
                    &instance_type,
                )
                .map_err(|e| typed.mismatch("check", e))?;
        }
        Contract::V02 => {
            let f = |name| typed.func(CHECK_INTERFACE, name);
            f("describe")?
                .typecheck::<(), (PluginInfo,)>(&instance_type)
                .map_err(|e| typed.mismatch("describe", e))?;
            f("configure")?
                .typecheck::<(&str,), (Result<(), String>,)>(&instance_type)
                .map_err(|e| typed.mismatch("configure", e))?;
            f("check")?
                .typecheck::<(&wit::ToolCall, &wit::ToolInfo, &wit::CallContext), (wit::Decision,)>(
                    &instance_type,
                )
                .map_err(|e| typed.mismatch("check", e))?;
            if vets_results {
                typed
                    .func(RESULT_INTERFACE, "check-result")?
                    .typecheck::<(
                        &wit::ToolCall,
                        &wit::ToolInfo,
                        &wit::CallContext,
                        &wit::ToolResult,
                    ), (wit::ResultDecision,)>(&instance_type)
                    .map_err(|e| typed.mismatch("check-result", e))?;
            }
        }
    }
    Ok(())
}

/// What [`typecheck_exports`] looks functions up in.
struct Typed<'a> {
    component: &'a Component,
    line: Contract,
}

impl Typed<'_> {
    /// The function `name` of the export `interface@<version>`.
    fn func(
        &self,
        interface: &str,
        name: &str,
    ) -> Result<wasmtime::component::types::ComponentFunc, LoadErrorKind> {
        let incompatible = LoadErrorKind::Incompatible;
        let exported = self
            .component
            .component_type()
            .exports(self.component.engine())
            .map(|(n, _)| n.to_string())
            .find(|n| n.starts_with(&format!("{interface}@")))
            .ok_or_else(|| incompatible(format!("no `{interface}` export")))?;
        let (_, index) = self
            .component
            .get_export(None, exported.as_str())
            .ok_or_else(|| incompatible(format!("no `{exported}` export")))?;
        match self.component.get_export(Some(&index), name) {
            Some((ComponentItem::ComponentFunc(func), _)) => Ok(func),
            Some(_) => Err(incompatible(format!(
                "`{exported}` exports `{name}`, but not as a function"
            ))),
            None => Err(incompatible(format!(
                "`{exported}` does not export `{name}`"
            ))),
        }
    }

    fn mismatch(&self, name: &str, e: wasmtime::Error) -> LoadErrorKind {
        LoadErrorKind::Incompatible(format!(
            "`{name}` does not have the type of the toolvet:check@{} contract: {e:#}",
            self.line.version()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::compatible;
    use crate::bindings::Contract;

    #[test]
    fn contract_compatibility_follows_semver_for_0x() {
        assert_eq!(compatible("0.1.0"), Ok(Contract::V01));
        assert_eq!(compatible("0.1.7"), Ok(Contract::V01));
        assert_eq!(compatible("0.1.7+build.5"), Ok(Contract::V01));
        assert_eq!(compatible("0.2.0"), Ok(Contract::V02));
        assert_eq!(compatible("0.2.3"), Ok(Contract::V02));
        for (version, why) in [
            ("0.3.0", "not compatible"),
            ("0.2.0-rc.1", "pre-release"),
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
