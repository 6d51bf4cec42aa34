//! End-to-end tests of policies over the real shipped plugins
//! (target/plugins/, built by `make plugins`): the example calls, load
//! errors, modes, selection, the decision log, the artifact cache and the
//! CLI's exit codes.

use std::path::{Path, PathBuf};
use toolvet::{CallRequest, Decision, Host, Policy, verdict::CheckDecision, verdict::ErrorKind};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn plugin(name: &str) -> PathBuf {
    let path = root().join("target/plugins").join(format!("{name}.wasm"));
    assert!(
        path.exists(),
        "{} is missing: run `make plugins` first",
        path.display()
    );
    path
}

/// A policy from TOML text whose `{shell}`-style placeholders name plugins.
fn policy(text: &str, dir: &Path) -> Policy {
    let mut text = text.to_string();
    for name in ["shell_guard", "path_guard", "tool_policy"] {
        text = text.replace(&format!("{{{name}}}"), &plugin(name).display().to_string());
    }
    let file = dir.join("toolvet.toml");
    std::fs::write(&file, &text).unwrap();
    Policy::from_file(&file).unwrap()
}

fn call(name: &str, args: serde_json::Value) -> CallRequest {
    let mut request = CallRequest::new(name, &args).unwrap();
    request
        .context
        .attributes
        .insert("cwd".into(), "/home/alice/project".into());
    request
}

