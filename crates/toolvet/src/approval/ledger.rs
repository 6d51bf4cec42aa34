//! The ledger trait, and the in-memory ledger.

use super::labels::{KeptLabels, NewLabel, expiry, new_labels};
use super::pending::{PendingLimits, PendingNow, pending_refusal};
use super::types::{
    ApprovalRequest, ApprovalStatus, LedgerError, ListQuery, Review, ReviewDecision, ReviewRecord,
    UnixMillis,
};
use crate::run_history::RunKey;
use crate::tool_result::RunLabel;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Mutex;

/// What [`Ledger::open`] did.
#[derive(Debug, Clone)]
pub enum Opened {
    /// A new pending request was stored.
    Created(ApprovalRequest),
    /// The same call already has a live request (pending, or approved and
    /// unused, and unexpired): this one.
    Existing(ApprovalRequest),
    /// The call id was used in this run for another call (another tool or
    /// other arguments): this is the earlier request.
    CallIdReused(ApprovalRequest),
    /// The same call (same run and non-empty call id, same tool and
    /// arguments) was already answered: a person rejected it, or its
    /// approval was used. That answer stands, so no request is opened;
    /// this is the latest such request. A new call, with its own id, asks
    /// anew, as does a call whose request expired unanswered. (A call
    /// without a call id cannot be told from a new one like it, so it asks
    /// anew instead.)
    Settled(ApprovalRequest),
    /// A new request would pass a pending limit ([`PendingLimits`]):
    /// nothing was stored. The text says which limit, for the denied
    /// call's reason.
    TooManyPending(String),
}

/// What [`Ledger::decide`] did.
#[derive(Debug, Clone)]
pub enum Decided {
    /// The decision was recorded; the request as it is now.
    Done(ApprovalRequest),
    /// No request has this id.
    NotFound,
    /// The request was already decided (or consumed): the first decision
    /// stands.
    NotPending(ApprovalRequest),
    /// The request expired before the decision.
    Expired(ApprovalRequest),
}

