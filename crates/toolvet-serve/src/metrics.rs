//! `/metrics`: Prometheus text format.
//!
//! | metric | labels |
//! |---|---|
//! | `toolvet_verdicts_total` | `decision`, `tool` |
//! | `toolvet_check_outcomes_total` | `check`, `decision`, `error_kind` (`none` when the check answered) |
//! | `toolvet_check_duration_seconds` (histogram) | `check` |
//! | `toolvet_verdict_duration_seconds` (histogram) | `decision` |
//! | `toolvet_approvals_pending` (gauge, read from the ledger at scrape) | |
//! | `toolvet_approvals_decided_total` | `decision` (`approve`, `reject`) |
//! | `toolvet_reloads_total` | `result` (`success`, `failure`) |
//! | `toolvet_policy_generation` (gauge) | |
//! | `toolvet_http_requests_total` | `route`, `status` |
//! | `toolvet_overloaded_total` | |
//! | `toolvet_requests_in_flight` (gauge) | |
//! | `toolvet_webhook_deliveries_total` | `result` (`delivered`, `failed`) |
//! | `toolvet_decision_log_records_total`, `toolvet_decision_log_dropped_total` | |
//!
//! Tool names come from callers, so the `tool` label holds at most
//! [`MAX_TOOL_LABELS`] distinct names; later ones count as `other`.

use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, Opts, Registry,
    TextEncoder,
};
use std::collections::HashSet;
use std::sync::Mutex;
use toolvet::Verdict;

/// Most distinct tool names in the `tool` label.
pub const MAX_TOOL_LABELS: usize = 256;

/// Latency buckets, in seconds: 25 µs to 10 s.
const BUCKETS: &[f64] = &[
    0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1,
    0.25, 0.5, 1.0, 2.5, 10.0,
];

/// The server's metrics.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    verdicts: IntCounterVec,
    check_outcomes: IntCounterVec,
    check_seconds: HistogramVec,
    verdict_seconds: HistogramVec,
    /// Pending requests, set at each scrape.
    pub approvals_pending: IntGauge,
    /// Decisions made through this server.
    pub approvals_decided: IntCounterVec,
    reloads: IntCounterVec,
    /// The policy generation in force.
    pub generation: IntGauge,
    http: IntCounterVec,
    /// Requests refused for overload.
    pub overloaded: IntCounter,
    /// API requests holding a slot under `max_concurrent_requests` now.
    pub in_flight: IntGauge,
    /// Webhook deliveries by result.
    pub webhook: IntCounterVec,
    log_written: IntGauge,
    log_dropped: IntGauge,
    tools_seen: Mutex<HashSet<String>>,
}

fn counter(registry: &Registry, name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    let c = IntCounterVec::new(Opts::new(name, help), labels).expect("a valid metric");
    registry
        .register(Box::new(c.clone()))
        .expect("registered once");
    c
}

fn gauge(registry: &Registry, name: &str, help: &str) -> IntGauge {
    let g = IntGauge::new(name, help).expect("a valid metric");
    registry
        .register(Box::new(g.clone()))
        .expect("registered once");
    g
}

