//! One loaded policy: a *generation* of a [`crate::Host`], with its
//! checks, limits, decision log and approvals, and the verdicts the host
//! gives itself when it fails.
//!
//! This file owns the shapes only. Data flows one way through the files
//! that serve a generation: [`Policy`](crate::Policy) → `loader.rs` (the
//! loading environment: engine, linker, artifact cache, observer; finding
//! and compiling every component) → `loading.rs` ([`Generation::load`]:
//! describe, configure or snapshot each check, open the decision log and
//! approvals) → `evaluation.rs` ([`Generation::evaluate`]: refuse, select,
//! run, combine, settle approvals, record) → [`Verdict`] → decision log.

use crate::approval::Approvals;
use crate::audit::DecisionLog;
use crate::bindings::PluginInfo;
use crate::cache::ArtifactCache;
use crate::config::{CheckConfig, HostSettings};
use crate::error::LoadError;
use crate::instance::{InstanceLimits, LiveInstance};
use crate::plugin::Compiled;
use crate::plugin_log::PluginLog;
use crate::verdict::{Decision, Verdict};
use globset::GlobSet;
use std::path::PathBuf;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use tokio::sync::Semaphore;
use wasmtime::Engine;

/// Rule of a verdict denied because its decision record cannot be written.
pub(crate) const DECISION_LOG_RULE: &str = "toolvet.decision-log";
/// Rule of a verdict denied because the host itself failed.
pub(crate) const HOST_ERROR_RULE: &str = "toolvet.host-error";
/// Rule of a verdict denied because the host was loaded for another tool
/// ([`crate::LoadOptions::only_tool`]).
pub(crate) const HOST_SCOPE_RULE: &str = "toolvet.host-scope";

/// One loaded policy, shared by the calls it vets (an `Arc`) until a
/// reload replaces it.
pub(crate) struct Generation {
    pub number: u64,
    pub source: PathBuf,
    pub policy_sha256: String,
    pub engine: &'static Engine,
    pub settings: HostSettings,
    pub checks: Vec<LoadedCheck>,
    pub slots: Semaphore,
    pub queued: AtomicUsize,
    pub decision_log: Option<DecisionLog>,
    pub approvals: Option<Approvals>,
    pub cache: Option<ArtifactCache>,
    /// The one tool this generation vets, when loaded with
    /// [`crate::LoadOptions::only_tool`]: its checks are those that can
    /// select that tool, so a call to any other tool is denied.
    pub only_tool: Option<String>,
    /// toolvet's own state paths, handed to every check on every call
    /// ([`crate::state_paths`]).
    pub state_paths: crate::state_paths::StatePaths,
    /// Looks each call's paths up where the tools run
    /// ([`crate::LoadOptions::locator`]).
    pub locator: Option<std::sync::Arc<dyn crate::locate::Locator>>,
    /// Whether the calls' host attributes are taken as the host's facts
    /// ([`crate::LoadOptions::caller_is_host`]).
    pub caller_is_host: bool,
    /// Finds what each call does ([`crate::facts`]).
    pub facts: crate::facts::FactFinder,
}

/// One configured check after loading.
pub(crate) struct LoadedCheck {
    pub config: CheckConfig,
    pub name: Arc<str>,
    /// Where its plugin's output goes, with the budget its calls share.
    pub log: PluginLog,
    pub tools: GlobSet,
    /// Calls it also applies to whatever their tool's name: those with a
    /// value of one of these roles or one of these effects (what its
    /// plugin declared; nothing for a check that did not load, or whose
    /// policy table gives its own `tools`).
    pub routes: Routes,
    pub settings_json: String,
    pub limits: InstanceLimits,
    pub state: Result<Ready, LoadError>,
}

/// The roles and effects that route a call to a check besides its tool
/// globs (the contract's `plugin-info.roles` and `effects`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Routes {
    pub roles: Vec<crate::facts::Role>,
    pub effects: crate::facts::Effects,
}

impl LoadedCheck {
    /// What routes a call with `facts` to `tool` to this check (empty when
    /// nothing does): `tool name`, `role ROLE`, `effect EFFECT`.
    pub(crate) fn routes_for(&self, tool: &str, facts: &crate::facts::ToolFacts) -> Vec<String> {
        let mut via = Vec::new();
        if self.tools.is_match(tool) {
            via.push("tool name".to_string());
        }
        for r in self.routes.roles.iter().filter(|r| facts.has_role(**r)) {
            via.push(format!("role {}", r.name()));
        }
        for e in self
            .routes
            .effects
            .iter()
            .filter(|e| facts.effects.contains(*e))
        {
            via.push(format!("effect {}", e.name()));
        }
        via
    }

    /// Whether the check vets a call to `tool` with `facts`: its tool
    /// globs match, or the call has one of its roles or effects.
    pub(crate) fn applies(&self, tool: &str, facts: &crate::facts::ToolFacts) -> bool {
        self.tools.is_match(tool)
            || facts.effects.intersects(self.routes.effects)
            || self.routes.roles.iter().any(|r| facts.has_role(*r))
    }
}

/// A check that loaded: its component, what it declared, and its warm
/// instances.
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
    pub pool: Mutex<Vec<LiveInstance>>,
}

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