/// Where approval requests live. Every operation is atomic on its own: two
/// decisions on one request record exactly one, and two consumptions of
/// one approval succeed exactly once, also across processes and servers
/// sharing the store.
///
/// Statuses stored are pending, approved, rejected and consumed; "expired"
/// is derived from `expires_at` ([`ApprovalRequest::status_at`]).
#[async_trait::async_trait]
pub trait Ledger: Send + Sync + fmt::Debug + 'static {
    /// Store `request` (pending) unless the same call has a live request.
    /// The same call is the same asker (principal and agent, see
    /// [`same_asker`]) and the same run and call id; for a call without an
    /// id, the same asker, run, tool and arguments digest. Live means pending or
    /// approved-and-unused, and unexpired at `now`. A request for the same
    /// run and call id but another tool or arguments digest is
    /// [`Opened::CallIdReused`], whatever its status.
    ///
    /// A new request is stored only while the pending requests (pending
    /// and unexpired at `now`) stay within `limits`, else the answer is
    /// [`Opened::TooManyPending`] ([`pending_refusal`] says so from the
    /// counts). Counting and storing are one atomic step, also across
    /// processes and servers sharing the store: openings racing at a limit
    /// never pass it. A live request of the same call is handed back
    /// whatever the counts.
    ///
    /// # Errors
    /// [`LedgerError`].
    async fn open(
        &self,
        request: ApprovalRequest,
        now: UnixMillis,
        limits: &PendingLimits,
    ) -> Result<Opened, LedgerError>;

    /// The request `id`, with its stored status.
    ///
    /// # Errors
    /// [`LedgerError`].
    async fn get(&self, id: &str) -> Result<Option<ApprovalRequest>, LedgerError>;

    /// Record `review` on request `id` if it is pending and unexpired at
    /// `now`.
    ///
    /// # Errors
    /// [`LedgerError`].
    async fn decide(
        &self,
        id: &str,
        review: &Review,
        now: UnixMillis,
    ) -> Result<Decided, LedgerError>;

    /// Mark approved request `id` consumed if it is approved, unused and
    /// unexpired at `now`. True exactly once per request.
    ///
    /// # Errors
    /// [`LedgerError`].
    async fn consume(&self, id: &str, now: UnixMillis) -> Result<bool, LedgerError>;

    /// One page of requests, oldest first, whose status as of `now`
    /// passes `query.status`.
    ///
    /// # Errors
    /// [`LedgerError`].
    async fn list(
        &self,
        query: &ListQuery,
        now: UnixMillis,
    ) -> Result<Vec<ApprovalRequest>, LedgerError>;

    /// The approval with scope `run` of this tool and arguments digest in
    /// run `run_id`, asked by `principal` and `agent` (`None` matches only a
    /// request made without one), if a person granted one (approved or
    /// consumed). A grant helps only the principal and agent that asked.
    ///
    /// # Errors
    /// [`LedgerError`].
    async fn run_grant(
        &self,
        run_id: &str,
        principal: Option<&str>,
        agent: Option<&str>,
        tool: &str,
        arguments_sha256: &str,
    ) -> Result<Option<ApprovalRequest>, LedgerError>;

    /// The newest request of this tool and arguments digest in run
    /// `run_id` asked by `principal` and `agent` (as in
    /// [`Ledger::run_grant`]), for the outcome of an earlier call the caller
    /// only knows as escalated.
    ///
    /// # Errors
    /// [`LedgerError`].
    async fn latest(
        &self,
        run_id: &str,
        principal: Option<&str>,
        agent: Option<&str>,
        tool: &str,
        arguments_sha256: &str,
    ) -> Result<Option<ApprovalRequest>, LedgerError>;

    /// Whether the store answers (for readiness probes).
    ///
    /// # Errors
    /// [`LedgerError`].
    async fn ping(&self) -> Result<(), LedgerError>;

    /// The realm tickets are issued under when the policy names none: a
    /// stable name of this store (its file, its database), so stores never
    /// accept each other's tickets.
    fn default_realm(&self) -> String;

    /// Keep `token`, a reviewer's signed decision about request `id`
    /// ([`super::reviewer`]), replacing an earlier one. A store that
    /// cannot keep them refuses, and approvals under reviewer keys then
    /// cannot be given with it.
    ///
    /// # Errors
    /// [`LedgerError`].
    async fn put_signed_decision(&self, id: &str, token: &str) -> Result<(), LedgerError> {
        let _ = (id, token);
        Err(LedgerError::Unavailable(
            "this ledger cannot keep signed decisions ([approvals] reviewer_keys)".into(),
        ))
    }

    /// Forget the signed decision about request `id`, if any.
    ///
    /// # Errors
    /// [`LedgerError`].
    async fn remove_signed_decision(&self, id: &str) -> Result<(), LedgerError> {
        let _ = id;
        Ok(())
    }

    /// The signed decision about request `id`, if one is kept.
    ///
    /// # Errors
    /// [`LedgerError`].
    async fn signed_decision(&self, id: &str) -> Result<Option<String>, LedgerError> {
        let _ = id;
        Ok(None)
    }

    /// Keep `labels` (raised by a result of `run`) for the run, each
    /// distinct one once, after those it keeps, by the rules of
    /// [`super::labels`]: the run's labels expired at `now` are deleted
    /// first, then those of `labels` that [`new_labels`] picks are stored,
    /// and every label of the run then expires at `now + ttl_ms`. One
    /// atomic step, also across processes and servers sharing the store.
    /// Other runs' expired labels may be deleted on the way.
    ///
    /// A store that cannot keep labels refuses (the default), and the
    /// front end then withholds the result.
    ///
    /// # Errors
    /// [`LedgerError`].
    async fn add_run_labels(
        &self,
        run: &RunKey,
        labels: &[RunLabel],
        now: UnixMillis,
        ttl_ms: u64,
    ) -> Result<(), LedgerError> {
        let _ = (run, labels, now, ttl_ms);
        Err(LedgerError::Unavailable(
            "this ledger cannot keep run labels".into(),
        ))
    }

    /// The labels of `run` unexpired at `now`, oldest first
    /// ([`KeptLabels::from_stored`]: over
    /// [`crate::run_history::MAX_RUN_LABELS`] the run is over).
    ///
    /// # Errors
    /// [`LedgerError`]; a store that cannot keep labels refuses (the
    /// default), and the front end then refuses the call.
    async fn run_labels(&self, run: &RunKey, now: UnixMillis) -> Result<KeptLabels, LedgerError> {
        let _ = (run, now);
        Err(LedgerError::Unavailable(
            "this ledger cannot keep run labels".into(),
        ))
    }
}

