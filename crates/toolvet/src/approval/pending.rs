//! Bounds on the requests waiting for a person.
//!
//! Without a bound an agent could open thousands of requests (one per call
//! id) and bury the one that matters below what a reviewer reads. So
//! before a new request is opened, the pending ones are counted: past
//! `[approvals] max_pending_per_run`, `max_pending_per_principal` or
//! `max_pending` (defaults [`DEFAULT_MAX_PENDING_PER_RUN`],
//! [`DEFAULT_MAX_PENDING_PER_PRINCIPAL`], [`DEFAULT_MAX_PENDING`]) the call
//! is denied with `approval.too-many-pending` and no request is opened,
//! until a person decides some or they expire. Asking again for a call
//! that already has a pending request is not a new request and is not
//! refused. Counting and opening are one atomic step of the ledger
//! ([`super::Ledger::open`] with [`pending_refusal`]: under the memory
//! ledger's lock, in one SQLite `BEGIN IMMEDIATE` transaction, in one
//! Postgres transaction holding an advisory lock that serialises
//! openings), so calls racing at a limit never pass it.

use super::types::ApprovalRequest;
use serde::Serialize;

/// Default of `[approvals] max_pending_per_run`.
pub const DEFAULT_MAX_PENDING_PER_RUN: usize = 100;
/// Default of `[approvals] max_pending_per_principal`.
pub const DEFAULT_MAX_PENDING_PER_PRINCIPAL: usize = 100;
/// Default of `[approvals] max_pending` (all runs and principals).
pub const DEFAULT_MAX_PENDING: usize = 1000;
/// Largest accepted value of each of the three limits.
pub const MAX_PENDING_LIMIT: usize = 100_000;

/// How many requests wait for a person ([`super::Approvals::pending_counts`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PendingCounts {
    /// Pending requests, counted up to the scan bound (see `complete`).
    pub total: usize,
    /// Pending requests per run id, most first (ties by run id).
    pub by_run: Vec<RunCount>,
    /// Pending requests of calls made without a run id.
    pub without_run: usize,
    /// False when counting stopped at its bound (`max_pending` plus one
    /// page): there are at least `total`.
    pub complete: bool,
    /// The limits in force.
    pub limits: PendingLimits,
}

/// The pending requests of one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunCount {
    /// The run id.
    pub run_id: String,
    /// Its pending requests.
    pub count: usize,
}

/// The limits on pending requests of a policy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PendingLimits {
    /// Most pending requests of one run.
    pub per_run: usize,
    /// Most pending requests on behalf of one principal.
    pub per_principal: usize,
    /// Most pending requests in all.
    pub total: usize,
}

/// The pending requests (pending and unexpired) a ledger counted, in the
/// same atomic step as the insert it is about to make ([`super::Ledger::open`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PendingNow {
    /// All of them.
    pub total: usize,
    /// Those of the new request's run (0 when it has no run id).
    pub run: usize,
    /// Those on behalf of the new request's principal (0 when it names
    /// none).
    pub principal: usize,
}

impl PendingNow {
    /// Count `pending` (a pending, unexpired request) against `candidate`.
    pub fn count(&mut self, candidate: &ApprovalRequest, pending: &ApprovalRequest) {
        self.total += 1;
        if candidate.call.run_id.is_some() && pending.call.run_id == candidate.call.run_id {
            self.run += 1;
        }
        if candidate.principal.is_some() && pending.principal == candidate.principal {
            self.principal += 1;
        }
    }
}

