//! What the `toolvet` binary's tests share: the binary, the built Rust
//! plugins, and a policy with a cold cache of its own.

#![allow(dead_code, reason = "each test file uses part of it")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The binary under test.
pub(crate) const TOOLVET: &str = env!("CARGO_BIN_EXE_toolvet");

/// A built Rust plugin of `target/plugins`, e.g. `tool_policy`.
pub(crate) fn plugin(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/plugins")
        .join(format!("{name}.wasm"));
    assert!(
        path.exists(),
        "{} is missing: run `make rust-plugins`",
        path.display()
    );
    path.canonicalize().unwrap()
}

/// What a run printed, and its exit code.
pub(crate) struct Run {
    /// Exit code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Run the binary in `dir` with `cache` as its artifact cache (stdin,
/// stdout and stderr are pipes, so not a terminal).
pub(crate) fn toolvet(dir: &Path, cache: &Path, args: &[&str], stdin: &str) -> Run {
    let mut child = Command::new(TOOLVET)
        .args(args)
        .current_dir(dir)
        .env("TOOLVET_CACHE_DIR", cache)
        .env_remove("TOOLVET_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A policy of two Rust checks (no decision log), and a cold cache
/// directory beside it.
pub(crate) fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("toolvet.toml"),
        format!(
            "[[check]]\nname = \"tools\"\nplugin = \"{}\"\nsettings = {{ deny = [\"nuke\"] }}\n\
             [[check]]\nname = \"sql\"\nplugin = \"{}\"\nisolation = \"reuse\"\n\
             [hooks]\nstate_dir = \"hooks-state\"\n",
            plugin("tool_policy").display(),
            plugin("sql_guard").display()
        ),
    )
    .unwrap();
    let cache = dir.path().join("cache");
    (dir, cache)
}

/// A call that tool-policy denies in [`setup`]'s policy.
pub(crate) const CALL: &str = r#"{"call": {"name": "nuke", "arguments": {"target": "prod"}}}"#;
