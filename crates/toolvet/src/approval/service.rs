//! [`Approvals`]: the handle servers, bindings and the CLI use to list,
//! read and decide requests, and the host uses to open requests and
//! settle resumed calls; it opens the ledger a policy names.

use super::ledger::{Decided, Ledger, MemoryLedger};
use super::pending::{PendingCounts, PendingLimits, RunCount};
use super::sqlite::SqliteLedger;
use super::ticket;
use super::types::{
    ApprovalError, ApprovalEvent, ApprovalRequest, LedgerError, ListQuery, MAX_PAGE, Review,
    ReviewDecision, Scope, StatusFilter, UnixMillis,
};
use super::{key, local};
use crate::audit::{DecisionLog, Redactor};
use crate::config::{ApprovalSettings, LedgerLocation, Policy};
use crate::error::Error;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::broadcast;

/// Opens the ledger a policy names, for ledgers the core library does not
/// implement (Postgres, in `toolvet serve`). Return `Ok(None)` to leave a
/// location to the default (SQLite, memory).
#[async_trait::async_trait]
pub trait LedgerProvider: Send + Sync + fmt::Debug {
    /// The ledger at `location`, or `None` when this provider does not
    /// handle it.
    ///
    /// # Errors
    /// The ledger could not be reached or set up.
    async fn open(&self, location: &LedgerLocation)
    -> Result<Option<Arc<dyn Ledger>>, LedgerError>;
}

/// The approvals of one policy: its ledger, its signing key, and the
/// decision log the approval events go to. Cheap to clone.
#[derive(Clone)]
pub struct Approvals {
    pub(super) inner: Arc<Inner>,
}

pub(super) struct Inner {
    pub(super) ledger: Arc<dyn Ledger>,
    pub(super) signer: ticket::Signer,
    pub(super) ttl_ms: u64,
    pub(super) settings: ApprovalSettings,
    pub(super) log: Option<DecisionLog>,
    pub(super) events: broadcast::Sender<ApprovalEvent>,
    /// Set by [`Approvals::guard_same_user`]; shared with the approvals
    /// of the policies that replace this one.
    pub(super) same_user: Arc<AtomicBool>,
}

impl fmt::Debug for Approvals {
    /// Shows the ledger and realm, never the key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Approvals")
            .field("ledger", &self.inner.ledger)
            .field("realm", &self.inner.signer.realm())
            .field("ttl_ms", &self.inner.ttl_ms)
            .finish_non_exhaustive()
    }
}

/// Buffered events per subscriber; a subscriber that falls further behind
/// misses events (and learns how many).
const EVENT_BUFFER: usize = 1024;

impl Approvals {
    /// The approvals of `policy`, with the ledger it names (SQLite or
    /// memory) and its own decision log, for tools that decide requests
    /// without loading the checks (`toolvet approvals`). `None` when the
    /// policy has no `[approvals]` table.
    ///
    /// # Errors
    /// [`Error::Approvals`] when the key or the ledger cannot be opened
    /// (a Postgres ledger needs [`Approvals::open_with`]);
    /// [`Error::DecisionLog`] when the decision log cannot be opened
    /// (also for a policy with `[host] decision_log_arguments = true` and
    /// no `decision_log_redact` keys: that needs a redactor,
    /// [`Approvals::open_with`]).
    pub async fn open(policy: &Policy) -> Result<Option<Approvals>, Error> {
        Self::open_with(policy, None, None).await
    }

    /// As [`Approvals::open`], with `provider` opening the ledgers it
    /// handles and `redactor` redacting the escalations' reasons in the
    /// approval records, as the host that loads the same policy does (a
    /// front end passes its preset's: `toolvet_preset::open_approvals`).
    ///
    /// # Errors
    /// As [`Approvals::open`].
    pub async fn open_with(
        policy: &Policy,
        provider: Option<&dyn LedgerProvider>,
        redactor: Option<Arc<dyn Redactor>>,
    ) -> Result<Option<Approvals>, Error> {
        let log = DecisionLog::open_for(policy, redactor)?;
        Self::load(policy, provider, log, None).await
    }

