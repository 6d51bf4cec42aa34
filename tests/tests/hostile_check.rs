//! The hostile corpus, call side: checks that load fine and then misbehave
//! on every call. Whatever they do, `host.check` answers within the
//! deadline, the failure becomes the check's `on_error` decision recorded
//! with the right error kind and a short reason, a failing check never
//! turns into an allow unless its `on_error` says so, and the next call on
//! the same host is served normally.
//!
//! Every row of the table prints `ROW | fixture | settings | outcome |
//! time | deadline` (see it with `--nocapture`).
//!
//! Fixtures: `bash tests/hostile/build.sh` (see tests/hostile/fixtures.md).

use serde_json::{Value, json};
use std::time::Duration;
use toolvet::{Decision, Host, Verdict, verdict::CheckDecision, verdict::ErrorKind};
use toolvet_tests::{call, capture_tracing, check, load_ok, timed_check};

/// Allowance over a deadline for the host to notice and answer: a
/// containment bound (the host answers), not a performance target.
const SLACK: Duration = Duration::from_millis(250);

/// A host with the misbehaving check three times (`on_error` deny on tool
/// `victim`, escalate on `victim-esc`, allow on `victim-open`) and a
/// well-behaved control check on tool `control`.
async fn victim_host(file: &str, settings: &Value, extra: &Value) -> Host {
    let with = |on_error: &str, tool: &str| {
        let mut e = extra.clone();
        e["on_error"] = json!(on_error);
        e["tools"] = json!([tool]);
        e
    };
    load_ok(json!({"check": [
        check("victim", file, settings.clone(), with("deny", "victim")),
        check("victim-esc", file, settings.clone(), with("escalate", "victim-esc")),
        check("victim-open", file, settings.clone(), with("allow", "victim-open")),
        check("control", "hostile.wasm", json!({}), json!({"tools": ["control"]})),
    ]}))
    .await
}

fn row(file: &str, settings: &Value, outcome: &str, elapsed: Duration, deadline: Duration) {
    println!(
        "ROW | {file} | {settings} | {outcome} | {:.1} ms | {} ms",
        elapsed.as_secs_f64() * 1e3,
        deadline.as_millis()
    );
}

/// The well-behaved check on the same host still answers.
async fn assert_host_still_serves(host: &Host) {
    let (v, elapsed) = timed_check(host, &call("control", json!({"n": 1}))).await;
    assert_eq!(
        v.decision,
        Decision::Allow,
        "control after a failure: {v:?}"
    );
    assert!(v.checks[0].error.is_none(), "{v:?}");
    assert!(elapsed < Duration::from_millis(100) + SLACK, "{elapsed:?}");
}

