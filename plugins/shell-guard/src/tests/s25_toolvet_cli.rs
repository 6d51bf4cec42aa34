//! Review s25 R2, R3: toolvet's own command line run from the agent's
//! shell. A subcommand that vets calls under a policy records verdicts
//! and opens approval requests where that policy says (R2: `toolvet
//! check --config AGENT_POLICY` appended to `~/.bashrc` and forged
//! records in the real decision log); building a check runs its build
//! code (R3).
use super::*;

/// Vetting calls under a policy from the agent's shell is denied: the
/// records and requests are forged, and the policy chooses the files.
#[test]
fn toolvet_commands_that_vet_and_record_are_denied() {
    for cmd in [
        "toolvet check --config tmp/p.toml tmp/c.json",
        "/tmp/s25/bin/toolvet check -c tmp/p.toml tmp/c.json",
        "toolvet check --config=/tmp/s25-rails/policy/toolvet.toml esc.json",
        "toolvet check c.json --format text",
        "toolvet check-result --config tmp/p.toml results.jsonl",
        "printf '{}' > tmp/c.json && toolvet check < tmp/c.json",
        "toolvet test cases.yaml",
        "toolvet test --config toolvet.toml cases.yaml",
        "toolvet test --config=toolvet.toml cases.yaml",
        "toolvet test --config toolvet.toml --build my-check",
        "toolvet test --build --verbose my-check",
        "toolvet test --watch my-check",
        "toolvet bench --config toolvet.toml calls.jsonl",
        "toolvet bench --keep-decision-log -c p.toml calls.jsonl",
        "cargo run -p toolvet-cli -- check --config toolvet.toml c.json",
        "env -i PATH=/usr/bin toolvet check -c p.toml c.json",
        "bash -c 'toolvet check -c p.toml c.json'",
    ] {
        deny(cmd, "shell.toolvet-state");
    }
}

/// Building a check runs its build scripts, the kit's build script and
/// the check's own module: held, as `cargo build` of written code is.
#[test]
fn building_a_check_is_held() {
    for cmd in [
        "toolvet build chk2",
        "toolvet build",
        "toolvet build --kit ./kit my-check",
        "toolvet build --force .",
        "printf 'fn main(){}' > chk/build.rs && toolvet build chk",
        "toolvet test --plugin x.wasm --build my-check",
        "toolvet test --watch --plugin=x.wasm my-check",
    ] {
        escalate(cmd, "shell.eval-dynamic");
    }
}

/// Loading a policy that names where compiled plugins go: held.
#[test]
fn toolvet_commands_writing_a_policys_cache_are_held() {
    for cmd in [
        "toolvet compile --config toolvet.toml",
        "toolvet replay --config new.toml state/decisions.jsonl",
    ] {
        escalate(cmd, "shell.toolvet-state");
    }
}

/// Reading, printing and testing a plugin file with no policy stay
/// allowed; a subcommand's `--help` does not make a denied one allowed.
#[test]
fn toolvet_commands_that_only_read_stay_allowed() {
    for cmd in [
        "toolvet --help",
        "toolvet --version",
        "toolvet help check",
        "toolvet inspect target/wasm32-wasip2/release/my_check.wasm",
        "toolvet log verify state/decisions.jsonl",
        "toolvet test --plugin target/wasm32-wasip2/release/my_check.wasm cases.yaml",
        "toolvet test --plugin=x.wasm -v cases.yaml",
        "toolvet new my-check --lang python",
    ] {
        allow(cmd);
    }
    assert_eq!(verdict("toolvet check --help").0, "deny");
}

/// The refusal names what the subcommand does, not another way to run it.
#[test]
fn the_refusal_names_no_way_around() {
    let text = match analyze("toolvet check -c p.toml c.json", &opts(), Some(CWD)) {
        toolvet_pdk::Decision::Deny(r) => r.message,
        d => panic!("{}", d.kind()),
    };
    assert!(text.contains("decision log"), "{text}");
    for hint in ["--plugin", "instead", "inspect", "log verify"] {
        assert!(!text.contains(hint), "{hint} in {text}");
    }
}
