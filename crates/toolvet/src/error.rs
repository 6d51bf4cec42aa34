//! Typed errors of the library. Each message says what is wrong and where
//! (file, line, check, key).

use std::path::PathBuf;

/// A policy file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{}: cannot read: {message}", path.display())]
    Read {
        /// The policy file.
        path: PathBuf,
        /// The OS error.
        message: String,
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
    pub kind: LoadErrorKind,
}

/// The ways loading a plugin fails.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LoadErrorKind {
    /// The file could not be read.
    #[error("cannot read plugin file: {0}")]
    Read(String),
    /// The file's sha256 differs from the pin in the policy.
    #[error("sha256 mismatch: policy pins {expected}, file has {actual}")]
    DigestMismatch {
        /// The pinned digest.
        expected: String,
        /// The file's digest.
        actual: String,
    },
    /// The file is empty, not WebAssembly, or a core module.
    #[error("not a WebAssembly component: {0}")]
    NotAComponent(String),
    /// Compilation failed.
    #[error("cannot compile component: {0}")]
    Compile(String),
    /// The component does not implement a compatible `toolvet:check/plugin`
    /// world, or imports something the host does not provide.
    #[error("incompatible component: {0}")]
    Incompatible(String),
    /// `describe` or `configure` trapped, timed out or ran out of memory.
    #[error("{export} failed: {message}")]
    Failed {
        /// `describe` or `configure`.
        export: &'static str,
        /// What happened.
        message: String,
    },
    /// The plugin's `configure` rejected the settings.
    #[error("invalid settings: {0}")]
    InvalidSettings(String),
    /// The tool-name globs the plugin declares are not valid.
    #[error("plugin declares a bad tool glob: {0}")]
    BadGlob(String),
}

/// Startup errors: the policy or one of its checks.
#[derive(Debug, thiserror::Error)]
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
}

/// A tool call that cannot be vetted because its JSON is malformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid tool call: {0}")]
pub struct CallError(pub String);
