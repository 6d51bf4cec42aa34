//! toolvet's own benchmarks, all in one run so their ratios are measured
//! side by side on the same (noisy, shared) machine. See BENCHMARKS.md.
//!
//! Groups (criterion ids `group/function/parameter`):
//! - `check/<check>/{native,native-configure,fresh,fresh-configure,reuse}`:
//!   one shipped Rust check on a typical 1 KB call: the same logic compiled
//!   natively and called directly (shell-guard and path-guard: the physical
//!   limit; `native-configure` also builds the check from its settings),
//!   then through the host with a fresh instance per call made from the
//!   check's snapshot (the default), with a fresh instance that runs
//!   `configure` (`preinitialize = false`), and with a warm reused
//!   instance.
//! - `overhead/{native,fresh,reuse}/<size>`: pure host overhead, the
//!   peer-benchmark rule on a call it ignores without parsing (tool
//!   `other`), for arguments of 100 B to 1 MB.
//! - `policy/{sequential,parallel}/<size>` and `policy/history/<n>`: the
//!   whole default policy (each check's own isolation) on a typical `bash`
//!   call; `policy/per-call/1KB` with every check in per-call isolation
//!   (fresh instances from snapshots), `policy/per-call-configure/1KB` the
//!   same without snapshots, `policy/all-reuse/1KB` with every check
//!   reused.
//! - `cold-start/<check>/{compile,cache}`: loading one check, compiling
//!   (empty cache) vs loading the compiled artifact (warm cache), for a Rust,
//!   the Python and the JavaScript check.
//! - `throughput/<what>/<callers>`: checks (or verdicts) per second with 1,
//!   2 and 8 concurrent callers.
//! - `approvals/<what>/<ledger>`: one tool-policy check with approvals in
//!   an SQLite file or in memory: an allowed call (the baseline), an
//!   escalate that writes a new request, asking again about a pending
//!   request, and a resume that consumes an approved ticket.
//! - `concurrency/{alone,beside-slow}/8`: a cheap check's verdicts from 8
//!   callers on a 2-worker runtime, alone and while two checks spin until
//!   their deadline (not serialised behind them: about the same time).

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;
use toolvet::{CallRequest, Decision, Host, Policy, Verdict};
use toolvet_bench as fx;
use toolvet_bench::clock::Clock;
use toolvet_pdk::Check;

/// The clock of this run, for benchmarks that time batches themselves
/// (`iter_custom`); the same kind criterion measures with.
fn clock() -> &'static Clock {
    static CLOCK: std::sync::OnceLock<Clock> = std::sync::OnceLock::new();
    CLOCK.get_or_init(Clock::from_env)
}

/// A value built on first use, so that a filtered run (`cargo bench --
/// overhead`) does not pay for loading what it does not measure.
struct Lazy<'a, T> {
    cell: std::cell::OnceCell<T>,
    init: Box<dyn Fn() -> T + 'a>,
}

impl<'a, T> Lazy<'a, T> {
    fn new(init: impl Fn() -> T + 'a) -> Self {
        Self {
            cell: std::cell::OnceCell::new(),
            init: Box::new(init),
        }
    }

    fn get(&self) -> &T {
        self.cell.get_or_init(|| (self.init)())
    }
}

/// Check that a benchmark measures a real verdict: no check errored, and
/// the decision is the expected one.
/// Time `host.check(call)`, awaited in one async block per batch, after
/// checking once that it answers an allow with no check error.
fn time_allowed_check(
    b: &mut criterion::Bencher<'_, Clock>,
    rt: &tokio::runtime::Runtime,
    what: &str,
    host: &Host,
    call: &CallRequest,
) {
    assert_verdict(what, &rt.block_on(host.check(call)), &[Decision::Allow]);
    b.to_async(rt).iter(|| host.check(black_box(call)))
}

fn assert_verdict(what: &str, verdict: &Verdict, expected: &[Decision]) {
    for o in &verdict.checks {
        assert!(
            o.error.is_none(),
            "{what}: check `{}` failed: {:?}",
            o.check,
            o.error
        );
    }
    assert!(
        expected.contains(&verdict.decision),
        "{what}: verdict {} ({:?}), expected one of {expected:?}",
        verdict.decision,
        verdict.reason
    );
}