#[tokio::test]
async fn every_example_call_gets_its_expected_verdict() {
    // The example policy with its approvals in memory: the ledger in
    // examples/state/ keeps what a person did with these calls (an approved
    // and used call is not asked about anew), and this test asks afresh.
    let path = root().join("examples/toolvet.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("ledger = \"state/approvals.db\"", "ledger = \"memory\"");
    assert!(
        text.contains("ledger = \"memory\""),
        "the example policy's ledger line"
    );
    let policy = toolvet::Policy::from_toml(&text, &path, &root().join("examples")).unwrap();
    // What this test asserts is each verdict, not its speed: the other
    // tests in this binary compile components on every core meanwhile,
    // and a reused check's first call (instantiate, configure, check) can
    // then pass the policy's 100 ms default deadline. Deadlines have tests
    // of their own (deadline_under_load.rs, hostile_*.rs).
    let policy = policy
        .edit(|_, _, checks| {
            for check in checks {
                check.timeout_ms = 10_000;
            }
        })
        .unwrap();
    let host = Host::load(policy).await.expect("the example policy loads");
    let mut files: Vec<_> = std::fs::read_dir(root().join("examples/calls"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 15, "at least 15 example calls");
    let (mut allow, mut stop) = (0, 0);
    for file in files {
        let name = file.file_stem().unwrap().to_str().unwrap().to_string();
        let expected = name.split("--").next().unwrap();
        let request = CallRequest::from_json(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let verdict = host.check(&request).await;
        assert_eq!(
            verdict.decision.as_str(),
            expected,
            "{name}: reason {:?}",
            verdict.reason
        );
        assert!(
            verdict.checks.iter().all(|o| o.error.is_none()),
            "{name}: no check may fail: {:?}",
            verdict.checks
        );
        if verdict.decision == Decision::Allow {
            allow += 1;
        } else {
            assert!(verdict.reason.is_some() && verdict.rule.is_some(), "{name}");
            stop += 1;
        }
    }
    assert!(allow >= 5 && stop >= 10, "both benign and stopped calls");
}

#[tokio::test]
async fn load_errors_name_the_check_and_the_cause() {
    let dir = tempfile::tempdir().unwrap();
    let missing = policy(
        "[[check]]\nname = \"ghost\"\nplugin = \"nowhere/ghost.wasm\"\n",
        dir.path(),
    );
    let err = Host::load(missing)
        .await
        .expect_err("missing plugin")
        .to_string();
    assert!(err.contains("check `ghost`"), "{err}");
    assert!(
        err.contains("ghost.wasm") && err.contains("cannot read plugin file"),
        "{err}"
    );

    let bad_settings = policy(
        "[[check]]\nname = \"policy\"\nplugin = \"{tool_policy}\"\n[check.settings]\npreset = \"allow-some\"\n",
        dir.path(),
    );
    let err = Host::load(bad_settings).await.err().unwrap().to_string();
    assert!(
        err.contains("check `policy`") && err.contains("invalid settings"),
        "{err}"
    );
    assert!(
        err.contains("settings.preset"),
        "the plugin names the key: {err}"
    );

    let pinned = policy(
        &format!(
            "[[check]]\nname = \"shell\"\nplugin = \"{{shell_guard}}\"\nsha256 = \"{}\"\n",
            "0".repeat(64)
        ),
        dir.path(),
    );
    let err = Host::load(pinned).await.err().unwrap().to_string();
    assert!(err.contains("sha256 mismatch"), "{err}");

    let not_wasm = dir.path().join("policy.wasm");
    std::fs::write(&not_wasm, b"#!/bin/sh\necho hi\n").unwrap();
    let err = Host::load(policy(
        &format!(
            "[[check]]\nname = \"x\"\nplugin = \"{}\"\n",
            not_wasm.display()
        ),
        dir.path(),
    ))
    .await
    .err()
    .unwrap()
    .to_string();
    assert!(err.contains("not a WebAssembly component"), "{err}");
}

#[tokio::test]
async fn a_check_that_failed_to_load_applies_its_on_error_on_every_call() {
    let dir = tempfile::tempdir().unwrap();
    let p = policy(
        "[host]\ncontinue_on_errors = true\n\
         [[check]]\nname = \"ghost\"\nplugin = \"ghost.wasm\"\ntools = [\"bash\"]\non_error = \"escalate\"\n\
         [[check]]\nname = \"shell\"\nplugin = \"{shell_guard}\"\n",
        dir.path(),
    );
    let host = Host::load(p)
        .await
        .expect("starts despite the broken check");
    let v = host
        .check(&call("bash", serde_json::json!({"command": "ls"})))
        .await;
    assert_eq!(v.decision, Decision::Escalate);
    let ghost = &v.checks[0];
    assert_eq!(ghost.error.as_ref().unwrap().kind, ErrorKind::LoadFailed);
    assert_eq!(ghost.rule.as_deref(), Some("toolvet.load-failed"));
    // Not applicable to other tools: no decision from it.
    let v = host
        .check(&call("read_file", serde_json::json!({"path": "a"})))
        .await;
    assert!(
        v.checks.iter().all(|c| c.check != "ghost"),
        "{:?}",
        v.checks
    );
    assert_eq!(v.decision, Decision::Allow);
}

#[tokio::test]
async fn monitor_checks_are_recorded_but_never_decide() {
    let dir = tempfile::tempdir().unwrap();
    let host = Host::load(policy(
        "[[check]]\nname = \"shell\"\nplugin = \"{shell_guard}\"\nmode = \"monitor\"\n",
        dir.path(),
    ))
    .await
    .unwrap();
    let v = host
        .check(&call("bash", serde_json::json!({"command": "rm -rf ~"})))
        .await;
    assert_eq!(v.decision, Decision::Allow);
    assert_eq!(v.checks[0].decision, CheckDecision::Deny);
    assert_eq!(v.checks[0].rule.as_deref(), Some("shell.rm-home"));
}

#[tokio::test]
async fn config_tool_globs_override_the_plugins_own() {
    let dir = tempfile::tempdir().unwrap();
    let host = Host::load(policy(
        "[[check]]\nname = \"shell\"\nplugin = \"{shell_guard}\"\ntools = [\"my_runner\"]\n",
        dir.path(),
    ))
    .await
    .unwrap();
    let args = serde_json::json!({"command": "rm -rf /"});
    assert_eq!(
        host.check(&call("my_runner", args.clone())).await.decision,
        Decision::Deny
    );
    let v = host.check(&call("bash", args)).await;
    assert!(v.checks.is_empty(), "bash no longer selects the check");
}

#[tokio::test]
async fn oversized_calls_are_denied_before_any_check_runs() {
    let dir = tempfile::tempdir().unwrap();
    let host = Host::load(policy(
        "[host]\nmax_arguments_bytes = 1000\n[[check]]\nname = \"shell\"\nplugin = \"{shell_guard}\"\n",
        dir.path(),
    ))
    .await
    .unwrap();
    let v = host
        .check(&call(
            "bash",
            serde_json::json!({"command": "x".repeat(2000)}),
        ))
        .await;
    assert_eq!(v.decision, Decision::Deny);
    assert_eq!(v.rule.as_deref(), Some("toolvet.oversized-call"));
    assert!(v.checks.is_empty());
}

#[tokio::test]
async fn decision_log_records_every_verdict_in_a_verifiable_chain() {
    let dir = tempfile::tempdir().unwrap();
    let host = Host::load(policy(
        "[host]\ndecision_log = \"log/decisions.jsonl\"\n[[check]]\nname = \"shell\"\nplugin = \"{shell_guard}\"\n",
        dir.path(),
    ))
    .await
    .unwrap();
    host.check(&call("bash", serde_json::json!({"command": "ls"})))
        .await;
    host.check(&call("bash", serde_json::json!({"command": "rm -rf /"})))
        .await;
    host.flush_decision_log(std::time::Duration::from_secs(10))
        .await
        .unwrap();
    let text = std::fs::read_to_string(dir.path().join("log/decisions.jsonl")).unwrap();
    assert_eq!(toolvet::audit::verify_chain(&text), Ok(2));
    let second: serde_json::Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    assert_eq!(second["verdict"]["decision"], "deny");
    assert_eq!(second["plugin_sha256"][0].as_str().unwrap().len(), 64);
    assert!(
        !text.contains("rm -rf"),
        "arguments are logged as a digest only"
    );
}

#[tokio::test]
async fn second_load_comes_from_the_compiled_artifact_cache() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        "[host]\ncache_dir = \"cache\"\n[[check]]\nname = \"shell\"\nplugin = \"{shell_guard}\"\n";
    let first = Host::load(policy(text, dir.path())).await.unwrap();
    assert_eq!(first.checks()[0].cached, Some(false));
    let second = Host::load(policy(text, dir.path())).await.unwrap();
    assert_eq!(second.checks()[0].cached, Some(true));
    // A tampered artifact is ignored (recompiled), never loaded.
    for entry in std::fs::read_dir(dir.path().join("cache")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "cwasm") {
            let mut bytes = std::fs::read(&path).unwrap();
            let last = bytes.len() - 1;
            bytes[last] ^= 0xff;
            std::fs::write(&path, bytes).unwrap();
        }
    }
    let third = Host::load(policy(text, dir.path())).await.unwrap();
    assert_eq!(third.checks()[0].cached, Some(false));
    let v = third
        .check(&call("bash", serde_json::json!({"command": "rm -rf /"})))
        .await;
    assert_eq!(v.decision, Decision::Deny);
}

