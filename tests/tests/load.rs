//! Concurrency and load: thousands of `host.check` calls in flight from
//! many tokio tasks, with well-behaved and hostile checks mixed. No
//! deadlock, every verdict right, nothing leaks between calls, and resident
//! memory stays bounded over a long-ish run. Alone in its test binary, so
//! the RSS figures are this run's.
//!
//! Prints the measured figures (run with `--nocapture`).
//!
//! Fixtures: `bash tests/hostile/build.sh` (see tests/hostile/fixtures.md).

use serde_json::json;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use toolvet::{Decision, Host, verdict::ErrorKind};
use toolvet_tests::{call, check, load_ok, rss_kib};

/// Concurrent tasks per wave; each makes `MEASURED_CALLS / TASKS` calls.
const TASKS: usize = 2_000;
/// Calls measured after the warm-up.
const MEASURED_CALLS: usize = 20_000;
/// Allowed RSS growth between warm-up and the end of the run.
const MAX_RSS_GROWTH_KIB: u64 = 64 << 10;

/// The behaviours, chosen per call by `n % 100`, and the answer each must
/// get.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// `hostile.wasm {}`: allow.
    Good,
    /// `{}` in a warm reused instance: allow.
    Warm,
    /// `{"behave": "state"}`: a fresh instance every call.
    State,
    /// `{"behave": "oob"}`: trap → deny.
    Trap,
    /// `{"behave": "sleep"}`, 20 ms: timeout → deny (blocked in a WASI poll).
    Sleep,
    /// `{"behave": "loop"}`, 20 ms: timeout → deny (spinning, costs CPU).
    Loop,
}

impl Kind {
    fn of(n: usize) -> Kind {
        match n % 100 {
            0 => Kind::Loop,
            1 | 2 => Kind::Sleep,
            3..=5 => Kind::Trap,
            6..=35 => Kind::State,
            36..=50 => Kind::Warm,
            _ => Kind::Good,
        }
    }

    fn tool(self) -> &'static str {
        match self {
            Kind::Good => "good",
            Kind::Warm => "warm",
            Kind::State => "state",
            Kind::Trap => "trap",
            Kind::Sleep => "sleep",
            Kind::Loop => "loop",
        }
    }
}

async fn host() -> Host {
    // The well-behaved checks get a deadline that also bounds their wait
    // for a slot (1 s), so under a burst they wait instead of being turned
    // away; the hostile ones have 20 ms.
    let only = |tool: &str| json!({"tools": [tool], "timeout_ms": 1000});
    let timed = |tool: &str| json!({"tools": [tool], "timeout_ms": 20});
    load_ok(json!({"check": [
        check("good", "hostile.wasm", json!({}), only("good")),
        check("warm", "hostile.wasm", json!({}), json!({"tools": ["warm"], "isolation": "reuse", "timeout_ms": 1000})),
        check("state", "hostile.wasm", json!({"behave": "state"}), only("state")),
        check("trap", "hostile.wasm", json!({"behave": "oob"}), only("trap")),
        check("sleep", "hostile.wasm", json!({"behave": "sleep"}), timed("sleep")),
        check("loop", "hostile.wasm", json!({"behave": "loop"}), timed("loop")),
    ]}))
    .await
}

/// Check one verdict against what its behaviour must produce.
fn verify(kind: Kind, n: usize, v: &toolvet::Verdict) -> Result<(), String> {
    let fail = |what: &str| Err(format!("call {n} ({kind:?}): {what}: {v:?}"));
    if v.checks.len() != 1 || v.checks[0].check != kind.tool() {
        return fail("wrong checks ran");
    }
    let error = v.checks[0].error.as_ref().map(|e| e.kind);
    let ok = match kind {
        Kind::Good | Kind::Warm => v.decision == Decision::Allow && error.is_none(),
        Kind::State => {
            v.decision == Decision::Deny
                && v.rule.as_deref() == Some("hostile.state-fresh")
                && v.reason.as_deref() == Some("no previous call")
        }
        Kind::Trap => v.decision == Decision::Deny && error == Some(ErrorKind::Trap),
        // Timed out, or (waiting longer than its 20 ms deadline for a slot)
        // turned away: either way its `on_error`, deny.
        Kind::Sleep | Kind::Loop => {
            v.decision == Decision::Deny
                && matches!(error, Some(ErrorKind::Timeout | ErrorKind::Overloaded))
        }
    };
    if ok { Ok(()) } else { fail("wrong verdict") }
}

