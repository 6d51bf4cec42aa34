//! What loading a policy reports while it works, for front ends that show
//! progress: compiling a Python or JavaScript check takes seconds of CPU,
//! and a first run (empty or stale artifact cache) of a policy with several
//! such checks takes half a minute. The library itself never prints; a
//! [`LoadObserver`] in [`crate::LoadOptions::observer`] receives each
//! [`LoadEvent`] and renders it (the `toolvet` CLI draws a progress bar on
//! a terminal and writes plain lines to stderr otherwise).
//!
//! ```
//! use std::sync::Arc;
//! use toolvet::{progress::LoadEvent, LoadOptions};
//!
//! let options = LoadOptions {
//!     observer: Some(Arc::new(|event: &LoadEvent| {
//!         if let LoadEvent::CompileStarted { checks } = event {
//!             eprintln!("compiling {} checks, first run only…", checks.len());
//!         }
//!     })),
//!     ..LoadOptions::default()
//! };
//! # let _ = options;
//! ```
//!
//! Nothing is reported when every component comes from the cache.

use std::time::Duration;

/// One step of loading a policy ([`crate::Host::load_with`],
/// [`crate::Host::reload`]) or of inspecting a plugin.
///
/// Components missing from the artifact cache are compiled one after
/// another (each one on all cores: wasmtime compiles a component's
/// functions in parallel), so each [`LoadEvent::Compiled`] carries that
/// check's own compile time. Snapshots (`[host] preinitialize`) of several
/// checks are taken concurrently, after compiling. A check that is
/// snapshotted runs only its snapshot, so its own component is not
/// compiled (nor listed in [`LoadEvent::CompileStarted`]) unless no snapshot
/// of it can be taken; that compile follows its
/// [`LoadEvent::SnapshotFinished`] unreported.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadEvent {
    /// These checks (names, in policy order) have no compiled artifact in
    /// the cache (a first run, a rebuilt plugin, another toolvet version)
    /// and compile now. Sent at most once per load, and not at all when
    /// nothing needs compiling.
    CompileStarted {
        /// The checks to compile, in the order they compile.
        checks: Vec<String>,
    },
    /// Check `check`, number `index` (from 0) of
    /// [`LoadEvent::CompileStarted`]'s list, starts compiling.
    Compiling {
        /// The check's name.
        check: String,
        /// Its position in the list, from 0.
        index: usize,
    },
    /// Check `check` is compiled (`ok`), or failed to compile (the load
    /// error names why).
    Compiled {
        /// The check's name.
        check: String,
        /// Its position in the list, from 0.
        index: usize,
        /// Its own compile time (and storing the artifact).
        elapsed: Duration,
        /// Whether it compiled.
        ok: bool,
    },
    /// Every check of [`LoadEvent::CompileStarted`] is done.
    CompileFinished {
        /// Wall time since [`LoadEvent::CompileStarted`].
        elapsed: Duration,
    },
    /// A snapshot of `check` is being taken (`[host] preinitialize`, no
    /// snapshot for these settings in the cache): its `configure` runs
    /// once in an instrumented instance and the configured component is
    /// compiled.
    SnapshotStarted {
        /// The check's name.
        check: String,
    },
    /// The snapshot of `check` is done.
    SnapshotFinished {
        /// The check's name.
        check: String,
        /// Since [`LoadEvent::SnapshotStarted`].
        elapsed: Duration,
        /// Whether a snapshot was taken (`false`: the check runs
        /// `configure` per instance instead, or failed to load).
        ok: bool,
    },
}

/// Receives the [`LoadEvent`]s of a load. Called from the threads that do
/// the work (compile threads, runtime workers), possibly from several at
/// once: return quickly and never block on the load itself.
///
/// Any `Fn(&LoadEvent) + Send + Sync` closure is an observer.
pub trait LoadObserver: Send + Sync {
    /// One step of the load.
    fn event(&self, event: &LoadEvent);
}

impl<F: Fn(&LoadEvent) + Send + Sync> LoadObserver for F {
    fn event(&self, event: &LoadEvent) {
        self(event)
    }
}

/// Send `event` to `observer`, if there is one.
pub(crate) fn report(observer: Option<&dyn LoadObserver>, event: impl FnOnce() -> LoadEvent) {
    if let Some(observer) = observer {
        observer.event(&event());
    }
}