/// One call that must fail with `kind`: with `on_error = deny` the verdict
/// is deny, with `escalate` escalate, with `allow` allow; the error is
/// recorded with a reason containing `words`; every answer comes within
/// `deadline` + [`SLACK`]; the host then serves the control check.
async fn expect_error(
    file: &str,
    settings: Value,
    extra: Value,
    kind: ErrorKind,
    words: &[&str],
) -> Verdict {
    let deadline = Duration::from_millis(extra["timeout_ms"].as_u64().unwrap_or(100));
    let host = victim_host(file, &settings, &extra).await;
    let mut first = None;
    for (tool, expected) in [
        ("victim", Decision::Deny),
        ("victim-esc", Decision::Escalate),
        ("victim-open", Decision::Allow),
    ] {
        let (v, elapsed) = timed_check(&host, &call(tool, json!({"path": "/tmp/x"}))).await;
        assert!(
            elapsed < deadline + SLACK,
            "{file} {settings} on {tool}: answered after {elapsed:?}, deadline {deadline:?}"
        );
        assert_eq!(v.decision, expected, "{file} {settings} on {tool}: {v:?}");
        assert_eq!(v.checks.len(), 1);
        let outcome = &v.checks[0];
        let error = outcome
            .error
            .as_ref()
            .unwrap_or_else(|| panic!("{file} {settings}: no error recorded: {v:?}"));
        assert_eq!(error.kind, kind, "{file} {settings}: {error:?}");
        let reason = outcome.reason.as_deref().unwrap();
        assert!(
            reason.starts_with(&format!("check `{}` ", outcome.check)),
            "{reason}"
        );
        for w in words {
            assert!(reason.contains(w), "`{w}` not in: {reason}");
        }
        assert!(reason.len() <= 4096, "reason of {} bytes", reason.len());
        assert_eq!(
            outcome.rule.as_deref(),
            Some(format!("toolvet.{}", kind.as_str()).as_str())
        );
        if tool == "victim-open" {
            // on_error = allow: the failed check abstains, default_decision decides.
            assert_eq!(outcome.decision, CheckDecision::Abstain, "{v:?}");
            assert_eq!(v.decided_by, None);
        } else {
            assert_eq!(v.decided_by.as_deref(), Some(outcome.check.as_str()));
        }
        if tool == "victim" {
            row(
                file,
                &settings,
                &format!("{} → deny: {reason:.90}", kind.as_str()),
                elapsed,
                deadline,
            );
            first = Some(v);
        }
    }
    assert_host_still_serves(&host).await;
    first.unwrap()
}

/// One call that must come back with the check's own `decision` (and rule).
async fn expect_decision(
    file: &str,
    settings: Value,
    extra: Value,
    decision: Decision,
    rule: Option<&str>,
) -> Verdict {
    let deadline = Duration::from_millis(extra["timeout_ms"].as_u64().unwrap_or(100));
    let host = victim_host(file, &settings, &extra).await;
    let (v, elapsed) = timed_check(&host, &call("victim", json!({"path": "/tmp/x"}))).await;
    assert!(elapsed < deadline + SLACK, "{file} {settings}: {elapsed:?}");
    assert_eq!(v.decision, decision, "{file} {settings}: {v:?}");
    assert!(v.checks[0].error.is_none(), "{v:?}");
    assert_eq!(v.rule.as_deref(), rule, "{v:?}");
    row(
        file,
        &settings,
        &format!(
            "{decision}{}",
            rule.map(|r| format!(" {r}")).unwrap_or_default()
        ),
        elapsed,
        deadline,
    );
    assert_host_still_serves(&host).await;
    v
}

// ---- controls -------------------------------------------------------------

#[tokio::test]
async fn control_allows() {
    expect_decision("hostile.wasm", json!({}), json!({}), Decision::Allow, None).await;
}

#[tokio::test]
async fn patch_version_loads_and_logs() {
    let (_guard, logs) = capture_tracing();
    expect_decision(
        "patch-version.wasm",
        json!({}),
        json!({}),
        Decision::Allow,
        None,
    )
    .await;
    assert!(
        logs.text().contains("patch-version saw victim"),
        "{}",
        logs.text()
    );
}

#[tokio::test]
async fn malformed_controls_are_sound() {
    expect_decision(
        "malformed.wasm",
        json!({}),
        json!({}),
        Decision::Allow,
        None,
    )
    .await;
    expect_decision(
        "malformed.wasm",
        json!({"behave": "deny"}),
        json!({}),
        Decision::Deny,
        Some("malformed.valid"),
    )
    .await;
}

// ---- deadlines ------------------------------------------------------------

#[tokio::test]
async fn loop_times_out() {
    expect_error(
        "hostile.wasm",
        json!({"behave": "loop"}),
        json!({}),
        ErrorKind::Timeout,
        &["timed out after 100 ms"],
    )
    .await;
}

#[tokio::test]
async fn loop_times_out_at_a_short_deadline() {
    expect_error(
        "hostile.wasm",
        json!({"behave": "loop"}),
        json!({"timeout_ms": 20}),
        ErrorKind::Timeout,
        &["timed out after 20 ms"],
    )
    .await;
}