#[tokio::test]
async fn checks_that_accepted_their_settings_before_are_configured_on_first_use() {
    // Without snapshots (with them, a per-call check's second load maps
    // its cached snapshot instead: tests/tests/all/snapshots.rs).
    let dir = tempfile::tempdir().unwrap();
    let text = |branches: &str, isolation: &str| {
        format!(
            "[host]\ncache_dir = \"cache\"\npreinitialize = false\n[[check]]\nname = \"shell\"\nplugin = \"{{shell_guard}}\"\n\
             isolation = \"{isolation}\"\n[check.settings]\nprotected_branches = [{branches}]\n"
        )
    };
    let push = call(
        "bash",
        serde_json::json!({"command": "git push --force origin release"}),
    );
    for isolation in ["per-call", "reuse"] {
        let first = Host::load(policy(&text("\"release\"", isolation), dir.path()))
            .await
            .unwrap();
        let fresh_settings = first.checks()[0].deferred;
        let second = Host::load(policy(&text("\"release\"", isolation), dir.path()))
            .await
            .unwrap();
        assert_eq!(second.checks()[0].deferred, Some(true), "{isolation}");
        if isolation == "per-call" {
            assert_eq!(fresh_settings, Some(false), "first load configures");
        }
        assert_eq!(
            second.checks()[0].tools,
            first.checks()[0].tools,
            "describe's answer is remembered"
        );
        // The deferred check is configured with its settings on first use:
        // `release` is protected.
        for _ in 0..2 {
            let v = second.check(&push).await;
            assert_eq!(v.decision, Decision::Escalate, "{isolation}: {v:?}");
            assert_eq!(v.rule.as_deref(), Some("shell.git-force-push"));
        }
    }
    // Other settings were never accepted: configured (and checked) at load.
    let other = Host::load(policy(&text("\"main\"", "per-call"), dir.path()))
        .await
        .unwrap();
    assert_eq!(other.checks()[0].deferred, Some(false));
    assert_eq!(other.check(&push).await.decision, Decision::Allow);
    let bad = Host::load(policy(&text("42", "per-call"), dir.path())).await;
    assert!(bad.is_err(), "rejected settings fail the load");
    // A check that lets its failures through is always configured at load.
    let lenient = "[host]\ncache_dir = \"cache\"\npreinitialize = false\n[[check]]\nname = \"shell\"\n\
                   plugin = \"{shell_guard}\"\non_error = \"allow\"\n[check.settings]\n\
                   protected_branches = [\"release\"]\n";
    for _ in 0..2 {
        let host = Host::load(policy(lenient, dir.path())).await.unwrap();
        assert_eq!(host.checks()[0].deferred, Some(false), "{lenient}");
    }
}