/// Whether `earlier` was asked by the same principal and agent as
/// `request` (`None` is a value of its own: it matches only `None`). A
/// request, its ticket and a run-scope grant serve only the principal and
/// agent that asked: another one's call with the same run id, call id and
/// arguments is another call, with a request of its own.
pub fn same_asker(request: &ApprovalRequest, earlier: &ApprovalRequest) -> bool {
    earlier.principal == request.principal && earlier.agent == request.agent
}

/// Whether `earlier` is a request for the same call as `request` could
/// be: the same asker ([`same_asker`]) and the same run and call id, or,
/// for calls without an id, the same asker, run, tool and arguments digest.
/// Only such requests matter to [`open_against`], so ledgers fetch just
/// these.
pub fn may_be_same_call(request: &ApprovalRequest, earlier: &ApprovalRequest) -> bool {
    same_asker(request, earlier)
        && earlier.call.run_id == request.call.run_id
        && if request.call.call_id.is_empty() {
            earlier.call.call_id.is_empty()
                && earlier.call.tool == request.call.tool
                && earlier.call.arguments_sha256 == request.call.arguments_sha256
        } else {
            earlier.call.call_id == request.call.call_id
        }
}

/// The rule every ledger follows for [`Ledger::open`], over the earlier
/// requests that [`may_be_same_call`] (any order): `None` means store the
/// new request. A call id reused for another call wins, then a live
/// request of the same call, then (for calls with an id) the latest
/// request a person rejected or whose approval was used
/// ([`Opened::Settled`]); an expired request is no answer, so the call
/// asks anew. A ledger in another crate calls this inside the same
/// transaction (or under the same lock) as its insert.
pub fn open_against<'a>(
    request: &ApprovalRequest,
    earlier: impl IntoIterator<Item = &'a ApprovalRequest>,
    now: UnixMillis,
) -> Option<Opened> {
    let mut live = None;
    let mut settled: Option<&ApprovalRequest> = None;
    // Requests of another asker are other calls, whatever the ledger
    // fetched.
    for e in earlier.into_iter().filter(|e| same_asker(request, e)) {
        let same_id = !request.call.call_id.is_empty() && e.call.call_id == request.call.call_id;
        let same_binding = e.call.tool == request.call.tool
            && e.call.arguments_sha256 == request.call.arguments_sha256
            && e.call.attributes == request.call.attributes;
        if same_id && !same_binding {
            return Some(Opened::CallIdReused(e.clone()));
        }
        let same_call = if request.call.call_id.is_empty() {
            e.call.call_id.is_empty() && same_binding
        } else {
            same_id
        };
        let is_live = matches!(
            e.status_at(now),
            ApprovalStatus::Pending | ApprovalStatus::Approved
        );
        if same_call && is_live {
            live = Some(Opened::Existing(e.clone()));
        }
        let answered = matches!(
            e.status_at(now),
            ApprovalStatus::Rejected | ApprovalStatus::Consumed
        );
        if same_id
            && same_binding
            && answered
            && settled.is_none_or(|s| s.created_at < e.created_at)
        {
            settled = Some(e);
        }
    }
    live.or_else(|| settled.map(|s| Opened::Settled(s.clone())))
}

/// Apply `review` to `request` (pending, unexpired at `now`).
pub fn reviewed(mut request: ApprovalRequest, review: &Review, now: UnixMillis) -> ApprovalRequest {
    request.status = match review.decision() {
        ReviewDecision::Approve => ApprovalStatus::Approved,
        ReviewDecision::Reject => ApprovalStatus::Rejected,
    };
    request.review = Some(ReviewRecord {
        decision: review.decision(),
        reviewer: review.reviewer().to_string(),
        message: review.message().map(str::to_string),
        scope: review.scope(),
        decided_at: now,
    });
    request
}

/// The outcome of deciding `request` at `now`, by the rule every ledger
/// follows: `None` when it may be decided (pending and unexpired),
/// otherwise why not.
pub fn decide_against(request: &ApprovalRequest, now: UnixMillis) -> Option<Decided> {
    match request.status_at(now) {
        ApprovalStatus::Pending => None,
        ApprovalStatus::Expired if request.status == ApprovalStatus::Pending => {
            Some(Decided::Expired(request.clone()))
        }
        _ => Some(Decided::NotPending(request.clone())),
    }
}