#[tokio::test]
async fn spin_on_the_clock_times_out() {
    expect_error(
        "hostile.wasm",
        json!({"behave": "spin", "secs": 10}),
        json!({}),
        ErrorKind::Timeout,
        &["timed out after 100 ms"],
    )
    .await;
}

#[tokio::test]
async fn sleep_in_a_wasi_poll_times_out() {
    expect_error(
        "hostile.wasm",
        json!({"behave": "sleep", "secs": 60}),
        json!({}),
        ErrorKind::Timeout,
        &["timed out after 100 ms"],
    )
    .await;
}

// ---- traps ---------------------------------------------------------------

#[tokio::test]
async fn recursion_traps() {
    expect_error(
        "hostile.wasm",
        json!({"behave": "recurse"}),
        json!({}),
        ErrorKind::Trap,
        &["call stack exhausted"],
    )
    .await;
}

#[tokio::test]
async fn shadow_stack_recursion_traps() {
    expect_error(
        "hostile.wasm",
        json!({"behave": "recurse-shadow"}),
        json!({}),
        ErrorKind::Trap,
        &["out of bounds memory access"],
    )
    .await;
}

#[tokio::test]
async fn out_of_bounds_load_traps() {
    expect_error(
        "hostile.wasm",
        json!({"behave": "oob"}),
        json!({}),
        ErrorKind::Trap,
        &["out of bounds memory access"],
    )
    .await;
}

#[tokio::test]
async fn panic_traps_with_its_message_in_the_verdict_and_the_logs() {
    let (_guard, logs) = capture_tracing();
    expect_error(
        "hostile.wasm",
        json!({"behave": "panic"}),
        json!({}),
        ErrorKind::Trap,
        // The verdict carries the plugin's own account: where it panicked
        // and the message (the trap alone says only `unreachable`).
        &[
            "trapped",
            "unreachable",
            "; the plugin reported: panicked at hostile/src/lib.rs:",
            ": hostile: deliberate panic in check",
        ],
    )
    .await;
    assert!(
        logs.text().contains("hostile: deliberate panic in check"),
        "the panic message reaches the logs under the check's name: {}",
        logs.text()
    );
}

#[tokio::test]
async fn unreachable_traps() {
    expect_error(
        "hostile.wasm",
        json!({"behave": "unreachable"}),
        json!({}),
        ErrorKind::Trap,
        &["unreachable"],
    )
    .await;
}

#[tokio::test]
async fn exit_is_never_a_decision() {
    // The host records `exit` as a malformed result: no decision came back
    // (see `ErrorKind::MalformedResult`); the fixture table says `trap`.
    // Either way, never allow under `on_error = deny`.
    expect_error(
        "hostile.wasm",
        json!({"behave": "exit"}),
        json!({}),
        ErrorKind::MalformedResult,
        &["exited with status 0"],
    )
    .await;
}

// ---- memory ----------------------------------------------------------------

#[tokio::test]
async fn allocation_bomb_is_out_of_memory() {
    expect_error(
        "hostile.wasm",
        json!({"behave": "grow"}),
        // Filling 64 MiB takes tens of ms; the cap is under test, not the deadline.
        json!({"timeout_ms": 1000}),
        ErrorKind::OutOfMemory,
        &["exceeded its memory cap of 64 MiB"],
    )
    .await;
}

#[tokio::test]
async fn raw_memory_grow_is_refused_at_the_cap() {
    let v = expect_decision(
        "hostile.wasm",
        json!({"behave": "grow-raw"}),
        json!({"timeout_ms": 1000}),
        Decision::Deny,
        Some("hostile.grow-refused"),
    )
    .await;
    let reason = v.reason.unwrap();
    let bytes: u64 = reason
        .split("memory.grow refused at ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no size in: {reason}"));
    assert!(
        bytes <= 64 << 20,
        "grew to {bytes} bytes past the 64 MiB cap"
    );
    assert!(bytes >= 32 << 20, "refused early at {bytes} bytes");
}

