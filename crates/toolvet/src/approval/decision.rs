//! A person's decision made to count: recorded with a reviewer's
//! signature ([`super::reviewer`]) or sealed with the approval key, and
//! checked again before a resumed call runs.
//!
//! Without reviewer keys, every approval toolvet records is **sealed**: an
//! HMAC with the approval key (the ticket key) over the same fields,
//! stored beside the request before the decision (`Approvals::put_seal`),
//! and an approval counts only with a seal that holds and matches its row
//! (`Approvals::sealed_approval`). That stops a writer of the ledger who
//! lacks the key (a role on a shared Postgres ledger), not the agent's
//! user where that user can read the key file.

use super::reviewer::{
    MAX_SIGNED_DECISION_BYTES, ONCE_WINDOW_MS, ReviewerKey, ReviewerSigner, SignedDecision,
    verify_token,
};
use super::service::Approvals;
use super::ticket::Refusal;
use super::types::{
    ApprovalError, ApprovalRequest, ApprovalStatus, Review, ReviewDecision, Scope, UnixMillis,
    rules,
};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;

/// The prefix of a decision sealed with the ledger's own key.
const SEAL_PREFIX: &str = "tvs1.";
/// What a seal covers, before the decision's JSON.
const SEAL_DOMAIN: &[u8] = b"toolvet sealed decision v1\n";
/// The `key` a sealed decision names.
const SEAL_KEY: &str = "approval-key";

/// Refuse a request whose arguments do not match the digest it is bound
/// to: the ledger was edited, and nothing is `done` (signed, approved).
fn unedited(request: &ApprovalRequest, done: &str) -> Result<(), ApprovalError> {
    if crate::call::arguments_sha256(request.arguments.get()) != request.call.arguments_sha256 {
        return Err(ApprovalError::InvalidReview(format!(
            "request `{}`: its arguments do not match the digest it is bound to, so the ledger \
             was edited; nothing was {done}",
            request.id
        )));
    }
    Ok(())
}

fn unsigned(reason: String) -> Refusal {
    Refusal {
        rule: rules::UNSIGNED,
        reason,
    }
}

impl Approvals {
    /// The policy's reviewer keys (empty: approvals need no signature).
    pub fn reviewer_keys(&self) -> &[ReviewerKey] {
        &self.inner.settings.reviewer_keys
    }

    /// Whether an approval counts only when signed by a reviewer key.
    pub fn requires_signed_approvals(&self) -> bool {
        !self.reviewer_keys().is_empty()
    }

    /// Record `review` on request `id` with a decision signed by `signer`:
    /// the way to approve under a policy with reviewer keys. The request
    /// must be pending and unexpired, and its arguments must match the
    /// digest it is bound to (else the ledger was edited and nothing is
    /// signed), and it must still read as `shown`, the
    /// [`ApprovalRequest::review_sha256`] of the request the person was
    /// shown before unlocking the key (a row whose call, principal, agent
    /// or reasons were rewritten while they typed the passphrase is not
    /// signed; reviews s7 L3, s16 P9).
    ///
    /// # Errors
    /// [`ApprovalError::Key`] for a signer whose key the policy does not
    /// list; [`ApprovalError::Changed`] for a request that no longer reads
    /// as `shown`; [`ApprovalError::InvalidReview`] for a request whose
    /// arguments do not match its digest; as [`Approvals::decide`].
    pub async fn decide_signed(
        &self,
        id: &str,
        review: Review,
        signer: &ReviewerSigner,
        shown: &str,
    ) -> Result<ApprovalRequest, ApprovalError> {
        if !self.reviewer_keys().contains(signer.public()) {
            return Err(ApprovalError::Key(
                "the reviewer key is not in the policy's [approvals] reviewer_keys".into(),
            ));
        }
        let now = UnixMillis::now();
        let request = self.pending_request(id, now).await?;
        if request.review_sha256() != shown {
            return Err(ApprovalError::Changed(id.to_string()));
        }
        unedited(&request, "signed")?;
        let decision = self.decision_of(&request, &review, now, signer.public().public_b64());
        let token = signer.sign(&decision);
        let ledger = self.inner.ledger.clone();
        let (key, stored) = (id.to_string(), token.clone());
        crate::runtime::on_runtime(async move { ledger.put_signed_decision(&key, &stored).await })
            .await??;
        let decided = self.decide_unchecked(id, review).await;
        if decided.is_err() {
            // The signature must not outlive a decision that did not
            // happen (a later hand edit of the row would find it).
            let ledger = self.inner.ledger.clone();
            let key = id.to_string();
            let _ = crate::runtime::on_runtime(
                async move { ledger.remove_signed_decision(&key).await },
            )
            .await;
        }
        decided
    }

