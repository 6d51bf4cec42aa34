//! `toolvet bench`: how much a policy costs on your own calls and results.
//!
//! Loads the policy once, then vets each given call (or result: an input
//! with a top-level `result` key, vetted by the result checks as `toolvet
//! check-result` does) `--iterations` times
//! (after a warm-up) and prints, per call, the p50 / p99 / max latency of
//! every check that ran and of the whole verdict, and verdicts per second.
//! With `--concurrency C`, C callers vet the call at once on the runtime's
//! threads (throughput under load; latencies then include queueing).
//!
//! The whole-verdict latency is wall time around `Host::check` (ns
//! resolution); per-check latencies are the durations the host records in
//! each outcome (µs resolution), so sub-µs checks show as 0 or 1 µs.
//!
//! The policy's decision log is switched off unless `--keep-decision-log`
//! is given: a benchmark should not add thousands of records to the audit
//! trail. Keep it to include the cost of writing it.

use crate::calls::Request;
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolvet::Host;

/// Arguments of `toolvet bench`.
#[derive(Args)]
pub(crate) struct BenchArgs {
    /// The policy file.
    #[arg(long, short, default_value = "toolvet.toml")]
    config: PathBuf,
    /// Files with calls or results: one JSON object, or JSON Lines (`-` or
    /// nothing for stdin); an object with a `result` key is a result.
    calls: Vec<PathBuf>,
    /// Verdicts measured per call, after a warm-up of a tenth as many (at
    /// least 10).
    #[arg(long, short = 'n', default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    iterations: u64,
    /// Concurrent callers vetting the same call.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
    concurrency: u64,
    /// Keep the policy's decision log (every measured verdict is recorded).
    #[arg(long)]
    keep_decision_log: bool,
    /// Print one JSON object per call instead of tables.
    #[arg(long)]
    json: bool,
}

/// Latency percentiles of one series, in µs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct Latency {
    /// Median (nearest rank).
    pub p50_us: f64,
    /// 99th percentile (nearest rank).
    pub p99_us: f64,
    /// Slowest.
    pub max_us: f64,
}

impl Latency {
    /// Percentiles of `samples` (any unit), scaled by `to_us` to µs.
    /// `None` for an empty series.
    fn of(samples: &mut [u64], to_us: f64) -> Option<Self> {
        samples.sort_unstable();
        Some(Self {
            p50_us: percentile(samples, 50.0)? as f64 * to_us,
            p99_us: percentile(samples, 99.0)? as f64 * to_us,
            max_us: *samples.last()? as f64 * to_us,
        })
    }
}

