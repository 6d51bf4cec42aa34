//! The hostile corpus, load side: files that are not a usable check, and
//! checks whose `describe` or `configure` misbehave. Each must be a load
//! error that names the check and the cause (never a crash or a hang), and,
//! with `continue_on_errors`, a broken check that answers its `on_error`
//! decision on every call with kind `load-failed`.
//!
//! Fixtures: `bash tests/hostile/build.sh` (see tests/hostile/fixtures.md).

use serde_json::{Value, json};
use std::time::Duration;
use toolvet::{Decision, LoadErrorKind, verdict::ErrorKind};
use toolvet_tests::{call, check, load_err, load_ok, timed_check};

/// The load-time deadline of `describe` and `configure` in the host
/// (`[host] load_timeout_ms`, default 2 s: language runtimes initialise
/// lazily; the check's `timeout_ms` when that is larger).
const LOAD_DEADLINE: Duration = Duration::from_secs(2);
/// Allowance over a deadline for the host to notice and answer: a
/// containment bound (the host answers), not a performance target.
const SLACK: Duration = Duration::from_millis(250);
/// With snapshots (`[host] preinitialize`, the default) `describe` and
/// `configure` run in an instrumented copy of the component, compiled at
/// load before the deadline starts: allowance for that compile on a busy
/// machine (the fixtures are small; it takes tens of ms on an idle one).
const INSTRUMENTED_COMPILE: Duration = Duration::from_millis(1500);

fn one(name: &str, file: &str, settings: Value, extra: Value) -> Value {
    json!({"check": [check(name, file, settings, extra)]})
}

/// Load a single-check policy that must fail; return the error kind and its
/// full message (which must name the check).
async fn refused(file: &str, settings: Value, extra: Value) -> (LoadErrorKind, String) {
    let (error, elapsed) = load_err(one("victim", file, settings.clone(), extra)).await;
    let message = error.to_string();
    assert_eq!(error.check, "victim");
    // `<policy file>:<line of the check>: check `name` (<plugin>): cause`.
    assert!(
        message.starts_with("<test policy>:2: check `victim` ("),
        "{message}"
    );
    assert!(
        message.contains(file),
        "the message names the file: {message}"
    );
    assert!(
        elapsed < LOAD_DEADLINE + SLACK + INSTRUMENTED_COMPILE,
        "loading {file} took {elapsed:?}"
    );
    println!("{file} {settings}: refused in {elapsed:?}: {message:.300}");
    (error.kind, message)
}

fn assert_failed(kind: &LoadErrorKind, export: &str, words: &[&str]) {
    match kind {
        LoadErrorKind::Failed { export: e, message } => {
            assert_eq!(*e, export, "{kind}");
            for w in words {
                assert!(message.contains(w), "`{w}` not in: {message}");
            }
            assert!(
                message.len() < 4096,
                "message unbounded: {} bytes",
                message.len()
            );
        }
        other => panic!("expected Failed {{ {export} }}, got {other:?}"),
    }
}

// ---- files that are not a toolvet check ------------------------------

#[tokio::test]
async fn empty_file_is_not_a_component() {
    let (kind, _) = refused("empty.wasm", json!({}), json!({})).await;
    assert!(
        matches!(&kind, LoadErrorKind::NotAComponent(m) if m.contains("empty")),
        "{kind:?}"
    );
}

#[tokio::test]
async fn garbage_is_not_a_component() {
    let (kind, _) = refused("garbage.wasm", json!({}), json!({})).await;
    assert!(
        matches!(&kind, LoadErrorKind::NotAComponent(m) if m.contains("magic bytes")),
        "{kind:?}"
    );
}

#[tokio::test]
async fn core_module_is_not_a_component() {
    let (kind, _) = refused("core-module.wasm", json!({}), json!({})).await;
    assert!(
        matches!(&kind, LoadErrorKind::NotAComponent(m) if m.contains("core WebAssembly module")),
        "{kind:?}"
    );
}

#[tokio::test]
async fn truncated_component_does_not_compile() {
    let (kind, _) = refused("truncated.wasm", json!({}), json!({})).await;
    match &kind {
        LoadErrorKind::Compile(m) | LoadErrorKind::NotAComponent(m) => {
            assert!(
                m.contains("out of bounds") || m.contains("unexpected end"),
                "{m}"
            )
        }
        other => panic!("expected Compile or NotAComponent, got {other:?}"),
    }
}