#[tokio::test]
async fn memory_cap_follows_memory_mb() {
    expect_error(
        "hostile.wasm",
        json!({"behave": "grow"}),
        json!({"memory_mb": 16, "timeout_ms": 1000}),
        ErrorKind::OutOfMemory,
        &["exceeded its memory cap of 16 MiB"],
    )
    .await;
}

// ---- oversized results and output floods ---------------------------------------

#[tokio::test]
async fn huge_reason_is_an_oversized_result() {
    let v = expect_error(
        "hostile.wasm",
        json!({"behave": "huge-reason", "mib": 32}),
        json!({"timeout_ms": 5000}),
        ErrorKind::OversizedResult,
        // 32 MiB is over the hostcall fuel: refused before the host copies it.
        &["returned an oversized result", "1114112-byte limit"],
    )
    .await;
    assert!(v.reason.unwrap().len() < 512);
}

#[tokio::test]
async fn huge_rule_is_an_oversized_result() {
    expect_error(
        "hostile.wasm",
        json!({"behave": "huge-rule", "mib": 32}),
        json!({"timeout_ms": 5000}),
        ErrorKind::OversizedResult,
        &["returned an oversized result", "1114112-byte limit"],
    )
    .await;
}

#[tokio::test]
async fn reason_under_the_result_limit_is_truncated() {
    // A 1 MiB reason within a 2 MiB `max_result_bytes` is a valid decision,
    // kept but cut to `max_reason_bytes` (4096) at a character boundary.
    let host = load_ok(json!({
        "host": {"max_result_bytes": 2 << 20},
        "check": [check("victim", "hostile.wasm", json!({"behave": "huge-reason", "mib": 1}), json!({"timeout_ms": 5000}))]
    }))
    .await;
    let (v, _) = timed_check(&host, &call("victim", json!({}))).await;
    assert_eq!(v.decision, Decision::Deny);
    assert!(v.checks[0].error.is_none(), "{:?}", v.checks[0].error);
    assert_eq!(v.rule.as_deref(), Some("hostile.huge-reason"));
    let reason = v.reason.unwrap();
    assert!(reason.len() <= 4096, "{} bytes", reason.len());
    assert!(reason.len() > 4000, "{} bytes", reason.len());
    assert!(
        reason.starts_with("RRRR") && reason.ends_with('…'),
        "{reason:.40}"
    );
}

/// A flood that must still allow, with the forwarded output bounded by
/// `max_log_bytes` and the rest reported as dropped.
async fn flood(settings: Value) {
    let (_guard, logs) = capture_tracing();
    expect_decision(
        "hostile.wasm",
        settings.clone(),
        json!({"timeout_ms": 5000}),
        Decision::Allow,
        None,
    )
    .await;
    let text = logs.text();
    // Two calls ran (victim, control): each may forward up to 64 KiB plus
    // the formatting of each line.
    assert!(
        text.len() < 1 << 20,
        "{settings}: {} bytes of logs forwarded",
        text.len()
    );
    assert!(
        text.contains("plugin output over the cap was dropped"),
        "{settings}"
    );
    assert!(text.contains("dropped_bytes="), "{settings}");
}

#[tokio::test]
async fn log_flood_is_capped() {
    flood(json!({"behave": "log-flood", "mib": 32})).await;
}

#[tokio::test]
async fn log_spam_is_capped() {
    flood(json!({"behave": "log-spam", "count": 200000})).await;
}

#[tokio::test]
async fn stdout_flood_is_capped() {
    flood(json!({"behave": "stdout-flood", "mib": 32})).await;
}

#[tokio::test]
async fn stderr_flood_is_capped() {
    flood(json!({"behave": "stderr-flood", "mib": 32})).await;
}