/// A ledger in this process's memory: gone when the process exits. For
/// tests and single long-running processes (`ledger = "memory"`).
#[derive(Debug, Default)]
pub struct MemoryLedger {
    state: Mutex<MemoryState>,
    realm: String,
}

/// Run id, principal, agent, tool and arguments digest of a run grant.
type GrantKey = (String, Option<String>, Option<String>, String, String);

#[derive(Debug, Default)]
struct MemoryState {
    /// Every request, oldest first.
    requests: Vec<ApprovalRequest>,
    /// Index into `requests` by id.
    by_id: HashMap<String, usize>,
    /// Indices of the requests of one run and call id (`""` for calls
    /// without one).
    by_call: HashMap<(Option<String>, String), Vec<usize>>,
    /// The first request approved with scope `run`, by run, principal,
    /// agent, tool and arguments digest.
    grants: HashMap<GrantKey, usize>,
    /// Reviewers' signed decisions, by request id.
    signed: HashMap<String, String>,
    /// Run labels, by [`RunKey::stored`].
    labels: HashMap<String, MemoryRunLabels>,
}

/// One run's labels in a [`MemoryLedger`].
#[derive(Debug)]
struct MemoryRunLabels {
    /// The labels, oldest first, with their [`NewLabel::sha256`].
    labels: Vec<(String, RunLabel)>,
    /// When they all expire.
    expires_at: UnixMillis,
}

impl MemoryLedger {
    /// An empty ledger with a realm of its own.
    pub fn new() -> MemoryLedger {
        let mut id = [0u8; 8];
        // A clock-derived name if the OS has no randomness to give.
        let realm = match getrandom::fill(&mut id) {
            Ok(()) => format!("memory:{}", hex::encode(id)),
            Err(_) => format!("memory:{}", UnixMillis::now().0),
        };
        MemoryLedger {
            state: Mutex::new(MemoryState::default()),
            realm,
        }
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, MemoryState>, LedgerError> {
        self.state
            .lock()
            .map_err(|_| LedgerError::Unavailable("a thread panicked holding the ledger".into()))
    }
}

impl MemoryState {
    fn get_mut(&mut self, id: &str) -> Option<&mut ApprovalRequest> {
        let i = *self.by_id.get(id)?;
        self.requests.get_mut(i)
    }
}

#[async_trait::async_trait]
impl Ledger for MemoryLedger {
    async fn open(
        &self,
        request: ApprovalRequest,
        now: UnixMillis,
        limits: &PendingLimits,
    ) -> Result<Opened, LedgerError> {
        let mut state = self.lock()?;
        let key = (request.call.run_id.clone(), request.call.call_id.clone());
        let earlier = state
            .by_call
            .get(&key)
            .into_iter()
            .flatten()
            .map(|&i| &state.requests[i])
            .filter(|e| may_be_same_call(&request, e));
        if let Some(found) = open_against(&request, earlier, now) {
            return Ok(found);
        }
        // Counted under the same lock as the insert.
        let mut pending = PendingNow::default();
        for r in state
            .requests
            .iter()
            .filter(|r| r.status_at(now) == ApprovalStatus::Pending)
        {
            pending.count(&request, r);
        }
        if let Some(reason) = pending_refusal(&request, pending, limits) {
            return Ok(Opened::TooManyPending(reason));
        }
        let index = state.requests.len();
        state.by_id.insert(request.id.clone(), index);
        state.by_call.entry(key).or_default().push(index);
        state.requests.push(request.clone());
        Ok(Opened::Created(request))
    }

    async fn get(&self, id: &str) -> Result<Option<ApprovalRequest>, LedgerError> {
        let state = self.lock()?;
        Ok(state.by_id.get(id).map(|&i| state.requests[i].clone()))
    }

    async fn decide(
        &self,
        id: &str,
        review: &Review,
        now: UnixMillis,
    ) -> Result<Decided, LedgerError> {
        let mut state = self.lock()?;
        let Some(request) = state.get_mut(id) else {
            return Ok(Decided::NotFound);
        };
        if let Some(refused) = decide_against(request, now) {
            return Ok(refused);
        }
        *request = reviewed(request.clone(), review, now);
        let decided = request.clone();
        if super::types::grants_run(&decided)
            && let Some(run) = &decided.call.run_id
        {
            let key = (
                run.clone(),
                decided.principal.clone(),
                decided.agent.clone(),
                decided.call.tool.clone(),
                decided.call.arguments_sha256.clone(),
            );
            let index = state.by_id[&decided.id];
            state.grants.entry(key).or_insert(index);
        }
        Ok(Decided::Done(decided))
    }