/// Why `candidate`, a new request, may not be opened while `pending`
/// requests wait: `None` when every limit leaves room. The rule every
/// ledger applies inside [`super::Ledger::open`].
pub fn pending_refusal(
    candidate: &ApprovalRequest,
    pending: PendingNow,
    limits: &PendingLimits,
) -> Option<String> {
    let wait = "the call is denied and no request is opened until a person decides some of \
                them or they expire";
    if pending.total >= limits.total {
        return Some(format!(
            "{} approval requests are already pending (the limit is {}); {wait}",
            pending.total, limits.total
        ));
    }
    if candidate.call.run_id.is_some() && pending.run >= limits.per_run {
        return Some(format!(
            "{} approval requests of this run are already pending (the limit is {}); {wait}",
            pending.run, limits.per_run
        ));
    }
    if candidate.principal.is_some() && pending.principal >= limits.per_principal {
        return Some(format!(
            "{} approval requests on behalf of this principal are already pending (the limit \
             is {}); {wait}",
            pending.principal, limits.per_principal
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::{Approvals, ListQuery, rules};
    use crate::call::CallRequest;
    use crate::verdict::{Decision, Verdict};

    /// Ask `approvals` about a held call: the verdict after the ledger.
    async fn ask(approvals: Approvals, id: String, run: String) -> Verdict {
        let request = CallRequest::from_json(&format!(
            r#"{{"call": {{"id": "{id}", "name": "deploy", "arguments": {{"id": "{id}"}}}},
                "context": {{"run_id": "{run}", "principal": "bob"}}}}"#
        ))
        .unwrap();
        let held = Verdict::by_host(Decision::Escalate, "test.held", "held", Vec::new());
        approvals.settle(&request, held, None).await
    }

    /// Start `n` asks at once, spread over `handles`; count how many
    /// opened a request and how many were denied for the limit.
    async fn race(
        handles: &[Approvals],
        n: usize,
        run: impl Fn(usize) -> String,
    ) -> (usize, usize) {
        let mut tasks = Vec::new();
        for i in 0..n {
            let approvals = handles[i % handles.len()].clone();
            let (id, run) = (format!("{}-{i}", run(i)), run(i));
            tasks.push(tokio::spawn(ask(approvals, id, run)));
        }
        let (mut opened, mut refused) = (0, 0);
        for task in tasks {
            let verdict = task.await.unwrap();
            match verdict.decision {
                Decision::Escalate => {
                    assert!(verdict.approval.as_ref().unwrap().opened, "{verdict:?}");
                    opened += 1;
                }
                Decision::Deny => {
                    assert_eq!(
                        verdict.rule.as_deref(),
                        Some(rules::TOO_MANY_PENDING),
                        "{verdict:?}"
                    );
                    refused += 1;
                }
                Decision::Allow => panic!("allowed: {verdict:?}"),
            }
        }
        (opened, refused)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn openings_racing_at_the_limit_never_pass_it_in_one_sqlite_file() {
        let dir = tempfile::tempdir().unwrap();
        let text = format!(
            "[approvals]\nledger = {:?}\nkey_file = {:?}\nmax_pending = 6\n\
             max_pending_per_run = 4\nmax_pending_per_principal = 100\n",
            dir.path().join("approvals.db").display().to_string(),
            dir.path().join("approvals.key").display().to_string(),
        );
        let policy =
            crate::Policy::from_toml(&text, &dir.path().join("toolvet.toml"), dir.path()).unwrap();
        // Two handles, two connections to the file: two processes.
        let handles = [
            Approvals::open(&policy).await.unwrap().unwrap(),
            Approvals::open(&policy).await.unwrap().unwrap(),
        ];
        // One run, 32 new calls at once: exactly the run's 4 are opened.
        assert_eq!(race(&handles, 32, |_| "r1".into()).await, (4, 28));
        // 32 calls of 32 new runs at once: 2 more, up to the total of 6.
        assert_eq!(race(&handles, 32, |i| format!("r-{i}")).await, (2, 30));
        let counts = handles[0].pending_counts().await.unwrap();
        assert_eq!(counts.total, 6, "{counts:?}");
        assert_eq!(counts.by_run[0].count, 4, "{counts:?}");
        // Asking again for a call that waits is not refused at the limit.
        let waiting = handles[1]
            .list(&ListQuery::default())
            .await
            .unwrap()
            .into_iter()
            .find(|r| r.call.run_id.as_deref() == Some("r1"))
            .unwrap();
        let again = ask(
            handles[1].clone(),
            waiting.call.call_id.clone(),
            "r1".into(),
        )
        .await;
        assert_eq!(again.decision, Decision::Escalate, "{again:?}");
        assert_eq!(again.approval.unwrap().id, waiting.id);
    }
}
