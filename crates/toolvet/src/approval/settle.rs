//! How an approval turns a verdict into the final one: opening requests
//! for escalations, and settling resumed calls that carry a ticket.
//!
//! The order, for a call with a ticket:
//! 1. before any check runs, the ticket itself (shape, signature, key,
//!    realm, expiry) and its binding to this call (tool, arguments, run,
//!    call id, principal and agent) — [`Approvals::verify_claim`];
//! 2. the checks run; a deny wins and the ticket is not used;
//! 3. a call no check escalates is refused (nothing to approve);
//! 4. the request's status decides: pending → escalate with the same id,
//!    rejected → deny with the reviewer's message, approved and covering
//!    the escalations → consumed (once) and allow.

use super::bound::BoundCall;
use super::ledger::Opened;
use super::rules;
use super::service::Approvals;
use super::ticket::Claims;
use super::ticket::Refusal;
use super::types::{
    ApprovalEvent, ApprovalRequest, ApprovalStatus, Escalation, ReviewDecision, Scope, UnixMillis,
    VerdictApproval, grants_run,
};
use crate::call::{CallRequest, Outcome, PriorCall};
use crate::verdict::{Decision, Verdict};

/// Whether the approval `request` covers every escalation the call has now
/// (same check and rule).
fn covers(request: &ApprovalRequest, now: &[Escalation]) -> bool {
    now.iter().all(|e| {
        request
            .escalations
            .iter()
            .any(|a| a.check == e.check && a.rule == e.rule)
    })
}

impl Approvals {
    /// Step 1: the ticket a call carries, checked without the ledger.
    /// `Ok(None)` for a call without one; `Err` says why it is refused.
    pub(crate) fn verify_claim(
        &self,
        request: &CallRequest,
        now: UnixMillis,
    ) -> Result<Option<Claims>, Refusal> {
        let Some(claim) = &request.approval else {
            return Ok(None);
        };
        let claims = self.inner.signer.verify(&claim.ticket, now)?;
        let refuse = |rule: &'static str, reason: String| Err(Refusal { rule, reason });
        if claims.tool != request.call.name {
            return refuse(
                rules::TOOL_CHANGED,
                format!(
                    "the approval ticket is for a call of `{}`, not `{}`; a ticket approves only the call it was issued for",
                    claims.tool, request.call.name
                ),
            );
        }
        if claims.run != request.context.run_id {
            return refuse(
                rules::RUN_MISMATCH,
                "the approval ticket was issued in another run; it approves the call only in the run that made it".into(),
            );
        }
        if claims.prn != request.context.principal || claims.agt != request.context.agent {
            return refuse(
                rules::PRINCIPAL_MISMATCH,
                "the approval ticket was issued to another principal or agent; an approval \
                 serves only the principal and agent whose call asked for it"
                    .into(),
            );
        }
        if claims.call != request.call.id {
            return refuse(
                rules::CALL_MISMATCH,
                format!(
                    "the approval ticket is for call id `{}`, not `{}`; resume the call with its own id",
                    claims.call, request.call.id
                ),
            );
        }
        let attributes = super::bound_attributes(request);
        if claims.at != attributes {
            let changed: Vec<&str> = super::BOUND_ATTRIBUTES
                .iter()
                .copied()
                .filter(|k| claims.at.get(*k) != attributes.get(*k))
                .collect();
            return refuse(
                rules::CONTEXT_CHANGED,
                format!(
                    "the approval ticket was issued for the call with another {}; a person \
                     approved the call where and through what it was asked, so make it there, \
                     or anew to ask again",
                    changed.join(", ")
                ),
            );
        }
        if claims.args != request.arguments_sha256() {
            return refuse(
                rules::ARGUMENTS_CHANGED,
                "the arguments differ from the ones a person was asked to approve; resume with \
                 the same arguments, or make the changed call anew to ask again"
                    .into(),
            );
        }
        Ok(Some(claims))
    }

    /// Steps 2-4: the final verdict of a call whose checks gave `verdict`.
    pub(crate) async fn settle(
        &self,
        request: &CallRequest,
        verdict: Verdict,
        claims: Option<Claims>,
    ) -> Verdict {
        match (verdict.decision, claims) {
            (Decision::Deny, _) | (Decision::Allow, None) => verdict,
            (Decision::Allow, Some(_)) => Verdict::by_host(
                Decision::Deny,
                rules::NOT_ESCALATED,
                "the call carries an approval ticket, but no check holds it for approval; a \
                 ticket approves only a call toolvet escalated, so it is refused",
                verdict.checks,
            ),
            (Decision::Escalate, Some(claims)) => self.resume(verdict, &claims).await,
            (Decision::Escalate, None) => self.escalate(request, verdict).await,
        }
    }