fn run_cli(args: &[&str], stdin: &str) -> (i32, String, String) {
    let run = toolvet_tests::run_cli(args, &root(), stdin);
    (run.code, run.stdout, run.stderr)
}

#[test]
fn cli_exit_codes_follow_the_most_severe_verdict() {
    let cfg = ["check", "--config", "examples/toolvet.toml"];
    let allow = r#"{"call":{"name":"bash","arguments":{"command":"ls"}},"context":{"attributes":{"cwd":"/w"}}}"#;
    let deny = r#"{"call":{"name":"bash","arguments":{"command":"rm -rf /"}}}"#;
    let escalate = r#"{"call":{"name":"bash","arguments":{"command":"sudo apt-get install -y jq"}},"context":{"attributes":{"cwd":"/w"}}}"#;
    assert_eq!(run_cli(&cfg, allow).0, 0);
    assert_eq!(run_cli(&cfg, escalate).0, 4);
    let (code, out, _) = run_cli(&cfg, &format!("{allow}\n{deny}\n{escalate}\n"));
    assert_eq!(code, 3, "JSON Lines: deny is the most severe");
    assert_eq!(out.lines().count(), 3, "one verdict per call");
    let (code, _, err) = run_cli(&cfg, r#"{"call":{"name":"bash","arguments":"ls"}}"#);
    assert_eq!(code, 2);
    assert!(
        err.contains("`call.arguments` must be a JSON object"),
        "{err}"
    );
    let (code, _, err) = run_cli(&["check", "--config", "nope.toml"], allow);
    assert_eq!(code, 2);
    assert!(err.contains("nope.toml"), "{err}");
}

#[test]
fn cli_inspect_reports_contract_and_describe() {
    let shell = plugin("shell_guard");
    let (code, out, _) = run_cli(
        &["inspect", "--format", "json", shell.to_str().unwrap()],
        "",
    );
    assert_eq!(code, 0);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["compatible"], true);
    assert_eq!(report["describe"]["name"], "shell-guard");
    // Built with the kit, which speaks contract 0.2; a check of calls only.
    let exports = report["exports"].as_array().unwrap();
    assert!(
        exports.iter().any(|e| e == "toolvet:check/check@0.2.0"),
        "{report}"
    );
    assert!(
        !exports
            .iter()
            .any(|e| e == "toolvet:check/result-check@0.2.0"),
        "{report}"
    );
}