#[tokio::test]
async fn empty_component_is_incompatible() {
    let (kind, _) = refused("empty-component.wasm", json!({}), json!({})).await;
    assert!(
        matches!(&kind, LoadErrorKind::Incompatible(m) if m.contains("does not export `toolvet:check/check`")),
        "{kind:?}"
    );
}

#[tokio::test]
async fn other_world_is_incompatible() {
    let (kind, _) = refused("other-world.wasm", json!({}), json!({})).await;
    assert!(
        matches!(&kind, LoadErrorKind::Incompatible(m) if m.contains("toolvet:check/check")),
        "{kind:?}"
    );
}

#[tokio::test]
async fn future_contract_is_incompatible_and_named() {
    let (kind, _) = refused("future-contract.wasm", json!({}), json!({})).await;
    assert!(
        matches!(&kind, LoadErrorKind::Incompatible(m) if m.contains("toolvet:check/check@0.3.0") && m.contains("speaks toolvet:check@0.1.0 and 0.2.0")),
        "{kind:?}"
    );
}

#[tokio::test]
async fn an_ungranted_capability_is_refused_naming_it() {
    let (kind, _) = refused("capability-dns.wasm", json!({}), json!({})).await;
    assert!(
        matches!(&kind, LoadErrorKind::Incompatible(m)
            if m.contains("imports the capability `toolvet:check/dns@0.2.0`")
                && m.contains("does not grant it")),
        "{kind:?}"
    );
}

#[tokio::test]
async fn backdoor_import_is_refused_not_stubbed() {
    let (kind, _) = refused("backdoor-import.wasm", json!({}), json!({})).await;
    assert!(
        matches!(&kind, LoadErrorKind::Incompatible(m) if m.contains("toolvet:evil/backdoor")),
        "{kind:?}"
    );
}

#[tokio::test]
async fn big_static_memory_is_refused_at_instantiation() {
    let (kind, _) = refused("big-static.wasm", json!({}), json!({})).await;
    assert_failed(&kind, "instantiate", &["memory"]);
}

#[tokio::test]
async fn big_static_memory_loads_when_the_cap_allows_it() {
    // The cap is the only cause: with 512 MiB the same file loads and allows.
    let host = load_ok(one(
        "roomy",
        "big-static.wasm",
        json!({}),
        json!({"memory_mb": 512}),
    ))
    .await;
    let (verdict, _) = timed_check(&host, &call("any", json!({}))).await;
    assert_eq!(verdict.decision, Decision::Allow, "{verdict:?}");
    assert!(verdict.checks[0].error.is_none());
}

// ---- another contract ------------------------------------------------

#[tokio::test]
async fn swapped_decision_cases_are_incompatible_with_the_reason() {
    // Before: refused only at instantiation, as "could not be
    // instantiated: ... returned a malformed result".
    let (kind, _) = refused("swapped-decision.wasm", json!({}), json!({})).await;
    match &kind {
        LoadErrorKind::Incompatible(m) => {
            assert!(
                m.contains("`check` does not have the type of the toolvet:check@0.1.0 contract"),
                "{m}"
            );
            assert!(m.contains("expected variant case named allow"), "{m}");
        }
        other => panic!("expected Incompatible, got {other:?}"),
    }
}

#[tokio::test]
async fn a_future_host_import_is_refused_naming_its_version() {
    // Before: the linker's "`log` has the wrong type".
    let (kind, _) = refused("host-v9.wasm", json!({}), json!({})).await;
    assert!(
        matches!(&kind, LoadErrorKind::Incompatible(m)
            if m.contains("imports `toolvet:check/host@9.0.0`")
                && m.contains("this host speaks toolvet:check@0.1.0")),
        "{kind:?}"
    );
}

#[tokio::test]
async fn a_pre_release_contract_is_refused_at_the_version_check() {
    // Before: `0.1.0-rc.1` passed the version check and failed in the
    // linker ("matching implementation was not found").
    let (kind, _) = refused("rc-contract.wasm", json!({}), json!({})).await;
    assert!(
        matches!(&kind, LoadErrorKind::Incompatible(m)
            if m.contains("`toolvet:check/check@0.1.0-rc.1`") && m.contains("pre-release")),
        "{kind:?}"
    );
}

// ---- quiet misconfiguration ----------------------------------------------