    /// Open the approvals of `policy` with the host's decision log,
    /// reusing `previous` (the approvals of the policy this one replaces)
    /// when the table is unchanged.
    pub(crate) async fn load(
        policy: &Policy,
        provider: Option<&dyn LedgerProvider>,
        log: Option<DecisionLog>,
        previous: Option<&Approvals>,
    ) -> Result<Option<Approvals>, Error> {
        let Some(settings) = &policy.approvals else {
            return Ok(None);
        };
        if let Some(previous) = previous.filter(|p| &p.inner.settings == settings) {
            return Ok(Some(Approvals {
                inner: Arc::new(Inner {
                    ledger: previous.inner.ledger.clone(),
                    signer: previous.inner.signer.clone(),
                    ttl_ms: previous.inner.ttl_ms,
                    settings: settings.clone(),
                    log,
                    events: previous.inner.events.clone(),
                    same_user: previous.inner.same_user.clone(),
                }),
            }));
        }
        let failed = |source: ApprovalError| Error::Approvals {
            policy: policy.source.clone(),
            source,
        };
        let key = key::load(&settings.key).map_err(failed)?;
        let ledger = open_ledger(&settings.ledger, provider)
            .await
            .map_err(failed)?;
        let realm = settings
            .realm
            .clone()
            .unwrap_or_else(|| realm_of(&ledger.default_realm()));
        Ok(Some(Approvals {
            inner: Arc::new(Inner {
                ledger,
                signer: ticket::Signer::new(key, realm),
                ttl_ms: settings.ttl_s.saturating_mul(1000),
                settings: settings.clone(),
                log,
                events: broadcast::channel(EVENT_BUFFER).0,
                same_user: previous
                    .map(|p| p.inner.same_user.clone())
                    .unwrap_or_default(),
            }),
        }))
    }

    /// The ledger behind these approvals.
    pub fn ledger(&self) -> &Arc<dyn Ledger> {
        &self.inner.ledger
    }

    /// Declare that these approvals serve a front end running as the
    /// agent's user, inside the agent's process or beside it (the Python
    /// and Node packages): the ledger is then a file the agent can write,
    /// so under a policy without `reviewer_keys`
    /// ([`super::ApprovalTrust::Unsigned`]) an approval or run grant found in it
    /// counts only when it was decided through this process
    /// ([`Approvals::decide`], the front end recording the person's answer
    /// it obtained itself); any other is denied
    /// (`approval.unsigned-decision`). Under reviewer keys the signature
    /// rule applies as always. Kept by the approvals of a reloaded policy.
    /// `toolvet serve`, whose ledger the agents reach only through its
    /// API, does not call it.
    pub fn guard_same_user(&self) {
        self.inner.same_user.store(true, Ordering::SeqCst);
    }

    /// Whether [`Approvals::guard_same_user`] was called.
    pub fn guards_same_user(&self) -> bool {
        self.inner.same_user.load(Ordering::SeqCst)
    }

    /// The realm tickets are issued under: the policy's `realm`, else a
    /// digest of the ledger's location (`ledger:` and 32 hex digits).
    pub fn realm(&self) -> &str {
        self.inner.signer.realm()
    }

    /// One page of requests, oldest first.
    ///
    /// # Errors
    /// [`ApprovalError::InvalidQuery`] for a limit outside
    /// 1..=[`MAX_PAGE`]; [`ApprovalError::Ledger`].
    pub async fn list(&self, query: &ListQuery) -> Result<Vec<ApprovalRequest>, ApprovalError> {
        if !(1..=MAX_PAGE).contains(&query.limit) {
            return Err(ApprovalError::InvalidQuery(format!(
                "`limit` must be 1..={MAX_PAGE}"
            )));
        }
        let mut page = crate::runtime::on_runtime({
            let (ledger, query) = (self.inner.ledger.clone(), query.clone());
            async move { ledger.list(&query, UnixMillis::now()).await }
        })
        .await??;
        let now = UnixMillis::now();
        for request in &mut page {
            request.status = request.status_at(now);
        }
        Ok(page)
    }

    /// The request `id`, with its status as of now.
    ///
    /// # Errors
    /// [`ApprovalError::NotFound`]; [`ApprovalError::Ledger`].
    pub async fn get(&self, id: &str) -> Result<ApprovalRequest, ApprovalError> {
        let ledger = self.inner.ledger.clone();
        let key = id.to_string();
        let found = crate::runtime::on_runtime(async move { ledger.get(&key).await }).await??;
        let mut request = found.ok_or_else(|| ApprovalError::NotFound(id.to_string()))?;
        request.status = request.status_at(UnixMillis::now());
        Ok(request)
    }