    /// Request `id`, when it is pending at `now`: a decided request keeps
    /// its decision (and its signature or seal, which a second attempt must
    /// not replace).
    ///
    /// # Errors
    /// [`ApprovalError::NotFound`], [`ApprovalError::Expired`],
    /// [`ApprovalError::AlreadyDecided`]; a ledger error.
    async fn pending_request(
        &self,
        id: &str,
        now: UnixMillis,
    ) -> Result<ApprovalRequest, ApprovalError> {
        let request = self.get(id).await?;
        match request.status_at(now) {
            ApprovalStatus::Pending => Ok(request),
            ApprovalStatus::Expired => Err(ApprovalError::Expired(id.to_string())),
            status => Err(ApprovalError::AlreadyDecided {
                id: id.to_string(),
                status,
                reviewer: request
                    .review
                    .map(|r| r.reviewer)
                    .unwrap_or_else(|| "nobody".into()),
            }),
        }
    }

    /// The decision `review` of `request` at `now`, as signed or sealed
    /// with `key`: it counts until the request expires, and a `once`
    /// approval at most [`ONCE_WINDOW_MS`] (a `run` grant at most the
    /// policy's `ttl_s`) after it was made.
    fn decision_of(
        &self,
        request: &ApprovalRequest,
        review: &Review,
        now: UnixMillis,
        key: String,
    ) -> SignedDecision {
        SignedDecision {
            id: request.id.clone(),
            call: request.call.clone(),
            principal: request.principal.clone(),
            agent: request.agent.clone(),
            decision: review.decision(),
            scope: review.scope(),
            reviewer: review.reviewer().to_string(),
            signed_at: now,
            not_after: UnixMillis(request.expires_at.0.min(now.0.saturating_add(
                match review.scope() {
                    Scope::Once => self.inner.ttl_ms.min(ONCE_WINDOW_MS),
                    Scope::Run => self.inner.ttl_ms,
                },
            ))),
            key,
        }
    }

    /// Seal the approval `review` of request `id` with the ledger's own
    /// key (the ticket key) and store the seal beside the request, before
    /// the decision is recorded: under a policy without reviewer keys an
    /// approval counts only with it ([`Approvals::sealed_approval`]), so a
    /// row set to approved by other means than toolvet (SQL on a shared
    /// Postgres, a file copied over the ledger) counts for nothing where
    /// the writer lacks the key. Returns the request as read.
    ///
    /// # Errors
    /// [`ApprovalError::NotFound`]; [`ApprovalError::Changed`] for a
    /// request whose [`ApprovalRequest::review_sha256`] is not `shown`;
    /// [`ApprovalError::InvalidReview`] for a request whose arguments do
    /// not match the digest it is bound to (the ledger was edited; nothing
    /// is sealed); a ledger error.
    pub(crate) async fn put_seal(
        &self,
        id: &str,
        review: &Review,
        now: UnixMillis,
        shown: Option<&str>,
    ) -> Result<(), ApprovalError> {
        let request = self.pending_request(id, now).await?;
        if shown.is_some_and(|shown| request.review_sha256() != shown) {
            return Err(ApprovalError::Changed(id.to_string()));
        }
        unedited(&request, "approved")?;
        let decision = self.decision_of(&request, review, now, SEAL_KEY.into());
        let json = serde_json::to_vec(&decision).expect("a decision serializes");
        let tag = self.inner.signer.seal(SEAL_DOMAIN, &json);
        let token = format!("{SEAL_PREFIX}{}.{}", B64.encode(&json), B64.encode(tag));
        self.inner.ledger.put_signed_decision(id, &token).await?;
        Ok(())
    }

    /// Remove the seal of request `id` after its decision failed to be
    /// recorded: a seal must not outlive a decision that did not happen
    /// (a later hand edit of the row would find it).
    pub(crate) async fn drop_seal(&self, id: &str) {
        if let Err(e) = self.inner.ledger.remove_signed_decision(id).await {
            tracing::error!(target: "toolvet::approvals", "cannot remove the seal of `{id}`: {e}");
        }
    }