/// The native context of the benchmark calls (what the pdk builds in the
/// guest from the WIT `call-context`).
fn native_context(request: &CallRequest) -> toolvet_pdk::Context {
    toolvet_pdk::Context {
        agent: request.context.agent.clone(),
        run_id: request.context.run_id.clone(),
        principal: request.context.principal.clone(),
        history: Vec::new(),
        attributes: request
            .context
            .attributes
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        labels: Vec::new(),
    }
}

/// The native limit of one check: `check` on a built instance, with a new
/// `ToolCall` per iteration (its arguments are parsed lazily once per call,
/// as in the guest); `native-configure` builds the check from its settings
/// JSON first, as every fresh instance does.
fn bench_native<C: Check>(c: &mut Criterion<Clock>, stem: &str) {
    let fixture = fx::fixture(stem);
    let request = fixture.call(fx::ONE_KB);
    let (name, args) = (
        request.call.name.clone(),
        request.call.arguments.get().to_string(),
    );
    let ctx = native_context(&request);
    let tool = toolvet_pdk::ToolInfo::default();
    let settings = "{}";
    assert!(
        fixture.settings.is_empty(),
        "native fixtures use default settings"
    );
    let check = C::from_settings_json(settings).expect("default settings");
    let decision = check.decide(
        &toolvet_pdk::ToolCall::new(name.clone(), args.clone()),
        &tool,
        &ctx,
    );
    assert!(
        matches!(
            decision,
            toolvet_pdk::Decision::Allow | toolvet_pdk::Decision::Abstain
        ),
        "{stem} native: {decision:?}"
    );
    let mut group = c.benchmark_group("check");
    group.bench_function(BenchmarkId::new(stem, "native"), |b| {
        b.iter(|| {
            let call = toolvet_pdk::ToolCall::new(name.clone(), args.clone());
            black_box(check.decide(&call, &tool, &ctx))
        })
    });
    group.bench_function(BenchmarkId::new(stem, "native-configure"), |b| {
        b.iter(|| {
            let check = C::from_settings_json(black_box(settings)).expect("settings");
            let call = toolvet_pdk::ToolCall::new(name.clone(), args.clone());
            black_box(check.decide(&call, &tool, &ctx))
        })
    });
    group.finish();
}

fn per_check(c: &mut Criterion<Clock>) {
    bench_native::<shell_guard::ShellGuard>(c, "shell_guard");
    bench_native::<path_guard::PathGuard>(c, "path_guard");
    let rt = fx::runtime();
    let mut group = c.benchmark_group("check");
    for fixture in fx::rust_checks() {
        let call = fixture.call(fx::ONE_KB);
        for isolation in ["fresh", "fresh-configure", "reuse"] {
            let mode = if isolation == "reuse" {
                "reuse"
            } else {
                "per-call"
            };
            let host = Lazy::new(|| {
                // `fresh-configure`: no snapshot, every fresh instance
                // runs `configure` (what `fresh` cost before snapshots).
                let policy = fixture
                    .policy(mode)
                    .edit(|host, _, _| host.preinitialize = isolation != "fresh-configure")
                    .expect("still valid");
                let host = fx::load(&rt, policy);
                let verdict = rt.block_on(host.check(&call));
                assert_verdict(fixture.stem, &verdict, &[Decision::Allow]);
                host
            });
            group.bench_function(BenchmarkId::new(fixture.stem, isolation), |b| {
                let host = host.get();
                b.to_async(&rt).iter(|| host.check(black_box(&call)))
            });
        }
    }
    group.finish();
}

fn overhead(c: &mut Criterion<Clock>) {
    let rt = fx::runtime();
    let plugin = fx::rule_plugin();
    let fresh = Lazy::new(|| fx::load(&rt, fx::single_check_policy(&plugin, "", "per-call")));
    let reuse = Lazy::new(|| fx::load(&rt, fx::single_check_policy(&plugin, "", "reuse")));
    let mut group = c.benchmark_group("overhead");
    for &(size, label) in fx::SIZES {
        let call = fx::request(
            "other",
            fx::padded(
                serde_json::json!({"command": "rm -rf /"}),
                "description",
                size,
            ),
            serde_json::json!({}),
            Vec::new(),
        );
        if size >= 100_000 {
            group.sample_size(20).sampling_mode(SamplingMode::Flat);
        } else {
            group.sample_size(100).sampling_mode(SamplingMode::Auto);
        }
        group.throughput(Throughput::Bytes(size as u64));
        let args = call.call.arguments.get().to_string();
        assert_eq!(bench_rule::check("other", &args), None);
        group.bench_function(BenchmarkId::new("native", label), |b| {
            b.iter(|| black_box(bench_rule::check(black_box("other"), black_box(&args))))
        });
        for (name, host) in [("fresh", &fresh), ("reuse", &reuse)] {
            group.bench_function(BenchmarkId::new(name, label), |b| {
                let host = host.get();
                time_allowed_check(b, &rt, "overhead", host, &call)
            });
        }
    }
    group.finish();
}

