//! The ledger trait, and the in-memory ledger.

use super::{ApprovalRequest, ApprovalStatus, ListQuery, Review, ReviewRecord, UnixMillis};
use std::fmt;
use std::sync::Mutex;

/// A ledger that could not do what was asked. Every such failure fails
/// closed: a call that needs the ledger is denied
/// ([`super::rules::LEDGER`]).
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum LedgerError {
    /// The store cannot be reached, is locked past its timeout, or a write
    /// failed (e.g. a full disk).
    #[error("the approval ledger is unavailable: {0}")]
    Unavailable(String),
    /// The store holds something this host cannot read (a corrupt file, a
    /// newer schema).
    #[error("the approval ledger is corrupt or from a newer toolvet: {0}")]
    Corrupt(String),
}

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
    /// The same call is the same run and call id; for a call without an id,
    /// the same run, tool and arguments digest. Live means pending or
    /// approved-and-unused, and unexpired at `now`. A request for the same
    /// run and call id but another tool or arguments digest is
    /// [`Opened::CallIdReused`], whatever its status.
    ///
    /// # Errors
    /// [`LedgerError`].
    async fn open(&self, request: ApprovalRequest, now: UnixMillis) -> Result<Opened, LedgerError>;

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
    /// run `run_id`, if a person granted one (approved or consumed).
    ///
    /// # Errors
    /// [`LedgerError`].
    async fn run_grant(
        &self,
        run_id: &str,
        tool: &str,
        arguments_sha256: &str,
    ) -> Result<Option<ApprovalRequest>, LedgerError>;

    /// The newest `limit` requests of run `run_id`, oldest first.
    ///
    /// # Errors
    /// [`LedgerError`].
    async fn run_requests(
        &self,
        run_id: &str,
        limit: usize,
    ) -> Result<Vec<ApprovalRequest>, LedgerError>;

    /// Whether the store answers (for readiness probes).
    ///
    /// # Errors
    /// [`LedgerError`].
    async fn ping(&self) -> Result<(), LedgerError>;

    /// The realm tickets are issued under when the policy names none: a
    /// stable name of this store (its file, its database), so stores never
    /// accept each other's tickets.
    fn default_realm(&self) -> String;
}

/// The rule every ledger follows for [`Ledger::open`], over the requests of
/// the same run (`earlier`, any order).
pub(crate) fn open_against<'a>(
    request: &ApprovalRequest,
    earlier: impl IntoIterator<Item = &'a ApprovalRequest>,
    now: UnixMillis,
) -> Option<Opened> {
    let mut live = None;
    for e in earlier {
        let same_id = !request.call.call_id.is_empty() && e.call.call_id == request.call.call_id;
        let same_binding = e.call.tool == request.call.tool
            && e.call.arguments_sha256 == request.call.arguments_sha256;
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
    }
    live
}

/// Apply `review` to `request` (pending, unexpired at `now`).
pub(crate) fn reviewed(
    mut request: ApprovalRequest,
    review: &Review,
    now: UnixMillis,
) -> ApprovalRequest {
    request.status = match review.decision() {
        super::ReviewDecision::Approve => ApprovalStatus::Approved,
        super::ReviewDecision::Reject => ApprovalStatus::Rejected,
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
/// follows.
pub(crate) fn decide_against(request: &ApprovalRequest, now: UnixMillis) -> Option<Decided> {
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
    requests: Mutex<Vec<ApprovalRequest>>,
    realm: String,
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
            requests: Mutex::new(Vec::new()),
            realm,
        }
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Vec<ApprovalRequest>>, LedgerError> {
        self.requests
            .lock()
            .map_err(|_| LedgerError::Unavailable("a thread panicked holding the ledger".into()))
    }
}

#[async_trait::async_trait]
impl Ledger for MemoryLedger {
    async fn open(&self, request: ApprovalRequest, now: UnixMillis) -> Result<Opened, LedgerError> {
        let mut requests = self.lock()?;
        let same_run = requests
            .iter()
            .filter(|e| e.call.run_id == request.call.run_id);
        if let Some(found) = open_against(&request, same_run, now) {
            return Ok(found);
        }
        requests.push(request.clone());
        Ok(Opened::Created(request))
    }

    async fn get(&self, id: &str) -> Result<Option<ApprovalRequest>, LedgerError> {
        Ok(self.lock()?.iter().find(|r| r.id == id).cloned())
    }

    async fn decide(
        &self,
        id: &str,
        review: &Review,
        now: UnixMillis,
    ) -> Result<Decided, LedgerError> {
        let mut requests = self.lock()?;
        let Some(request) = requests.iter_mut().find(|r| r.id == id) else {
            return Ok(Decided::NotFound);
        };
        if let Some(refused) = decide_against(request, now) {
            return Ok(refused);
        }
        *request = reviewed(request.clone(), review, now);
        Ok(Decided::Done(request.clone()))
    }

    async fn consume(&self, id: &str, now: UnixMillis) -> Result<bool, LedgerError> {
        let mut requests = self.lock()?;
        match requests.iter_mut().find(|r| r.id == id) {
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
        let requests = self.lock()?;
        let start = match &query.after {
            Some(after) => requests
                .iter()
                .position(|r| &r.id == after)
                .map_or(requests.len(), |i| i + 1),
            None => 0,
        };
        Ok(requests[start..]
            .iter()
            .filter(|r| query.status.accepts(r.status_at(now)))
            .take(query.limit)
            .cloned()
            .collect())
    }

    async fn run_grant(
        &self,
        run_id: &str,
        tool: &str,
        arguments_sha256: &str,
    ) -> Result<Option<ApprovalRequest>, LedgerError> {
        Ok(self
            .lock()?
            .iter()
            .find(|r| {
                r.call.run_id.as_deref() == Some(run_id)
                    && r.call.tool == tool
                    && r.call.arguments_sha256 == arguments_sha256
                    && super::settle::grants_run(r)
            })
            .cloned())
    }

    async fn run_requests(
        &self,
        run_id: &str,
        limit: usize,
    ) -> Result<Vec<ApprovalRequest>, LedgerError> {
        let requests = self.lock()?;
        let run: Vec<&ApprovalRequest> = requests
            .iter()
            .filter(|r| r.call.run_id.as_deref() == Some(run_id))
            .collect();
        let skip = run.len().saturating_sub(limit);
        Ok(run[skip..].iter().map(|r| (*r).clone()).collect())
    }

    async fn ping(&self) -> Result<(), LedgerError> {
        self.lock().map(drop)
    }

    fn default_realm(&self) -> String {
        self.realm.clone()
    }
}
