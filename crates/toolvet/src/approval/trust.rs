//! Whether a front end that runs as the agent's user may let a call run on
//! an approval it finds in the ledger.
//!
//! The coding-agent hooks and `toolvet mcp` run as the user the agent runs
//! as, so the policy's ledger (and its ticket key) are files the agent can
//! write: an `approved` row, or a run-scope grant, may be the agent's own
//! SQL rather than a person's decision. Only a policy that lists
//! `[approvals] reviewer_keys` tells the two apart (the host then counts an
//! approval only with a reviewer's signature, see [`super::reviewer`]).
//! [`ApprovalTrust`] is that rule, in one place, for every such front end.
//!
//! `toolvet serve` (its HTTP API, reviewer page and `--ext-mcp` gateway)
//! does not use it: it runs apart from the agents it serves, whose
//! callers reach its ledger only through its authenticated API.

use crate::approval::ApprovalStatus;
use crate::config::Policy;
use crate::verdict::{Decision, Verdict};

/// Whether a person's approval in the policy's ledger can be told from
/// one the agent wrote there itself, for a front end running as the
/// agent's user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalTrust {
    /// No `[approvals]` table: escalations are denied.
    None,
    /// `[approvals]` without `reviewer_keys`: the ledger is a file of the
    /// agent's user, so no approval found in it counts; a held call runs
    /// only on an answer the front end obtained from the person itself
    /// (its agent's or client's own question), never on the ledger's word.
    Unsigned,
    /// `[approvals] reviewer_keys`: an approval counts only when signed by
    /// a reviewer key, whose passphrase the agent does not have (the host
    /// checks the signature when the call is resumed).
    Signed,
}

impl ApprovalTrust {
    /// The trust of `policy`'s approvals.
    pub fn of(policy: &Policy) -> ApprovalTrust {
        match &policy.approvals {
            None => ApprovalTrust::None,
            Some(a) if a.reviewer_keys.is_empty() => ApprovalTrust::Unsigned,
            Some(_) => ApprovalTrust::Signed,
        }
    }

    /// The trust of the approvals of the policy `host` runs now.
    pub fn of_host(host: &crate::Host) -> ApprovalTrust {
        match host.approvals() {
            None => ApprovalTrust::None,
            Some(a) if a.requires_signed_approvals() => ApprovalTrust::Signed,
            Some(_) => ApprovalTrust::Unsigned,
        }
    }

    /// The ticket to check `verdict`'s call again with because its
    /// request reads as approved in the ledger ([`Verdict::approved_ticket`]),
    /// only when such an approval can count: under [`ApprovalTrust::Signed`]
    /// (the resumed check then requires the reviewer's signature). `None`
    /// otherwise: the call stays held.
    pub fn ledger_ticket(self, verdict: &Verdict) -> Option<&str> {
        (self == ApprovalTrust::Signed)
            .then(|| verdict.approved_ticket())
            .flatten()
    }

    /// Why `verdict` must not let its call run, when it rests on an
    /// approval read from the ledger that cannot count: under a policy
    /// without reviewer keys, an allow granted by the ledger (an
    /// `approval.*` rule: a run-scope grant) or an escalate whose request
    /// already reads as approved. The reason goes after
    /// `[approval.unsigned-decision]`; it names no command or policy path.
    /// `None` when the verdict does not rest on the ledger, or the policy
    /// lists reviewer keys.
    pub fn uncounted(self, verdict: &Verdict) -> Option<String> {
        if self == ApprovalTrust::Signed {
            return None;
        }
        const WHY: &str = "but the policy lists no reviewer keys, so that approval cannot be \
                           told from one written by the agent; it does not count";
        let rule = verdict.rule.as_deref().unwrap_or_default();
        match (verdict.decision, &verdict.approval) {
            (Decision::Allow, _) if rule.starts_with("approval.") => {
                Some(format!("the approval ledger lets it run [{rule}], {WHY}"))
            }
            (Decision::Escalate, Some(approval)) if approval.status == ApprovalStatus::Approved => {
                Some(format!(
                    "approval request {} reads as approved in the approval ledger, {WHY}",
                    approval.id
                ))
            }
            _ => None,
        }
    }