#[tokio::test]
async fn a_plugin_declaring_no_tools_loads_with_a_warning() {
    let (_guard, logs) = toolvet_tests::capture_tracing();
    let host = load_ok(one("idle", "no-tools.wasm", json!({}), json!({}))).await;
    let text = logs.text();
    assert!(
        text.contains("check `idle`: its plugin declares no tools") && text.contains("never runs"),
        "{text}"
    );
    let (v, _) = timed_check(&host, &call("anything", json!({}))).await;
    assert!(v.checks.is_empty(), "it never runs: {v:?}");
    // Tools from the policy: no warning, and it runs.
    let (_guard, logs) = toolvet_tests::capture_tracing();
    let host = load_ok(one(
        "idle",
        "no-tools.wasm",
        json!({}),
        json!({"tools": ["*"]}),
    ))
    .await;
    assert!(
        !logs.text().contains("declares no tools"),
        "{}",
        logs.text()
    );
    let (v, _) = timed_check(&host, &call("anything", json!({}))).await;
    assert_eq!(v.checks.len(), 1, "{v:?}");
}

#[tokio::test]
async fn the_load_time_bound_is_configurable() {
    let spec = json!({
        "host": {"load_timeout_ms": 300},
        "check": [check("victim", "describe-loop.wasm", json!({}), json!({}))]
    });
    let (error, _) = load_err(spec).await;
    // The error names the bound that stopped it: the configured 300 ms,
    // not the default 2,000 ms. (A wall-clock bound here flaked on a busy
    // 2-core machine, where the load also compiles the component; how
    // closely deadlines are kept is `describe_loop_times_out`'s and the
    // hostile_check suite's business.)
    assert_failed(&error.kind, "describe", &["timed out after 300 ms"]);
    // A check's own longer deadline wins over the load-time bound.
    let spec = json!({
        "host": {"load_timeout_ms": 300},
        "check": [check("victim", "describe-loop.wasm", json!({}), json!({"timeout_ms": 600}))]
    });
    let (error, _) = load_err(spec).await;
    assert_failed(&error.kind, "describe", &["timed out after 600 ms"]);
}

// ---- describe misbehaves ----------------------------------------------

#[tokio::test]
async fn describe_loop_times_out() {
    let (kind, _) = refused("describe-loop.wasm", json!({}), json!({})).await;
    assert_failed(&kind, "describe", &["timed out after 2000 ms"]);
}

#[tokio::test]
async fn describe_panic_traps() {
    let (kind, _) = refused("describe-panic.wasm", json!({}), json!({})).await;
    assert_failed(&kind, "describe", &["trapped"]);
}

#[tokio::test]
async fn describe_unreachable_traps() {
    let (kind, _) = refused("describe-unreachable.wasm", json!({}), json!({})).await;
    assert_failed(&kind, "describe", &["trapped", "unreachable"]);
}

#[tokio::test]
async fn describe_huge_is_an_oversized_result() {
    let (kind, message) = refused("describe-huge.wasm", json!({}), json!({})).await;
    assert_failed(&kind, "describe", &["oversized result"]);
    assert!(message.len() < 1024, "{} bytes", message.len());
}

// ---- configure misbehaves ---------------------------------------------

#[tokio::test]
async fn configure_loop_times_out() {
    let (kind, _) = refused("hostile.wasm", json!({"configure": "loop"}), json!({})).await;
    assert_failed(&kind, "configure", &["timed out after 2000 ms"]);
}

#[tokio::test]
async fn configure_grow_runs_out_of_memory() {
    let (kind, _) = refused("hostile.wasm", json!({"configure": "grow"}), json!({})).await;
    assert_failed(&kind, "configure", &["exceeded its memory cap of 64 MiB"]);
}

#[tokio::test]
async fn configure_panic_traps() {
    let (kind, _) = refused("hostile.wasm", json!({"configure": "panic"}), json!({})).await;
    assert_failed(&kind, "configure", &["trapped"]);
}

#[tokio::test]
async fn configure_unreachable_traps() {
    let (kind, _) = refused(
        "hostile.wasm",
        json!({"configure": "unreachable"}),
        json!({}),
    )
    .await;
    assert_failed(&kind, "configure", &["trapped", "unreachable"]);
}

#[tokio::test]
async fn configure_exit_is_a_failure_not_success() {
    let (kind, _) = refused("hostile.wasm", json!({"configure": "exit"}), json!({})).await;
    assert_failed(&kind, "configure", &["exited with status 0"]);
}

