//! The Postgres approval ledger: one database shared by every toolvet
//! front end and every replica of `toolvet serve` (`[approvals] ledger =
//! "postgres://…"`). Front ends get it through [`PostgresProvider`], a
//! [`toolvet::approval::LedgerProvider`] given to [`toolvet::Host::load_with`].
//!
//! Each [`Ledger`] operation is one transaction or one conditional
//! `UPDATE … RETURNING`, so the ledger's rules hold across replicas: of
//! two decisions on a request exactly one is recorded, and an approval is
//! consumed exactly once (the row lock makes the second `UPDATE` see the
//! first's result). Opening a request takes a transaction-scoped advisory
//! lock on the call's key, so two replicas asked about the same call at
//! once store one request; a new request is then counted against the
//! pending limits and stored under a second advisory lock that every
//! opening takes ([`OPEN_LOCK`]), so openings racing at a limit on any
//! replica never pass it. The rules themselves are the core's
//! ([`toolvet::approval::ledger_rules`]).
//!
//! Each run's labels (raised by result checks) are kept in
//! `toolvet_run_labels` by the core's rules
//! ([`toolvet::approval::labels`]), an addition under a transaction-scoped
//! advisory lock on the run, so every replica judges the run's later calls
//! by every replica's results.
//!
//! Reviewers' signed decisions (`[approvals] reviewer_keys`) are kept in
//! `toolvet_approval_signed_decisions`, one per request, as the SQLite
//! ledger keeps them; the core verifies them when a call is settled, so a
//! row set to `approved` by hand, without a valid signature, counts for
//! nothing (`approval.unsigned-decision`).
//!
//! Every change is announced with `NOTIFY toolvet_approvals` (inside the
//! transaction, so only committed changes are announced); each ledger
//! keeps one `LISTEN` connection, reconnecting when it drops, and hands
//! the notices to [`PostgresLedger::notices`] so every replica's event
//! stream sees every replica's requests.
//!
//! Connections come from a small pool with short timeouts: when Postgres
//! is down, an operation fails within a few seconds with
//! [`LedgerError::Unavailable`] (and the host denies the call), and the
//! pool makes new connections once Postgres is back.

use deadpool_postgres::{GenericClient, Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::broadcast;
use tokio_postgres::{NoTls, Row};
use toolvet::approval::KeptLabels;
use toolvet::approval::labels::MAX_STORED_LABELS;
use toolvet::approval::ledger_rules::{
    PendingNow, decide_against, expiry, new_labels, open_against, pending_refusal, stored_label,
};
use toolvet::run_history::RunKey;
use toolvet::tool_result::RunLabel;
use toolvet::{
    approval::ApprovalRequest, approval::ApprovalStatus, approval::BoundCall, approval::Decided,
    approval::Escalation, approval::Ledger, approval::LedgerError, approval::LedgerProvider,
    approval::ListQuery, approval::Opened, approval::PendingLimits, approval::Review,
    approval::ReviewDecision, approval::ReviewRecord, approval::Scope, approval::StatusFilter,
    approval::UnixMillis, config::LedgerLocation,
};

/// The channel changes are announced on.
pub const CHANNEL: &str = "toolvet_approvals";

/// How long an operation waits for a connection (or to make one).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// Connections per ledger.
const POOL_SIZE: usize = 16;

/// The schema version this build writes. Version 2 added `attributes`
/// (the context attributes a request is bound to, a JSON object:
/// [`toolvet::approval::BOUND_ATTRIBUTES`]); migrating a version 1 store
/// adds the column and raises the version, so an older toolvet refuses
/// the store rather than resume calls without it. Version 3 added
/// `toolvet_run_labels` (the labels of each run, [`toolvet::approval::labels`]),
/// so an older replica refuses the store rather than vet a run's calls
/// without the labels the others keep there.
const SCHEMA_VERSION: i32 = 3;

/// How many other runs' expired labels one addition deletes at most (the
/// adding run's own are all deleted).
const PRUNE_BATCH: i64 = 1024;

/// An arbitrary constant: the advisory lock taken while creating the
/// schema, so replicas starting together do not race.
const SCHEMA_LOCK: i64 = 0x746f_6f6c_7665_7401;

/// An arbitrary constant: the advisory lock every opening of a new request
/// takes (inside its transaction, after the call's own lock) before it
/// counts the pending requests and inserts, so the count and the insert
/// are one step across replicas.
pub const OPEN_LOCK: i64 = 0x746f_6f6c_7665_7402;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS toolvet_ledger_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS toolvet_approval_requests (
    seq BIGSERIAL UNIQUE,
    id TEXT PRIMARY KEY,
    status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'consumed')),
    tool TEXT NOT NULL,
    arguments_sha256 TEXT NOT NULL,
    arguments TEXT NOT NULL,
    call_id TEXT NOT NULL,
    run_id TEXT,
    agent TEXT,
    principal TEXT,
    escalations TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    expires_at_ms BIGINT NOT NULL,
    decision TEXT CHECK (decision IN ('approve', 'reject')),
    reviewer TEXT,
    message TEXT,
    scope TEXT CHECK (scope IN ('once', 'run')),
    decided_at_ms BIGINT,
    consumed_at_ms BIGINT
);
ALTER TABLE toolvet_approval_requests ADD COLUMN IF NOT EXISTS attributes TEXT;
CREATE INDEX IF NOT EXISTS toolvet_approval_requests_call
    ON toolvet_approval_requests (run_id, call_id);
