//! Decisions, check outcomes and the verdict, and how outcomes combine.
//!
//! Combining is a pure function ([`combine`]) so it can be tested against a
//! reference model (see `tests/`).

use crate::config::{DefaultDecision, Mode, OnError};
use serde::Serialize;

/// One check's answer, or the verdict's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// The call may run.
    Allow,
    /// No opinion (checks only; never a verdict).
    Abstain,
    /// The call must not run.
    Deny,
    /// A person must approve the call first.
    Escalate,
}

impl Decision {
    /// `allow`, `abstain`, `deny` or `escalate`.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Abstain => "abstain",
            Decision::Deny => "deny",
            Decision::Escalate => "escalate",
        }
    }
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<OnError> for Decision {
    fn from(e: OnError) -> Self {
        match e {
            OnError::Deny => Decision::Deny,
            OnError::Escalate => Decision::Escalate,
            OnError::Allow => Decision::Allow,
        }
    }
}

impl From<DefaultDecision> for Decision {
    fn from(d: DefaultDecision) -> Self {
        match d {
            DefaultDecision::Allow => Decision::Allow,
            DefaultDecision::Deny => Decision::Deny,
            DefaultDecision::Escalate => Decision::Escalate,
        }
    }
}

/// How a check failed. Every failure is recorded with its kind and the
/// check's `on_error` decision is used in place of an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorKind {
    /// The check ran past its deadline (`timeout_ms`).
    Timeout,
    /// The check's instance hit its memory cap (`memory_mb`).
    OutOfMemory,
    /// The check trapped (panic, `unreachable`, stack overflow, bad memory
    /// access).
    Trap,
    /// The check's reason message exceeded `max_result_bytes`.
    OversizedResult,
    /// The check returned something that is not a valid decision (bad
    /// variant, invalid UTF-8, out-of-bounds pointer), or exited.
    MalformedResult,
    /// The plugin failed to load (with `continue_on_errors`).
    LoadFailed,
    /// A fresh instance rejected the settings it accepted at load.
    InvalidSettings,
    /// Too many calls were waiting; the check did not run.
    Overloaded,
    /// The call's arguments exceeded `max_arguments_bytes`; no check ran.
    OversizedCall,
}

impl ErrorKind {
    /// The kebab-case name, e.g. `out-of-memory`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Timeout => "timeout",
            ErrorKind::OutOfMemory => "out-of-memory",
            ErrorKind::Trap => "trap",
            ErrorKind::OversizedResult => "oversized-result",
            ErrorKind::MalformedResult => "malformed-result",
            ErrorKind::LoadFailed => "load-failed",
            ErrorKind::InvalidSettings => "invalid-settings",
            ErrorKind::Overloaded => "overloaded",
            ErrorKind::OversizedCall => "oversized-call",
        }
    }
}

/// A check failure: its kind and a short human-readable message, e.g.
/// ``check `slow` timed out after 50 ms``.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckError {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// What happened.
    pub message: String,
}

/// What one check did with one call.
#[derive(Debug, Clone, Serialize)]
pub struct CheckOutcome {
    /// The check's name from the policy.
    pub check: String,
    /// Enforce or monitor.
    pub mode: Mode,
    /// The decision that counts: the check's own answer, or, when it
    /// failed, its `on_error` decision (`deny` or `escalate`; `allow` is
    /// recorded as `abstain`, so it never overrides `default_decision`).
    pub decision: Decision,
    /// The rule id the check gave (deny / escalate only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The reason message (deny / escalate, or the failure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Wall time of the check, in µs (instantiate + configure + check).
    pub duration_us: u64,
    /// Set when the check failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<CheckError>,
}

/// The combined answer about one call.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// Allow, deny or escalate (never abstain).
    pub decision: Decision,
    /// The check whose outcome decided (absent when every check abstained
    /// or none applied).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// The deciding rule id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The message for the model (deny) or the approver (escalate); for
    /// several denying checks, their reasons joined with `; `.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Every check that applied, in policy order, monitors included.
    pub checks: Vec<CheckOutcome>,
    /// Wall time of the whole verdict, in µs.
    pub duration_us: u64,
}

/// Combine check outcomes by deny-overrides: any enforced deny → deny; else
/// any enforced escalate → escalate; else any enforced allow → allow; else
/// `default`. Monitor outcomes never change the result. The result does not
/// depend on the order of `outcomes` except for which check is named as
/// `decided_by` (the first at the winning decision).
pub fn combine(outcomes: Vec<CheckOutcome>, default: DefaultDecision, duration_us: u64) -> Verdict {
    let enforced = || outcomes.iter().filter(|o| o.mode == Mode::Enforce);
    let winner = [Decision::Deny, Decision::Escalate, Decision::Allow]
        .into_iter()
        .find(|d| enforced().any(|o| o.decision == *d));
    let (decision, decided_by, rule, reason) = match winner {
        None => (Decision::from(default), None, None, None),
        Some(decision) => {
            let deciding: Vec<&CheckOutcome> =
                enforced().filter(|o| o.decision == decision).collect();
            let first = deciding[0];
            let reasons: Vec<&str> = deciding
                .iter()
                .filter_map(|o| o.reason.as_deref())
                .collect();
            let reason = (!reasons.is_empty()).then(|| reasons.join("; "));
            (
                decision,
                Some(first.check.clone()),
                first.rule.clone(),
                reason,
            )
        }
    };
    Verdict {
        decision,
        decided_by,
        rule,
        reason,
        checks: outcomes,
        duration_us,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(name: &str, mode: Mode, decision: Decision) -> CheckOutcome {
        CheckOutcome {
            check: name.into(),
            mode,
            decision,
            rule: Some(format!("{name}.rule")),
            reason: Some(format!("{name} says {decision}")),
            duration_us: 1,
            error: None,
        }
    }

    #[test]
    fn deny_beats_escalate_beats_allow() {
        let v = combine(
            vec![
                outcome("a", Mode::Enforce, Decision::Allow),
                outcome("e", Mode::Enforce, Decision::Escalate),
                outcome("d", Mode::Enforce, Decision::Deny),
            ],
            DefaultDecision::Allow,
            0,
        );
        assert_eq!(v.decision, Decision::Deny);
        assert_eq!(v.decided_by.as_deref(), Some("d"));
        assert_eq!(v.rule.as_deref(), Some("d.rule"));
        assert_eq!(v.checks.len(), 3);
    }

    #[test]
    fn all_abstain_takes_default_and_monitors_do_not_count() {
        let v = combine(
            vec![
                outcome("a", Mode::Enforce, Decision::Abstain),
                outcome("m", Mode::Monitor, Decision::Deny),
            ],
            DefaultDecision::Escalate,
            0,
        );
        assert_eq!(v.decision, Decision::Escalate);
        assert_eq!(v.decided_by, None);
        let v = combine(vec![], DefaultDecision::Allow, 0);
        assert_eq!(v.decision, Decision::Allow);
    }

    #[test]
    fn reasons_of_all_denying_checks_are_joined() {
        let v = combine(
            vec![
                outcome("x", Mode::Enforce, Decision::Deny),
                outcome("y", Mode::Enforce, Decision::Deny),
            ],
            DefaultDecision::Allow,
            0,
        );
        assert_eq!(v.reason.as_deref(), Some("x says deny; y says deny"));
    }
}