    /// Record a person's decision about request `id`. The first decision
    /// stands; the decision is written to the decision log.
    ///
    /// # Errors
    /// [`ApprovalError::NotFound`], [`ApprovalError::AlreadyDecided`],
    /// [`ApprovalError::Expired`]; [`ApprovalError::InvalidReview`] for a
    /// `run` scope on a request without a run id;
    /// [`ApprovalError::Ledger`].
    pub async fn decide(&self, id: &str, review: Review) -> Result<ApprovalRequest, ApprovalError> {
        if review.decision() == ReviewDecision::Approve && self.requires_signed_approvals() {
            return Err(ApprovalError::InvalidReview(
                "this policy counts only approvals signed with a reviewer key ([approvals] \
                 reviewer_keys): approve with `toolvet approvals approve`, which asks for the \
                 reviewer's passphrase"
                    .into(),
            ));
        }
        self.decide_unchecked(id, review).await
    }

    /// [`Approvals::decide`] of the request a person was shown: `shown` is
    /// the [`ApprovalRequest::review_sha256`] of the request as they read
    /// it. An approval is recorded only while the pending request still has
    /// that digest, read in the same step that seals the approval; a
    /// rejection is recorded whatever the row says (it only ever denies).
    ///
    /// # Errors
    /// [`ApprovalError::Changed`] when the request's digest is no longer
    /// `shown`; as [`Approvals::decide`].
    pub async fn decide_shown(
        &self,
        id: &str,
        review: Review,
        shown: &str,
    ) -> Result<ApprovalRequest, ApprovalError> {
        if review.decision() == ReviewDecision::Approve && self.requires_signed_approvals() {
            return self.decide(id, review).await;
        }
        let this = self.clone();
        let (id, shown) = (id.to_string(), shown.to_string());
        crate::runtime::on_runtime(async move { this.decide_now(&id, review, Some(&shown)).await })
            .await?
    }

    /// [`Approvals::decide`] without the signature rule (rejections, and
    /// approvals whose signed decision is stored).
    pub(crate) async fn decide_unchecked(
        &self,
        id: &str,
        review: Review,
    ) -> Result<ApprovalRequest, ApprovalError> {
        let this = self.clone();
        let id = id.to_string();
        crate::runtime::on_runtime(async move { this.decide_now(&id, review, None).await }).await?
    }

    /// Record `review` on request `id`; an approval is sealed first, and
    /// only while the request's [`ApprovalRequest::review_sha256`] is
    /// `shown`, when given.
    async fn decide_now(
        &self,
        id: &str,
        review: Review,
        shown: Option<&str>,
    ) -> Result<ApprovalRequest, ApprovalError> {
        if review.scope() == Scope::Run {
            let request = self
                .inner
                .ledger
                .get(id)
                .await?
                .ok_or_else(|| ApprovalError::NotFound(id.to_string()))?;
            if request.call.run_id.is_none() {
                return Err(ApprovalError::InvalidReview(
                    "scope `run` needs a call made with a run id; approve it `once`".into(),
                ));
            }
        }
        let now = UnixMillis::now();
        // Without reviewer keys an approval counts only with toolvet's
        // seal, stored first and removed if the decision is not recorded.
        let sealed =
            review.decision() == ReviewDecision::Approve && !self.requires_signed_approvals();
        if sealed {
            self.put_seal(id, &review, now, shown).await?;
        }
        let decided = self.inner.ledger.decide(id, &review, now).await;
        if sealed && !matches!(decided, Ok(Decided::Done(_))) {
            self.drop_seal(id).await;
        }
        let request = match decided? {
            Decided::Done(request) => {
                if review.decision() == ReviewDecision::Approve {
                    local::note_decided(&request.id);
                }
                request
            }
            Decided::NotFound => return Err(ApprovalError::NotFound(id.to_string())),
            Decided::Expired(_) => return Err(ApprovalError::Expired(id.to_string())),
            Decided::NotPending(request) => {
                return Err(ApprovalError::AlreadyDecided {
                    id: id.to_string(),
                    status: request.status_at(now),
                    reviewer: request
                        .review
                        .map(|r| r.reviewer)
                        .unwrap_or_else(|| "nobody".into()),
                });
            }
        };
        self.record_event(&ApprovalEvent::Decided(request.clone()));
        Ok(request)
    }