    /// A resumed call that still escalates, with a verified ticket.
    async fn resume(&self, verdict: Verdict, claims: &Claims) -> Verdict {
        let now = UnixMillis::now();
        let record = match self.inner.ledger.get(&claims.id).await {
            Ok(Some(record)) => record,
            Ok(None) => {
                return deny(
                    verdict,
                    rules::UNKNOWN,
                    format!(
                        "the approval ticket names request `{}`, which this ledger does not hold",
                        claims.id
                    ),
                );
            }
            Err(e) => return self.ledger_failed(verdict, &e),
        };
        let bound = BoundCall {
            tool: claims.tool.clone(),
            arguments_sha256: claims.args.clone(),
            call_id: claims.call.clone(),
            run_id: claims.run.clone(),
            attributes: claims.at.clone(),
        };
        if record.call != bound || record.principal != claims.prn || record.agent != claims.agt {
            return deny(
                verdict,
                rules::FORGED,
                "the approval ticket does not match the request it names".into(),
            );
        }
        let escalations = verdict.escalations();
        // Under reviewer keys an approval counts only when signed.
        if matches!(
            record.status_at(now),
            ApprovalStatus::Approved | ApprovalStatus::Consumed
        ) && let Err(refusal) = self.approval_counts(&record, now).await
        {
            return deny(verdict, refusal.rule, refusal.reason);
        }
        let once = record
            .review
            .as_ref()
            .is_some_and(|r| r.decision == ReviewDecision::Approve && r.scope == Scope::Once);
        // The ledger's own single-use rule is a row its writer can set
        // back; this process remembers what it consumed.
        if once
            && record.status_at(now) == ApprovalStatus::Approved
            && super::local::consumed_here(&record.id)
        {
            return deny(
                verdict,
                rules::REPLAYED,
                format!(
                    "approval request `{}` was already used by an earlier call in this process; \
                     the ledger reads it as approved again, which toolvet did not write; an \
                     approval lets a call run once",
                    record.id
                ),
            );
        }
        match record.status_at(now) {
            ApprovalStatus::Pending => self.held(verdict, &record),
            ApprovalStatus::Rejected => self.rejected(verdict, &record),
            ApprovalStatus::Expired => deny(
                verdict,
                rules::EXPIRED,
                format!(
                    "approval request `{}` expired at {} without a decision; make the call again to ask anew",
                    record.id, record.expires_at
                ),
            ),
            ApprovalStatus::Consumed if grants_run(&record) && covers(&record, &escalations) => {
                self.allowed(verdict, &record, rules::RUN_SCOPE)
            }
            ApprovalStatus::Consumed => deny(
                verdict,
                rules::REPLAYED,
                format!(
                    "approval request `{}` was already used by an earlier call; an approval lets a call run once",
                    record.id
                ),
            ),
            ApprovalStatus::Approved if !covers(&record, &escalations) => deny(
                verdict,
                rules::NOT_COVERED,
                format!(
                    "approval request `{}` does not cover what the call is held for now (a rule the person was not shown holds it: the policy changed, or a rule over the run's earlier calls asks about it now); make the call again to ask anew",
                    record.id
                ),
            ),
            ApprovalStatus::Approved => match self.inner.ledger.consume(&record.id, now).await {
                Ok(true) => {
                    if once {
                        super::local::note_consumed(&record.id);
                    }
                    let used = ApprovalRequest {
                        status: ApprovalStatus::Consumed,
                        consumed_at: Some(now),
                        ..record
                    };
                    self.record_event(&ApprovalEvent::Consumed(used.clone()));
                    self.allowed(verdict, &used, rules::APPROVED)
                }
                // Another resume took it first, or it expired meanwhile.
                Ok(false) => deny(
                    verdict,
                    rules::REPLAYED,
                    format!(
                        "approval request `{}` was used by another call at the same time, or has expired; an approval lets a call run once",
                        record.id
                    ),
                ),
                Err(e) => self.ledger_failed(verdict, &e),
            },
        }
    }

