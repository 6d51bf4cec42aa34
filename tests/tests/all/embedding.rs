//! The host as a library for servers and bindings: its auto traits, calls
//! from plain threads and foreign executors, slow checks that do not hold
//! the runtime, atomic reloads, the policy digest, and what happens when
//! the decision log cannot be written.

use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};
use toolvet::{CallRequest, Decision, Host, Policy, verdict::ErrorKind};
use toolvet_tests::{call, check, fixture, policy};

#[test]
fn a_host_is_send_sync_clone_debug_and_static() {
    fn embeddable<T: Send + Sync + Clone + std::fmt::Debug + 'static>() {}
    embeddable::<Host>();
    embeddable::<toolvet::approval::Approvals>();
    embeddable::<toolvet::Verdict>();
}

fn allow_all() -> Policy {
    policy(json!({"check": [check("calm", "hostile.wasm", json!({}), json!({}))]}))
}

/// No Tokio runtime anywhere: load and check from a plain thread, and
/// await `check` on another executor.
#[test]
fn check_blocking_and_check_work_without_a_tokio_runtime() {
    assert!(tokio::runtime::Handle::try_current().is_err());
    let host = toolvet::block_on(Host::load(allow_all())).unwrap();
    let v = host.check_blocking(&call("any", json!({"x": 1})));
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
    // From several plain threads at once.
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let host = host.clone();
            std::thread::spawn(move || host.check_blocking(&call("any", json!({"i": i}))).decision)
        })
        .collect();
    for t in threads {
        assert_eq!(t.join().unwrap(), Decision::Allow);
    }
    // `check` polled by an executor that is not Tokio's.
    let v = futures::executor::block_on(host.check(&call("any", json!({}))));
    assert_eq!(v.decision, Decision::Allow);
    let loaded = futures::executor::block_on(Host::load(allow_all()));
    assert!(loaded.is_ok());
    // And `check_blocking` called from inside a runtime does not panic.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let inside = rt.block_on(async { host.check_blocking(&call("any", json!({}))) });
    assert_eq!(inside.decision, Decision::Allow);
}

/// Two checks that spin until their deadline and six fast callers share a
/// runtime with two workers: the fast calls all finish while the slow ones
/// are still spinning, because plugin code yields to the executor at every
/// epoch tick. Before, each slow check held a worker for its whole
/// deadline, and the fast calls waited behind them.
#[test]
fn slow_checks_do_not_hold_the_runtime_workers() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let host = Host::load(policy(json!({"check": [
            check("slow", "hostile.wasm", json!({"behave": "loop"}), json!({"tools": ["slow"], "timeout_ms": 3000})),
            check("fast", "hostile.wasm", json!({}), json!({"tools": ["fast"]})),
        ]})))
        .await
        .unwrap();
        let started = Instant::now();
        let mut tasks = Vec::new();
        for i in 0..8 {
            let host = host.clone();
            let tool = if i < 2 { "slow" } else { "fast" };
            tasks.push(tokio::spawn(async move {
                let v = host.check(&call(tool, json!({"i": i}))).await;
                (tool, v, started.elapsed())
            }));
            if i == 1 {
                // Let both slow checks start spinning first.
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        let mut finished = Vec::new();
        for t in tasks {
            finished.push(t.await.unwrap());
        }
        let slowest_fast = finished.iter().filter(|f| f.0 == "fast").map(|f| f.2).max().unwrap();
        let fastest_slow = finished.iter().filter(|f| f.0 == "slow").map(|f| f.2).min().unwrap();
        for (tool, v, _) in &finished {
            match *tool {
                "slow" => assert_eq!(v.checks[0].error.as_ref().unwrap().kind, ErrorKind::Timeout),
                _ => assert_eq!(v.decision, Decision::Allow),
            }
        }
        assert!(
            slowest_fast < fastest_slow,
            "the fast calls waited for the slow checks: last fast at {slowest_fast:?}, first slow at {fastest_slow:?}"
        );
    });
}

#[tokio::test]
async fn a_reload_swaps_atomically_and_a_failing_policy_keeps_the_old_one() {
    let host = Host::load(allow_all()).await.unwrap();
    let clone = host.clone();
    assert_eq!(host.generation(), 1);
    let digest = host.policy_sha256();
    // A policy that fails to load: the old one keeps serving.
    let broken = policy(
        json!({"check": [check("bad", "hostile.wasm", json!({"configure": "error"}), json!({}))]}),
    );
    assert!(host.reload(broken).await.is_err());
    assert_eq!(
        (host.generation(), host.policy_sha256()),
        (1, digest.clone())
    );
    assert_eq!(
        host.check(&call("any", json!({}))).await.decision,
        Decision::Allow
    );
    // A good one: every clone sees it.
    let deny_all = policy(
        json!({"check": [check("no", "hostile.wasm", json!({"behave": "panic"}), json!({}))]}),
    );
    assert_eq!(host.reload(deny_all).await.unwrap(), 2);
    assert_eq!(clone.generation(), 2);
    assert_ne!(clone.policy_sha256(), digest);
    assert_eq!(
        clone.check(&call("any", json!({}))).await.decision,
        Decision::Deny
    );
    // The unchanged component was reused, not compiled again.
    assert_eq!(clone.checks()[0].sha256, host.checks()[0].sha256);
}