fn whole_policy(c: &mut Criterion<Clock>) {
    let rt = fx::runtime();
    let logs = tempfile::tempdir().expect("temp dir");
    let sequential = Lazy::new(|| {
        let (policy, source) = fx::default_policy(false, logs.path());
        eprintln!(
            "policy benchmarks use {source:?} ({} checks)",
            policy.checks().len()
        );
        fx::load(&rt, policy)
    });
    let parallel = Lazy::new(|| fx::load(&rt, fx::default_policy(true, logs.path()).0));
    // The same checks with every one in per-call isolation: each fresh
    // instance made from its check's snapshot (the default), or running
    // `configure` itself (no snapshots: what per-call isolation cost
    // before them); and every one in a reused instance.
    let with = |isolation: toolvet::config::Isolation, preinitialize: bool| {
        let (policy, _) = fx::default_policy(false, logs.path());
        let policy = policy
            .edit(|host, _, checks| {
                host.preinitialize = preinitialize;
                for check in checks {
                    check.isolation = isolation;
                }
            })
            .expect("still valid");
        fx::load(&rt, policy)
    };
    let per_call = Lazy::new(|| with(toolvet::config::Isolation::PerCall, true));
    let per_call_configure = Lazy::new(|| with(toolvet::config::Isolation::PerCall, false));
    let all_reuse = Lazy::new(|| with(toolvet::config::Isolation::Reuse, true));
    let mut group = c.benchmark_group("policy");
    for &(size, label) in fx::SIZES {
        let call = fx::typical_call(size, 0);
        if size >= 100_000 {
            group.sample_size(20).sampling_mode(SamplingMode::Flat);
        } else {
            group.sample_size(100).sampling_mode(SamplingMode::Auto);
        }
        for (mode, host) in [("sequential", &sequential), ("parallel", &parallel)] {
            group.bench_function(BenchmarkId::new(mode, label), |b| {
                let host = host.get();
                time_allowed_check(b, &rt, "policy", host, &call)
            });
        }
    }
    group.sample_size(100).sampling_mode(SamplingMode::Auto);
    let call = fx::typical_call(fx::ONE_KB, 0);
    for (name, host) in [
        ("per-call", &per_call),
        ("per-call-configure", &per_call_configure),
        ("all-reuse", &all_reuse),
    ] {
        group.bench_function(BenchmarkId::new(name, "1KB"), |b| {
            let host = host.get();
            time_allowed_check(b, &rt, "policy", host, &call)
        });
    }
    for &n in fx::HISTORIES {
        let call = fx::typical_call(fx::ONE_KB, n);
        group.bench_function(BenchmarkId::new("history", n), |b| {
            let host = sequential.get();
            time_allowed_check(b, &rt, "policy history", host, &call)
        });
    }
    group.finish();
}

/// A policy with `policy`'s checks and a given cache directory.
fn with_cache(policy: &Policy, dir: &std::path::Path) -> Policy {
    policy
        .clone()
        .edit(|host, _, _| host.cache_dir = Some(dir.to_path_buf()))
        .expect("still valid")
}

