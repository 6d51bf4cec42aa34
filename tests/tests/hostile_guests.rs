//! Hostile Python and JavaScript checks, built with the toolvet kits
//! (`tests/hostile/python/py-misbehave`, `plugins/js/fixtures/js-misbehave`;
//! `make hostile` builds them into `target/hostile/`): one that raises,
//! one that loops, one that allocates without bound. Under per-call
//! isolation (from a snapshot, the default) and under reuse, each ends in
//! its `on_error` decision within its deadline, with the right error kind,
//! and the host serves the next call; a crash's message names the
//! exception and the user's own source line. The same behaviours in the
//! kits' warm-up hook (run in `configure`, at snapshot time) fail the load,
//! naming the check.

use serde_json::json;
use std::time::Duration;
use toolvet::{Decision, Host, LoadErrorKind, Verdict, verdict::ErrorKind};
use toolvet_tests::{call, check, load_err, load_ok, timed_check};

/// Allowance over a deadline for the host to notice and answer: a
/// containment bound, not a performance target.
const SLACK: Duration = Duration::from_millis(250);

const PYTHON: &str = "py_misbehave.wasm";
const JS: &str = "js_misbehave.wasm";

async fn guest(file: &str, isolation: &str, timeout_ms: u64) -> Host {
    let host = load_ok(json!({"check": [check(
        "guest",
        file,
        json!({}),
        json!({"isolation": isolation, "timeout_ms": timeout_ms, "tools": ["*"]}),
    )]}))
    .await;
    // Per-call instances start from a snapshot: a 12-19 MB runtime's
    // memory is far over the hostcall limit on a check's results, which
    // must not apply to the host's own snapshot getters.
    let snapshot = host.checks()[0].snapshot;
    assert_eq!(
        snapshot,
        Some(isolation == "per-call"),
        "{file} {isolation}"
    );
    host
}

/// Two calls asking the guest to `behave` (the second on whatever instance
/// the first left behind): each is a deny within the deadline with an
/// error of `kind`; returns the first verdict.
async fn fails(host: &Host, behave: &str, kind: ErrorKind, timeout_ms: u64) -> Verdict {
    let mut first = None;
    for n in 0..2 {
        let (v, elapsed) =
            timed_check(host, &call("bash", json!({"behave": behave, "n": n}))).await;
        assert!(
            elapsed < Duration::from_millis(timeout_ms) + SLACK,
            "answered after {elapsed:?}: {v:?}"
        );
        assert_eq!(v.decision, Decision::Deny, "{v:?}");
        let error = v.checks[0].error.as_ref().expect("an error is recorded");
        assert_eq!(error.kind, kind, "{v:?}");
        first.get_or_insert(v);
    }
    first.unwrap()
}

fn reason(v: &Verdict) -> &str {
    v.checks[0].reason.as_deref().unwrap_or_default()
}

#[tokio::test]
async fn a_python_exception_traps_and_names_itself_and_the_users_line() {
    for isolation in ["per-call", "reuse"] {
        let host = guest(PYTHON, isolation, 500).await;
        let v = fails(&host, "raise", ErrorKind::Trap, 500).await;
        let reason = reason(&v);
        assert!(
            reason.contains("; the plugin reported: KeyError: 'USD' (")
                && reason.contains("py_misbehave.py, line 39)"),
            "{isolation}: {reason}"
        );
    }
}

#[tokio::test]
async fn a_javascript_error_traps_and_names_itself_and_the_users_line() {
    for isolation in ["per-call", "reuse"] {
        let host = guest(JS, isolation, 500).await;
        let v = fails(&host, "throw", ErrorKind::Trap, 500).await;
        let reason = reason(&v);
        assert!(
            reason.contains("; the plugin reported: TypeError: ")
                && reason.contains("js-misbehave/index.js:31:"),
            "{isolation}: {reason}"
        );
    }
}