#[tokio::test]
async fn a_reason_between_the_result_limit_and_the_fuel_is_measured() {
    // A 1 MiB message plus its rule: lifted (under the hostcall fuel of
    // max_result_bytes + 64 KiB), then refused by its measured size.
    let host = load_ok(json!({
        "host": {"max_result_bytes": 1 << 20, "max_reason_bytes": 4096},
        "check": [check("victim", "hostile.wasm", json!({"behave": "huge-reason", "mib": 1}), json!({"timeout_ms": 5000}))]
    }))
    .await;
    let (v, _) = timed_check(&host, &call("victim", json!({}))).await;
    let error = v.checks[0].error.as_ref().expect("an error");
    assert_eq!(error.kind, ErrorKind::OversizedResult, "{error:?}");
    assert!(
        error
            .message
            .contains("-byte reason, over the 1048576-byte limit"),
        "{error:?}"
    );
}

/// Emitted log lines, bounded per call and per check: 20 calls that each
/// log one message of 32,768 short lines print at most the check's window
/// budget (1,000 lines), not 655,360 lines, and say how many were dropped.
#[tokio::test]
async fn newline_floods_are_capped_by_what_is_emitted() {
    let (_guard, logs) = capture_tracing();
    let host = load_ok(json!({"check": [
        check("chatty", "hostile.wasm", json!({"behave": "log-lines", "count": 32768}), json!({"timeout_ms": 5000}))
    ]}))
    .await;
    for _ in 0..20 {
        let (v, _) = timed_check(&host, &call("x", json!({}))).await;
        assert_eq!(v.decision, Decision::Allow, "{v:?}");
    }
    let text = logs.text();
    let lines = text.lines().count();
    println!(
        "ROW | hostile.wasm | log-lines 32768 x 20 calls | {lines} lines, {} bytes emitted | - | 5000 ms",
        text.len()
    );
    assert!(lines <= 1_020, "{lines} lines emitted");
    assert!(text.len() < 256 << 10, "{} bytes emitted", text.len());
    assert!(
        text.contains("plugin output over the cap was dropped") && text.contains("dropped_lines="),
        "{text:.2000}"
    );
}

// ---- host calls the deadline cannot interrupt ------------------------------------

/// A fixture whose misbehaviour is one host call (or a few): it must end
/// within its deadline with the host-call error naming the cause, and the
/// host's memory must not grow by what the plugin asked for.
async fn host_call_refused(settings: Value, extra: Value, words: &[&str]) {
    let before = toolvet_tests::rss_kib().unwrap_or(0);
    let v = expect_error(
        "hostile.wasm",
        settings.clone(),
        extra,
        ErrorKind::HostCall,
        words,
    )
    .await;
    let reason = v.reason.unwrap();
    assert!(!reason.contains("wasm backtrace"), "{reason}");
    let grown = toolvet_tests::rss_kib().unwrap_or(0).saturating_sub(before);
    println!("ROW | hostile.wasm | {settings} | RSS grew {grown} KiB | - | -");
}

#[tokio::test]
async fn huge_random_request_is_refused_at_once() {
    // Before: wasmtime-wasi's 64 MiB default let each call fill 64 MiB
    // (250-400 ms, no deadline reaches it): 20 calls took seconds against
    // a 50 ms budget, and the error that did come was a malformed result.
    host_call_refused(
        json!({"behave": "random-huge", "mib": 64, "count": 20}),
        json!({"timeout_ms": 50, "memory_mb": 256}),
        &[
            "made a host call the host refused",
            "requested len 67108864 exceeds limit 65536",
        ],
    )
    .await;
}

#[tokio::test]
async fn random_in_allowed_pieces_still_times_out_at_the_deadline() {
    expect_error(
        "hostile.wasm",
        json!({"behave": "random-loop"}),
        json!({"timeout_ms": 50}),
        ErrorKind::Timeout,
        &["timed out after 50 ms"],
    )
    .await;
}

