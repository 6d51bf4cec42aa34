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
//! refused. Counting and opening are two steps, so calls racing at the
//! limit can pass it by at most the number made at the same instant.

use super::{ApprovalRequest, Approvals, LedgerError, ListQuery, MAX_PAGE, StatusFilter};
use super::{UnixMillis, ledger::may_be_same_call};
use serde::Serialize;
use std::collections::BTreeMap;

/// Default of `[approvals] max_pending_per_run`.
pub const DEFAULT_MAX_PENDING_PER_RUN: usize = 100;
/// Default of `[approvals] max_pending_per_principal`.
pub const DEFAULT_MAX_PENDING_PER_PRINCIPAL: usize = 100;
/// Default of `[approvals] max_pending` (all runs and principals).
pub const DEFAULT_MAX_PENDING: usize = 1000;
/// Largest accepted value of each of the three limits.
pub const MAX_PENDING_LIMIT: usize = 100_000;

/// How many requests wait for a person ([`Approvals::pending_counts`]).
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

impl Approvals {
    /// The limits on pending requests (`[approvals] max_pending*`).
    pub fn pending_limits(&self) -> PendingLimits {
        let s = &self.inner.settings;
        PendingLimits {
            per_run: s.max_pending_per_run,
            per_principal: s.max_pending_per_principal,
            total: s.max_pending,
        }
    }

    /// How many requests are pending now, in all and per run, for a
    /// reviewer's view.
    ///
    /// # Errors
    /// [`super::ApprovalError::Ledger`].
    pub async fn pending_counts(&self) -> Result<PendingCounts, super::ApprovalError> {
        let this = self.clone();
        let (pending, complete) = crate::runtime::on_runtime(async move {
            this.scan_pending(UnixMillis::now(), |_| false).await
        })
        .await??;
        let mut runs: BTreeMap<&str, usize> = BTreeMap::new();
        let mut without_run = 0;
        for r in &pending {
            match &r.call.run_id {
                Some(run) => *runs.entry(run.as_str()).or_default() += 1,
                None => without_run += 1,
            }
        }
        let mut by_run: Vec<RunCount> = runs
            .into_iter()
            .map(|(run, count)| RunCount {
                run_id: run.to_string(),
                count,
            })
            .collect();
        by_run.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.run_id.cmp(&b.run_id)));
        Ok(PendingCounts {
            total: pending.len(),
            by_run,
            without_run,
            complete,
            limits: self.pending_limits(),
        })
    }

    /// The pending requests as of `now`, oldest first, at most
    /// `max_pending` plus one page; stops early once `stop` holds for one.
    /// The flag is true when the list is complete.
    async fn scan_pending(
        &self,
        now: UnixMillis,
        mut stop: impl FnMut(&ApprovalRequest) -> bool,
    ) -> Result<(Vec<ApprovalRequest>, bool), LedgerError> {
        let bound = self.inner.settings.max_pending.saturating_add(MAX_PAGE);
        let mut query = ListQuery {
            status: StatusFilter::Pending,
            limit: MAX_PAGE,
            after: None,
        };
        let mut all = Vec::new();
        loop {
            let page = self.inner.ledger.list(&query, now).await?;
            let full = page.len() == MAX_PAGE;
            query.after = page.last().map(|r| r.id.clone());
            for r in page {
                let done = stop(&r);
                all.push(r);
                if done {
                    return Ok((all, false));
                }
            }
            if !full {
                return Ok((all, true));
            }
            if all.len() >= bound {
                return Ok((all, false));
            }
        }
    }

    /// Why a new request like `candidate` may not be opened now: `None`
    /// when it may (or when the same call already has a pending request,
    /// which the ledger hands back instead of a new one).
    ///
    /// # Errors
    /// [`LedgerError`] (the caller denies the call).
    pub(crate) async fn pending_refusal(
        &self,
        candidate: &ApprovalRequest,
        now: UnixMillis,
    ) -> Result<Option<String>, LedgerError> {
        let limits = self.pending_limits();
        let mut same_call = false;
        let (pending, _) = self
            .scan_pending(now, |r| {
                same_call = may_be_same_call(candidate, r);
                same_call
            })
            .await?;
        if same_call {
            return Ok(None);
        }
        let wait = "the call is denied and no request is opened until a person decides some \
                    of them or they expire";
        if pending.len() >= limits.total {
            return Ok(Some(format!(
                "{} approval requests are already pending (the limit is {}); {wait}",
                pending.len(),
                limits.total
            )));
        }
        if let Some(run) = &candidate.call.run_id {
            let n = pending
                .iter()
                .filter(|r| r.call.run_id.as_ref() == Some(run))
                .count();
            if n >= limits.per_run {
                return Ok(Some(format!(
                    "{n} approval requests of this run are already pending (the limit is {}); {wait}",
                    limits.per_run
                )));
            }
        }
        if let Some(principal) = &candidate.principal {
            let n = pending
                .iter()
                .filter(|r| r.principal.as_ref() == Some(principal))
                .count();
            if n >= limits.per_principal {
                return Ok(Some(format!(
                    "{n} approval requests on behalf of this principal are already pending (the \
                     limit is {}); {wait}",
                    limits.per_principal
                )));
            }
        }
        Ok(None)
    }
}
