//! What this process itself did with approvals, kept in its own memory,
//! where an agent that writes the ledger file cannot reach it.
//!
//! Two records, process-wide (every [`super::Approvals`] handle of the
//! process shares them; request ids are 128 random bits, so ids of
//! different ledgers never meet):
//! - the requests **decided** through this process (a person's answer
//!   the front end obtained and recorded itself, [`super::Approvals::decide`]);
//! - the requests whose `once` approval was **consumed** in this process.
//!
//! The consumed record bounds replay for every front end that vets a run's
//! calls in one process (`toolvet mcp`, the Python and Node packages,
//! `toolvet serve`): a `once` approval resumes at most once per process,
//! whatever the ledger row says afterwards. The decided record is what
//! [`super::Approvals::guard_same_user`] counts under a policy without
//! reviewer keys: only approvals this process recorded. Neither survives
//! the process: a front end that starts a process per call (the hooks)
//! gets no bound from them, only the signed time limit of a `once`
//! approval ([`super::reviewer::ONCE_WINDOW_MS`]).

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

fn decided() -> &'static Mutex<HashSet<String>> {
    static SET: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    SET.get_or_init(Default::default)
}

fn consumed() -> &'static Mutex<HashSet<String>> {
    static SET: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    SET.get_or_init(Default::default)
}

/// Lock `set`, recovering from a poisoned lock: the set only ever grows
/// by whole inserts, so a panic elsewhere leaves it consistent.
fn with<T>(set: &Mutex<HashSet<String>>, f: impl FnOnce(&mut HashSet<String>) -> T) -> T {
    let mut guard = set.lock().unwrap_or_else(|p| p.into_inner());
    f(&mut guard)
}

/// Remember that request `id` was approved through this process.
pub(crate) fn note_decided(id: &str) {
    with(decided(), |s| s.insert(id.to_string()));
}

/// Whether request `id` was approved through this process.
pub(crate) fn decided_here(id: &str) -> bool {
    with(decided(), |s| s.contains(id))
}

/// Remember that request `id`'s `once` approval was used in this process.
pub(crate) fn note_consumed(id: &str) {
    with(consumed(), |s| s.insert(id.to_string()));
}

/// Whether request `id`'s `once` approval was used in this process.
pub(crate) fn consumed_here(id: &str) -> bool {
    with(consumed(), |s| s.contains(id))
}

#[cfg(test)]
mod tests {
    use super::super::{Approvals, Review, ReviewerSigner, Scope, UnixMillis, rules};
    use super::*;
    use crate::call::{ApprovalClaim, CallRequest};
    use crate::verdict::{Decision, Verdict};
    use std::path::Path;

    #[test]
    fn the_records_hold_exactly_what_was_noted() {
        let (a, b) = ("apr_local_test_a", "apr_local_test_b");
        assert!(!decided_here(a) && !consumed_here(a));
        note_decided(a);
        assert!(decided_here(a) && !consumed_here(a) && !decided_here(b));
        note_consumed(b);
        assert!(consumed_here(b) && !decided_here(b) && !consumed_here(a));
    }

    fn policy(dir: &Path, extra: &str) -> crate::Policy {
        let text = format!(
            "[approvals]\nledger = {:?}\nkey_file = {:?}\n{extra}",
            dir.join("approvals.db").display().to_string(),
            dir.join("approvals.key").display().to_string(),
        );
        crate::Policy::from_toml(&text, &dir.join("toolvet.toml"), dir).unwrap()
    }