#[tokio::test]
async fn poll_of_a_million_duplicates_is_refused_before_the_host_walks_it() {
    host_call_refused(
        json!({"behave": "poll-dupes", "count": 1_000_000}),
        // Building the 4 MB list in the guest takes a few ms; the refusal
        // (not the deadline) is under test.
        json!({"timeout_ms": 1000}),
        &["passed the host more than 1114112 bytes in one call"],
    )
    .await;
}

#[tokio::test]
async fn hoarding_pollables_hits_the_resource_table_cap() {
    host_call_refused(
        json!({"behave": "pollable-hoard", "count": 1_000_000}),
        json!({"timeout_ms": 50}),
        &["made a host call the host refused", "resource table"],
    )
    .await;
}

#[tokio::test]
async fn one_huge_stream_write_is_refused_before_the_copy() {
    host_call_refused(
        json!({"behave": "write-huge", "mib": 48}),
        // Filling 48 MiB in the guest takes tens of ms.
        json!({"timeout_ms": 1000, "memory_mb": 128}),
        &["passed the host more than 1114112 bytes in one call"],
    )
    .await;
}

#[tokio::test]
async fn one_huge_log_message_is_refused_before_the_copy() {
    host_call_refused(
        json!({"behave": "log-huge", "mib": 48}),
        json!({"timeout_ms": 1000, "memory_mb": 128}),
        &["passed the host more than 1114112 bytes in one call"],
    )
    .await;
}

// ---- sandbox probes ----------------------------------------------------------

#[tokio::test]
async fn filesystem_env_args_stdin_probe_finds_nothing() {
    let v = expect_decision(
        "hostile.wasm",
        json!({"behave": "probe"}),
        json!({}),
        Decision::Deny,
        Some("hostile.probe-clean"),
    )
    .await;
    let reason = v.reason.unwrap();
    assert!(
        reason.starts_with("sandbox probe: 0 of 9 attempts got through"),
        "{reason}"
    );
    assert!(!reason.contains("GOT THROUGH"), "{reason}");
}

#[tokio::test]
async fn network_probe_finds_nothing() {
    let v = expect_decision(
        "net-probe.wasm",
        json!({}),
        json!({}),
        Decision::Deny,
        Some("hostile.probe-clean"),
    )
    .await;
    let reason = v.reason.unwrap();
    assert!(
        reason.starts_with("network probe: 0 of 6 attempts got through"),
        "{reason}"
    );
    assert!(!reason.contains("GOT THROUGH"), "{reason}");
}

// ---- state between calls -----------------------------------------------------------

#[tokio::test]
async fn per_call_isolation_starts_every_call_fresh() {
    let host = load_ok(json!({"check": [
        check("victim", "hostile.wasm", json!({"behave": "state"}), json!({}))
    ]}))
    .await;
    for secret in ["first-call-secret", "second-call-secret", "third"] {
        let (v, _) = timed_check(&host, &call("victim", json!({"token": secret}))).await;
        assert_eq!(v.rule.as_deref(), Some("hostile.state-fresh"), "{v:?}");
        assert_eq!(v.reason.as_deref(), Some("no previous call"));
    }
    row(
        "hostile.wasm",
        &json!({"behave": "state"}),
        "per-call: deny hostile.state-fresh ×3",
        Duration::ZERO,
        Duration::from_millis(100),
    );
}

#[tokio::test]
async fn reuse_isolation_keeps_state_the_documented_trade_off() {
    // `isolation = "reuse"` is opt-in for trusted, stateless checks: a warm
    // instance keeps its memory, so a check sees the previous call.
    let host = load_ok(json!({"check": [
        check("victim", "hostile.wasm", json!({"behave": "state"}), json!({"isolation": "reuse"}))
    ]}))
    .await;
    let (v, _) = timed_check(
        &host,
        &call("victim", json!({"token": "first-call-secret"})),
    )
    .await;
    assert_eq!(v.rule.as_deref(), Some("hostile.state-fresh"), "{v:?}");
    let (v, _) = timed_check(&host, &call("victim", json!({"token": "second"}))).await;
    assert_eq!(v.rule.as_deref(), Some("hostile.state-kept"), "{v:?}");
    assert!(v.reason.unwrap().contains("first-call-secret"));
    row(
        "hostile.wasm",
        &json!({"behave": "state"}),
        "reuse: state-fresh, then state-kept (documented)",
        Duration::ZERO,
        Duration::from_millis(100),
    );
}