#[test]
fn the_policy_digest_is_of_the_parsed_text_and_never_empty() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("toolvet.toml");
    let text = "[host]\ndefault_timeout_ms = 50\n";
    std::fs::write(&file, text).unwrap();
    let parsed = Policy::from_file(&file).unwrap();
    use sha2::Digest;
    assert_eq!(parsed.sha256(), hex::encode(sha2::Sha256::digest(text)));
    // Changing the file after parsing does not change what was parsed.
    std::fs::write(&file, "[host]\ndefault_timeout_ms = 99\n").unwrap();
    assert_eq!(parsed.sha256(), hex::encode(sha2::Sha256::digest(text)));
    // A policy built in code has a digest of its own, and another policy
    // another digest.
    let built = Policy::new(
        "<inline>",
        toolvet::config::HostSettings::default(),
        None,
        vec![],
    )
    .unwrap();
    assert_eq!(built.sha256().len(), 64);
    let other = Policy::new(
        "<inline>",
        toolvet::config::HostSettings {
            default_timeout_ms: 7,
            ..Default::default()
        },
        None,
        vec![],
    )
    .unwrap();
    assert_ne!(built.sha256(), other.sha256());
}

#[tokio::test]
async fn decision_records_carry_the_parsed_policys_digest() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.jsonl");
    let text = format!(
        "[host]\ndecision_log = \"{}\"\n[[check]]\nname = \"calm\"\nplugin = \"{}\"\n",
        log.display(),
        fixture("hostile.wasm")
    );
    let file = dir.path().join("toolvet.toml");
    std::fs::write(&file, &text).unwrap();
    let host = Host::from_file(&file).await.unwrap();
    // The file changes after loading; records keep the loaded text's digest.
    std::fs::write(&file, "# edited\n").unwrap();
    host.check(&call("any", json!({}))).await;
    host.flush_decision_log(Duration::from_secs(10))
        .await
        .unwrap();
    let record: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    use sha2::Digest;
    assert_eq!(
        record["policy_sha256"],
        hex::encode(sha2::Sha256::digest(&text))
    );
}

/// `toolvet check` under a file-size limit, so every write to the decision
/// log fails as on a full disk (`ulimit -f`, with SIGXFSZ ignored).
fn check_with_a_full_disk(dir: &Path, on_failure: &str) -> toolvet_tests::CliRun {
    let call = r#"{"call": {"name": "read_file", "arguments": {"path": "README.md"}}}"#;
    run_with_a_full_disk(dir, on_failure, "check", call)
}

/// `toolvet SUBCOMMAND --config toolvet.toml call.json` (the file holding
/// `input`) as [`check_with_a_full_disk`] runs `check`.
fn run_with_a_full_disk(
    dir: &Path,
    on_failure: &str,
    subcommand: &str,
    input: &str,
) -> toolvet_tests::CliRun {
    let log = dir.join("log.jsonl");
    // Already over the limit: every append fails.
    std::fs::write(&log, "x".repeat(8 << 10) + "\n").unwrap();
    let policy = format!(
        "[host]\ndecision_log = \"log.jsonl\"\ndecision_log_on_failure = \"{on_failure}\"\ncache_dir = \"{}\"\n\
         [[check]]\nname = \"calm\"\nplugin = \"{}\"\n",
        toolvet_tests::cache_dir().display(),
        fixture("hostile.wasm")
    );
    std::fs::write(dir.join("toolvet.toml"), policy).unwrap();
    std::fs::write(dir.join("call.json"), input).unwrap();
    let script = format!(
        "trap '' XFSZ; ulimit -f 4; exec '{}' {subcommand} --config toolvet.toml call.json",
        toolvet_tests::cli_binary().display()
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &script])
        .current_dir(dir)
        .env("TOOLVET_CACHE_DIR", toolvet_tests::cache_dir())
        .output()
        .unwrap();
    toolvet_tests::CliRun {
        code: out.status.code().unwrap(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn a_verdict_that_cannot_be_recorded_is_denied_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let run = check_with_a_full_disk(dir.path(), "deny");
    assert_eq!(run.code, 3, "stdout {} stderr {}", run.stdout, run.stderr);
    let v: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(v["rule"], "toolvet.decision-log", "{v}");
    assert!(
        run.stderr.contains("cannot write the decision log"),
        "{}",
        run.stderr
    );
}

/// A result whose record cannot be written is withheld, as a call is
/// denied (the policy's check does not vet results: it would pass).
#[test]
fn a_result_that_cannot_be_recorded_is_withheld_by_default() {
    let item = r#"{"call": {"name": "read_file", "arguments": {"path": "README.md"}},
                   "result": {"content": {"text": "fine"}}}"#;
    let dir = tempfile::tempdir().unwrap();
    let run = run_with_a_full_disk(dir.path(), "deny", "check-result", item);
    assert_eq!(run.code, 3, "stdout {} stderr {}", run.stdout, run.stderr);
    let v: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(v["action"], "withhold", "{v}");
    assert_eq!(v["rule"], "toolvet.decision-log", "{v}");
    assert!(v.get("content").is_none(), "{v}");
    // With `continue`, the result passes and the failure is reported.
    let dir = tempfile::tempdir().unwrap();
    let run = run_with_a_full_disk(dir.path(), "continue", "check-result", item);
    assert_eq!(run.code, 0, "stdout {} stderr {}", run.stdout, run.stderr);
    let v: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(v["action"], "pass", "{v}");
}

#[test]
fn with_continue_the_verdict_stands_and_the_failure_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let run = check_with_a_full_disk(dir.path(), "continue");
    assert_eq!(run.code, 0, "stdout {} stderr {}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("cannot write the decision log"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("not in the decision log"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_call_request_round_trips_with_its_ticket() {
    let text =
        r#"{"call":{"id":"c","name":"a","arguments":{"k":1}},"approval":{"ticket":"tv1.a.b"}}"#;
    let request = CallRequest::from_json(text).unwrap();
    let again = CallRequest::from_json(&serde_json::to_string(&request).unwrap()).unwrap();
    assert_eq!(again.approval, request.approval);
}
