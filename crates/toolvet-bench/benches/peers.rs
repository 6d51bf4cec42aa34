//! Peers side by side: the same rule ("deny tool `bash` when its command
//! contains `rm -rf`; allow otherwise", `bench-peers/rule`) through
//!
//! - `native`: the rule compiled natively, called directly (the limit);
//! - `toolvet-fresh` / `toolvet-reuse`: toolvet with the rule as a check
//!   component (`bench-peers/rule-toolvet`), fresh instance per call
//!   (default) and warm reused instance; the whole `Host::check` verdict;
//! - `extism-fresh` / `extism-warm` (feature `peers`): the Extism host with
//!   the rule as an Extism plugin, a new plugin instance from the compiled
//!   plugin per call, and one reused instance;
//! - `cedar` (feature `peers`): Cedar's `is_authorized` on the equivalent
//!   policy, including reading `command` from the arguments' JSON text and
//!   building the request; `cedar-authorize` is `is_authorized` alone.
//!
//! Ids: `peers/<contender>/<allow|deny>`, on 1 KB calls. Every contender's
//! answer is asserted before it is timed. See BENCHMARKS.md.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;
use toolvet::Decision;
use toolvet_bench as fx;
use toolvet_bench::clock::Clock;

fn peers(c: &mut Criterion<Clock>) {
    let rt = fx::runtime();
    let plugin = fx::rule_plugin();
    let fresh = fx::load(&rt, fx::single_check_policy(&plugin, "", "per-call"));
    let reuse = fx::load(&rt, fx::single_check_policy(&plugin, "", "reuse"));
    #[cfg(feature = "peers")]
    let mut extism = fx::peers::ExtismRule::new(&fx::rule_extism_plugin()).expect("Extism plugin");
    #[cfg(feature = "peers")]
    let cedar = fx::peers::CedarRule::new();
    #[cfg(not(feature = "peers"))]
    eprintln!("peers: Extism and Cedar skipped (build with `--features peers`)");

    let mut group = c.benchmark_group("peers");
    for (label, call) in fx::rule_calls(fx::ONE_KB) {
        let deny = label == "deny";
        let (tool, args) = (
            call.call.name.clone(),
            call.call.arguments.get().to_string(),
        );
        assert_eq!(bench_rule::check(&tool, &args).is_some(), deny);
        group.bench_function(BenchmarkId::new("native", label), |b| {
            b.iter(|| bench_rule::check(black_box(&tool), black_box(&args)))
        });
        let expected = if deny {
            Decision::Deny
        } else {
            Decision::Allow
        };
        for (name, host) in [("toolvet-fresh", &fresh), ("toolvet-reuse", &reuse)] {
            let verdict = rt.block_on(host.check(&call));
            assert_eq!(verdict.decision, expected, "{name}: {:?}", verdict.checks);
            group.bench_function(BenchmarkId::new(name, label), |b| {
                b.to_async(&rt).iter(|| host.check(black_box(&call)))
            });
        }
        #[cfg(feature = "peers")]
        {
            assert_eq!(
                extism.check_fresh(&tool, &args).expect("extism").is_some(),
                deny
            );
            assert_eq!(
                extism.check_warm(&tool, &args).expect("extism").is_some(),
                deny
            );
            assert_eq!(cedar.check(&tool, &args).is_some(), deny);
            group.bench_function(BenchmarkId::new("extism-fresh", label), |b| {
                b.iter(|| {
                    extism
                        .check_fresh(black_box(&tool), black_box(&args))
                        .expect("extism")
                })
            });
            group.bench_function(BenchmarkId::new("extism-warm", label), |b| {
                b.iter(|| {
                    extism
                        .check_warm(black_box(&tool), black_box(&args))
                        .expect("extism")
                })
            });
            group.bench_function(BenchmarkId::new("cedar", label), |b| {
                b.iter(|| cedar.check(black_box(&tool), black_box(&args)))
            });
            let context = match bench_rule::command(&args) {
                Some(command) => cedar_policy::Context::from_pairs([(
                    "command".to_string(),
                    cedar_policy::RestrictedExpression::new_string(command),
                )])
                .expect("context"),
                None => cedar_policy::Context::empty(),
            };
            let request = cedar.request(&tool, context);
            assert_eq!(cedar.decide(&request).is_some(), deny);
            group.bench_function(BenchmarkId::new("cedar-authorize", label), |b| {
                b.iter(|| cedar.decide(black_box(&request)))
            });
        }
    }
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
    targets = peers
}
criterion_main!(benches);
