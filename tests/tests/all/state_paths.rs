//! toolvet's own state is a guard rail on every call, whichever front end
//! vets it: the host passes the policy's real ledger, key, policy file and
//! decision log to the checks (`toolvet.state_paths`,
//! `toolvet.secret_paths`), unioned into what the caller sent (#29 finding
//! 1). Here through `toolvet check`, with a policy whose state has names no
//! default glob matches.
//!
//! Needs the release CLI and the shipped plugins (`cargo build --release -p
//! toolvet-cli`, `make plugins`).

use serde_json::{Value, json};
use std::path::Path;
use toolvet_tests::{repo_root, run_cli};

/// A copy of `examples/toolvet.toml` in `dir/cfg/policy-x.toml` whose
/// ledger, key and decision log have non-default names.
fn write_policy(dir: &Path) -> std::path::PathBuf {
    let example = std::fs::read_to_string(repo_root().join("examples/toolvet.toml")).unwrap();
    let plugins = repo_root().join("target/plugins/");
    let mut text = String::new();
    for line in example.lines() {
        let line = if line.starts_with("ledger = ") {
            "ledger = \"state/ledger-x.sqlite\"".to_string()
        } else if line.starts_with("key_file = ") {
            "key_file = \"state/sign.bin\"".to_string()
        } else if line.starts_with("decision_log = ") {
            "decision_log = \"logs/audit-x.jsonl\"".to_string()
        } else {
            line.replace("../target/plugins/", plugins.to_str().unwrap())
        };
        text.push_str(&line);
        text.push('\n');
    }
    for (key, value) in [
        ("ledger", "\"state/ledger-x.sqlite\""),
        ("key_file", "\"state/sign.bin\""),
        ("decision_log", "\"logs/audit-x.jsonl\""),
    ] {
        assert!(
            text.contains(&format!("\n{key} = {value}\n")),
            "examples/toolvet.toml has no `{key}` line to replace"
        );
    }
    let cfg = dir.join("cfg");
    std::fs::create_dir_all(&cfg).unwrap();
    let path = cfg.join("policy-x.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The verdict of `toolvet check` on a `bash` call running `command` with
/// `attributes` (besides `cwd`), and its exit code.
fn check_bash(policy: &Path, dir: &Path, command: &str, attributes: Value) -> (Value, i32) {
    let mut attrs = json!({ "cwd": dir.to_str().unwrap() });
    for (k, v) in attributes.as_object().unwrap() {
        attrs[k] = v.clone();
    }
    let call = json!({
        "call": {"name": "bash", "arguments": {"command": command}},
        "context": {"attributes": attrs},
    });
    let run = run_cli(
        &["check", "-c", policy.to_str().unwrap()],
        dir,
        &call.to_string(),
    );
    let verdict: Value = serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: stdout {:?} stderr {}", run.stdout, run.stderr));
    (verdict, run.code)
}

#[test]
fn the_policys_own_ledger_and_key_are_guard_rails_whatever_the_caller_sends() {
    let dir = tempfile::tempdir().unwrap();
    let policy = write_policy(dir.path());
    let state = dir.path().join("cfg/state");
    let ledger = state.join("ledger-x.sqlite");
    let key = state.join("sign.bin");
    let update = format!(
        "sqlite3 {} \"UPDATE requests SET status = 'approved' WHERE id = 'apr_1'\"",
        ledger.display()
    );
    let read_key = format!("cat {}", key.display());

    // Control: the same write onto another SQLite file is allowed, so the
    // denials below come from the host's paths, not from the command.
    let other = format!(
        "sqlite3 {} \"UPDATE t SET a = 1 WHERE id = 2\"",
        dir.path().join("other.sqlite").display()
    );
    let (verdict, code) = check_bash(&policy, dir.path(), &other, json!({}));
    assert_eq!(verdict["decision"], "allow", "{verdict}");
    assert_eq!(code, 0);
    // Loading the policy made its ledger and key.
    assert!(ledger.is_file() && key.is_file());

    for sent in [
        json!({}),
        // What a caller sends can add guard rails, never remove the host's.
        json!({"toolvet.state_paths": "[]", "toolvet.secret_paths": "[]"}),
        json!({"toolvet.state_paths": "[\"/somewhere/else\"]"}),
    ] {
        let (verdict, code) = check_bash(&policy, dir.path(), &update, sent.clone());
        assert_eq!(verdict["decision"], "deny", "sent {sent}: {verdict}");
        assert_eq!(code, 3);
        assert_eq!(
            verdict["rule"], "shell.toolvet-state",
            "sent {sent}: {verdict}"
        );
        let reason = verdict["reason"].as_str().unwrap();
        assert!(reason.contains(ledger.to_str().unwrap()), "{reason}");

        let (verdict, code) = check_bash(&policy, dir.path(), &read_key, sent.clone());
        assert_eq!(verdict["decision"], "deny", "sent {sent}: {verdict}");
        assert_eq!(code, 3);
        let reason = verdict["reason"].as_str().unwrap();
        assert!(
            reason.contains(key.to_str().unwrap()) && reason.contains("one of toolvet's keys"),
            "sent {sent}: {reason}"
        );
    }

    // A caller path is added: the other file is now a guard rail too.
    let extra = json!({ "toolvet.state_paths": format!("[{:?}]", dir.path().join("other.sqlite").to_str().unwrap()) });
    let (verdict, _) = check_bash(&policy, dir.path(), &other, extra);
    assert_eq!(verdict["decision"], "deny", "{verdict}");
    assert_eq!(verdict["rule"], "shell.toolvet-state", "{verdict}");

    // A value the checks cannot use is refused by the host, whatever the
    // checks' `on_error`.
    for bad in [json!("/x"), json!("[\"relative\"]"), json!("[1]")] {
        let sent = json!({ "toolvet.secret_paths": bad });
        let (verdict, code) = check_bash(&policy, dir.path(), "ls", sent.clone());
        assert_eq!(verdict["decision"], "deny", "sent {sent}: {verdict}");
        assert_eq!(code, 3);
        assert_eq!(verdict["rule"], "toolvet.invalid-state-paths", "{verdict}");
        let reason = verdict["reason"].as_str().unwrap();
        assert!(
            reason.starts_with("context.attributes[\"toolvet.secret_paths\"]"),
            "{reason}"
        );
    }
}

/// The host's paths as the library computes them: the policy file, the
/// ledger, the decision log, the plugins and the front end's own paths
/// ([`toolvet::LoadOptions::extra_state_paths`]); the keys as secrets.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_lists_the_policys_state_and_the_front_ends() {
    let dir = tempfile::tempdir().unwrap();
    let policy_path = write_policy(dir.path());
    let policy = toolvet::Policy::from_file(&policy_path).unwrap();
    let hooks_state = dir.path().join("hooks/./state/");
    let options = toolvet::LoadOptions {
        extra_state_paths: vec![hooks_state],
        extra_secret_paths: vec![dir.path().join("hooks/history.key")],
        ..toolvet::LoadOptions::default()
    };
    // The tests' artifact cache, set in the policy (no process-wide change).
    let policy = policy
        .edit(|host, _, _| host.cache_dir = Some(toolvet_tests::cache_dir()))
        .unwrap();
    let host = toolvet::Host::load_with(policy, options).await.unwrap();
    let paths = host.state_paths();
    let cfg = std::fs::canonicalize(dir.path().join("cfg")).unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let has = |list: &[String], p: &Path| list.iter().any(|s| s == p.to_str().unwrap());
    for p in [
        cfg.join("policy-x.toml"),
        cfg.join("state/ledger-x.sqlite"),
        cfg.join("logs/audit-x.jsonl"),
        cfg.join("logs/audit-x.jsonl.anchor"),
        base.join("hooks/state"),
        std::fs::canonicalize(repo_root().join("target/plugins/shell_guard.wasm")).unwrap(),
    ] {
        assert!(
            has(paths.state(), &p),
            "{} not in {:?}",
            p.display(),
            paths.state()
        );
    }
    for p in [
        cfg.join("state/sign.bin"),
        cfg.join("logs/audit-x.jsonl.key"),
        base.join("hooks/history.key"),
    ] {
        assert!(
            has(paths.secret(), &p),
            "{} not in {:?}",
            p.display(),
            paths.secret()
        );
    }
    // The front end's state directory is a guard rail on a call.
    let call = toolvet::CallRequest::from_json(
        &json!({
            "call": {"name": "bash", "arguments": {"command":
                format!("echo forged >> {}", base.join("hooks/state/s1.jsonl").display())}},
            "context": {"attributes": {"cwd": base.to_str().unwrap()}},
        })
        .to_string(),
    )
    .unwrap();
    let verdict = host.check(&call).await;
    assert_eq!(verdict.decision, toolvet::Decision::Deny, "{verdict:?}");
    assert_eq!(
        verdict.rule.as_deref(),
        Some("shell.toolvet-state"),
        "{verdict:?}"
    );
}

/// The verdict of `toolvet check` on a call of `tool` with `arguments`,
/// made in `dir` (its `cwd`).
fn check_call(policy: &Path, dir: &Path, tool: &str, arguments: Value) -> Value {
    let call = json!({
        "call": {"name": tool, "arguments": arguments},
        "context": {"attributes": {"cwd": dir.to_str().unwrap()}},
    });
    let run = run_cli(
        &["check", "-c", policy.to_str().unwrap()],
        dir,
        &call.to_string(),
    );
    serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: stdout {:?} stderr {}", run.stdout, run.stderr))
}

/// `toolvet check` runs beside the tools, so it looks a call's paths up on
/// the file system before the checks run, as the hooks do
/// (`toolvet_preset::RealPathsLocator`): a link made earlier, out of the
/// checks' sight, leads a write onto toolvet's policy file, and a path
/// whose real location cannot be found denies the call (review s23 R2,
/// which found only the hooks resolving links).
#[test]
fn toolvet_check_follows_links_to_toolvets_state() {
    let dir = tempfile::tempdir().unwrap();
    let policy = write_policy(dir.path());
    std::fs::create_dir(dir.path().join("notes")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("cfg"), dir.path().join("lnk")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("notes"), dir.path().join("docs")).unwrap();
    std::os::unix::fs::symlink("loop", dir.path().join("loop")).unwrap();

    // Control: a link to an ordinary directory is written through.
    let verdict = check_call(
        &policy,
        dir.path(),
        "write_file",
        json!({"path": "docs/todo.txt", "content": "x"}),
    );
    assert_eq!(verdict["decision"], "allow", "{verdict}");
    let verdict = check_call(
        &policy,
        dir.path(),
        "bash",
        json!({"command": "echo x >> docs/todo.txt"}),
    );
    assert_eq!(verdict["decision"], "allow", "{verdict}");

    // Through the link, the policy file is toolvet's own state.
    for (tool, arguments) in [
        (
            "write_file",
            json!({"path": "lnk/policy-x.toml", "content": "[host]\n"}),
        ),
        (
            "bash",
            json!({"command": "echo '[host]' > lnk/policy-x.toml"}),
        ),
    ] {
        let verdict = check_call(&policy, dir.path(), tool, arguments.clone());
        assert_eq!(verdict["decision"], "deny", "{arguments}: {verdict}");
        let reason = verdict["reason"].as_str().unwrap();
        assert!(reason.contains("policy-x.toml"), "{arguments}: {reason}");
    }

    // A loop of links cannot be placed: denied by the host.
    let verdict = check_call(
        &policy,
        dir.path(),
        "write_file",
        json!({"path": "loop/x", "content": "x"}),
    );
    assert_eq!(verdict["decision"], "deny", "{verdict}");
    assert_eq!(verdict["rule"], "toolvet.unplaced-path", "{verdict}");
}
