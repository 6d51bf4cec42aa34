//! `bench-report`: turn the criterion results of one benchmark run
//! (`target/criterion/**/new/`) into the Markdown tables of BENCHMARKS.md:
//! every benchmark's median, the per-check overhead over the native limit,
//! the peers side by side with ratios, and the targets with measured values.
//!
//! ```text
//! cargo run --release -p toolvet-bench --bin bench-report [CRITERION_DIR]
//! ```
//!
//! Times are criterion's median estimate (the median of the per-sample mean
//! times, in which each sample averages many iterations), which is what
//! the targets' "p50" refers to for in-process benchmarks.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Median and 95 % confidence bounds of one benchmark, in ns.
#[derive(Debug, Clone, Copy)]
struct Estimate {
    median: f64,
    lower: f64,
    upper: f64,
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// Every `full_id` → estimate under `dir`.
fn collect(dir: &Path, out: &mut BTreeMap<String, Estimate>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        if path.file_name().is_some_and(|n| n == "new") {
            let (Some(b), Some(e)) = (
                read_json(&path.join("benchmark.json")),
                read_json(&path.join("estimates.json")),
            ) else {
                continue;
            };
            let median = &e["median"];
            if let (Some(id), Some(m), Some(lo), Some(hi)) = (
                b["full_id"].as_str(),
                median["point_estimate"].as_f64(),
                median["confidence_interval"]["lower_bound"].as_f64(),
                median["confidence_interval"]["upper_bound"].as_f64(),
            ) {
                out.insert(
                    id.to_string(),
                    Estimate {
                        median: m,
                        lower: lo,
                        upper: hi,
                    },
                );
            }
        } else {
            collect(&path, out);
        }
    }
}

/// A duration in ns with a readable unit.
fn fmt_ns(ns: f64) -> String {
    let (v, unit) = if ns >= 1e9 {
        (ns / 1e9, "s")
    } else if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    if v >= 100.0 {
        format!("{v:.0} {unit}")
    } else if v >= 10.0 {
        format!("{v:.1} {unit}")
    } else {
        format!("{v:.2} {unit}")
    }
}

struct Report {
    results: BTreeMap<String, Estimate>,
}

impl Report {
    fn get(&self, id: &str) -> Option<f64> {
        self.results.get(id).map(|e| e.median)
    }

    fn cell(&self, id: &str) -> String {
        self.get(id).map(fmt_ns).unwrap_or_else(|| "–".into())
    }

    fn all(&self) {
        println!("### Every benchmark (median, 95 % interval of the median)\n");
        println!("| benchmark | median | interval |");
        println!("|---|---:|---:|");
        for (id, e) in &self.results {
            println!(
                "| `{id}` | {} | {} – {} |",
                fmt_ns(e.median),
                fmt_ns(e.lower),
                fmt_ns(e.upper)
            );
        }
        println!();
    }

    fn checks(&self) {
        let mut stems: Vec<&str> = self
            .results
            .keys()
            .filter_map(|k| k.strip_prefix("check/"))
            .filter_map(|k| k.split('/').next())
            .collect();
        stems.dedup();
        println!("### Per check, 1 KB call\n");
        println!(
            "| check | native | native + configure | fresh, configure per call | fresh from snapshot | reused instance | fresh ÷ reuse | fresh − native | reuse − native |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for stem in stems {
            let native = self.get(&format!("check/{stem}/native"));
            let diff = |id: &str| match (self.get(id), native) {
                (Some(t), Some(n)) => fmt_ns(t - n),
                _ => "–".into(),
            };
            let ratio = match (
                self.get(&format!("check/{stem}/fresh")),
                self.get(&format!("check/{stem}/reuse")),
            ) {
                (Some(f), Some(r)) => format!("{:.2}×", f / r),
                _ => "–".into(),
            };
            println!(
                "| {stem} | {} | {} | {} | {} | {} | {ratio} | {} | {} |",
                self.cell(&format!("check/{stem}/native")),
                self.cell(&format!("check/{stem}/native-configure")),
                self.cell(&format!("check/{stem}/fresh-configure")),
                self.cell(&format!("check/{stem}/fresh")),
                self.cell(&format!("check/{stem}/reuse")),
                diff(&format!("check/{stem}/fresh")),
                diff(&format!("check/{stem}/reuse")),
            );
        }
        println!();
        println!("### Host overhead by argument size (rule on a call it ignores)\n");
        println!("| arguments | native | fresh | reuse | fresh − native | reuse − native |");
        println!("|---|---:|---:|---:|---:|---:|");
        for size in ["100B", "1KB", "10KB", "1MB"] {
            let n = self.get(&format!("overhead/native/{size}"));
            let diff = |mode: &str| match (self.get(&format!("overhead/{mode}/{size}")), n) {
                (Some(t), Some(n)) => fmt_ns(t - n),
                _ => "–".into(),
            };
            println!(
                "| {size} | {} | {} | {} | {} | {} |",
                self.cell(&format!("overhead/native/{size}")),
                self.cell(&format!("overhead/fresh/{size}")),
                self.cell(&format!("overhead/reuse/{size}")),
                diff("fresh"),
                diff("reuse"),
            );
        }
        println!();
    }

