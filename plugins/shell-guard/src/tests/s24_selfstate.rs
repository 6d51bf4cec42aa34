//! Review s24 F2: toolvet's own commands.
use super::*;

/// Every toolvet subcommand that decides, records or relays an approval,
/// or runs a gate whose approvals come from its client, is a guard rail:
/// `toolvet mcp` started from the agent's shell answers its own
/// elicitation (F2), and `toolvet cache prune` removes records.
#[test]
fn reviewer_capable_toolvet_subcommands_are_denied() {
    for cmd in [
        "toolvet mcp --config /home/alice/project/toolvet.toml -- python3 server.py",
        "toolvet mcp --config toolvet.toml --listen 127.0.0.1:8080 --upstream http://127.0.0.1:9000/mcp",
        "toolvet cache prune",
        "toolvet cache prune --config toolvet.toml",
        "toolvet serve --config toolvet.toml",
        "toolvet approvals approve apr_x --reviewer me",
        "toolvet hook install claude-code",
        "python3 /tmp/s24-front/mcp/self_approve.py /tmp/x.toml && toolvet mcp -- x",
    ] {
        deny(cmd, "shell.toolvet-state");
    }
}

/// `toolvet` reached through a path, a wrapper or a variable is matched as
/// the bare name is.
#[test]
fn toolvet_under_wrappers_and_paths_is_matched() {
    for cmd in [
        "env toolvet mcp -- x",
        "env -i PATH=/usr/bin toolvet mcp -- x",
        "exec -a tv toolvet mcp -- x",
        "/usr/local/bin/toolvet mcp -- x",
        "./target/release/toolvet mcp -- x",
        "nohup toolvet mcp -- x &",
        "command toolvet mcp -- x",
        "sudo toolvet mcp -- x",
        "timeout 60 toolvet mcp -- x",
        "T=toolvet; $T mcp -- x",
        "bash -c 'toolvet mcp -- python3 server.py'",
    ] {
        deny(cmd, "shell.toolvet-state");
    }
}

/// A subcommand toolvet's table does not list is held, not passed.
#[test]
fn unknown_toolvet_subcommands_are_held() {
    escalate("toolvet frobnicate", "shell.toolvet-state");
}

/// The subcommands that ask no one stay usable.
#[test]
fn harmless_toolvet_subcommands_stay_allowed() {
    for cmd in [
        "toolvet --help",
        "toolvet --version",
        "toolvet",
        "toolvet help",
        "toolvet help mcp",
        "toolvet inspect target/wasm32-wasip2/release/my_check.wasm",
        "toolvet new my-check --lang python",
        "toolvet log verify state/decisions.jsonl",
        "toolvet mcp --help",
    ] {
        if cmd == "toolvet mcp --help" {
            // The subcommand word decides, whatever the options: held
            // or denied, never allowed by its `--help`.
            assert_ne!(verdict(cmd).0, "allow", "{cmd}");
            continue;
        }
        allow(cmd);
    }
}

/// `cargo run` of toolvet's own binary is toolvet under another name.
#[test]
fn cargo_run_of_toolvet_is_toolvet() {
    deny("cargo run --bin toolvet -- serve", "shell.toolvet-state");
    deny(
        "cargo run -q -p toolvet-cli -- mcp --config toolvet.toml -- python3 s.py",
        "shell.toolvet-state",
    );
    deny(
        "cargo run --release --package=toolvet-cli -- approvals list",
        "shell.toolvet-state",
    );
    // `cargo run` builds and runs project code, so it is held anyway; the
    // harmless subcommands are not denied as toolvet state.
    for cmd in [
        "cargo run -p toolvet-cli -- inspect x.wasm",
        "cargo run --bin toolvet -- --help",
    ] {
        assert_ne!(verdict(cmd).0, "deny", "{cmd}");
    }
}