    async fn consume(&self, id: &str, now: UnixMillis) -> Result<bool, LedgerError> {
        let mut state = self.lock()?;
        match state.get_mut(id) {
            Some(r) if r.status_at(now) == ApprovalStatus::Approved => {
                r.status = ApprovalStatus::Consumed;
                r.consumed_at = Some(now);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    async fn list(
        &self,
        query: &ListQuery,
        now: UnixMillis,
    ) -> Result<Vec<ApprovalRequest>, LedgerError> {
        let state = self.lock()?;
        let start = match &query.after {
            Some(after) => state
                .by_id
                .get(after)
                .map_or(state.requests.len(), |i| i + 1),
            None => 0,
        };
        Ok(state.requests[start..]
            .iter()
            .filter(|r| query.status.accepts(r.status_at(now)))
            .take(query.limit)
            .cloned()
            .collect())
    }

    async fn run_grant(
        &self,
        run_id: &str,
        principal: Option<&str>,
        agent: Option<&str>,
        tool: &str,
        arguments_sha256: &str,
    ) -> Result<Option<ApprovalRequest>, LedgerError> {
        let state = self.lock()?;
        let key = (
            run_id.to_string(),
            principal.map(str::to_string),
            agent.map(str::to_string),
            tool.to_string(),
            arguments_sha256.to_string(),
        );
        Ok(state.grants.get(&key).map(|&i| state.requests[i].clone()))
    }

    async fn latest(
        &self,
        run_id: &str,
        principal: Option<&str>,
        agent: Option<&str>,
        tool: &str,
        arguments_sha256: &str,
    ) -> Result<Option<ApprovalRequest>, LedgerError> {
        let state = self.lock()?;
        Ok(state
            .requests
            .iter()
            .rev()
            .find(|r| {
                r.call.run_id.as_deref() == Some(run_id)
                    && r.principal.as_deref() == principal
                    && r.agent.as_deref() == agent
                    && r.call.tool == tool
                    && r.call.arguments_sha256 == arguments_sha256
            })
            .cloned())
    }

    async fn ping(&self) -> Result<(), LedgerError> {
        self.lock().map(drop)
    }

    fn default_realm(&self) -> String {
        self.realm.clone()
    }

    async fn put_signed_decision(&self, id: &str, token: &str) -> Result<(), LedgerError> {
        self.lock()?
            .signed
            .insert(id.to_string(), token.to_string());
        Ok(())
    }

    async fn remove_signed_decision(&self, id: &str) -> Result<(), LedgerError> {
        self.lock()?.signed.remove(id);
        Ok(())
    }

    async fn signed_decision(&self, id: &str) -> Result<Option<String>, LedgerError> {
        Ok(self.lock()?.signed.get(id).cloned())
    }

    async fn add_run_labels(
        &self,
        run: &RunKey,
        labels: &[RunLabel],
        now: UnixMillis,
        ttl_ms: u64,
    ) -> Result<(), LedgerError> {
        let mut state = self.lock()?;
        state.labels.retain(|_, kept| kept.expires_at > now);
        let kept = state
            .labels
            .entry(run.stored())
            .or_insert_with(|| MemoryRunLabels {
                labels: Vec::new(),
                expires_at: now,
            });
        let digests: HashSet<String> = kept.labels.iter().map(|(d, _)| d.clone()).collect();
        for NewLabel { sha256, label, .. } in new_labels(&digests, labels)? {
            kept.labels.push((sha256, label.clone()));
        }
        kept.expires_at = expiry(now, ttl_ms);
        Ok(())
    }

    async fn run_labels(&self, run: &RunKey, now: UnixMillis) -> Result<KeptLabels, LedgerError> {
        let state = self.lock()?;
        let labels = match state.labels.get(&run.stored()) {
            Some(kept) if kept.expires_at > now => {
                kept.labels.iter().map(|(_, l)| l.clone()).collect()
            }
            _ => Vec::new(),
        };
        Ok(KeptLabels::from_stored(labels))
    }
}