/// What one run saw.
#[derive(Default)]
struct Seen {
    /// Calls per behaviour.
    counts: BTreeMap<Kind, usize>,
    /// Slowest answer to a 20 ms-deadline call (queue wait + run + task
    /// scheduling).
    slowest_hostile: Duration,
    /// 20 ms-deadline calls turned away (overloaded) instead of timing out.
    overloaded: usize,
}

impl Seen {
    fn add(&mut self, other: Seen) {
        for (k, c) in other.counts {
            *self.counts.entry(k).or_insert(0) += c;
        }
        self.slowest_hostile = self.slowest_hostile.max(other.slowest_hostile);
        self.overloaded += other.overloaded;
    }
}

/// Run `total` calls from [`TASKS`] concurrent tasks.
async fn run(host: &Host, first: usize, total: usize) -> Seen {
    let per_task = total / TASKS;
    let mut tasks = Vec::with_capacity(TASKS);
    for t in 0..TASKS {
        let host = host.clone();
        tasks.push(tokio::spawn(async move {
            let mut seen = Seen::default();
            for i in 0..per_task {
                // Interleave the tasks' calls across the behaviours.
                let n = first + i * TASKS + t;
                let kind = Kind::of(n);
                // A per-call secret: a leak would show in another call's verdict.
                let request = call(kind.tool(), json!({"secret": format!("call-{n}"), "n": n}));
                let started = Instant::now();
                let v = host.check(&request).await;
                let elapsed = started.elapsed();
                verify(kind, n, &v)?;
                if let Some(reason) = &v.reason
                    && reason.contains("call-")
                {
                    return Err(format!(
                        "call {n}: another call's arguments leaked: {reason}"
                    ));
                }
                if matches!(kind, Kind::Sleep | Kind::Loop) {
                    seen.slowest_hostile = seen.slowest_hostile.max(elapsed);
                    if v.checks[0].error.as_ref().map(|e| e.kind) == Some(ErrorKind::Overloaded) {
                        seen.overloaded += 1;
                    }
                }
                *seen.counts.entry(kind).or_insert(0) += 1;
            }
            Ok::<_, String>(seen)
        }));
    }
    let mut seen = Seen::default();
    for task in tasks {
        seen.add(
            task.await
                .expect("task panicked")
                .unwrap_or_else(|e| panic!("{e}")),
        );
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn thousands_of_concurrent_calls_stay_correct_and_bounded() {
    let host = host().await;
    // Everything must finish: a deadlock fails the test instead of hanging it.
    let result = tokio::time::timeout(Duration::from_secs(120), async {
        let warm_up = TASKS * 2;
        let started = Instant::now();
        run(&host, 0, warm_up).await;
        let warm_up_time = started.elapsed();
        let rss_before = rss_kib();
        let started = Instant::now();
        let seen = run(&host, warm_up, MEASURED_CALLS).await;
        let elapsed = started.elapsed();
        (warm_up_time, rss_before, rss_kib(), elapsed, seen)
    })
    .await;
    let (warm_up_time, rss_before, rss_after, elapsed, seen) =
        result.expect("the load run did not finish within 120 s (deadlock?)");

    let total: usize = seen.counts.values().sum();
    assert_eq!(total, MEASURED_CALLS);
    let rate = total as f64 / elapsed.as_secs_f64();
    println!(
        "LOAD | calls {total} from {TASKS} concurrent tasks | mix {:?}",
        seen.counts
    );
    println!(
        "LOAD | warm-up {} calls in {:.2} s | measured in {:.2} s = {rate:.0} calls/s",
        TASKS * 2,
        warm_up_time.as_secs_f64(),
        elapsed.as_secs_f64()
    );
    println!(
        "LOAD | 20 ms-deadline calls: slowest answer {:.1} ms (queue wait + run + task scheduling), {} of {} turned away as overloaded",
        seen.slowest_hostile.as_secs_f64() * 1e3,
        seen.overloaded,
        seen.counts.get(&Kind::Sleep).unwrap_or(&0) + seen.counts.get(&Kind::Loop).unwrap_or(&0),
    );
    assert!(elapsed < Duration::from_secs(60), "{elapsed:?}");
    if let (Some(before), Some(after)) = (rss_before, rss_after) {
        let growth = after.saturating_sub(before);
        println!(
            "LOAD | RSS after warm-up {} MiB, after the run {} MiB, growth {} KiB",
            before >> 10,
            after >> 10,
            growth
        );
        assert!(
            growth < MAX_RSS_GROWTH_KIB,
            "RSS grew by {growth} KiB over {total} calls (from {before} KiB to {after} KiB)"
        );
    } else {
        println!("LOAD | RSS not measured: no /proc/self/status on this system");
    }
}