/// Looping guests time out at their deadline; growing ones hit the memory
/// cap.
#[tokio::test]
async fn looping_and_growing_guests_stop_at_their_bounds() {
    let bounds = [
        ("loop", ErrorKind::Timeout, 100, "timed out after 100 ms"),
        (
            "grow",
            ErrorKind::OutOfMemory,
            2_000,
            "memory cap of 64 MiB",
        ),
    ];
    for (behave, kind, timeout_ms, words) in bounds {
        for file in [PYTHON, JS] {
            for isolation in ["per-call", "reuse"] {
                let host = guest(file, isolation, timeout_ms).await;
                let v = fails(&host, behave, kind, timeout_ms).await;
                assert!(
                    reason(&v).contains(words),
                    "{behave} {file} {isolation}: {v:?}"
                );
            }
        }
    }
}

#[tokio::test]
async fn a_well_behaved_call_still_passes_after_misbehaving_ones() {
    for file in [PYTHON, JS] {
        let host = guest(file, "reuse", 500).await;
        let (v, _) = timed_check(&host, &call("bash", json!({"command": "ls"}))).await;
        assert_eq!(v.decision, Decision::Allow, "{file}: {v:?}");
    }
}

/// A warm-up (`Check.warm_up` in Python, `warmUp` in JavaScript) that
/// crashes, loops or allocates without bound inside `configure`, where the
/// snapshot is taken, fails the load with an error naming the check and
/// the cause; it never yields a snapshot or a check that answers. Both
/// runtimes turn a refused memory growth into an exception (CPython's
/// `MemoryError`, the JavaScript engine's "out of memory"), which the kits
/// report like any other.
#[tokio::test]
async fn a_warm_up_that_crashes_loops_or_grows_fails_the_load_naming_the_check() {
    let timeout = "timed out after 1000 ms";
    // (file, warm_up, the export that failed or None for a refusal, words)
    let cases = [
        (PYTHON, "raise", None, "KeyError: 'USD'"),
        (PYTHON, "loop", Some("configure"), timeout),
        (PYTHON, "grow", None, "MemoryError"),
        (JS, "throw", None, "TypeError: "),
        (JS, "loop", Some("configure"), timeout),
        (JS, "grow", None, "out of memory"),
    ];
    let policy = |file: &str, warm_up: &str, preinitialize: bool| {
        let mut policy = json!({"check": [check(
            "guest",
            file,
            json!({"warm_up": warm_up}),
            json!({"timeout_ms": 500, "tools": ["*"]}),
        )]});
        policy["host"] = json!({"preinitialize": preinitialize, "load_timeout_ms": 1000});
        policy
    };
    for (file, warm_up, failed_export, words) in cases {
        for preinitialize in [true, false] {
            let what = format!("{file} {warm_up} preinitialize={preinitialize}");
            let (error, elapsed) = load_err(policy(file, warm_up, preinitialize)).await;
            assert_eq!(error.check, "guest", "{what}");
            match (&error.kind, failed_export) {
                (LoadErrorKind::InvalidSettings(m), None) => assert!(
                    m.starts_with("the check failed to warm up: ") && m.contains(words),
                    "{what}: {m}"
                ),
                (LoadErrorKind::Failed { export, message }, Some(expected)) => {
                    assert_eq!(*export, expected, "{what}");
                    assert!(message.contains(words), "{what}: {message}");
                }
                (other, _) => panic!("{what}: {other:?}"),
            }
            // The deadline itself is shown by the errors above ("timed out
            // after 1000 ms"). The load may also compile the 12-19 MB
            // runtime component from a cold cache and, with
            // `preinitialize`, its instrumented copy (cached too, even when
            // `configure` fails): 8-15 s each on this machine. This bound
            // only says that a failing warm-up never hangs the load.
            assert!(
                elapsed < Duration::from_secs(120),
                "{what}: the load took {elapsed:?}"
            );
        }
    }
}