fn histogram(registry: &Registry, name: &str, help: &str, labels: &[&str]) -> HistogramVec {
    let h = HistogramVec::new(
        HistogramOpts::new(name, help).buckets(BUCKETS.to_vec()),
        labels,
    )
    .expect("a valid metric");
    registry
        .register(Box::new(h.clone()))
        .expect("registered once");
    h
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// Every metric, registered and at zero.
    pub fn new() -> Metrics {
        let r = Registry::new();
        let overloaded = IntCounter::new(
            "toolvet_overloaded_total",
            "Requests refused with 503 because the concurrency cap was reached",
        )
        .expect("a valid metric");
        r.register(Box::new(overloaded.clone()))
            .expect("registered once");
        Metrics {
            verdicts: counter(
                &r,
                "toolvet_verdicts_total",
                "Verdicts by decision and tool",
                &["decision", "tool"],
            ),
            check_outcomes: counter(
                &r,
                "toolvet_check_outcomes_total",
                "Check outcomes by check, decision and error kind",
                &["check", "decision", "error_kind"],
            ),
            check_seconds: histogram(
                &r,
                "toolvet_check_duration_seconds",
                "Time of one check on one call",
                &["check"],
            ),
            verdict_seconds: histogram(
                &r,
                "toolvet_verdict_duration_seconds",
                "Time of a whole verdict",
                &["decision"],
            ),
            approvals_pending: gauge(
                &r,
                "toolvet_approvals_pending",
                "Approval requests waiting for a person (read from the ledger at scrape)",
            ),
            approvals_decided: counter(
                &r,
                "toolvet_approvals_decided_total",
                "Approval requests decided through this server",
                &["decision"],
            ),
            reloads: counter(
                &r,
                "toolvet_reloads_total",
                "Policy reloads by result",
                &["result"],
            ),
            generation: gauge(
                &r,
                "toolvet_policy_generation",
                "The policy generation in force",
            ),
            http: counter(
                &r,
                "toolvet_http_requests_total",
                "HTTP requests by route and status",
                &["route", "status"],
            ),
            webhook: counter(
                &r,
                "toolvet_webhook_deliveries_total",
                "Webhook deliveries of new approval requests by result",
                &["result"],
            ),
            in_flight: gauge(
                &r,
                "toolvet_requests_in_flight",
                "API requests holding one of the max_concurrent_requests slots",
            ),
            log_written: gauge(
                &r,
                "toolvet_decision_log_records_total",
                "Decision records written",
            ),
            log_dropped: gauge(
                &r,
                "toolvet_decision_log_dropped_total",
                "Decision records that could not be written",
            ),
            overloaded,
            registry: r,
            tools_seen: Mutex::new(HashSet::new()),
        }
    }

    /// Count one verdict about a call of `tool`.
    pub fn record_verdict(&self, tool: &str, verdict: &Verdict) {
        let decision = verdict.decision.as_str();
        let tool = self.tool_label(tool);
        self.verdicts.with_label_values(&[decision, &tool]).inc();
        self.verdict_seconds
            .with_label_values(&[decision])
            .observe(verdict.duration_us as f64 / 1e6);
        for outcome in &verdict.checks {
            let kind = outcome.error.as_ref().map_or("none", |e| e.kind.as_str());
            self.check_outcomes
                .with_label_values(&[&outcome.check, outcome.decision.as_str(), kind])
                .inc();
            self.check_seconds
                .with_label_values(&[&outcome.check])
                .observe(outcome.duration_us as f64 / 1e6);
        }
    }

    fn tool_label(&self, tool: &str) -> String {
        let Ok(mut seen) = self.tools_seen.lock() else {
            return "other".into();
        };
        if seen.contains(tool) {
            return tool.to_string();
        }
        if seen.len() < MAX_TOOL_LABELS {
            seen.insert(tool.to_string());
            tool.to_string()
        } else {
            "other".into()
        }
    }

    /// Count a reload.
    pub fn record_reload(&self, ok: bool) {
        self.reloads
            .with_label_values(&[if ok { "success" } else { "failure" }])
            .inc();
    }

    /// Count an HTTP answer.
    pub fn record_http(&self, route: &str, status: u16) {
        self.http
            .with_label_values(&[route, &status.to_string()])
            .inc();
    }

    /// Update the decision-log gauges.
    pub fn record_log(&self, stats: Option<toolvet::audit::DecisionLogStats>) {
        if let Some(s) = stats {
            self.log_written.set(s.written as i64);
            self.log_dropped.set(s.dropped as i64);
        }
    }

    /// Everything, in the text format.
    pub fn render(&self) -> String {
        let mut out = Vec::new();
        // Encoding into a Vec cannot fail for well-formed metrics.
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}