fn cold_start(c: &mut Criterion<Clock>) {
    let rt = fx::runtime();
    let mut group = c.benchmark_group("cold-start");
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    for stem in ["shell_guard", "spend_guard", "message_guard"] {
        let policy = fx::single_check_policy(&fx::plugin(stem), "", "per-call");
        // A cache directory holding this check's artifact, filled on first use.
        let warm = Lazy::new(|| {
            let dir = tempfile::tempdir().expect("temp dir");
            let host = fx::load(&rt, with_cache(&policy, dir.path()));
            assert_eq!(
                host.checks()[0].cached,
                Some(false),
                "{stem}: first load compiles"
            );
            dir
        });
        group.bench_function(BenchmarkId::new(stem, "compile"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let empty = tempfile::tempdir().expect("temp dir");
                    let policy = with_cache(&policy, empty.path());
                    let started = clock().read();
                    let host = fx::load(&rt, policy);
                    total += clock().read() - started;
                    assert_eq!(host.checks()[0].cached, Some(false));
                }
                total
            })
        });
        group.bench_function(BenchmarkId::new(stem, "cache"), |b| {
            let warm = warm.get();
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let policy = with_cache(&policy, warm.path());
                    let started = clock().read();
                    let host = fx::load(&rt, policy);
                    total += clock().read() - started;
                    assert_eq!(host.checks()[0].cached, Some(true));
                }
                total
            })
        });
    }
    group.finish();
}