// ---- malformed results ------------------------------------------------------------

async fn malformed(behave: &str, words: &[&str]) {
    expect_error(
        "malformed.wasm",
        json!({"behave": behave}),
        json!({}),
        ErrorKind::MalformedResult,
        words,
    )
    .await;
}

#[tokio::test]
async fn malformed_bad_variant() {
    malformed("bad-variant", &["malformed result"]).await;
}

#[tokio::test]
async fn malformed_bad_utf8() {
    malformed("bad-utf8", &["malformed result"]).await;
}

#[tokio::test]
async fn malformed_bad_pointer() {
    malformed("bad-pointer", &["malformed result"]).await;
}

#[tokio::test]
async fn malformed_bad_length() {
    malformed("bad-length", &["malformed result"]).await;
}

#[tokio::test]
async fn malformed_bad_option() {
    malformed("bad-option", &["malformed result"]).await;
}

#[tokio::test]
async fn malformed_bad_return_pointer() {
    malformed("bad-return-pointer", &["malformed result"]).await;
}

#[tokio::test]
async fn malformed_unaligned_return() {
    malformed("unaligned-return", &["malformed result"]).await;
}

// ---- how failures combine with other checks and modes ---------------------------

#[tokio::test]
async fn failure_with_on_error_allow_is_outvoted_by_an_enforced_deny() {
    let host = load_ok(json!({"check": [
        check("open", "hostile.wasm", json!({"behave": "panic"}), json!({"on_error": "allow"})),
        check("guard", "malformed.wasm", json!({"behave": "deny"}), json!({})),
    ]}))
    .await;
    let (v, _) = timed_check(&host, &call("anything", json!({}))).await;
    assert_eq!(v.decision, Decision::Deny);
    assert_eq!(v.decided_by.as_deref(), Some("guard"));
    assert_eq!(v.checks[0].decision, CheckDecision::Abstain);
    assert_eq!(v.checks[0].error.as_ref().unwrap().kind, ErrorKind::Trap);
}

#[tokio::test]
async fn failing_monitor_never_changes_the_verdict() {
    for (kind, settings, limits) in [
        (
            ErrorKind::Timeout,
            json!({"behave": "loop"}),
            json!({"timeout_ms": 30}),
        ),
        (
            ErrorKind::Trap,
            json!({"behave": "panic"}),
            json!({"timeout_ms": 30}),
        ),
        (
            ErrorKind::OutOfMemory,
            json!({"behave": "grow"}),
            json!({"memory_mb": 8, "timeout_ms": 1000}),
        ),
    ] {
        let mut extra = limits.clone();
        extra["mode"] = json!("monitor");
        let deadline = Duration::from_millis(limits["timeout_ms"].as_u64().unwrap());
        let host = load_ok(json!({"check": [
            check("watch", "hostile.wasm", settings.clone(), extra.clone()),
            check("control", "hostile.wasm", json!({}), json!({})),
        ]}))
        .await;
        let (v, elapsed) = timed_check(&host, &call("anything", json!({}))).await;
        assert_eq!(v.decision, Decision::Allow, "{settings}: {v:?}");
        assert_eq!(v.decided_by.as_deref(), Some("control"));
        assert_eq!(
            v.checks[0].decision,
            CheckDecision::Deny,
            "recorded with its on_error"
        );
        assert_eq!(v.checks[0].error.as_ref().unwrap().kind, kind);
        assert!(elapsed < deadline + SLACK, "{elapsed:?}");
        // Alone, a failing monitor leaves the default decision in force.
        let host = load_ok(json!({
            "host": {"default_decision": "escalate"},
            "check": [check("watch", "hostile.wasm", settings.clone(), extra)]
        }))
        .await;
        let (v, _) = timed_check(&host, &call("anything", json!({}))).await;
        assert_eq!(v.decision, Decision::Escalate, "{settings}: {v:?}");
        assert_eq!(v.decided_by, None);
        assert_eq!(v.checks[0].error.as_ref().unwrap().kind, kind);
    }
}