    fn call(run: &str, ticket: Option<&str>) -> CallRequest {
        let mut request = CallRequest::from_json(&format!(
            r#"{{"call": {{"id": "c1", "name": "rotate_keys", "arguments": {{"env": "prod"}}}},
                "context": {{"run_id": "{run}"}}}}"#
        ))
        .unwrap();
        request.approval = ticket.map(|t| ApprovalClaim { ticket: t.into() });
        request
    }

    /// The verdict `approvals` gives the held call `request`.
    async fn settle(approvals: &Approvals, request: &CallRequest) -> Verdict {
        let held = Verdict::by_host(Decision::Escalate, "test.held", "held", Vec::new());
        match approvals.verify_claim(request, UnixMillis::now()) {
            Ok(claims) => approvals.settle(request, held, claims).await,
            Err(refusal) => panic!("{}: {}", refusal.rule, refusal.reason),
        }
    }

    /// What an agent with the user's rights does: set the row back to
    /// approved, as if never used.
    fn flip_back(dir: &Path, id: &str) {
        let db = rusqlite::Connection::open(dir.join("approvals.db")).unwrap();
        let changed = db
            .execute(
                "UPDATE approval_requests SET status = 'approved', consumed_at_ms = NULL, \
                 decision = 'approve', reviewer = 'alice', scope = 'once', \
                 decided_at_ms = created_at_ms WHERE id = ?1",
                [id],
            )
            .unwrap();
        assert_eq!(changed, 1);
    }

    fn rule(v: &Verdict) -> (Decision, &str) {
        (v.decision, v.rule.as_deref().unwrap_or_default())
    }

    /// Review s6 finding 9: a signed `once` approval resumed again after
    /// the agent set its consumed row back to approved.
    #[tokio::test]
    async fn a_signed_once_approval_set_back_to_approved_is_not_resumed_again() {
        let dir = tempfile::tempdir().unwrap();
        let signer = ReviewerSigner::create(b"correct horse battery staple").unwrap();
        let policy = policy(
            dir.path(),
            &format!("reviewer_keys = [{:?}]\n", signer.public().entry()),
        );
        let approvals = Approvals::open(&policy).await.unwrap().unwrap();
        let held = settle(&approvals, &call("r9", None)).await;
        let approval = held.approval.clone().unwrap();
        let ticket = approval.ticket.unwrap();
        let signed_at = UnixMillis::now();
        let shown = approvals.get(&approval.id).await.unwrap().review_sha256();
        approvals
            .decide_signed(
                &approval.id,
                Review::approve("bob", Scope::Once).unwrap(),
                &signer,
                &shown,
            )
            .await
            .unwrap();
        let resumed = call("r9", Some(&ticket));
        let first = settle(&approvals, &resumed).await;
        assert_eq!(
            rule(&first),
            (Decision::Allow, rules::APPROVED),
            "{first:?}"
        );
        // The ledger's own rule, as before.
        let again = settle(&approvals, &resumed).await;
        assert_eq!(rule(&again), (Decision::Deny, rules::REPLAYED), "{again:?}");
        // The agent sets the row back; a fresh handle (a reloaded policy)
        // of the same process still refuses it.
        for _ in 0..3 {
            flip_back(dir.path(), &approval.id);
            let fresh = Approvals::open(&policy).await.unwrap().unwrap();
            let replay = settle(&fresh, &resumed).await;
            assert_eq!(
                rule(&replay),
                (Decision::Deny, rules::REPLAYED),
                "{replay:?}"
            );
            assert!(
                replay
                    .reason
                    .as_deref()
                    .unwrap_or_default()
                    .contains("already used by an earlier call in this process"),
                "{:?}",
                replay.reason
            );
        }
        // Where no process remembers (a hook per call), the signed time
        // limit of a `once` approval is minutes, not the request's TTL.
        let token = approvals
            .ledger()
            .signed_decision(&approval.id)
            .await
            .unwrap()
            .unwrap();
        let (json, _) = token["tvd1.".len()..].split_once('.').unwrap();
        use base64::Engine as _;
        let json = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(json)
            .unwrap();
        let decision: super::super::SignedDecision = serde_json::from_slice(&json).unwrap();
        let window = decision.not_after.0 - decision.signed_at.0;
        assert!(decision.signed_at >= signed_at, "{decision:?}");
        assert_eq!(
            window,
            super::super::reviewer::ONCE_WINDOW_MS,
            "{decision:?}"
        );
    }

    /// Review s7 L3: the CLI showed a request, then asked for the
    /// passphrase, then signed whatever the row held by then. A binding
    /// other than the one shown is not signed, and the request stays
    /// pending.
    #[tokio::test]
    async fn only_the_binding_that_was_shown_is_signed() {
        let dir = tempfile::tempdir().unwrap();
        let signer = ReviewerSigner::create(b"correct horse battery staple").unwrap();
        let policy = policy(
            dir.path(),
            &format!("reviewer_keys = [{:?}]\n", signer.public().entry()),
        );
        let approvals = Approvals::open(&policy).await.unwrap().unwrap();
        let first = settle(&approvals, &call("r-shown", None)).await;
        let second = settle(&approvals, &call("r-other", None)).await;
        let id = first.approval.unwrap().id;
        let other = approvals
            .get(&second.approval.unwrap().id)
            .await
            .unwrap()
            .review_sha256();
        let refused = approvals
            .decide_signed(
                &id,
                Review::approve("bob", Scope::Once).unwrap(),
                &signer,
                &other,
            )
            .await
            .unwrap_err();
        assert!(
            matches!(refused, super::super::ApprovalError::Changed(ref r) if *r == id),
            "{refused}"
        );
        let still = approvals.get(&id).await.unwrap();
        assert_eq!(still.status, super::super::ApprovalStatus::Pending);
        assert!(
            approvals
                .ledger()
                .signed_decision(&id)
                .await
                .unwrap()
                .is_none()
        );
        // Review s16 P9: the row's agent and principal rewritten while the
        // person typed the passphrase (the call unchanged) is not signed.
        let read = still.review_sha256();
        let db = rusqlite::Connection::open(dir.path().join("approvals.db")).unwrap();
        let changed = db
            .execute(
                "UPDATE approval_requests SET agent = 'mallory-bot', principal = 'mallory' \
                 WHERE id = ?1",
                [&id],
            )
            .unwrap();
        assert_eq!(changed, 1);
        let refused = approvals
            .decide_signed(
                &id,
                Review::approve("bob", Scope::Once).unwrap(),
                &signer,
                &read,
            )
            .await
            .unwrap_err();
        assert!(
            matches!(refused, super::super::ApprovalError::Changed(ref r) if *r == id),
            "{refused}"
        );
        assert!(
            approvals
                .ledger()
                .signed_decision(&id)
                .await
                .unwrap()
                .is_none()
        );
    }

    /// Review s15 N8: without reviewer keys, an approval names the request
    /// as it was read (its `review_sha256`); a row another held call's
    /// arguments were copied over after the reading is neither approved
    /// nor sealed, and the request stays pending.
    #[tokio::test]
    async fn without_reviewer_keys_only_the_request_that_was_read_is_approved() {
        let dir = tempfile::tempdir().unwrap();
        let policy = policy(dir.path(), "");
        let approvals = Approvals::open(&policy).await.unwrap().unwrap();
        let first = settle(&approvals, &call("r-read", None)).await;
        let id = first.approval.unwrap().id;
        let read = approvals.get(&id).await.unwrap().review_sha256();
        // Reading again changes nothing.
        assert_eq!(approvals.get(&id).await.unwrap().review_sha256(), read);
        let db = rusqlite::Connection::open(dir.path().join("approvals.db")).unwrap();
        let changed = db
            .execute(
                "UPDATE approval_requests SET agent = 'mallory-bot' WHERE id = ?1",
                [&id],
            )
            .unwrap();
        assert_eq!(changed, 1);
        let refused = approvals
            .decide_shown(&id, Review::approve("bob", Scope::Once).unwrap(), &read)
            .await
            .unwrap_err();
        assert!(
            matches!(refused, super::super::ApprovalError::Changed(ref r) if *r == id),
            "{refused}"
        );
        let still = approvals.get(&id).await.unwrap();
        assert_eq!(still.status, super::super::ApprovalStatus::Pending);
        assert!(
            approvals
                .ledger()
                .signed_decision(&id)
                .await
                .unwrap()
                .is_none()
        );
        // The request as it reads now is approved.
        let now = still.review_sha256();
        assert_ne!(now, read);
        let approved = approvals
            .decide_shown(&id, Review::approve("bob", Scope::Once).unwrap(), &now)
            .await
            .unwrap();
        assert_eq!(approved.status, super::super::ApprovalStatus::Approved);
    }

    /// Review s6 finding 4: under a policy without reviewer keys, the
    /// approvals of an agent-side front end count only when this process
    /// recorded the decision, never a row the agent flipped.
    #[tokio::test]
    async fn without_reviewer_keys_a_guarded_front_end_counts_only_its_own_decisions() {
        let dir = tempfile::tempdir().unwrap();
        let policy = policy(dir.path(), "");
        let approvals = Approvals::open(&policy).await.unwrap().unwrap();
        approvals.guard_same_user();
        // A reloaded policy keeps the guard.
        let reloaded = Approvals::load(&policy, None, None, Some(&approvals))
            .await
            .unwrap()
            .unwrap();
        assert!(reloaded.guards_same_user());
        let held = settle(&approvals, &call("r-flip", None)).await;
        let approval = held.approval.clone().unwrap();
        let resumed = call("r-flip", approval.ticket.as_deref());
        flip_back(dir.path(), &approval.id);
        for handle in [&approvals, &reloaded] {
            let flipped = settle(handle, &resumed).await;
            assert_eq!(
                rule(&flipped),
                (Decision::Deny, rules::UNSIGNED),
                "{flipped:?}"
            );
            assert!(
                flipped
                    .reason
                    .as_deref()
                    .unwrap_or_default()
                    .contains("not recorded through this program"),
                "{:?}",
                flipped.reason
            );
        }
        // An unguarded handle (`toolvet serve`) keeps reading the ledger.
        let serve = Approvals::open(&policy).await.unwrap().unwrap();
        assert!(!serve.guards_same_user());
        // The front end records the person's answer itself: it counts.
        let held = settle(&approvals, &call("r-own", None)).await;
        let own = held.approval.clone().unwrap();
        approvals
            .approve(&own.id, "carol", None, Scope::Once)
            .await
            .unwrap();
        let resumed = call("r-own", own.ticket.as_deref());
        let ran = settle(&approvals, &resumed).await;
        assert_eq!(rule(&ran), (Decision::Allow, rules::APPROVED), "{ran:?}");
        // Set back afterwards, it is a replay (any process-held approval).
        flip_back(dir.path(), &own.id);
        let replay = settle(&serve, &resumed).await;
        assert_eq!(
            rule(&replay),
            (Decision::Deny, rules::REPLAYED),
            "{replay:?}"
        );
    }
}