#[test]
fn cache_prune_keeps_exactly_what_the_policies_use() {
    let dir = tempfile::tempdir().unwrap();
    // Without snapshots, so that each settings value has one record and no
    // artifact of its own (snapshots: tests/tests/all/snapshots.rs).
    let write_policy = |file: &str, checks: &str| {
        let text = format!("[host]\ncache_dir = \"cache\"\npreinitialize = false\n{checks}");
        let text = ["shell_guard", "path_guard"].iter().fold(text, |t, name| {
            t.replace(&format!("{{{name}}}"), &plugin(name).display().to_string())
        });
        let path = dir.path().join(file);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let shell = |branch: &str| {
        format!(
            "[[check]]\nname = \"shell\"\nplugin = \"{{shell_guard}}\"\n\
             [check.settings]\nprotected_branches = [\"{branch}\"]\n"
        )
    };
    let kept = write_policy("kept.toml", &shell("main"));
    let other_settings = write_policy("other.toml", &shell("release"));
    let other_plugin = write_policy(
        "paths.toml",
        "[[check]]\nname = \"paths\"\nplugin = \"{path_guard}\"\n",
    );
    let broken = write_policy(
        "broken.toml",
        "[[check]]\nname = \"gone\"\nplugin = \"missing.wasm\"\n",
    );
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let load = |path: &str| {
        runtime
            .block_on(Host::load(Policy::from_file(Path::new(path)).unwrap()))
            .unwrap()
    };
    for path in [&kept, &other_settings, &other_plugin] {
        load(path);
    }
    let cache = dir.path().join("cache");
    // What no host of this build loads: another engine's artifact.
    let foreign = "ab12-0000000000000000-a2.cwasm";
    std::fs::write(cache.join(foreign), b"x").unwrap();
    std::fs::write(cache.join("notes.txt"), b"mine").unwrap();
    let names = || -> std::collections::BTreeSet<String> {
        std::fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect()
    };
    let all = names();
    let cwasm = |names: &std::collections::BTreeSet<String>| {
        names.iter().filter(|n| n.ends_with(".cwasm")).count()
    };
    assert_eq!(
        cwasm(&all),
        3,
        "two plugins and the foreign artifact: {all:?}"
    );

    // A policy whose check does not load: nothing is removed.
    let (code, _, err) = run_cli(&["cache", "prune", "--config", &broken], "");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("broken.toml") && err.contains("nothing removed"),
        "{err}"
    );
    assert_eq!(names(), all);

    // A policy without checks would keep nothing: refused.
    let empty = write_policy("empty.toml", "");
    let (code, _, err) = run_cli(&["cache", "prune", "--config", &empty], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("empty.toml has no checks"), "{err}");
    assert_eq!(names(), all);
    // A directory that holds no cache is refused, and nothing is created.
    let elsewhere = tempfile::tempdir().unwrap();
    let elsewhere_arg = elsewhere.path().display().to_string();
    let (code, _, err) = run_cli(&["cache", "prune", "--cache-dir", &elsewhere_arg], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a toolvet cache"), "{err}");
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);

    // Without a policy: only what this build can never load.
    let cache_arg = cache.display().to_string();
    let (code, out, err) = run_cli(&["cache", "prune", "--cache-dir", &cache_arg], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("removed {foreign}")), "{out}");
    assert_eq!(names().len(), all.len() - 1);

    // A dry run lists and keeps; the real run keeps shell-guard's artifact,
    // its tag, its digest record and the record of the settings `kept.toml`
    // gives it, and removes path-guard's artifact and the other settings.
    let before = names();
    let (code, out, err) = run_cli(&["cache", "prune", "--config", &kept, "--dry-run"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("would remove 5 files"), "{out}");
    assert_eq!(names(), before);
    let (code, out, err) = run_cli(&["cache", "prune", "--config", &kept], "");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("removed 5 files") && out.contains("kept 4"),
        "{out}"
    );
    let left = names();
    let count = |ext: &str| left.iter().filter(|n| n.ends_with(ext)).count();
    assert_eq!(
        [".cwasm", ".tag", ".digest", ".accepted"].map(count),
        [1, 1, 1, 1],
        "{left:?}"
    );
    assert!(
        left.contains("key") && left.contains("notes.txt"),
        "{left:?}"
    );

    // Everything `kept.toml` needs is still there: cache hit, deferred.
    let again = load(&kept);
    assert_eq!(again.checks()[0].cached, Some(true));
    assert_eq!(again.checks()[0].deferred, Some(true));
    assert_eq!(load(&other_plugin).checks()[0].cached, Some(false));
}