    /// A call that escalates without a ticket: a run-scope approval lets
    /// it through; otherwise the same call's live request, or a new one.
    async fn escalate(&self, request: &CallRequest, verdict: Verdict) -> Verdict {
        let now = UnixMillis::now();
        let escalations = verdict.escalations();
        let arguments_sha256 = request.arguments_sha256();
        if let Some(run) = &request.context.run_id {
            match self
                .inner
                .ledger
                .run_grant(
                    run,
                    request.context.principal.as_deref(),
                    request.context.agent.as_deref(),
                    &request.call.name,
                    &arguments_sha256,
                )
                .await
            {
                // A grant made in another directory, agent tool or server
                // is not this call's (the call asks anew).
                Ok(Some(grant))
                    if covers(&grant, &escalations)
                        && grant.call.attributes == super::bound_attributes(request) =>
                {
                    if let Err(refusal) = self.approval_counts(&grant, now).await {
                        return deny(verdict, refusal.rule, refusal.reason);
                    }
                    return self.allowed(verdict, &grant, rules::RUN_SCOPE);
                }
                Ok(_) => {}
                Err(e) => return self.ledger_failed(verdict, &e),
            }
        }
        let mut id = [0u8; 16];
        if let Err(e) = getrandom::fill(&mut id) {
            return self.ledger_failed(
                verdict,
                &super::LedgerError::Unavailable(format!("no randomness for a request id: {e}")),
            );
        }
        let candidate = ApprovalRequest {
            id: format!("apr_{}", hex::encode(id)),
            status: ApprovalStatus::Pending,
            call: BoundCall::of(request, arguments_sha256),
            arguments: request.call.arguments.clone(),
            agent: request.context.agent.clone(),
            principal: request.context.principal.clone(),
            escalations,
            created_at: now,
            expires_at: UnixMillis(now.0.saturating_add(self.inner.ttl_ms)),
            review: None,
            consumed_at: None,
        };
        // The pending limits are counted in the same atomic step as the
        // insert (`Ledger::open`), so racing calls never pass them.
        let limits = self.pending_limits();
        match self.inner.ledger.open(candidate, now, &limits).await {
            Ok(Opened::Created(created)) => {
                self.record_event(&ApprovalEvent::Requested(created.clone()));
                let mut held = self.held(verdict, &created);
                if let Some(approval) = held.approval.as_mut() {
                    approval.opened = true;
                }
                held
            }
            Ok(Opened::Existing(existing)) => self.held(verdict, &existing),
            Ok(Opened::Settled(earlier)) if earlier.status == ApprovalStatus::Rejected => {
                self.rejected(verdict, &earlier)
            }
            Ok(Opened::Settled(earlier)) => deny(
                verdict,
                rules::REPLAYED,
                format!(
                    "call `{}` was approved once (request `{}`) and that approval was used; an approval lets a call run once, so a new call needs its own id",
                    request.call.id, earlier.id
                ),
            ),
            Ok(Opened::TooManyPending(reason)) => deny(verdict, rules::TOO_MANY_PENDING, reason),
            Ok(Opened::CallIdReused(earlier)) => deny(
                verdict,
                rules::CALL_ID_REUSED,
                format!(
                    "call id `{}` was already used in this run for a different call (request `{}`); give every call its own id",
                    request.call.id, earlier.id
                ),
            ),
            Err(e) => self.ledger_failed(verdict, &e),
        }
    }

    /// Whether the approval `record` (approved, or a run grant) counts:
    /// under reviewer keys only with its reviewer's signature
    /// ([`Approvals::signed_approval`]); without them, for approvals that
    /// [`Approvals::guard_same_user`] guards, only when this process
    /// recorded the decision itself; and without them always only with
    /// the seal toolvet stored when it recorded the decision
    /// ([`Approvals::sealed_approval`]).
    async fn approval_counts(
        &self,
        record: &ApprovalRequest,
        now: UnixMillis,
    ) -> Result<(), Refusal> {
        if self.requires_signed_approvals() {
            return self.signed_approval(record, now).await;
        }
        if self.guards_same_user() && !super::local::decided_here(&record.id) {
            return Err(Refusal {
                rule: rules::UNSIGNED,
                reason: format!(
                    "approval request `{}` reads as approved in the approval ledger, but the \
                     approval was not recorded through this program and the policy lists no \
                     reviewer keys, so it cannot be told from one written by the agent; it does \
                     not count",
                    record.id
                ),
            });
        }
        self.sealed_approval(record, now).await
    }

    /// Whether the ledger's rejection of `record` may be believed: where
    /// the ledger's writer may be the agent (reviewer keys, or a same-user
    /// front end), only a rejection this process recorded; elsewhere any.
    fn rejection_counts(&self, record: &ApprovalRequest) -> bool {
        !(self.requires_signed_approvals() || self.guards_same_user())
            || super::local::decided_here(&record.id)
    }

    fn view(&self, record: &ApprovalRequest, with_ticket: bool) -> VerdictApproval {
        VerdictApproval {
            id: record.id.clone(),
            status: record.status_at(UnixMillis::now()),
            ticket: with_ticket.then(|| self.ticket(record)),
            created_at: record.created_at,
            expires_at: record.expires_at,
            escalations: record.escalations.clone(),
            reviewer: record.review.as_ref().map(|r| r.reviewer.clone()),
            message: record.review.as_ref().and_then(|r| r.message.clone()),
            opened: false,
            scope: record
                .review
                .as_ref()
                .filter(|r| r.decision == ReviewDecision::Approve)
                .map(|r| r.scope),
        }
    }

