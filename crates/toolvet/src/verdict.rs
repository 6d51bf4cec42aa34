//! Decisions, check outcomes and the verdict, and how outcomes combine.
//!
//! Combining is a pure function ([`combine`]) so it can be tested against a
//! reference model (see `tests/`).

use crate::config::{Combine, DefaultDecision, Mode, OnError};
use serde::Serialize;

/// The verdict about a call: what the agent may do with it. A verdict is
/// never "no opinion"; [`CheckDecision`] is one check's answer, which may
/// be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// The call may run.
    Allow,
    /// The call must not run; the reason is for the model.
    Deny,
    /// A person must approve the call first.
    Escalate,
}

impl Decision {
    /// `allow`, `deny` or `escalate`.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Deny => "deny",
            Decision::Escalate => "escalate",
        }
    }

    /// How severe the decision is: allow 0, escalate 1, deny 2 (for the
    /// "most severe verdict" of several calls).
    pub fn severity(self) -> u8 {
        match self {
            Decision::Allow => 0,
            Decision::Escalate => 1,
            Decision::Deny => 2,
        }
    }
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One check's answer about one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckDecision {
    /// The call may run as far as this check is concerned.
    Allow,
    /// No opinion: the other checks (or `default_decision`) decide.
    Abstain,
    /// The call must not run.
    Deny,
    /// A person must approve the call first.
    Escalate,
}

impl CheckDecision {
    /// `allow`, `abstain`, `deny` or `escalate`.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckDecision::Allow => "allow",
            CheckDecision::Abstain => "abstain",
            CheckDecision::Deny => "deny",
            CheckDecision::Escalate => "escalate",
        }
    }
}

impl std::fmt::Display for CheckDecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<Decision> for CheckDecision {
    fn from(d: Decision) -> Self {
        match d {
            Decision::Allow => CheckDecision::Allow,
            Decision::Deny => CheckDecision::Deny,
            Decision::Escalate => CheckDecision::Escalate,
        }
    }
}

impl From<OnError> for CheckDecision {
    /// What a failed check answers: `deny` or `escalate`; `on_error =
    /// "allow"` abstains, so a broken check never overrides
    /// `default_decision`.
    fn from(e: OnError) -> Self {
        match e {
            OnError::Deny => CheckDecision::Deny,
            OnError::Escalate => CheckDecision::Escalate,
            OnError::Allow => CheckDecision::Abstain,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The check ran past its deadline (`timeout_ms`).
    Timeout,
    /// The check's instance hit its memory cap (`memory_mb`).
    OutOfMemory,
    /// The check trapped (panic, `unreachable`, stack overflow, bad memory
    /// access).
    Trap,
    /// The check's reason message exceeded `max_result_bytes`, or its
    /// result was over the host's limit for data from a check (hostcall
    /// fuel) and was not read at all.
    OversizedResult,
    /// The check returned something that is not a valid decision (bad
    /// variant, invalid UTF-8, out-of-bounds pointer), or exited.
    MalformedResult,
    /// A host call the check made was refused: over a limit (random bytes,
    /// data passed in one call, resources held at once) or otherwise
    /// invalid. The message keeps the host's reason.
    HostCall,
    /// The plugin failed to load (with `continue_on_errors`).
    LoadFailed,
    /// A fresh instance rejected the settings it accepted at load.
    InvalidSettings,
    /// Too many calls were waiting; the check did not run.
    Overloaded,
    /// The call's arguments exceeded `max_arguments_bytes`; no check ran.
    OversizedCall,
    /// The host itself failed while running the check (a panic in
    /// toolvet, not in the plugin). Always a deny, whatever the check's
    /// `on_error`: the host cannot vouch for a call it failed to vet.
    HostError,
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
            ErrorKind::HostCall => "host-call",
            ErrorKind::LoadFailed => "load-failed",
            ErrorKind::InvalidSettings => "invalid-settings",
            ErrorKind::Overloaded => "overloaded",
            ErrorKind::OversizedCall => "oversized-call",
            ErrorKind::HostError => "host-error",
        }
    }
}

/// A check failure: its kind and a short human-readable message, e.g.
/// ``check `slow` timed out after 50 ms``.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct CheckError {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// What happened.
    pub message: String,
}

/// What one check did with one call.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct CheckOutcome {
    /// The check's name from the policy.
    pub check: String,
    /// Enforce or monitor.
    pub mode: Mode,
    /// The decision that counts: the check's own answer, or, when it
    /// failed, its `on_error` decision (`deny` or `escalate`; `allow` is
    /// recorded as `abstain`, so it never overrides `default_decision`).
    pub decision: CheckDecision,
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
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Verdict {
    /// Allow, deny or escalate.
    pub decision: Decision,
    /// The check whose outcome decided (absent when every check abstained
    /// or none applied, and when the host itself decided: an oversized
    /// call, an approval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// The deciding rule id: a check's (`shell.rm-home`), or the host's
    /// (`toolvet.*` for a call refused before any check ran, `approval.*`
    /// for a decision about an approval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The message for the model (deny) or the approver (escalate); for
    /// several denying checks, their reasons joined with `; `.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The approval request behind an escalate (with the ticket that
    /// resumes the call once a person approves), or the approval a resumed
    /// call was allowed or refused by. Absent when approvals are not
    /// configured and for calls that never escalated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<crate::approval::types::VerdictApproval>,
    /// Every check that applied, in policy order, monitors included.
    pub checks: Vec<CheckOutcome>,
    /// Wall time of the whole verdict, in µs.
    pub duration_us: u64,
}