    /// Whether the approval `record` counts under a policy without
    /// reviewer keys: only with a seal by the ledger's own key
    /// ([`Approvals::put_seal`]) that matches the record (id, call,
    /// approve, scope) and is within its time limit at `now`.
    pub(crate) async fn sealed_approval(
        &self,
        record: &ApprovalRequest,
        now: UnixMillis,
    ) -> Result<(), Refusal> {
        let id = &record.id;
        let token = self.stored_decision(id).await?;
        let not_toolvets = |why: &str| {
            unsigned(format!(
                "approval request `{id}` reads as approved in the approval ledger, but {why}, so \
                 it was not recorded through toolvet; it does not count"
            ))
        };
        let Some(token) = token else {
            return Err(not_toolvets("no seal of that decision is stored"));
        };
        let json = token
            .strip_prefix(SEAL_PREFIX)
            .filter(|_| token.len() <= MAX_SIGNED_DECISION_BYTES)
            .and_then(|rest| rest.split_once('.'))
            .and_then(|(json, tag)| Some((B64.decode(json).ok()?, B64.decode(tag).ok()?)))
            .filter(|(json, tag)| self.inner.signer.seal_holds(SEAL_DOMAIN, json, tag))
            .map(|(json, _)| json)
            .ok_or_else(|| not_toolvets("its seal does not hold"))?;
        let decision: SignedDecision =
            serde_json::from_slice(&json).map_err(|_| not_toolvets("its seal is malformed"))?;
        self.decision_matches(record, &decision, now)
    }

    /// The signed or sealed decision stored for request `id`.
    async fn stored_decision(&self, id: &str) -> Result<Option<String>, Refusal> {
        self.inner.ledger.signed_decision(id).await.map_err(|e| {
            tracing::error!(target: "toolvet::approvals", "{e}; the approval does not count");
            Refusal {
                rule: rules::LEDGER,
                reason: "the approval ledger cannot be read, so the approval's signature \
                         cannot be checked; the call is denied (try again later)"
                    .into(),
            }
        })
    }

    /// Whether `decision` (verified) is the approval `record` holds, and
    /// within its time limit at `now`.
    fn decision_matches(
        &self,
        record: &ApprovalRequest,
        decision: &SignedDecision,
        now: UnixMillis,
    ) -> Result<(), Refusal> {
        let id = &record.id;
        let review = record.review.as_ref();
        let matches = decision.id == *id
            && decision.call == record.call
            && decision.principal == record.principal
            && decision.agent == record.agent
            && decision.decision == ReviewDecision::Approve
            && review.is_some_and(|r| {
                r.decision == ReviewDecision::Approve && r.scope == decision.scope
            });
        if !matches {
            return Err(unsigned(format!(
                "approval request `{id}` does not match the approval recorded for it (another \
                 request, call, principal, agent, decision or scope); it is denied"
            )));
        }
        if now >= decision.not_after {
            return Err(Refusal {
                rule: rules::EXPIRED,
                reason: format!(
                    "the approval of request `{id}` expired at {}; make the call again to ask anew",
                    decision.not_after
                ),
            });
        }
        Ok(())
    }

    /// Whether the approval `record` (approved, or consumed with scope
    /// `run`) counts: always without reviewer keys; with them, only with a
    /// decision signed by one of them that matches the record (id, call,
    /// approve, scope) and is within its time limit at `now`.
    pub(crate) async fn signed_approval(
        &self,
        record: &ApprovalRequest,
        now: UnixMillis,
    ) -> Result<(), Refusal> {
        let keys = self.reviewer_keys();
        if keys.is_empty() {
            return Ok(());
        }
        let token = self.stored_decision(&record.id).await?;
        let id = &record.id;
        let Some(token) = token else {
            return Err(unsigned(format!(
                "approval request `{id}` reads as approved, but no reviewer signed that approval; \
                 this policy counts only approvals signed with a reviewer key, so it is denied"
            )));
        };
        let decision = verify_token(&token, keys).map_err(|why| {
            unsigned(format!(
                "approval request `{id}`: its signed approval does not hold ({why}); it is denied"
            ))
        })?;
        self.decision_matches(record, &decision, now)
    }
}
