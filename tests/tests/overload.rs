//! The bounded admission queue: with `max_concurrent_checks = 1` and
//! `max_queued_checks = 2`, a burst of slow calls gets one running, two
//! waiting (for at most the check's deadline, then turned away), and every
//! other call answered at once with `ErrorKind::Overloaded` and its check's
//! `on_error` decision: nobody waits much past the deadline. The host
//! serves normally once the burst is over, and abandoned waiting calls give
//! their queue places back.
//!
//! Fixtures: `bash tests/hostile/build.sh` (see tests/hostile/fixtures.md).

use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolvet::{Decision, Host, verdict::ErrorKind};
use toolvet_tests::{call, check, load_ok, timed_check};

const BURST: usize = 10;
/// Deadline of the slow check, which sleeps in a WASI poll (no CPU).
const SLOW_MS: u64 = 300;

async fn host() -> Host {
    load_ok(json!({
        "host": {"max_concurrent_checks": 1, "max_queued_checks": 2},
        "check": [
            check("slow", "hostile.wasm", json!({"behave": "sleep", "secs": 60}),
                json!({"tools": ["slow"], "timeout_ms": SLOW_MS, "on_error": "escalate"})),
            check("quick", "hostile.wasm", json!({}), json!({"tools": ["quick"]})),
        ]
    }))
    .await
}

/// Fire [`BURST`] slow calls at once; return each verdict's error kind,
/// decision and answer time.
async fn burst(host: &Host) -> Vec<(ErrorKind, Decision, Duration, String)> {
    let start = Arc::new(tokio::sync::Barrier::new(BURST));
    let tasks: Vec<_> = (0..BURST)
        .map(|i| {
            let (host, start) = (host.clone(), start.clone());
            tokio::spawn(async move {
                start.wait().await;
                let (v, elapsed) = timed_check(&host, &call("slow", json!({"i": i}))).await;
                let error = v.checks[0].error.clone().expect("every slow call fails");
                (error.kind, v.decision, elapsed, error.message)
            })
        })
        .collect();
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.unwrap());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_full_queue_answers_overloaded_with_on_error() {
    let host = host().await;
    let results = burst(&host).await;
    let ran: Vec<_> = results
        .iter()
        .filter(|r| r.0 == ErrorKind::Timeout)
        .collect();
    let waited: Vec<_> = results
        .iter()
        .filter(|r| {
            r.3.ends_with(&format!("(no slot free within {SLOW_MS} ms)"))
        })
        .collect();
    let turned_away: Vec<_> = results
        .iter()
        .filter(|r| r.3.ends_with("(2 calls queued)"))
        .collect();
    println!(
        "OVERLOAD | burst of {BURST}, 1 slot + 2 queue places: {} ran (timeout, answered by {:?}), {} waited then overloaded (by {:?}), {} overloaded at once (by {:?})",
        ran.len(),
        ran.iter().map(|r| r.2).max(),
        waited.len(),
        waited.iter().map(|r| r.2).max(),
        turned_away.len(),
        turned_away.iter().map(|r| r.2).max(),
    );
    assert_eq!(ran.len(), 1, "one slot: {results:?}");
    assert_eq!(waited.len(), 2, "two queue places: {results:?}");
    assert_eq!(turned_away.len(), BURST - 3, "{results:?}");
    for (kind, decision, elapsed, message) in &results {
        assert_eq!(
            *decision,
            Decision::Escalate,
            "the check's on_error: {message}"
        );
        assert!(
            *elapsed < Duration::from_millis(SLOW_MS + 250),
            "answered after {elapsed:?}: {message}"
        );
        if *kind == ErrorKind::Overloaded {
            assert!(
                message.starts_with("check `slow` did not run: host overloaded"),
                "{message}"
            );
        }
    }
    for (_, _, elapsed, _) in &turned_away {
        assert!(
            *elapsed < Duration::from_millis(100),
            "turned away at once, not after {elapsed:?}"
        );
    }
    // Once the burst is over, the host serves normally.
    let (v, _) = timed_check(&host, &call("quick", json!({}))).await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abandoned_waiting_calls_free_their_queue_places() {
    // Callers that give up (their future is dropped, e.g. by a client-side
    // timeout) must not keep queue places forever.
    let host = host().await;
    for _ in 0..3 {
        let tasks: Vec<_> = (0..BURST)
            .map(|i| {
                let host = host.clone();
                tokio::spawn(async move {
                    let request = call("slow", json!({"i": i}));
                    tokio::time::timeout(Duration::from_millis(20), host.check(&request)).await
                })
            })
            .collect();
        for t in tasks {
            let _ = t.await.unwrap();
        }
    }
    // Every caller gave up; the running call finishes within its deadline.
    tokio::time::sleep(Duration::from_millis(SLOW_MS + 100)).await;
    let started = Instant::now();
    let results = burst(&host).await;
    let ran = results.iter().filter(|r| r.0 == ErrorKind::Timeout).count();
    let waited = results
        .iter()
        .filter(|r| r.3.contains("no slot free within"))
        .count();
    assert_eq!(
        (ran, waited),
        (1, 2),
        "the slot and both queue places are free again: {results:?} after {:?}",
        started.elapsed()
    );
}
