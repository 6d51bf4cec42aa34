//! What loading a policy takes besides the policy: [`LoadOptions`], given
//! by each front end to [`crate::Host::load_with`] and kept for
//! [`crate::Host::reload`].

use crate::approval::LedgerProvider;
use crate::audit::Redactor;
use crate::locate::Locator;
use crate::progress::LoadObserver;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// What [`crate::Host::load_with`] takes besides the policy. Build it with
/// `..LoadOptions::default()`: fields may be added.
#[derive(Clone, Default)]
pub struct LoadOptions {
    /// Opens approval ledgers the core library does not implement (e.g.
    /// Postgres, from `toolvet serve`).
    pub ledger_provider: Option<Arc<dyn LedgerProvider>>,
    /// Redacts secrets from the arguments kept in decision records
    /// (`[host] decision_log_arguments = true`), after the policy's own
    /// `decision_log_redact` keys.
    pub redactor: Option<Arc<dyn Redactor>>,
    /// Told what loading does while it takes long: which checks compile
    /// (first run, rebuilt plugins), each one's compile time, snapshots
    /// taken ([`crate::progress`]). Also used by [`crate::Host::reload`]. The
    /// library itself never prints.
    pub observer: Option<Arc<dyn LoadObserver>>,
    /// Vet calls to this one tool only, leaving out checks that cannot
    /// select it. A check is left out only when the artifact cache records
    /// that the same plugin file loaded with the same settings before (so
    /// it would load now: a check that might fail to load is loaded, and
    /// its error fails the host as it would any host), and its globs (the
    /// policy's `tools`, else those its plugin declared then) do not match
    /// the tool. The host then denies a call to any other tool (rule
    /// `toolvet.host-scope`), so no check is ever skipped for a call it
    /// would select. For processes that vet one call, such as `toolvet
    /// hook`: the checks a call cannot select cost nothing.
    pub only_tool: Option<String>,
    /// With `[host] preinitialize`, start a reused check's first instance
    /// from its snapshot too, so loading it runs no `configure` (the
    /// snapshot is taken at the first load and cached like a per-call
    /// check's; SECURITY.md, "Snapshots"). For processes that load a policy
    /// to vet one call, such as `toolvet hook`, where the reused instance
    /// serves that one call and its `configure` would run every time.
    /// Default false: a long-running host configures each reused check
    /// once anyway, and taking the snapshot makes the first load slower.
    pub preinitialize_reused: bool,
    /// More of toolvet's own state that no tool may write, besides what the
    /// policy names ([`crate::state_paths::StatePaths`]): e.g. a front end's state
    /// directory (the hooks' session history). Files or directories
    /// (everything under a directory counts); relative paths resolve
    /// against the current directory at load. The host adds them to every
    /// call's `toolvet.state_paths` attribute, on every generation
    /// ([`crate::Host::reload`] keeps them).
    pub extra_state_paths: Vec<PathBuf>,
    /// More secrets of toolvet's that no tool may read or write (e.g. the
    /// key of the hooks' history), added to every call's
    /// `toolvet.secret_paths` attribute as
    /// [`LoadOptions::extra_state_paths`] are.
    pub extra_secret_paths: Vec<PathBuf>,
    /// The policy tables besides the core's (`[host]`, `[approvals]`,
    /// `[[check]]`) that this program reads, e.g. `["serve", "mcp",
    /// "hooks"]` (`toolvet_preset::FRONT_END_TABLES`). A policy with any
    /// other table does not load ([`crate::Policy::refuse_tables_besides`]).
    /// Default: none.
    pub front_end_tables: &'static [&'static str],
    /// Looks each call's paths up on the file system the tools run on,
    /// before the checks run ([`crate::locate`]): for a front end beside
    /// the tools (`toolvet_preset::options`). `None` (the default) judges
    /// paths as written, as a host away from the tools must (`toolvet
    /// serve`, case files, benchmarks).
    pub locator: Option<Arc<dyn Locator>>,
    /// The calls come from a file that stands for the host, not from a
    /// caller: case files, benchmarks, a replayed decision log, which state
    /// the host's facts (`toolvet.real_paths`) a check is to be judged
    /// with. Default false: a call whose context carries an attribute only
    /// the host sets is denied ([`crate::locate::caller_may_send`], rule
    /// [`crate::locate::RESERVED_ATTRIBUTE_RULE`]). Never set it in a
    /// front end that vets an agent's calls.
    pub caller_is_host: bool,
}

impl fmt::Debug for LoadOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadOptions")
            .field("ledger_provider", &self.ledger_provider)
            .field("redactor", &self.redactor)
            .field("observer", &self.observer.as_ref().map(|_| "LoadObserver"))
            .field("only_tool", &self.only_tool)
            .field("preinitialize_reused", &self.preinitialize_reused)
            .field("extra_state_paths", &self.extra_state_paths)
            .field("extra_secret_paths", &self.extra_secret_paths)
            .field("front_end_tables", &self.front_end_tables)
            .field("locator", &self.locator.as_ref().map(|_| "Locator"))
            .field("caller_is_host", &self.caller_is_host)
            .finish()
    }
}