    fn policy(&self) {
        println!("### Whole default policy, typical `bash` call\n");
        println!("| arguments | sequential | parallel_checks |");
        println!("|---|---:|---:|");
        for size in ["100B", "1KB", "10KB", "1MB"] {
            println!(
                "| {size} | {} | {} |",
                self.cell(&format!("policy/sequential/{size}")),
                self.cell(&format!("policy/parallel/{size}"))
            );
        }
        println!(
            "| 1KB, every check per-call, from snapshots | {} | – |",
            self.cell("policy/per-call/1KB")
        );
        println!(
            "| 1KB, every check per-call, without snapshots (`preinitialize = false`) | {} | – |",
            self.cell("policy/per-call-configure/1KB")
        );
        println!(
            "| 1KB, every check reused (`isolation = \"reuse\"`) | {} | – |",
            self.cell("policy/all-reuse/1KB")
        );
        println!("\n| history (1 KB call) | sequential |");
        println!("|---|---:|");
        for n in ["0", "50", "500"] {
            println!("| {n} | {} |", self.cell(&format!("policy/history/{n}")));
        }
        println!("\n### Cold start (load one check)\n");
        println!("| check | compile (empty cache) | compiled-cache load | ratio |");
        println!("|---|---:|---:|---:|");
        for stem in ["shell_guard", "spend_guard", "message_guard"] {
            let (c, h) = (
                self.get(&format!("cold-start/{stem}/compile")),
                self.get(&format!("cold-start/{stem}/cache")),
            );
            let ratio = match (c, h) {
                (Some(c), Some(h)) => format!("{:.0}×", c / h),
                _ => "–".into(),
            };
            println!(
                "| {stem} | {} | {} | {ratio} |",
                self.cell(&format!("cold-start/{stem}/compile")),
                self.cell(&format!("cold-start/{stem}/cache"))
            );
        }
        println!("\n### Throughput (per second, 2 cores)\n");
        println!("| what | 1 caller | 2 callers | 8 callers |");
        println!("|---|---:|---:|---:|");
        for what in ["shell_guard-fresh", "shell_guard-reuse", "policy"] {
            let per_s = |n: &str| {
                self.get(&format!("throughput/{what}/{n}"))
                    .map(|ns| format!("{:.0}", 1e9 / ns))
                    .unwrap_or_else(|| "–".into())
            };
            println!(
                "| {what} | {} | {} | {} |",
                per_s("1"),
                per_s("2"),
                per_s("8")
            );
        }
        println!();
    }

