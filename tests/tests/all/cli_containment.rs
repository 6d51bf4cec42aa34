//! Containment as a person sees it through the CLI: a plugin path that is
//! not a regular file, a crashed check in a case file, and text a plugin
//! controls on stdout and stderr (escaped, never coloured when piped; the
//! JSON output keeps it exact).
//!
//! Needs the release CLI and the hostile corpus (`cargo build --release -p
//! toolvet-cli`, `bash tests/hostile/build.sh`).

use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;
use toolvet_tests::{CliRun, check, fixture, policy_text, run_cli, run_cli_within};

const CALL: &str = r#"{"call": {"name": "bash", "arguments": {"command": "ls"}}}"#;
const LIMIT: Duration = Duration::from_secs(20);

fn write_policy(dir: &Path, checks: Value) {
    std::fs::write(dir.join("p.toml"), policy_text(json!({ "check": checks }))).unwrap();
}

/// A directory with `p.toml` (the hostile fixture as check `forger`, with
/// `settings`) and `call.json` (a `bash` call).
fn forger(settings: Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_policy(
        dir.path(),
        json!([check("forger", "hostile.wasm", settings, json!({}))]),
    );
    std::fs::write(dir.path().join("call.json"), CALL).unwrap();
    dir
}

/// Neither a raw control character (escape sequences, NUL, bell) nor a
/// colour code reaches the terminal.
fn assert_inert(what: &str, text: &str) {
    assert!(
        !text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "{what} holds a raw control character: {text:?}"
    );
}

#[test]
fn a_fifo_as_the_plugin_path_is_refused_without_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("check.wasm");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    std::fs::write(
        dir.path().join("p.toml"),
        policy_text(json!({"check": [{"name": "piped", "plugin": fifo.to_str().unwrap()}]})),
    )
    .unwrap();
    std::fs::write(dir.path().join("call.json"), CALL).unwrap();
    // Nobody ever writes to the FIFO: opening it for reading blocks
    // unless it is opened without blocking.
    let (run, elapsed) = run_cli_within(LIMIT, &["check", "-c", "p.toml", "call.json"], dir.path());
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("check `piped`")
            && run
                .stderr
                .contains("cannot use plugin file: not a regular file (a FIFO, socket or device)"),
        "{}",
        run.stderr
    );
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

fn case_file(dir: &Path, error: Option<&str>) -> CliRun {
    let mut case = json!({
        "name": "a crash is not a deny",
        "call": {"name": "bash", "arguments": {"command": "ls"}},
        "expect": "deny",
    });
    if let Some(kind) = error {
        case["error"] = json!(kind);
    }
    let file = json!({
        "plugin": fixture("hostile.wasm"),
        "settings": {"behave": "panic"},
        "cases": [case],
    });
    // JSON is YAML.
    std::fs::write(dir.join("crash.cases.yaml"), file.to_string()).unwrap();
    run_cli(&["test", "crash.cases.yaml"], dir, "")
}

#[test]
fn a_crashed_check_passes_a_case_only_when_the_case_names_the_error() {
    let dir = tempfile::tempdir().unwrap();
    // `expect: deny` alone: the trap's `on_error` deny must not pass for
    // the check's own deny.
    let run = case_file(dir.path(), None);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("FAIL") && run.stdout.contains("got deny [toolvet.trap] (error trap)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("0 passed, 1 failed"), "{}", run.stdout);
    // Naming the error kind: passes.
    let run = case_file(dir.path(), Some("trap"));
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("1 passed, 0 failed"), "{}", run.stdout);
    // Naming another kind: fails.
    let run = case_file(dir.path(), Some("timeout"));
    assert_eq!(run.code, 1, "{}", run.stdout);
}

#[test]
fn plugin_text_on_stdout_and_stderr_is_escaped_and_never_coloured_when_piped() {
    let dir = forger(json!({"behave": "forge"}));
    let (run, _) = run_cli_within(
        LIMIT,
        &["check", "-c", "p.toml", "--format", "text", "call.json"],
        dir.path(),
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert_inert("stdout", &run.stdout);
    assert_inert("stderr", &run.stderr);
    // One verdict, one line: the forged `allow` line stays inside it.
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
    assert!(run.stdout.starts_with("deny "), "{}", run.stdout);
    assert!(
        run.stdout
            .contains(r"ok\nallow    bash  -  (1 µs)\x1b]0;pwned\x07\x1b[2J\x00"),
        "{}",
        run.stdout
    );
    // The plugin's log line and its stderr, forwarded a line at a time
    // (each with the log prefix) and escaped.
    assert!(
        run.stderr
            .contains(r"allow    bash  -  (1 µs)\x1b]0;pwned\x07\x1b[2J\x00"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.lines().any(|l| l.starts_with("allow")),
        "{}",
        run.stderr
    );
    // JSON keeps the exact text (JSON escapes it itself).
    let (run, _) = run_cli_within(LIMIT, &["check", "-c", "p.toml", "call.json"], dir.path());
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert_inert("JSON stdout", &run.stdout);
    let verdict: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(
        verdict["reason"],
        "ok\nallow    bash  -  (1 µs)\u{1b}]0;pwned\u{7}\u{1b}[2J\u{0}"
    );
    assert_eq!(verdict["rule"], "hostile.forge\u{1b}[8m");
}

#[test]
fn inspect_shows_describe_fields_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = fixture("describe-forge.wasm");
    let (run, _) = run_cli_within(LIMIT, &["inspect", &plugin], dir.path());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_inert("inspect", &run.stdout);
    let compatible: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("compatible:"))
        .collect();
    assert_eq!(compatible, ["compatible: yes"], "{}", run.stdout);
    assert!(
        run.stdout
            .contains(r"plugin:     forged\ncompatible: yes\x1b[2J\x1b]0;pwned\x07 1.0\x00\r"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains(r"\u{202e}txt.exe"), "{}", run.stdout);
    // JSON keeps the exact text.
    let (run, _) = run_cli_within(LIMIT, &["inspect", &plugin, "--format", "json"], dir.path());
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        report["describe"]["name"],
        "forged\ncompatible: yes\u{1b}[2J\u{1b}]0;pwned\u{7}"
    );
}

#[test]
fn a_load_error_quoting_the_plugin_is_escaped() {
    let dir = forger(json!({"configure": "forge-error"}));
    let (run, _) = run_cli_within(LIMIT, &["check", "-c", "p.toml", "call.json"], dir.path());
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert_inert("stderr", &run.stderr);
    assert!(
        run.stderr
            .contains(r"invalid settings: bad key\ntoolvet: check `forger` loaded OK\x1b[2K"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr
            .lines()
            .any(|l| l.starts_with("toolvet: check `forger` loaded OK")),
        "{}",
        run.stderr
    );
}
