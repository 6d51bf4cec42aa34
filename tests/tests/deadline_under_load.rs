//! Deadlines under CPU contention, alone in its test binary so the busy
//! threads it starts do not slow down other tests.
//!
//! Fixtures: `bash tests/hostile/build.sh` (see tests/hostile/fixtures.md).

use serde_json::json;
use std::time::Duration;
use toolvet::verdict::ErrorKind;
use toolvet_tests::{call, check, load_ok, timed_check};

#[tokio::test]
async fn deadline_holds_when_the_cpu_is_busy() {
    // Deadlines are counted in epoch ticks advanced by a host thread. When
    // the machine is busy that thread wakes late; the deadline must still
    // be wall time, not "N late wake-ups". Busy threads (four per CPU)
    // compete with it for the whole measurement.
    let busy = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    let spinners: Vec<_> = (0..4 * cpus)
        .map(|_| {
            let busy = busy.clone();
            std::thread::spawn(move || {
                let mut n = 0u64;
                while busy.load(std::sync::atomic::Ordering::Relaxed) {
                    n = std::hint::black_box(n.wrapping_add(1));
                }
            })
        })
        .collect();
    let host = load_ok(json!({"check": [
        check("victim", "hostile.wasm", json!({"behave": "loop"}), json!({"timeout_ms": 200}))
    ]}))
    .await;
    let mut worst = Duration::ZERO;
    for _ in 0..3 {
        let (v, elapsed) = timed_check(&host, &call("victim", json!({}))).await;
        assert_eq!(v.checks[0].error.as_ref().unwrap().kind, ErrorKind::Timeout);
        worst = worst.max(elapsed);
    }
    busy.store(false, std::sync::atomic::Ordering::Relaxed);
    for s in spinners {
        s.join().unwrap();
    }
    println!(
        "ROW | hostile.wasm | {{\"behave\":\"loop\"}} | timeout with {} busy threads (worst of 3) | {:.1} ms | 200 ms",
        4 * cpus,
        worst.as_secs_f64() * 1e3
    );
    assert!(
        worst < Duration::from_millis(200 + 50),
        "a 200 ms deadline answered after {worst:?} on a busy machine"
    );
}