CREATE INDEX IF NOT EXISTS toolvet_approval_requests_binding
    ON toolvet_approval_requests (run_id, tool, arguments_sha256);
CREATE INDEX IF NOT EXISTS toolvet_approval_requests_pending
    ON toolvet_approval_requests (status, expires_at_ms);
CREATE TABLE IF NOT EXISTS toolvet_approval_signed_decisions (
    id TEXT PRIMARY KEY,
    token TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS toolvet_run_labels (
    seq BIGSERIAL PRIMARY KEY,
    run_key TEXT NOT NULL,
    label_sha256 TEXT NOT NULL,
    label TEXT NOT NULL,
    expires_at_ms BIGINT NOT NULL,
    UNIQUE (run_key, label_sha256)
);
CREATE INDEX IF NOT EXISTS toolvet_run_labels_expiry ON toolvet_run_labels (expires_at_ms);
";

const COLUMNS: &str = "id, status, tool, arguments_sha256, arguments, call_id, run_id, agent, \
    principal, escalations, created_at_ms, expires_at_ms, decision, reviewer, message, scope, \
    decided_at_ms, consumed_at_ms, attributes";

/// `run_id` equals `$n`, NULL matching NULL (for calls without a run).
fn same_run(n: usize) -> String {
    format!("(run_id = ${n} OR (run_id IS NULL AND ${n}::text IS NULL))")
}

/// What a `NOTIFY` says: which request changed, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notice {
    /// `requested`, `decided` or `consumed`.
    pub event: String,
    /// The request id.
    pub id: String,
}

/// What the `LISTEN` connection hands on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LedgerNotice {
    /// A request changed, on this replica or another.
    Changed(Notice),
    /// The listening connection was lost and is back: changes made
    /// meanwhile were not announced, so views should read the ledger
    /// again.
    Resync,
}

/// An approval ledger in a Postgres database.
pub struct PostgresLedger {
    pool: Pool,
    realm: String,
    shown: String,
    notices: broadcast::Sender<LedgerNotice>,
    listener: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for PostgresLedger {
    /// The URL without its password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresLedger")
            .field("database", &self.shown)
            .finish()
    }
}

impl Drop for PostgresLedger {
    fn drop(&mut self) {
        self.listener.abort();
    }
}

fn unavailable(e: impl std::error::Error) -> LedgerError {
    // tokio-postgres says only "db error" for what the server refused;
    // the server's code and message (never the statement's values) say why.
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        match s.downcast_ref::<tokio_postgres::error::DbError>() {
            Some(db) => message.push_str(&format!(": {} ({})", db.message(), db.code().code())),
            None => message.push_str(&format!(": {s}")),
        }
        source = s.source();
    }
    LedgerError::Unavailable(format!("postgres: {message}"))
}

fn corrupt(what: &str) -> LedgerError {
    LedgerError::Corrupt(format!(
        "postgres: the `{what}` column holds something unreadable"
    ))
}

fn ms(t: UnixMillis) -> i64 {
    i64::try_from(t.0).unwrap_or(i64::MAX)
}

