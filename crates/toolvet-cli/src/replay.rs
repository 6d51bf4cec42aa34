//! `toolvet replay LOG --config new.toml`: vet the calls a decision log
//! recorded (`[host] decision_log_arguments = true`) against another
//! policy, and print each call whose verdict would change: shadow-testing
//! a policy change before deploying it.
//!
//! The new policy runs without its decision log and without approvals
//! (nothing is written, no request is opened). Recorded arguments are
//! redacted, so a check that looks at a secret's value sees the
//! placeholder; the run's history is not recorded, so checks see none.
//! A verdict the approvals settled (`approval.*` rules) counts as what its
//! checks asked for: escalate, or deny when a check denied.
//!
//! Exit codes: 0 no verdict changes; 1 some would; 2 the log or policy
//! cannot be used.

use anyhow::Context as _;
use clap::Args;
use serde_json::{Value, json};
use std::path::PathBuf;
use toolvet::display::visible;
use toolvet::{CallRequest, Decision, Host};

/// Arguments of `toolvet replay`.
#[derive(Args)]
pub(crate) struct ReplayArgs {
    /// The decision log (its rotated files are read first).
    log: PathBuf,
    /// The policy to vet the recorded calls with.
    #[arg(long, short)]
    config: PathBuf,
    /// Print every replayed call, not only changed ones.
    #[arg(long, short)]
    verbose: bool,
}

/// What the recorded verdict decided, as the policy's checks saw it.
fn recorded_decision(verdict: &Value) -> Option<Decision> {
    let decision = match verdict.get("decision")?.as_str()? {
        "allow" => Decision::Allow,
        "deny" => Decision::Deny,
        "escalate" => Decision::Escalate,
        _ => return None,
    };
    let rule = verdict.get("rule").and_then(Value::as_str).unwrap_or("");
    if !rule.starts_with("approval.") {
        return Some(decision);
    }
    let checks = verdict.get("checks")?.as_array()?;
    let enforced = |d: &str| {
        checks.iter().any(|c| {
            c.get("decision").and_then(Value::as_str) == Some(d)
                && c.get("mode").and_then(Value::as_str) != Some("monitor")
        })
    };
    if enforced("deny") {
        Some(Decision::Deny)
    } else if enforced("escalate") {
        Some(Decision::Escalate)
    } else if rule == toolvet::approval::rules::NOT_ESCALATED {
        Some(Decision::Allow)
    } else {
        // A ticket refused before any check ran: nothing to compare.
        None
    }
}

/// The call a verdict record holds, when it holds its arguments.
fn recorded_call(record: &Value) -> Option<anyhow::Result<CallRequest>> {
    let arguments = record.get("arguments")?;
    let mut call = json!({
        "call": {"id": record["call_id"], "name": record["tool"], "arguments": arguments},
        "context": {},
    });
    for key in ["agent", "run_id", "principal", "attributes"] {
        if let Some(v) = record.get(key) {
            call["context"][key] = v.clone();
        }
    }
    if let Some(tool) = record.get("tool_info") {
        call["tool"] = tool.clone();
    }
    Some(CallRequest::from_value(call).map_err(anyhow::Error::from))
}

/// Replay; returns the exit code.
///
/// # Errors
/// The log cannot be read, the policy cannot be loaded.
pub(crate) async fn run(args: ReplayArgs) -> anyhow::Result<u8> {
    let policy = toolvet_preset::policy_from_file(&args.config)?.edit(|host, approvals, _| {
        host.decision_log = None;
        *approvals = None;
    })?;
    // A decision log records what callers sent, never the host's own
    // attributes: a host attribute in a record is a caller's, denied now as
    // it is by every front end.
    let options = toolvet::LoadOptions {
        caller_is_host: false,
        ..crate::progress::elsewhere_options()
    };
    let host = Host::load_with(policy, options).await?;
    let (mut replayed, mut changed, mut skipped) = (0usize, 0usize, 0usize);
    let mut transitions: std::collections::BTreeMap<String, usize> = Default::default();
    for file in toolvet::audit::log_files(&args.log)? {
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("{}: cannot read", file.display()))?;
        for (i, line) in text.lines().enumerate() {
            let at = || format!("{}:{}", file.display(), i + 1);
            let record: Value =
                serde_json::from_str(line).with_context(|| format!("{}: not JSON", at()))?;
            if record.get("event").and_then(Value::as_str) != Some("verdict") {
                continue;
            }
            let (Some(call), Some(before)) = (
                recorded_call(&record),
                recorded_decision(&record["verdict"]),
            ) else {
                skipped += 1;
                continue;
            };
            let call = call.with_context(at)?;
            let after = host.check(&call).await;
            replayed += 1;
            let differs = after.decision != before;
            if differs {
                changed += 1;
                *transitions
                    .entry(format!("{before} → {}", after.decision))
                    .or_default() += 1;
            }
            if differs || args.verbose {
                println!(
                    "{} {:<8} call {} `{}`: {before} → {}{}{}",
                    at(),
                    if differs { "CHANGED" } else { "same" },
                    visible(&call.call.id),
                    visible(&call.call.name),
                    after.decision,
                    after
                        .rule
                        .as_deref()
                        .map(|r| format!(" [{}]", visible(r)))
                        .unwrap_or_default(),
                    after
                        .reason
                        .as_deref()
                        .map(|r| format!(" {}", visible(r)))
                        .unwrap_or_default(),
                );
            }
        }
    }
    let summary: Vec<String> = transitions
        .iter()
        .map(|(t, n)| format!("{n} {t}"))
        .collect();
    println!(
        "{replayed} calls replayed, {changed} would change{}; {skipped} records without arguments or comparable verdict skipped",
        if summary.is_empty() {
            String::new()
        } else {
            format!(" ({})", summary.join(", "))
        }
    );
    if replayed == 0 && skipped > 0 {
        eprintln!(
            "toolvet: no record holds its call's arguments; set [host] decision_log_arguments = true to record them"
        );
    }
    Ok(if changed == 0 {
        0
    } else {
        crate::EXIT_MISMATCH
    })
}