    /// Escalate, with the request and its ticket.
    fn held(&self, mut verdict: Verdict, record: &ApprovalRequest) -> Verdict {
        verdict.approval = Some(self.view(record, true));
        verdict
    }

    fn rejected(&self, verdict: Verdict, record: &ApprovalRequest) -> Verdict {
        let review = record.review.as_ref();
        let who = review.map_or("a person", |r| r.reviewer.as_str());
        let reason = match review.and_then(|r| r.message.as_deref()) {
            Some(message) => format!("{who} rejected this call: {message}"),
            None => format!("{who} rejected this call"),
        };
        let mut denied = deny(verdict, rules::REJECTED, reason);
        denied.approval = Some(self.view(record, false));
        denied
    }

    fn allowed(&self, verdict: Verdict, record: &ApprovalRequest, rule: &str) -> Verdict {
        let review = record.review.as_ref();
        let who = review.map_or("a person", |r| r.reviewer.as_str());
        let reason = match (rule, review.and_then(|r| r.message.as_deref())) {
            (rules::RUN_SCOPE, _) => {
                format!("{who} approved this tool with these arguments for the rest of the run")
            }
            (_, Some(message)) => format!("approved by {who}: {message}"),
            (_, None) => format!("approved by {who}"),
        };
        let mut allowed = Verdict::by_host(Decision::Allow, rule, reason, verdict.checks);
        allowed.approval = Some(self.view(record, false));
        allowed
    }

    fn ledger_failed(&self, verdict: Verdict, error: &super::LedgerError) -> Verdict {
        tracing::error!(target: "toolvet::approvals", "{error}; the call is denied");
        deny(
            verdict,
            rules::LEDGER,
            "the approval ledger cannot be reached, so this call cannot be held for approval or \
             resumed now; it is denied (try again later)"
                .into(),
        )
    }

    /// The call's history with the ledger's answers: an earlier call the
    /// caller only knows as `escalated` becomes `approved` (a person
    /// approved it and it ran) or `rejected` when the ledger says so; and
    /// for a call resumed with a ticket, without its own held entry (the
    /// newest still `escalated` of the same tool and arguments): the
    /// resume is that call, so a run total must not hold it twice (review
    /// s14 N3). A ticket never lets a call run that its approval does not
    /// cover, so leaving the entry out gains a caller nothing else.
    /// `None` when there is nothing to bring up to date. A ledger that
    /// cannot be read leaves the history as the caller gave it (logged).
    pub(crate) async fn reflect_history(&self, request: &CallRequest) -> Option<Vec<PriorCall>> {
        let mut history = self.reflect_outcomes(request).await;
        if request.approval.is_some() {
            let own = crate::call::arguments_sha256(request.call.arguments.get());
            let entries = history.as_ref().unwrap_or(&request.context.history);
            if let Some(i) = entries.iter().rposition(|p| {
                p.outcome == Outcome::Escalated
                    && p.name == request.call.name
                    && crate::call::arguments_sha256(p.arguments.get()) == own
            }) {
                history
                    .get_or_insert_with(|| request.context.history.clone())
                    .remove(i);
            }
        }
        history
    }

    /// [`Approvals::reflect_history`]'s outcomes from the ledger.
    async fn reflect_outcomes(&self, request: &CallRequest) -> Option<Vec<PriorCall>> {
        let run = request.context.run_id.as_deref()?;
        let history = &request.context.history;
        if !history.iter().any(|p| p.outcome == Outcome::Escalated) {
            return None;
        }
        let now = UnixMillis::now();
        let mut amended = history.clone();
        for prior in amended
            .iter_mut()
            .filter(|p| p.outcome == Outcome::Escalated)
        {
            let digest = crate::call::arguments_sha256(prior.arguments.get());
            let latest = self.inner.ledger.latest(
                run,
                request.context.principal.as_deref(),
                request.context.agent.as_deref(),
                &prior.name,
                &digest,
            );
            match latest.await {
                // Only a decision that counts changes the history: a row
                // set to `consumed` or `rejected` by the ledger's writer
                // would otherwise make a held call read as run (passing an
                // `only_after`) or a call that ran read as not run
                // (dropping it from run totals) (review s11 K8).
                Ok(Some(r)) => {
                    prior.outcome = match r.status_at(now) {
                        ApprovalStatus::Consumed if self.approval_counts(&r, now).await.is_ok() => {
                            Outcome::Approved
                        }
                        ApprovalStatus::Rejected if self.rejection_counts(&r) => Outcome::Rejected,
                        _ => Outcome::Escalated,
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(target: "toolvet::approvals", "{e}; the call's history is used as given");
                    return None;
                }
            }
        }
        Some(amended)
    }
}

fn deny(verdict: Verdict, rule: &str, reason: String) -> Verdict {
    Verdict::by_host(Decision::Deny, rule, reason, verdict.checks)
}