/// The nearest-rank `p`-th percentile (0 < p ≤ 100) of ascending `sorted`:
/// the smallest sample with at least p % of the samples at or below it.
fn percentile(sorted: &[u64], p: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// The result for one call or result.
#[derive(Debug, Serialize)]
struct CallReport {
    source: String,
    index: usize,
    /// `call` or `result`.
    kind: &'static str,
    tool: String,
    /// The call's decision (`allow`, ...) or the result's action (`pass`,
    /// `redact`, `withhold`).
    decision: String,
    rule: Option<String>,
    iterations: u64,
    concurrency: u64,
    verdict: Latency,
    checks: Vec<CheckReport>,
    verdicts_per_second: f64,
    /// Measured verdicts whose decision differed from the first one (a
    /// check that keeps state across calls, or a timeout under load).
    differing_verdicts: u64,
}

#[derive(Debug, Serialize)]
struct CheckReport {
    check: String,
    latency: Latency,
    /// Measured runs that ended in an error (timeout, trap, ...).
    errors: u64,
}

/// One vetting of a call or a result: the decision (or action) and
/// rule, and each check's name, duration (µs) and whether it failed.
struct Run {
    decision: String,
    rule: Option<String>,
    checks: Vec<(String, u64, bool)>,
}

/// Vet `request` once.
async fn vet(host: &Host, request: &Request) -> Run {
    match request {
        Request::Call(call) => {
            let v = host.check(call).await;
            Run {
                decision: v.decision.to_string(),
                rule: v.rule,
                checks: v
                    .checks
                    .into_iter()
                    .map(|o| (o.check, o.duration_us, o.error.is_some()))
                    .collect(),
            }
        }
        Request::Result(item) => {
            let v = host.check_result(&item.request, &item.result).await;
            Run {
                decision: serde_json::to_value(v.action)
                    .ok()
                    .and_then(|a| a.as_str().map(str::to_string))
                    .unwrap_or_default(),
                rule: v.rule,
                checks: v
                    .checks
                    .into_iter()
                    .map(|o| (o.check, o.duration_us, o.error.is_some()))
                    .collect(),
            }
        }
    }
}

/// Samples gathered by one caller.
#[derive(Default)]
struct Samples {
    verdict_ns: Vec<u64>,
    /// Per check, in the order first seen: name, µs per run, error count.
    checks: Vec<(String, Vec<u64>, u64)>,
    differing: u64,
}

impl Samples {
    fn record(&mut self, elapsed: Duration, run: &Run, first: &str) {
        self.verdict_ns.push(elapsed.as_nanos() as u64);
        if run.decision != first {
            self.differing += 1;
        }
        for (check, duration_us, failed) in &run.checks {
            let slot = match self.checks.iter().position(|(n, _, _)| n == check) {
                Some(i) => i,
                None => {
                    self.checks.push((check.clone(), Vec::new(), 0));
                    self.checks.len() - 1
                }
            };
            let (_, times, errors) = &mut self.checks[slot];
            times.push(*duration_us);
            *errors += u64::from(*failed);
        }
    }

    fn merge(&mut self, other: Samples) {
        self.verdict_ns.extend(other.verdict_ns);
        self.differing += other.differing;
        for (name, times, errors) in other.checks {
            match self.checks.iter_mut().find(|(n, _, _)| *n == name) {
                Some((_, t, e)) => {
                    t.extend(times);
                    *e += errors;
                }
                None => self.checks.push((name, times, errors)),
            }
        }
    }
}

/// Run `toolvet bench`. Returns the exit code (0).
///
/// # Errors
/// A policy that does not load, unreadable or malformed calls, or no calls.
pub(crate) async fn run(args: BenchArgs) -> anyhow::Result<u8> {
    let mut dropped_log = false;
    let policy = toolvet_preset::policy_from_file(&args.config)?.edit(|host, _, _| {
        if !args.keep_decision_log {
            dropped_log = host.decision_log.take().is_some();
        }
    })?;
    if dropped_log {
        eprintln!(
            "toolvet bench: decision log off for the benchmark (--keep-decision-log to include it)"
        );
    }
    let started = Instant::now();
    let host = Host::load_with(policy, crate::progress::elsewhere_options()).await?;
    let load_ms = started.elapsed().as_secs_f64() * 1000.0;
    let summaries = host.checks();
    let cached = summaries.iter().filter(|c| c.cached == Some(true)).count();
    if !args.json {
        println!(
            "policy {}: {} checks loaded in {load_ms:.1} ms ({cached} from the compiled cache)",
            args.config.display(),
            summaries.len()
        );
    }
    let calls = read_requests(&args.calls)?;
    anyhow::ensure!(
        !calls.is_empty(),
        "no calls or results given (expected JSON on stdin or in files)"
    );
    for (index, (source, request)) in calls.into_iter().enumerate() {
        let report = bench_call(&host, source, index + 1, request, &args).await;
        if args.json {
            println!("{}", serde_json::to_string(&report)?);
        } else {
            print_report(&report);
        }
    }
    Ok(0)
}

async fn bench_call(
    host: &Host,
    source: String,
    index: usize,
    request: Request,
    args: &BenchArgs,
) -> CallReport {
    let request = Arc::new(request);
    let first = vet(host, &request).await;
    let warmup = (args.iterations / 10).max(10);
    for _ in 0..warmup {
        std::hint::black_box(vet(host, &request).await);
    }
    let started = Instant::now();
    let mut samples = Samples::default();
    if args.concurrency == 1 {
        for _ in 0..args.iterations {
            let t = Instant::now();
            let run = vet(host, &request).await;
            samples.record(t.elapsed(), &run, &first.decision);
        }
    } else {
        let tasks: Vec<_> = (0..args.concurrency)
            .map(|i| {
                let (host, request) = (host.clone(), request.clone());
                let n = args.iterations / args.concurrency
                    + u64::from(i < args.iterations % args.concurrency);
                let expected = first.decision.clone();
                tokio::spawn(async move {
                    let mut samples = Samples::default();
                    for _ in 0..n {
                        let t = Instant::now();
                        let run = vet(&host, &request).await;
                        samples.record(t.elapsed(), &run, &expected);
                    }
                    samples
                })
            })
            .collect();
        for task in tasks {
            samples.merge(task.await.expect("benchmark caller panicked"));
        }
    }
    let wall = started.elapsed();
    let verdict = Latency::of(&mut samples.verdict_ns, 1e-3).expect("at least one iteration");
    let checks = samples
        .checks
        .into_iter()
        .filter_map(|(check, mut times, errors)| {
            Latency::of(&mut times, 1.0).map(|latency| CheckReport {
                check,
                latency,
                errors,
            })
        })
        .collect();
    let (kind, tool) = match &*request {
        Request::Call(call) => ("call", call.call.name.clone()),
        Request::Result(item) => ("result", item.request.call.name.clone()),
    };
    CallReport {
        source,
        index,
        kind,
        tool,
        decision: first.decision,
        rule: first.rule,
        iterations: args.iterations,
        concurrency: args.concurrency,
        verdict,
        checks,
        verdicts_per_second: args.iterations as f64 / wall.as_secs_f64(),
        differing_verdicts: samples.differing,
    }
}

/// Every call and result of the given files (or stdin): `(source,
/// request)`.
fn read_requests(files: &[PathBuf]) -> anyhow::Result<Vec<(String, Request)>> {
    let mut calls = Vec::new();
    for (source, text) in crate::calls::read_inputs(files)? {
        for request in crate::calls::parse_requests(&source, &text) {
            calls.push((source.clone(), request?));
        }
    }
    Ok(calls)
}

fn print_report(r: &CallReport) {
    let decision = match &r.rule {
        Some(rule) => format!("{} [{rule}]", r.decision),
        None => r.decision.to_string(),
    };
    println!();
    println!(
        "{} {} ({}, {}): {decision}",
        r.kind, r.index, r.tool, r.source
    );
    println!("  {:<24} {:>10} {:>10} {:>10}", "", "p50", "p99", "max");
    for c in &r.checks {
        let errors = if c.errors > 0 {
            format!("  ({} errors)", c.errors)
        } else {
            String::new()
        };
        println!(
            "  {:<24} {:>10} {:>10} {:>10}{errors}",
            c.check,
            us(c.latency.p50_us),
            us(c.latency.p99_us),
            us(c.latency.max_us)
        );
    }
    println!(
        "  {:<24} {:>10} {:>10} {:>10}",
        "verdict (wall)",
        us(r.verdict.p50_us),
        us(r.verdict.p99_us),
        us(r.verdict.max_us)
    );
    let callers = if r.concurrency == 1 {
        "1 caller".to_string()
    } else {
        format!("{} concurrent callers", r.concurrency)
    };
    println!(
        "  {} verdicts, {callers}: {:.0} verdicts/s",
        r.iterations, r.verdicts_per_second
    );
    if r.differing_verdicts > 0 {
        println!(
            "  warning: {} verdicts differed from the first ({})",
            r.differing_verdicts, r.decision
        );
    }
}

/// A latency in µs with sensible precision.
fn us(v: f64) -> String {
    if v < 100.0 {
        format!("{v:.1} µs")
    } else {
        format!("{v:.0} µs")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let s: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&s, 50.0), Some(50));
        assert_eq!(percentile(&s, 99.0), Some(99));
        assert_eq!(percentile(&s, 100.0), Some(100));
        assert_eq!(percentile(&[7], 50.0), Some(7));
        assert_eq!(percentile(&[7], 99.0), Some(7));
        assert_eq!(percentile(&[1, 2, 3], 50.0), Some(2));
        assert_eq!(percentile(&[1, 2, 3, 4], 50.0), Some(2));
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn latency_sorts_and_scales() {
        let mut ns = vec![3_000, 1_000, 2_000];
        let l = Latency::of(&mut ns, 1e-3).unwrap();
        assert_eq!((l.p50_us, l.p99_us, l.max_us), (2.0, 3.0, 3.0));
        assert_eq!(Latency::of(&mut [], 1.0), None);
    }

    #[test]
    fn samples_merge_by_check_name() {
        let mut a = Samples {
            verdict_ns: vec![1],
            checks: vec![("shell".into(), vec![5], 0)],
            differing: 1,
        };
        let b = Samples {
            verdict_ns: vec![2],
            checks: vec![("paths".into(), vec![3], 1), ("shell".into(), vec![6], 1)],
            differing: 0,
        };
        a.merge(b);
        assert_eq!(a.verdict_ns, vec![1, 2]);
        assert_eq!(a.differing, 1);
        assert_eq!(
            a.checks,
            vec![
                ("shell".to_string(), vec![5, 6], 1),
                ("paths".to_string(), vec![3], 1)
            ]
        );
    }
}
