//! The workspace-hack crate of cargo-hakari: it has no code; its dependencies
//! unify the features every build of the workspace resolves (`.config/hakari.toml`).
