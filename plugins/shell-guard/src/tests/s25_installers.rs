//! Review s25 R15: package installers write programs whose names come
//! from the package into a directory; into one holding the hook program
//! or the agent's launcher (guarded programs, `toolvet.state_paths`) that
//! is a write onto them.
use super::*;

/// The hook program at `/opt/tv/bin/toolvet`, toolvet in `~/.cargo/bin`,
/// `~/go/bin` and `~/.local/bin`, the agent's launcher under an npm prefix.
fn guarded() -> Vec<(&'static str, String)> {
    vec![(
        "toolvet.state_paths",
        serde_json::json!([
            "/opt/tv/bin/toolvet",
            "/home/alice/.cargo/bin/toolvet",
            "/home/alice/go/bin/toolvet",
            "/home/alice/.local/bin/toolvet",
            "/home/alice/.npm-global/lib/node_modules/@anthropic-ai/claude-code/cli.js",
        ])
        .to_string(),
    )]
}

#[track_caller]
fn held_or_denied(cmd: &str) {
    let (kind, rule) = decided_with(cmd, &guarded());
    assert_ne!(kind, "allow", "{cmd}");
    assert_eq!(rule.as_deref(), Some("shell.toolvet-state"), "{cmd}");
}

#[test]
fn cargo_install_into_a_guarded_programs_directory() {
    for cmd in [
        "cargo install --force --path ./evil --root /opt/tv",
        "cargo install --force --path ./evil --root=/opt/tv",
        "CARGO_INSTALL_ROOT=/opt/tv cargo install --force --path ./evil",
        "export CARGO_INSTALL_ROOT=/opt/tv; cargo install --path ./evil",
        "CARGO_HOME=/opt/tv cargo install --path ./evil",
        "cargo install --force --git https://github.com/a/b toolvet-cli --root /opt/tv",
        "cargo +nightly install --path ./evil --root /opt/tv",
        "cargo install --path ./evil",
        "cargo install --force toolvet-cli",
        "cd /tmp && cargo install --path ./evil --root ~/.cargo",
        "cargo binstall --install-path /opt/tv/bin toolvet-cli",
    ] {
        held_or_denied(cmd);
    }
}

#[test]
fn go_install_into_a_guarded_programs_directory() {
    for cmd in [
        "GOBIN=/opt/tv/bin go install example.com/toolvet@latest",
        "GOPATH=/opt/tv go install example.com/toolvet@latest",
        "GOPATH=/opt/tv:/x go install example.com/toolvet@latest",
        "go install example.com/toolvet@latest",
    ] {
        held_or_denied(cmd);
    }
}

#[test]
fn python_and_node_installers_into_a_guarded_programs_directory() {
    for cmd in [
        "pip install --user --force-reinstall ./evil",
        "pip3 install --user ./evil",
        "PYTHONUSERBASE=/opt/tv pip install --user ./evil",
        "pipx install --force ./evil",
        "PIPX_BIN_DIR=/opt/tv/bin pipx install ./evil",
        "uv tool install --force ./evil",
        "UV_TOOL_BIN_DIR=/opt/tv/bin uv tool install ./evil",
        "npm install -g --prefix /opt/tv ./evil",
        "npm i -g --prefix=/opt/tv ./evil",
        "NPM_CONFIG_PREFIX=/opt/tv npm install --global ./evil",
        "npm install -g --force ./evil",
        "npm install -g @anthropic-ai/claude-code@latest",
    ] {
        held_or_denied(cmd);
    }
}

/// Installs elsewhere, and installer commands that install nothing, stay
/// as they were.
#[test]
fn installs_elsewhere_stay_allowed() {
    for cmd in [
        "cargo install --path . --root /tmp/tools",
        "CARGO_INSTALL_ROOT=/tmp/tools cargo install ripgrep",
        "cargo build --release",
        "cargo install --list",
        "GOBIN=/tmp/gobin go install example.com/tool@latest",
        "go build ./...",
        "pip install requests",
        "npm install -g --prefix /tmp/npm typescript",
        "npm install lodash",
        "pipx list",
        "uv tool list",
    ] {
        let (kind, rule) = decided_with(cmd, &guarded());
        assert!(
            kind == "allow" || rule.as_deref() != Some("shell.toolvet-state"),
            "{cmd}: {kind} {rule:?}"
        );
    }
    // With nothing guarded in the default directories, the defaults pass.
    let none = vec![(
        "toolvet.state_paths",
        serde_json::json!(["/opt/tv/bin/toolvet"]).to_string(),
    )];
    for cmd in [
        "cargo install ripgrep",
        // (A module among the most installed: an unknown one is held as a
        // package from a repository, `s22_packages`.)
        "go install golang.org/x/tools/gopls@latest",
    ] {
        assert_eq!(decided_with(cmd, &none), ("allow".into(), None), "{cmd}");
    }
}

/// `~/.local/bin` holds `env`, which the shell start-up files source
/// (uv's installer): a package's program may be named so. Installs there
/// are held, not denied.
#[test]
fn installs_beside_a_sourced_file_are_held() {
    let none = vec![(
        "toolvet.state_paths",
        serde_json::json!(["/opt/tv/bin/toolvet"]).to_string(),
    )];
    for cmd in [
        "pipx install black",
        "uv tool install ruff",
        "pip install --user requests",
    ] {
        assert_eq!(
            decided_with(cmd, &none),
            ("escalate".into(), Some("shell.guardrail-write".into())),
            "{cmd}"
        );
    }
}