    /// The warning a front end prints when it starts (or is installed)
    /// under this trust, if any.
    pub fn warning(self) -> Option<&'static str> {
        (self == ApprovalTrust::Unsigned).then_some(
            "the policy's [approvals] table lists no `reviewer_keys`: the agent runs as your user \
             and can write the approval ledger, so neither the hook nor `toolvet mcp` resumes a \
             call from it; calls held for approval are denied (or asked in the agent or MCP \
             client, where it can ask). Run `toolvet approvals reviewer-key init` and list the \
             key in [approvals] reviewer_keys to approve held calls from outside the agent \
             (docs/hooks.md, docs/mcp.md).",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn verdict(value: serde_json::Value) -> Verdict {
        serde_json::from_value(value).unwrap()
    }

    fn held(status: &str) -> Verdict {
        verdict(json!({
            "decision": "escalate", "rule": "policy.requires-approval", "reason": "deploys need a person.",
            "approval": {"id": "apr_1", "status": status, "ticket": "tkt", "created_at": "2026-12-01T00:00:00Z",
                         "expires_at": "2026-12-01T01:00:00Z", "escalations": []},
            "checks": [], "duration_us": 0
        }))
    }

    fn policy(text: &str) -> Policy {
        let dir = std::path::Path::new("/nonexistent");
        Policy::from_toml(text, &dir.join("toolvet.toml"), dir).unwrap()
    }

    #[test]
    fn only_reviewer_keys_make_a_ledger_approval_count() {
        assert_eq!(ApprovalTrust::of(&policy("")), ApprovalTrust::None);
        assert_eq!(
            ApprovalTrust::of(&policy(
                "[approvals]\nledger = \"a.db\"\nkey_file = \"a.key\"\n"
            )),
            ApprovalTrust::Unsigned
        );
        let approved = held("approved");
        assert_eq!(approved.approved_ticket(), Some("tkt"));
        // The agent's own row resumes nothing without reviewer keys...
        for trust in [ApprovalTrust::None, ApprovalTrust::Unsigned] {
            assert_eq!(trust.ledger_ticket(&approved), None, "{trust:?}");
            let why = trust.uncounted(&approved).unwrap();
            assert!(
                why.starts_with("approval request apr_1 reads as approved")
                    && why.contains("no reviewer keys"),
                "{why}"
            );
        }
        // ...and with them the host checks its signature on the resume.
        assert_eq!(ApprovalTrust::Signed.ledger_ticket(&approved), Some("tkt"));
        assert_eq!(ApprovalTrust::Signed.uncounted(&approved), None);
        // A request still pending is no approval at all.
        let pending = held("pending");
        for trust in [ApprovalTrust::Unsigned, ApprovalTrust::Signed] {
            assert_eq!(trust.ledger_ticket(&pending), None);
            assert_eq!(trust.uncounted(&pending), None);
        }
    }

    #[test]
    fn a_run_grant_from_the_ledger_counts_only_under_reviewer_keys() {
        let granted = verdict(json!({
            "decision": "allow", "rule": "approval.run-scope", "reason": "approved for this run",
            "checks": [], "duration_us": 0
        }));
        let why = ApprovalTrust::Unsigned.uncounted(&granted).unwrap();
        assert!(
            why.contains("lets it run [approval.run-scope]") && why.ends_with("it does not count"),
            "{why}"
        );
        assert_eq!(ApprovalTrust::Signed.uncounted(&granted), None);
        // An allow the checks gave is not the ledger's.
        let allowed = verdict(json!({
            "decision": "allow", "rule": "policy.allowed", "reason": "fine", "checks": [], "duration_us": 0
        }));
        assert_eq!(ApprovalTrust::Unsigned.uncounted(&allowed), None);
        // No text names a command or a policy path.
        for text in [
            why,
            ApprovalTrust::Unsigned
                .uncounted(&held("approved"))
                .unwrap(),
        ] {
            for named in ["toolvet approvals", "--config", "toolvet.toml", "sqlite"] {
                assert!(!text.contains(named), "{text}");
            }
        }
    }
}