/// Run `iters` checks of `call` spread over `callers` concurrent tasks;
/// the time of the whole batch.
fn concurrent(
    rt: &tokio::runtime::Runtime,
    host: &Host,
    call: &Arc<CallRequest>,
    callers: u64,
    iters: u64,
) -> Duration {
    let started = clock().read();
    rt.block_on(async {
        let tasks: Vec<_> = (0..callers)
            .map(|i| {
                let (host, call) = (host.clone(), call.clone());
                // Spread the iterations evenly; the first tasks take the rest.
                let n = iters / callers + u64::from(i < iters % callers);
                tokio::spawn(async move {
                    for _ in 0..n {
                        black_box(host.check(&call).await);
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.expect("caller task");
        }
    });
    clock().read() - started
}

fn throughput(c: &mut Criterion<Clock>) {
    let rt = fx::runtime();
    let logs = tempfile::tempdir().expect("temp dir");
    let shell = fx::fixture("shell_guard");
    let shell_call = Arc::new(shell.call(fx::ONE_KB));
    let policy_call = Arc::new(fx::typical_call(fx::ONE_KB, 0));
    let subjects = [
        (
            "shell_guard-fresh",
            Lazy::new(|| fx::load(&rt, shell.policy("per-call"))),
            &shell_call,
        ),
        (
            "shell_guard-reuse",
            Lazy::new(|| fx::load(&rt, shell.policy("reuse"))),
            &shell_call,
        ),
        (
            "policy",
            Lazy::new(|| fx::load(&rt, fx::default_policy(false, logs.path()).0)),
            &policy_call,
        ),
    ];
    let mut group = c.benchmark_group("throughput");
    group.throughput(Throughput::Elements(1));
    for (name, host, call) in &subjects {
        for callers in [1u64, 2, 8] {
            group.bench_function(BenchmarkId::new(*name, callers), |b| {
                let host = host.get();
                b.iter_custom(|iters| concurrent(&rt, host, call, callers, iters))
            });
        }
    }
    group.finish();
}

/// A call of `tool` with a given call id in run `run-1`.
fn call_with_id(tool: &str, id: u64) -> CallRequest {
    let mut call = fx::request(
        tool,
        serde_json::json!({"env": "prod", "path": "README.md"}),
        serde_json::json!({}),
        Vec::new(),
    );
    call.call.id = format!("call-{id}");
    call.context.run_id = Some("run-1".into());
    call
}

fn approvals(c: &mut Criterion<Clock>) {
    let rt = fx::runtime();
    let mut group = c.benchmark_group("approvals");
    for ledger in ["sqlite", "memory"] {
        let dir = tempfile::tempdir().expect("temp dir");
        let location = if ledger == "sqlite" {
            "approvals.db"
        } else {
            "memory"
        };
        let host = Lazy::new(|| fx::load(&rt, fx::approvals_policy(dir.path(), location)));
        group.bench_function(BenchmarkId::new("allow", ledger), |b| {
            let host = host.get();
            time_allowed_check(
                b,
                &rt,
                "approvals allow",
                host,
                &call_with_id("read_file", 0),
            )
        });
        let next = std::sync::atomic::AtomicU64::new(1);
        let fresh = || {
            call_with_id(
                "deploy",
                next.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            )
        };
        group.bench_function(BenchmarkId::new("escalate", ledger), |b| {
            let host = host.get();
            b.to_async(&rt).iter(|| async {
                let v = host.check(&fresh()).await;
                assert_eq!(v.decision, Decision::Escalate);
                v
            })
        });
        group.bench_function(BenchmarkId::new("ask-again", ledger), |b| {
            let host = host.get();
            let call = fresh();
            assert!(rt.block_on(host.check(&call)).approval.is_some());
            b.to_async(&rt).iter(|| host.check(black_box(&call)))
        });
        group.bench_function(BenchmarkId::new("resume", ledger), |b| {
            let host = host.get();
            let approvals = host.approvals().expect("approvals are on");
            b.iter_custom(|iters| {
                // Escalated and approved first (not timed), then resumed.
                let resumes: Vec<CallRequest> = (0..iters)
                    .map(|_| {
                        let call = fresh();
                        let approval = rt.block_on(host.check(&call)).approval.expect("a request");
                        rt.block_on(approvals.approve(
                            &approval.id,
                            "bench",
                            None,
                            toolvet::approval::Scope::Once,
                        ))
                        .expect("approve");
                        let mut resumed = call;
                        resumed.approval = Some(toolvet::ApprovalClaim {
                            ticket: approval.ticket.expect("a ticket"),
                        });
                        resumed
                    })
                    .collect();
                let started = clock().read();
                rt.block_on(async {
                    for call in &resumes {
                        let v = host.check(call).await;
                        assert_eq!(v.decision, Decision::Allow, "{v:?}");
                    }
                });
                clock().read() - started
            })
        });
    }
    group.finish();
}

fn concurrency(c: &mut Criterion<Clock>) {
    // The runtime of a service on this 2-core machine.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let hostile = fx::repo_root().join("target/hostile/hostile.wasm");
    assert!(hostile.is_file(), "run `bash tests/hostile/build.sh` first");
    let host = Lazy::new(|| {
        let text = format!(
            "[host]\ncache_dir = {cache:?}\ndefault_timeout_ms = {deadline}\n\
             [[check]]\nname = \"slow\"\nplugin = {p:?}\ntools = [\"slow\"]\ntimeout_ms = 50\non_error = \"deny\"\n\
             [check.settings]\nbehave = \"loop\"\n\
             [[check]]\nname = \"fast\"\nplugin = {p:?}\ntools = [\"fast\"]\nisolation = \"reuse\"\n",
            cache = fx::cache_dir().display().to_string(),
            deadline = fx::DEADLINE_MS,
            p = hostile.display().to_string(),
        );
        let policy = Policy::from_toml(&text, std::path::Path::new("<bench>"), &fx::repo_root())
            .expect("valid");
        fx::load(&rt, policy)
    });
    let fast = Arc::new(fx::request(
        "fast",
        serde_json::json!({}),
        serde_json::json!({}),
        Vec::new(),
    ));
    let slow = Arc::new(fx::request(
        "slow",
        serde_json::json!({}),
        serde_json::json!({}),
        Vec::new(),
    ));
    let mut group = c.benchmark_group("concurrency");
    group.throughput(Throughput::Elements(1));
    group.bench_function(BenchmarkId::new("alone", 8), |b| {
        let host = host.get();
        b.iter_custom(|iters| concurrent(&rt, host, &fast, 8, iters))
    });
    group.bench_function(BenchmarkId::new("beside-slow", 8), |b| {
        let host = host.get();
        b.iter_custom(|iters| {
            let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
            // Two callers keep a check spinning until its deadline.
            let spinners: Vec<_> = (0..2)
                .map(|_| {
                    let (host, slow, stop) = (host.clone(), slow.clone(), stop.clone());
                    rt.spawn(async move {
                        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                            black_box(host.check(&slow).await);
                        }
                    })
                })
                .collect();
            std::thread::sleep(Duration::from_millis(5));
            let took = concurrent(&rt, host, &fast, 8, iters);
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            for s in spinners {
                rt.block_on(s).expect("spinner");
            }
            took
        })
    });
    group.finish();
}

fn config() -> Criterion<Clock> {
    Criterion::default()
        .with_measurement(Clock::from_env())
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = per_check, overhead, whole_policy, cold_start, throughput, approvals, concurrency
}
criterion_main!(benches);