#[tokio::test]
async fn every_check_of_a_call_counts_against_the_answer_time() {
    // Three failing checks in a row: sequential evaluation answers within
    // the sum of their deadlines.
    let host = load_ok(json!({"check": [
        check("a", "hostile.wasm", json!({"behave": "loop"}), json!({"timeout_ms": 40})),
        check("b", "hostile.wasm", json!({"behave": "sleep"}), json!({"timeout_ms": 40})),
        check("c", "hostile.wasm", json!({"behave": "grow"}), json!({"timeout_ms": 1000})),
    ]}))
    .await;
    let (v, elapsed) = timed_check(&host, &call("x", json!({}))).await;
    assert_eq!(v.decision, Decision::Deny);
    let kinds: Vec<ErrorKind> = v
        .checks
        .iter()
        .map(|o| o.error.as_ref().unwrap().kind)
        .collect();
    assert_eq!(
        kinds,
        [
            ErrorKind::Timeout,
            ErrorKind::Timeout,
            ErrorKind::OutOfMemory
        ]
    );
    assert!(
        elapsed < Duration::from_millis(80) + Duration::from_millis(1000) + SLACK,
        "{elapsed:?}"
    );
    // In parallel, the slowest deadline bounds the answer.
    let host = load_ok(json!({
        "host": {"parallel_checks": true},
        "check": [
            check("a", "hostile.wasm", json!({"behave": "loop"}), json!({"timeout_ms": 40})),
            check("b", "hostile.wasm", json!({"behave": "sleep"}), json!({"timeout_ms": 40})),
        ]
    }))
    .await;
    let (v, elapsed) = timed_check(&host, &call("x", json!({}))).await;
    assert_eq!(v.decision, Decision::Deny);
    assert_eq!(v.checks.len(), 2);
    assert!(elapsed < Duration::from_millis(80) + SLACK, "{elapsed:?}");
}

#[tokio::test]
async fn on_error_allow_never_overrides_a_default_deny() {
    // `on_error = "allow"` lets the call through only as far as this check
    // is concerned: with `default_decision = "deny"` a broken check must not
    // turn the default into an allow.
    let host = load_ok(json!({
        "host": {"default_decision": "deny"},
        "check": [check("open", "hostile.wasm", json!({"behave": "loop"}), json!({"on_error": "allow", "timeout_ms": 20}))]
    }))
    .await;
    let (v, _) = timed_check(&host, &call("x", json!({}))).await;
    assert_eq!(v.decision, Decision::Deny, "{v:?}");
    assert_eq!(v.decided_by, None);
    assert_eq!(v.checks[0].error.as_ref().unwrap().kind, ErrorKind::Timeout);
    // With an allowing check next to it, the call is allowed by that check.
    let host = load_ok(json!({
        "host": {"default_decision": "deny"},
        "check": [
            check("open", "hostile.wasm", json!({"behave": "loop"}), json!({"on_error": "allow", "timeout_ms": 20})),
            check("control", "hostile.wasm", json!({}), json!({})),
        ]
    }))
    .await;
    let (v, _) = timed_check(&host, &call("x", json!({}))).await;
    assert_eq!(v.decision, Decision::Allow);
    assert_eq!(v.decided_by.as_deref(), Some("control"));
}