impl Verdict {
    /// A verdict the host reaches without a check deciding: `decision`
    /// with `rule` and `reason`, keeping the check outcomes that led to it.
    pub(crate) fn by_host(
        decision: Decision,
        rule: impl Into<String>,
        reason: impl Into<String>,
        checks: Vec<CheckOutcome>,
    ) -> Verdict {
        Verdict {
            decision,
            decided_by: None,
            rule: Some(rule.into()),
            reason: Some(reason.into()),
            approval: None,
            checks,
            duration_us: 0,
        }
    }

    /// The ticket that resumes this call now: set when the call escalated
    /// and its approval request is already approved (a person approved it
    /// with `toolvet approvals approve` or on a reviewer page while the
    /// agent waited). Front ends whose agents cannot carry tickets (MCP
    /// clients, coding-agent hooks; they vet with an empty call id, so the
    /// request is the run's live one for the same tool and arguments)
    /// check the call again with it: the approval is then consumed, once.
    pub fn approved_ticket(&self) -> Option<&str> {
        let approval = self.approval.as_ref()?;
        (self.decision == Decision::Escalate
            && approval.status == crate::approval::types::ApprovalStatus::Approved)
            .then_some(approval.ticket.as_deref())
            .flatten()
    }

    /// The enforced escalations of this verdict: each escalating check
    /// with its rule and reason, in policy order.
    pub fn escalations(&self) -> Vec<crate::approval::types::Escalation> {
        self.checks
            .iter()
            .filter(|o| o.mode == Mode::Enforce && o.decision == CheckDecision::Escalate)
            .map(|o| crate::approval::types::Escalation {
                check: o.check.clone(),
                rule: o.rule.clone(),
                reason: o.reason.clone(),
            })
            .collect()
    }
}

/// Combine check outcomes with `algorithm` (today deny-overrides: any
/// enforced deny → deny; else any enforced escalate → escalate; else any
/// enforced allow → allow; else `default`). Monitor outcomes never change
/// the result. The result does not depend on the order of `outcomes`
/// except for which check is named as `decided_by` (the first at the
/// winning decision).
pub fn combine(
    algorithm: Combine,
    outcomes: Vec<CheckOutcome>,
    default: DefaultDecision,
    duration_us: u64,
) -> Verdict {
    let order = match algorithm {
        Combine::DenyOverrides => [
            (CheckDecision::Deny, Decision::Deny),
            (CheckDecision::Escalate, Decision::Escalate),
            (CheckDecision::Allow, Decision::Allow),
        ],
    };
    let enforced = || outcomes.iter().filter(|o| o.mode == Mode::Enforce);
    let winner = order
        .into_iter()
        .find(|(d, _)| enforced().any(|o| o.decision == *d));
    let (decision, decided_by, rule, reason) = match winner {
        None => (Decision::from(default), None, None, None),
        Some((check_decision, decision)) => {
            let deciding: Vec<&CheckOutcome> = enforced()
                .filter(|o| o.decision == check_decision)
                .collect();
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
        approval: None,
        checks: outcomes,
        duration_us,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(name: &str, mode: Mode, decision: CheckDecision) -> CheckOutcome {
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
            Combine::DenyOverrides,
            vec![
                outcome("a", Mode::Enforce, CheckDecision::Allow),
                outcome("e", Mode::Enforce, CheckDecision::Escalate),
                outcome("d", Mode::Enforce, CheckDecision::Deny),
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
            Combine::DenyOverrides,
            vec![
                outcome("a", Mode::Enforce, CheckDecision::Abstain),
                outcome("m", Mode::Monitor, CheckDecision::Deny),
            ],
            DefaultDecision::Escalate,
            0,
        );
        assert_eq!(v.decision, Decision::Escalate);
        assert_eq!(v.decided_by, None);
        let v = combine(Combine::DenyOverrides, vec![], DefaultDecision::Allow, 0);
        assert_eq!(v.decision, Decision::Allow);
    }

    #[test]
    fn reasons_of_all_denying_checks_are_joined() {
        let v = combine(
            Combine::DenyOverrides,
            vec![
                outcome("x", Mode::Enforce, CheckDecision::Deny),
                outcome("y", Mode::Enforce, CheckDecision::Deny),
            ],
            DefaultDecision::Allow,
            0,
        );
        assert_eq!(v.reason.as_deref(), Some("x says deny; y says deny"));
    }
}