fn time(v: Option<i64>) -> Option<UnixMillis> {
    v.map(|v| UnixMillis(u64::try_from(v).unwrap_or(0)))
}

/// `host:port/dbname` of a Postgres config: the realm and what logs show
/// (never the user or password).
fn describe(config: &tokio_postgres::Config) -> String {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|h| match h {
            tokio_postgres::config::Host::Tcp(name) => name.clone(),
            tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
        })
        .collect();
    let port = config.get_ports().first().copied().unwrap_or(5432);
    format!(
        "{}:{port}/{}",
        hosts.join(","),
        config.get_dbname().unwrap_or("")
    )
}

impl PostgresLedger {
    /// Connect to the database at `url`, create the schema when missing,
    /// and start listening for changes.
    ///
    /// # Errors
    /// [`LedgerError::Unavailable`] when the database cannot be reached or
    /// the URL is malformed (the message never holds the password);
    /// [`LedgerError::Corrupt`] for a schema from a newer toolvet.
    pub async fn connect(url: &str) -> Result<PostgresLedger, LedgerError> {
        let mut config: tokio_postgres::Config = url.parse().map_err(|e| {
            LedgerError::Unavailable(format!("postgres: the ledger URL is malformed: {e}"))
        })?;
        config.connect_timeout(CONNECT_TIMEOUT);
        if config.get_application_name().is_none() {
            config.application_name("toolvet");
        }
        let shown = describe(&config);
        let manager = Manager::from_config(
            config.clone(),
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(CONNECT_TIMEOUT))
            .create_timeout(Some(CONNECT_TIMEOUT))
            .recycle_timeout(Some(CONNECT_TIMEOUT))
            .build()
            .map_err(unavailable)?;
        let ledger_at = |e: LedgerError| match e {
            LedgerError::Unavailable(m) => LedgerError::Unavailable(format!("{shown}: {m}")),
            other => other,
        };
        migrate(&pool).await.map_err(ledger_at)?;
        let (notices, _) = broadcast::channel(1024);
        // Return once the LISTEN connection is up, so a replica that
        // answers sees the changes other replicas make from then on (the
        // listener keeps retrying if it is not up in time).
        let (listening, up) = tokio::sync::oneshot::channel();
        let listener = tokio::spawn(listen(config, notices.clone(), listening));
        let _ = tokio::time::timeout(CONNECT_TIMEOUT, up).await;
        Ok(PostgresLedger {
            pool,
            realm: format!("postgres:{shown}"),
            shown,
            notices,
            listener,
        })
    }

    /// Changes announced by every replica sharing this database.
    pub fn notices(&self) -> broadcast::Receiver<LedgerNotice> {
        self.notices.subscribe()
    }

    async fn client(&self) -> Result<deadpool_postgres::Object, LedgerError> {
        self.pool
            .get()
            .await
            .map_err(|e| LedgerError::Unavailable(format!("postgres {}: {e}", self.shown)))
    }
}

async fn migrate(pool: &Pool) -> Result<(), LedgerError> {
    let mut client = pool.get().await.map_err(unavailable)?;
    let tx = client.transaction().await.map_err(unavailable)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])
        .await
        .map_err(unavailable)?;
    tx.batch_execute(SCHEMA).await.map_err(unavailable)?;
    tx.execute(
        "INSERT INTO toolvet_ledger_meta (key, value) VALUES ('schema_version', $1) \
         ON CONFLICT (key) DO UPDATE SET value = excluded.value \
         WHERE toolvet_ledger_meta.value ~ '^[0-9]{1,9}$' \
         AND toolvet_ledger_meta.value::int < excluded.value::int",
        &[&SCHEMA_VERSION.to_string()],
    )
    .await
    .map_err(unavailable)?;
    let version: String = tx
        .query_one(
            "SELECT value FROM toolvet_ledger_meta WHERE key = 'schema_version'",
            &[],
        )
        .await
        .map_err(unavailable)?
        .get(0);
    if !version.parse::<i32>().is_ok_and(|v| v <= SCHEMA_VERSION) {
        return Err(LedgerError::Corrupt(format!(
            "postgres: schema version {version}; this toolvet knows up to {SCHEMA_VERSION}"
        )));
    }
    tx.commit().await.map_err(unavailable)
}