    /// Approve request `id` (a shorthand for [`Approvals::decide`]).
    ///
    /// # Errors
    /// As [`Review::approve`] and [`Approvals::decide`].
    pub async fn approve(
        &self,
        id: &str,
        reviewer: &str,
        message: Option<&str>,
        scope: Scope,
    ) -> Result<ApprovalRequest, ApprovalError> {
        let review = Review::approve(reviewer, scope)?;
        let review = match message {
            Some(m) => review.with_message(m)?,
            None => review,
        };
        self.decide(id, review).await
    }

    /// Reject request `id` (a shorthand for [`Approvals::decide`]).
    ///
    /// # Errors
    /// As [`Review::reject`] and [`Approvals::decide`].
    pub async fn reject(
        &self,
        id: &str,
        reviewer: &str,
        message: Option<&str>,
    ) -> Result<ApprovalRequest, ApprovalError> {
        let review = Review::reject(reviewer)?;
        let review = match message {
            Some(m) => review.with_message(m)?,
            None => review,
        };
        self.decide(id, review).await
    }

    /// The ticket of `request`: the same request always gets the same
    /// ticket.
    pub fn ticket(&self, request: &ApprovalRequest) -> String {
        self.inner.signer.issue(request)
    }

    /// New, decided and consumed requests as they happen in this process.
    pub fn subscribe(&self) -> broadcast::Receiver<ApprovalEvent> {
        self.inner.events.subscribe()
    }

    /// Whether the ledger answers.
    ///
    /// # Errors
    /// [`ApprovalError::Ledger`].
    pub async fn ping(&self) -> Result<(), ApprovalError> {
        let ledger = self.inner.ledger.clone();
        crate::runtime::on_runtime(async move { ledger.ping().await }).await??;
        Ok(())
    }

    /// Write `event` to the decision log and tell subscribers.
    pub(super) fn record_event(&self, event: &ApprovalEvent) {
        if let Some(log) = &self.inner.log {
            log.append_event(event);
        }
        // No subscribers is not an error.
        let _ = self.inner.events.send(event.clone());
    }
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
    /// [`ApprovalError::Ledger`].
    pub async fn pending_counts(&self) -> Result<PendingCounts, ApprovalError> {
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
}

/// The realm of a ledger whose stable name is `location` (a file's path, a
/// database's URL): `ledger:` and 32 hex digits of a sha256 of it, so
/// tickets, which the agent holds, never show where the ledger is, and
/// tickets of two ledgers are still told apart.
pub(crate) fn realm_of(location: &str) -> String {
    use sha2::Digest;
    let mut digest = sha2::Sha256::new();
    digest.update(b"toolvet approvals realm\0");
    digest.update(location.as_bytes());
    format!("ledger:{}", hex::encode(&digest.finalize()[..16]))
}

/// Open the ledger at `location`: the provider's, else the built-in ones.
async fn open_ledger(
    location: &LedgerLocation,
    provider: Option<&dyn LedgerProvider>,
) -> Result<Arc<dyn Ledger>, ApprovalError> {
    if let Some(provider) = provider
        && let Some(ledger) = provider.open(location).await?
    {
        return Ok(ledger);
    }
    match location {
        LedgerLocation::Memory => Ok(Arc::new(MemoryLedger::new())),
        LedgerLocation::Sqlite(path) => {
            let path = path.clone();
            let ledger = tokio::task::spawn_blocking(move || SqliteLedger::open(&path))
                .await
                .map_err(|e| {
                    ApprovalError::Ledger(LedgerError::Unavailable(format!(
                        "opening the SQLite ledger failed: {e}"
                    )))
                })??;
            Ok(Arc::new(ledger))
        }
        LedgerLocation::Postgres(url) => Err(ApprovalError::Unsupported(format!(
            "`ledger = \"{}\"` is a Postgres ledger, which `toolvet serve` provides; \
             this program has no Postgres support",
            crate::config::redact_url(url)
        ))),
    }
}