    fn peers(&self) {
        println!("### Peers: the same rule, 1 KB call\n");
        println!(
            "| contender | allow | deny | toolvet-fresh ÷ this (allow) | toolvet-reuse ÷ this (allow) |"
        );
        println!("|---|---:|---:|---:|---:|");
        let fresh = self.get("peers/toolvet-fresh/allow");
        let reuse = self.get("peers/toolvet-reuse/allow");
        for who in [
            "native",
            "toolvet-fresh",
            "toolvet-reuse",
            "extism-fresh",
            "extism-warm",
            "cedar",
            "cedar-authorize",
        ] {
            let this = self.get(&format!("peers/{who}/allow"));
            let ratio = |t: Option<f64>| match (t, this) {
                (Some(t), Some(x)) => format!("{:.2}", t / x),
                _ => "–".into(),
            };
            println!(
                "| {who} | {} | {} | {} | {} |",
                self.cell(&format!("peers/{who}/allow")),
                self.cell(&format!("peers/{who}/deny")),
                ratio(fresh),
                ratio(reuse),
            );
        }
        println!();
    }

    fn targets(&self) {
        println!("### Targets\n");
        println!("| target | limit | measured | met |");
        println!("|---|---:|---:|:---:|");
        let row = |name: &str, limit: f64, measured: Option<f64>| {
            let (m, ok) = match measured {
                Some(m) => (fmt_ns(m), if m <= limit { "yes" } else { "no" }),
                None => ("–".into(), "–"),
            };
            println!("| {name} | {} | {m} | {ok} |", fmt_ns(limit));
        };
        let diff = |a: &str, b: &str| Some(self.get(a)? - self.get(b)?);
        for stem in ["shell_guard", "path_guard"] {
            row(
                &format!("{stem}: host overhead, fresh instance, 1 KB (fresh − native)"),
                10e3,
                diff(
                    &format!("check/{stem}/fresh"),
                    &format!("check/{stem}/native"),
                ),
            );
            row(
                &format!("{stem}: host overhead, reused instance, 1 KB (reuse − native)"),
                1e3,
                diff(
                    &format!("check/{stem}/reuse"),
                    &format!("check/{stem}/native"),
                ),
            );
        }
        row(
            "rule: host overhead, fresh instance, 1 KB",
            10e3,
            diff("peers/toolvet-fresh/allow", "peers/native/allow"),
        );
        row(
            "rule: host overhead, reused instance, 1 KB",
            1e3,
            diff("peers/toolvet-reuse/allow", "peers/native/allow"),
        );
        row(
            "whole default policy, typical call (1 KB, sequential)",
            50e3,
            self.get("policy/sequential/1KB"),
        );
        let vs = |name: &str, ours: &str, theirs: &str| {
            let (o, t) = (self.get(ours), self.get(theirs));
            let (m, ok) = match (o, t) {
                (Some(o), Some(t)) => (
                    format!("{} vs {} ({:.2}×)", fmt_ns(o), fmt_ns(t), o / t),
                    if o <= t { "yes" } else { "no" },
                ),
                _ => ("–".into(), "–"),
            };
            println!("| {name} | ≤ 1× | {m} | {ok} |");
        };
        vs(
            "faster than Extism, warm (toolvet-reuse vs extism-warm)",
            "peers/toolvet-reuse/allow",
            "peers/extism-warm/allow",
        );
        vs(
            "faster than Extism, fresh (toolvet-fresh vs extism-fresh)",
            "peers/toolvet-fresh/allow",
            "peers/extism-fresh/allow",
        );
        vs(
            "fresh instance no slower than Cedar (toolvet-fresh vs cedar)",
            "peers/toolvet-fresh/allow",
            "peers/cedar/allow",
        );
        println!();
    }
}

fn main() {
    let dir = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("CARGO_TARGET_DIR").map(|d| PathBuf::from(d).join("criterion"))
        })
        .unwrap_or_else(|| toolvet_bench::repo_root().join("target/criterion"));
    let mut results = BTreeMap::new();
    collect(&dir, &mut results);
    if results.is_empty() {
        eprintln!(
            "bench-report: no criterion results under {} (run `cargo bench -p toolvet-bench` first)",
            dir.display()
        );
        std::process::exit(2);
    }
    let clock = std::env::var("TOOLVET_BENCH_CLOCK").unwrap_or_else(|_| "wall".into());
    println!(
        "<!-- bench-report over {} (TOOLVET_BENCH_CLOCK={clock} when the benchmarks ran, if set the same here) -->\n",
        dir.display()
    );
    let report = Report { results };
    report.targets();
    report.checks();
    report.policy();
    report.peers();
    report.all();
}
