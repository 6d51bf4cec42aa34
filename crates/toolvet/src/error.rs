//! Typed errors of the library. Each message says what is wrong and where
//! (file, line, check, key); the underlying error, when there is one, is
//! the error's [`std::error::Error::source`]. A call's own error,
//! [`crate::CallError`], lives with the call (`call.rs`).

use crate::display::visible;
use std::path::PathBuf;
use std::sync::Arc;

/// A policy file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The policy file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a valid policy. `line` is 0 when the problem has no
    /// single line.
    #[error("{}{}: {message}", path.display(), if *line > 0 { format!(":{line}") } else { String::new() })]
    Invalid {
        /// The policy file.
        path: PathBuf,
        /// 1-based line, or 0.
        line: usize,
        /// What is wrong, naming the check and key.
        message: String,
    },
}

/// Why a plugin could not be loaded as a check.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}{}check `{check}` ({}): {kind}", policy.display(), if *line > 0 { format!(":{line}: ") } else { ": ".to_string() }, plugin.display())]
#[non_exhaustive]
pub struct LoadError {
    /// The policy file that configures the check.
    pub policy: PathBuf,
    /// The line of the check's `name` in it (0 when built in code).
    pub line: usize,
    /// The check's name.
    pub check: String,
    /// The plugin file.
    pub plugin: PathBuf,
    /// What went wrong.
    #[source]
    pub kind: LoadErrorKind,
}

/// The ways loading a plugin fails.
///
/// The messages can quote the plugin (a `configure` error, a glob from
/// `describe`, the names in a trap): the fields keep the exact text, and
/// the `Display` form shows it with control characters escaped
/// ([`crate::display::visible`]), so a load error printed on a terminal
/// cannot forge lines or send escape sequences.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum LoadErrorKind {
    /// The file could not be opened or read.
    #[error("cannot read plugin file: {0}")]
    Read(#[source] Arc<std::io::Error>),
    /// The path is not a regular file (a directory, a FIFO, a device), or
    /// it is over the size limit for a plugin.
    #[error("cannot use plugin file: {}", visible(.0))]
    NotAFile(String),
    /// The file's sha256 differs from the pin in the policy.
    #[error("sha256 mismatch: policy pins {expected}, file has {actual}")]
    DigestMismatch {
        /// The pinned digest.
        expected: String,
        /// The file's digest.
        actual: String,
    },
    /// The file changed while the policy loaded: the bytes read again (to
    /// snapshot or compile it) are not those found first.
    #[error("the plugin file changed while loading: it had sha256 {expected}, now {actual}")]
    Changed {
        /// The digest found first.
        expected: String,
        /// The digest of the bytes read again.
        actual: String,
    },
    /// The file is empty, not WebAssembly, or a core module.
    #[error("not a WebAssembly component: {}", visible(.0))]
    NotAComponent(String),
    /// Compilation failed.
    #[error("cannot compile component: {}", visible(.0))]
    Compile(String),
    /// The component does not implement a compatible `toolvet:check/plugin`
    /// world, or imports something the host does not provide.
    #[error("incompatible component: {}", visible(.0))]
    Incompatible(String),
    /// `describe` or `configure` trapped, timed out or ran out of memory.
    #[error("{export} failed: {}", visible(message))]
    Failed {
        /// `instantiate`, `describe` or `configure`.
        export: &'static str,
        /// What happened.
        message: String,
    },
    /// The plugin's `configure` rejected the settings.
    #[error("invalid settings: {}", visible(.0))]
    InvalidSettings(String),
    /// The tool-name globs the plugin declares are not valid.
    #[error("plugin declares a bad tool glob: {}", visible(.0))]
    BadGlob(String),
    /// The host itself failed while loading the check (a panic in toolvet,
    /// not in the plugin).
    #[error("the host failed while loading the check: {}", visible(.0))]
    Host(String),
}

/// Startup and reload errors: the policy, one of its checks, or what the
/// host needs around them.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The policy file is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// One or more checks failed to load (all of them are listed).
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))]
    Load(Vec<LoadError>),
    /// The WebAssembly engine could not be created.
    #[error("cannot create the WebAssembly engine: {0}")]
    Engine(String),
    /// The `[approvals]` ledger or key could not be opened.
    #[error("{}: [approvals]: {source}", policy.display())]
    Approvals {
        /// The policy file.
        policy: PathBuf,
        /// What failed.
        #[source]
        source: crate::approval::types::ApprovalError,
    },
    /// The decision log could not be opened.
    #[error("{}: [host] `decision_log` {}: {source}", policy.display(), path.display())]
    DecisionLog {
        /// The policy file.
        policy: PathBuf,
        /// The log file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}