/// Keep one `LISTEN` connection open, forwarding notices; reconnect (with
/// a pause) whenever it drops.
async fn listen(
    config: tokio_postgres::Config,
    notices: broadcast::Sender<LedgerNotice>,
    listening: tokio::sync::oneshot::Sender<()>,
) {
    let mut listening = Some(listening);
    let mut connected_before = false;
    loop {
        match config.connect(NoTls).await {
            Ok((client, mut connection)) => {
                let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
                let driver = tokio::spawn(async move {
                    let mut messages =
                        futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                    while let Some(message) = futures_util::StreamExt::next(&mut messages).await {
                        match message {
                            Ok(m) => {
                                if tx.send(m).is_err() {
                                    break;
                                }
                            }
                            Err(e) => {
                                tracing::warn!(target: "toolvet::serve", "postgres LISTEN connection: {e}");
                                break;
                            }
                        }
                    }
                });
                if let Err(e) = client.batch_execute(&format!("LISTEN {CHANNEL}")).await {
                    tracing::warn!(target: "toolvet::serve", "postgres: LISTEN failed: {e}");
                } else {
                    if connected_before {
                        let _ = notices.send(LedgerNotice::Resync);
                    }
                    connected_before = true;
                    if let Some(up) = listening.take() {
                        let _ = up.send(());
                    }
                    while let Some(message) = rx.recv().await {
                        if let tokio_postgres::AsyncMessage::Notification(n) = message {
                            match serde_json::from_str::<Notice>(n.payload()) {
                                Ok(notice) => {
                                    let _ = notices.send(LedgerNotice::Changed(notice));
                                }
                                Err(_) => tracing::warn!(target: "toolvet::serve",
                                    "postgres: ignoring a malformed notice on {CHANNEL}"),
                            }
                        }
                    }
                }
                driver.abort();
            }
            Err(e) => {
                tracing::debug!(target: "toolvet::serve", "postgres LISTEN connect: {e}");
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

fn row_to_request(row: &Row) -> Result<ApprovalRequest, LedgerError> {
    let get_s = |i: usize| -> Result<String, LedgerError> {
        row.try_get::<_, String>(i).map_err(|_| corrupt("text"))
    };
    let get_o = |i: usize| -> Result<Option<String>, LedgerError> {
        row.try_get::<_, Option<String>>(i)
            .map_err(|_| corrupt("text"))
    };
    let get_t = |i: usize| -> Result<Option<i64>, LedgerError> {
        row.try_get::<_, Option<i64>>(i)
            .map_err(|_| corrupt("time"))
    };
    let status = match get_s(1)?.as_str() {
        "pending" => ApprovalStatus::Pending,
        "approved" => ApprovalStatus::Approved,
        "rejected" => ApprovalStatus::Rejected,
        "consumed" => ApprovalStatus::Consumed,
        _ => return Err(corrupt("status")),
    };
    let arguments =
        serde_json::value::RawValue::from_string(get_s(4)?).map_err(|_| corrupt("arguments"))?;
    let escalations: Vec<Escalation> =
        serde_json::from_str(&get_s(9)?).map_err(|_| corrupt("escalations"))?;
    let review = match get_o(12)?.as_deref() {
        None => None,
        Some(d) => Some(ReviewRecord {
            decision: match d {
                "approve" => ReviewDecision::Approve,
                "reject" => ReviewDecision::Reject,
                _ => return Err(corrupt("decision")),
            },
            reviewer: get_o(13)?.unwrap_or_default(),
            message: get_o(14)?,
            scope: match get_o(15)?.as_deref() {
                Some("run") => Scope::Run,
                _ => Scope::Once,
            },
            decided_at: time(get_t(16)?).unwrap_or(UnixMillis(0)),
        }),
    };
    Ok(ApprovalRequest {
        id: get_s(0)?,
        status,
        call: BoundCall {
            tool: get_s(2)?,
            arguments_sha256: get_s(3)?,
            call_id: get_s(5)?,
            run_id: get_o(6)?,
            attributes: match get_o(18)? {
                Some(text) => serde_json::from_str(&text).map_err(|_| corrupt("attributes"))?,
                None => Default::default(),
            },
        },
        arguments,
        agent: get_o(7)?,
        principal: get_o(8)?,
        escalations,
        created_at: time(get_t(10)?).unwrap_or(UnixMillis(0)),
        expires_at: time(get_t(11)?).unwrap_or(UnixMillis(0)),
        review,
        consumed_at: time(get_t(17)?),
    })
}

fn rows_to_requests(rows: &[Row]) -> Result<Vec<ApprovalRequest>, LedgerError> {
    rows.iter().map(row_to_request).collect()
}

async fn notify(client: &impl GenericClient, event: &str, id: &str) -> Result<(), LedgerError> {
    let payload = serde_json::to_string(&Notice {
        event: event.into(),
        id: id.into(),
    })
    .map_err(unavailable)?;
    client
        .execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &payload])
        .await
        .map_err(unavailable)?;
    Ok(())
}

async fn get_by_id(
    client: &impl GenericClient,
    id: &str,
) -> Result<Option<ApprovalRequest>, LedgerError> {
    let rows = client
        .query(
            &format!("SELECT {COLUMNS} FROM toolvet_approval_requests WHERE id = $1"),
            &[&id],
        )
        .await
        .map_err(unavailable)?;
    rows.first().map(row_to_request).transpose()
}

#[async_trait::async_trait]
impl Ledger for PostgresLedger {
    async fn open(
        &self,
        request: ApprovalRequest,
        now: UnixMillis,
        limits: &PendingLimits,
    ) -> Result<Opened, LedgerError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let call = &request.call;
        // One opener per call at a time, on every replica.
        let key = if call.call_id.is_empty() {
            format!(
                "{:?}\u{0}{}\u{0}{}",
                call.run_id, call.tool, call.arguments_sha256
            )
        } else {
            format!("{:?}\u{0}\u{0}{}", call.run_id, call.call_id)
        };
        // Postgres text cannot hold the NUL separators: lock on the first
        // 8 bytes of the key's sha256 instead.
        let digest = <sha2::Sha256 as sha2::Digest>::digest(key.as_bytes());
        let lock = i64::from_be_bytes(digest[..8].try_into().unwrap_or_default());
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&lock])
            .await
            .map_err(unavailable)?;
        let rows = if call.call_id.is_empty() {
            tx.query(
                &format!(
                    "SELECT {COLUMNS} FROM toolvet_approval_requests WHERE {} AND tool = $2 \
                     AND arguments_sha256 = $3 AND call_id = '' ORDER BY seq",
                    same_run(1)
                ),
                &[&call.run_id, &call.tool, &call.arguments_sha256],
            )
            .await
        } else {
            tx.query(
                &format!(
                    "SELECT {COLUMNS} FROM toolvet_approval_requests WHERE {} AND call_id = $2 \
                     ORDER BY seq",
                    same_run(1)
                ),
                &[&call.run_id, &call.call_id],
            )
            .await
        }
        .map_err(unavailable)?;
        // Requests of another principal or agent are other calls:
        // `open_against` looks only at the asker's own.
        let earlier = rows_to_requests(&rows)?;
        if let Some(found) = open_against(&request, &earlier, now) {
            tx.commit().await.map_err(unavailable)?;
            return Ok(found);
        }
        // A new request: one opener at a time on every replica, so the
        // count below and the insert are one step (READ COMMITTED: the
        // count after the lock sees every opening committed before it).
        // The call's lock is held already, so its answer above stands.
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&OPEN_LOCK])
            .await
            .map_err(unavailable)?;
        let counts = tx
            .query_one(
                "SELECT count(*), count(*) FILTER (WHERE run_id = $2::text), \
                 count(*) FILTER (WHERE principal = $3::text) FROM toolvet_approval_requests \
                 WHERE status = 'pending' AND expires_at_ms > $1",
                &[&ms(now), &call.run_id, &request.principal],
            )
            .await
            .map_err(unavailable)?;
        let n = |i: usize| -> Result<usize, LedgerError> {
            counts
                .try_get::<_, i64>(i)
                .map(|v| usize::try_from(v).unwrap_or(usize::MAX))
                .map_err(unavailable)
        };
        let pending = PendingNow {
            total: n(0)?,
            run: n(1)?,
            principal: n(2)?,
        };
        if let Some(reason) = pending_refusal(&request, pending, limits) {
            tx.commit().await.map_err(unavailable)?;
            return Ok(Opened::TooManyPending(reason));
        }
        let escalations = serde_json::to_string(&request.escalations).map_err(unavailable)?;
        let attributes = (!request.call.attributes.is_empty())
            .then(|| serde_json::to_string(&request.call.attributes))
            .transpose()
            .map_err(unavailable)?;
        let r = &request;
        tx.execute(
            "INSERT INTO toolvet_approval_requests (id, status, tool, arguments_sha256, \
             arguments, call_id, run_id, agent, principal, escalations, created_at_ms, \
             expires_at_ms, attributes) \
             VALUES ($1, 'pending', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            &[
                &r.id,
                &r.call.tool,
                &r.call.arguments_sha256,
                &r.arguments.get(),
                &r.call.call_id,
                &r.call.run_id,
                &r.agent,
                &r.principal,
                &escalations,
                &ms(r.created_at),
                &ms(r.expires_at),
                &attributes,
            ],
        )
        .await
        .map_err(unavailable)?;
        notify(&tx, "requested", &r.id).await?;
        tx.commit().await.map_err(unavailable)?;
        Ok(Opened::Created(request))
    }

    async fn get(&self, id: &str) -> Result<Option<ApprovalRequest>, LedgerError> {
        let client = self.client().await?;
        get_by_id(&client, id).await
    }

    async fn decide(
        &self,
        id: &str,
        review: &Review,
        now: UnixMillis,
    ) -> Result<Decided, LedgerError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let (status, decision) = match review.decision() {
            ReviewDecision::Approve => ("approved", "approve"),
            ReviewDecision::Reject => ("rejected", "reject"),
        };
        let rows = tx
            .query(
                &format!(
                    "UPDATE toolvet_approval_requests SET status = $2, decision = $3, \
                     reviewer = $4, message = $5, scope = $6, decided_at_ms = $7 \
                     WHERE id = $1 AND status = 'pending' AND expires_at_ms > $7 \
                     RETURNING {COLUMNS}"
                ),
                &[
                    &id,
                    &status,
                    &decision,
                    &review.reviewer(),
                    &review.message(),
                    &review.scope().as_str(),
                    &ms(now),
                ],
            )
            .await
            .map_err(unavailable)?;
        let outcome = match rows.first() {
            Some(row) => {
                notify(&tx, "decided", id).await?;
                Decided::Done(row_to_request(row)?)
            }
            None => match get_by_id(&tx, id).await? {
                None => Decided::NotFound,
                Some(r) => decide_against(&r, now).ok_or_else(|| {
                    LedgerError::Unavailable(format!("the decision on `{id}` was not recorded"))
                })?,
            },
        };
        tx.commit().await.map_err(unavailable)?;
        Ok(outcome)
    }

    async fn consume(&self, id: &str, now: UnixMillis) -> Result<bool, LedgerError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        let changed = tx
            .execute(
                "UPDATE toolvet_approval_requests SET status = 'consumed', consumed_at_ms = $2 \
                 WHERE id = $1 AND status = 'approved' AND expires_at_ms > $2",
                &[&id, &ms(now)],
            )
            .await
            .map_err(unavailable)?;
        if changed == 1 {
            notify(&tx, "consumed", id).await?;
        }
        tx.commit().await.map_err(unavailable)?;
        Ok(changed == 1)
    }

    async fn list(
        &self,
        query: &ListQuery,
        now: UnixMillis,
    ) -> Result<Vec<ApprovalRequest>, LedgerError> {
        let condition = match query.status {
            StatusFilter::All => "$1::bigint IS NOT NULL",
            StatusFilter::Pending => "status = 'pending' AND expires_at_ms > $1",
            StatusFilter::Approved => "status = 'approved' AND expires_at_ms > $1",
            StatusFilter::Rejected => "status = 'rejected' AND $1::bigint IS NOT NULL",
            StatusFilter::Consumed => "status = 'consumed' AND $1::bigint IS NOT NULL",
            StatusFilter::Expired => "status IN ('pending', 'approved') AND expires_at_ms <= $1",
        };
        let client = self.client().await?;
        // Insertion order, after the named request; an unknown `after`
        // gives an empty page.
        let after: i64 = match &query.after {
            Some(id) => client
                .query_opt(
                    "SELECT seq FROM toolvet_approval_requests WHERE id = $1",
                    &[id],
                )
                .await
                .map_err(unavailable)?
                .map_or(i64::MAX, |r| r.get(0)),
            None => 0,
        };
        let limit = i64::try_from(query.limit).unwrap_or(i64::MAX);
        let rows = client
            .query(
                &format!(
                    "SELECT {COLUMNS} FROM toolvet_approval_requests WHERE ({condition}) \
                     AND seq > $2 ORDER BY seq LIMIT $3"
                ),
                &[&ms(now), &after, &limit],
            )
            .await
            .map_err(unavailable)?;
        rows_to_requests(&rows)
    }

    async fn run_grant(
        &self,
        run_id: &str,
        principal: Option<&str>,
        agent: Option<&str>,
        tool: &str,
        arguments_sha256: &str,
    ) -> Result<Option<ApprovalRequest>, LedgerError> {
        let rows = self
            .client()
            .await?
            .query(
                &format!(
                    "SELECT {COLUMNS} FROM toolvet_approval_requests WHERE run_id = $1 \
                     AND tool = $2 AND arguments_sha256 = $3 \
                     AND principal IS NOT DISTINCT FROM $4::text \
                     AND agent IS NOT DISTINCT FROM $5::text \
                     AND status IN ('approved', 'consumed') AND scope = 'run' \
                     ORDER BY seq LIMIT 1"
                ),
                &[&run_id, &tool, &arguments_sha256, &principal, &agent],
            )
            .await
            .map_err(unavailable)?;
        rows.first().map(row_to_request).transpose()
    }

    async fn latest(
        &self,
        run_id: &str,
        principal: Option<&str>,
        agent: Option<&str>,
        tool: &str,
        arguments_sha256: &str,
    ) -> Result<Option<ApprovalRequest>, LedgerError> {
        let rows = self
            .client()
            .await?
            .query(
                &format!(
                    "SELECT {COLUMNS} FROM toolvet_approval_requests WHERE run_id = $1 \
                     AND tool = $2 AND arguments_sha256 = $3 \
                     AND principal IS NOT DISTINCT FROM $4::text \
                     AND agent IS NOT DISTINCT FROM $5::text ORDER BY seq DESC LIMIT 1"
                ),
                &[&run_id, &tool, &arguments_sha256, &principal, &agent],
            )
            .await
            .map_err(unavailable)?;
        rows.first().map(row_to_request).transpose()
    }

    async fn ping(&self) -> Result<(), LedgerError> {
        self.client()
            .await?
            .execute("SELECT 1", &[])
            .await
            .map(drop)
            .map_err(unavailable)
    }

    fn default_realm(&self) -> String {
        self.realm.clone()
    }

    async fn put_signed_decision(&self, id: &str, token: &str) -> Result<(), LedgerError> {
        self.client()
            .await?
            .execute(
                "INSERT INTO toolvet_approval_signed_decisions (id, token) VALUES ($1, $2) \
                 ON CONFLICT (id) DO UPDATE SET token = EXCLUDED.token",
                &[&id, &token],
            )
            .await
            .map(drop)
            .map_err(unavailable)
    }

    async fn remove_signed_decision(&self, id: &str) -> Result<(), LedgerError> {
        self.client()
            .await?
            .execute(
                "DELETE FROM toolvet_approval_signed_decisions WHERE id = $1",
                &[&id],
            )
            .await
            .map(drop)
            .map_err(unavailable)
    }

    async fn signed_decision(&self, id: &str) -> Result<Option<String>, LedgerError> {
        let row = self
            .client()
            .await?
            .query_opt(
                "SELECT token FROM toolvet_approval_signed_decisions WHERE id = $1",
                &[&id],
            )
            .await
            .map_err(unavailable)?;
        row.map(|r| r.try_get::<_, String>(0).map_err(|_| corrupt("token")))
            .transpose()
    }

    async fn add_run_labels(
        &self,
        run: &RunKey,
        labels: &[RunLabel],
        now: UnixMillis,
        ttl_ms: u64,
    ) -> Result<(), LedgerError> {
        let key = run.stored();
        let expires = ms(expiry(now, ttl_ms));
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(unavailable)?;
        // One adder per run at a time, on every replica: what the run
        // keeps is read and added to in one step.
        let digest = <sha2::Sha256 as sha2::Digest>::digest(
            format!("toolvet run labels\u{0}{key}").as_bytes(),
        );
        let lock = i64::from_be_bytes(digest[..8].try_into().unwrap_or_default());
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&lock])
            .await
            .map_err(unavailable)?;
        tx.execute(
            "DELETE FROM toolvet_run_labels WHERE run_key = $1 AND expires_at_ms <= $2",
            &[&key, &ms(now)],
        )
        .await
        .map_err(unavailable)?;
        tx.execute(
            "DELETE FROM toolvet_run_labels WHERE seq IN (SELECT seq FROM toolvet_run_labels \
             WHERE expires_at_ms <= $1 LIMIT $2)",
            &[&ms(now), &PRUNE_BATCH],
        )
        .await
        .map_err(unavailable)?;
        let kept: HashSet<String> = tx
            .query(
                "SELECT label_sha256 FROM toolvet_run_labels WHERE run_key = $1",
                &[&key],
            )
            .await
            .map_err(unavailable)?
            .iter()
            .map(|r| {
                r.try_get::<_, String>(0)
                    .map_err(|_| corrupt("label_sha256"))
            })
            .collect::<Result<_, _>>()?;
        for new in new_labels(&kept, labels)? {
            tx.execute(
                "INSERT INTO toolvet_run_labels (run_key, label_sha256, label, expires_at_ms) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT (run_key, label_sha256) DO NOTHING",
                &[&key, &new.sha256, &new.json, &expires],
            )
            .await
            .map_err(unavailable)?;
        }
        tx.execute(
            "UPDATE toolvet_run_labels SET expires_at_ms = $2 WHERE run_key = $1",
            &[&key, &expires],
        )
        .await
        .map_err(unavailable)?;
        tx.commit().await.map_err(unavailable)
    }

    async fn run_labels(&self, run: &RunKey, now: UnixMillis) -> Result<KeptLabels, LedgerError> {
        let limit = i64::try_from(MAX_STORED_LABELS).unwrap_or(i64::MAX);
        let rows = self
            .client()
            .await?
            .query(
                "SELECT label FROM toolvet_run_labels WHERE run_key = $1 AND expires_at_ms > $2 \
                 ORDER BY seq LIMIT $3",
                &[&run.stored(), &ms(now), &limit],
            )
            .await
            .map_err(unavailable)?;
        let labels = rows
            .iter()
            .map(|r| {
                let json: String = r.try_get(0).map_err(|_| corrupt("label"))?;
                stored_label(&json, &format!("postgres {}", self.shown))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(KeptLabels::from_stored(labels))
    }
}

/// Opens Postgres ledgers for [`toolvet::Host::load_with`] and
/// [`toolvet::approval::Approvals::open_with`]; one ledger (one pool, one `LISTEN`
/// connection) per URL, shared by every policy generation.
#[derive(Debug, Default)]
pub struct PostgresProvider {
    ledgers: Mutex<HashMap<String, Arc<PostgresLedger>>>,
}

impl PostgresProvider {
    /// A provider that has opened nothing yet.
    pub fn new() -> PostgresProvider {
        PostgresProvider::default()
    }

    /// The ledger opened for `url`, if any.
    pub fn ledger(&self, url: &str) -> Option<Arc<PostgresLedger>> {
        self.ledgers.lock().ok()?.get(url).cloned()
    }
}

#[async_trait::async_trait]
impl LedgerProvider for PostgresProvider {
    async fn open(
        &self,
        location: &LedgerLocation,
    ) -> Result<Option<Arc<dyn Ledger>>, LedgerError> {
        let LedgerLocation::Postgres(url) = location else {
            return Ok(None);
        };
        if let Some(existing) = self.ledger(url) {
            return Ok(Some(existing));
        }
        let ledger = Arc::new(PostgresLedger::connect(url).await?);
        let mut ledgers = self.ledgers.lock().map_err(|_| {
            LedgerError::Unavailable("a thread panicked holding the ledgers".into())
        })?;
        let kept = ledgers.entry(url.clone()).or_insert(ledger).clone();
        Ok(Some(kept))
    }
}