#[tokio::test]
async fn configure_error_is_invalid_settings_with_its_message() {
    let (kind, _) = refused("hostile.wasm", json!({"configure": "error"}), json!({})).await;
    match kind {
        LoadErrorKind::InvalidSettings(m) => assert_eq!(
            m,
            "configure: `error` asks this fixture to refuse its settings"
        ),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn configure_huge_error_is_bounded() {
    // 32 MiB is over the hostcall fuel: the host refuses the result
    // without copying it, as an oversized result of `configure`.
    let (kind, message) = refused(
        "hostile.wasm",
        json!({"configure": "huge-error", "mib": 32}),
        json!({}),
    )
    .await;
    assert_failed(&kind, "configure", &["returned an oversized result"]);
    assert!(
        message.len() <= 8 << 10,
        "a 32 MiB plugin message reached the load error: {} bytes",
        message.len()
    );
}

#[tokio::test]
async fn unknown_settings_key_is_named() {
    let (kind, _) = refused("hostile.wasm", json!({"bogus": 1}), json!({})).await;
    assert!(
        matches!(&kind, LoadErrorKind::InvalidSettings(m) if m.contains("unknown field `bogus`")),
        "{kind:?}"
    );
}

#[tokio::test]
async fn configure_bad_result_is_malformed() {
    let (kind, _) = refused(
        "malformed.wasm",
        json!({"configure": "bad-result"}),
        json!({}),
    )
    .await;
    assert_failed(&kind, "configure", &["malformed result"]);
}

// ---- several broken checks, continue_on_errors ---------------------------

#[tokio::test]
async fn every_broken_check_is_listed() {
    let spec = json!({"check": [
        check("a", "empty.wasm", json!({}), json!({})),
        check("b", "hostile.wasm", json!({}), json!({})),
        check("c", "backdoor-import.wasm", json!({}), json!({})),
    ]});
    match toolvet_tests::load(spec).await {
        Err(toolvet::Error::Load(errors)) => {
            let names: Vec<&str> = errors.iter().map(|e| e.check.as_str()).collect();
            assert_eq!(names, ["a", "c"]);
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("should not load"),
    }
}

#[tokio::test]
async fn continue_on_errors_turns_broken_checks_into_their_on_error() {
    let spec = json!({
        "host": {"continue_on_errors": true},
        "check": [
            check("deny", "garbage.wasm", json!({}), json!({"tools": ["t-deny"]})),
            check("esc", "describe-panic.wasm", json!({}), json!({"tools": ["t-esc"], "on_error": "escalate"})),
            check("open", "hostile.wasm", json!({"configure": "error"}), json!({"tools": ["t-allow"], "on_error": "allow"})),
            // No `tools` and no `describe`: a broken check applies to every tool.
            check("everywhere", "future-contract.wasm", json!({}), json!({"mode": "monitor"})),
            check("good", "hostile.wasm", json!({}), json!({"tools": ["t-good"]})),
        ]
    });
    let host = load_ok(spec).await;
    let summaries = host.checks();
    assert!(
        summaries[0]
            .load_error
            .as_deref()
            .unwrap()
            .contains("not a WebAssembly component")
    );
    assert!(summaries[4].load_error.is_none());
    for (tool, expected, check) in [
        ("t-deny", Decision::Deny, "deny"),
        ("t-esc", Decision::Escalate, "esc"),
        ("t-allow", Decision::Allow, "open"),
    ] {
        let (v, _) = timed_check(&host, &call(tool, json!({}))).await;
        assert_eq!(v.decision, expected, "{tool}: {v:?}");
        let outcome = v.checks.iter().find(|o| o.check == check).unwrap();
        let error = outcome.error.as_ref().expect("recorded as an error");
        assert_eq!(error.kind, ErrorKind::LoadFailed);
        assert!(
            error
                .message
                .contains(&format!("check `{check}` failed to load")),
            "{}",
            error.message
        );
        assert_eq!(outcome.rule.as_deref(), Some("toolvet.load-failed"));
        // The monitor applies everywhere but never decides.
        assert!(v.checks.iter().any(|o| o.check == "everywhere"));
    }
    let (v, _) = timed_check(&host, &call("t-good", json!({}))).await;
    assert_eq!(v.decision, Decision::Allow);
    assert_eq!(v.checks.len(), 2, "good + the monitor: {v:?}");
}
