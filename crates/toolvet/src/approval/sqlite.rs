//! The SQLite ledger: one file, WAL journal, shared by the processes of a
//! machine (a server, one-shot hooks, `toolvet approvals`).
//!
//! Reads use one connection on the calling thread (WAL readers never wait
//! for writers); writes use another on the blocking pool, each in one
//! `BEGIN IMMEDIATE` transaction or one conditional `UPDATE`, so the rules
//! of [`Ledger`] hold across processes: the first decision stands, and an
//! approval is consumed exactly once.

use super::bound::BoundCall;
use super::labels::{KeptLabels, MAX_STORED_LABELS, expiry, new_labels, stored_label};
use super::ledger::{Decided, Ledger, Opened, decide_against, open_against};
use super::pending::{PendingLimits, PendingNow, pending_refusal};
use super::types::LedgerError;
use super::types::{
    ApprovalRequest, ApprovalStatus, Escalation, ListQuery, Review, ReviewDecision, ReviewRecord,
    Scope, StatusFilter, UnixMillis,
};
use crate::run_history::RunKey;
use crate::tool_result::RunLabel;
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long an operation waits for another process's write lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The schema version this host writes (`PRAGMA user_version`). Version 2
/// added `attributes` (the context attributes a request is bound to, a
/// JSON object: [`super::BOUND_ATTRIBUTES`]); a version 1 ledger gains
/// the column when this host opens it, and an older host then refuses the
/// file rather than resume calls without them. Version 3 added the
/// `run_labels` table ([`super::labels`]); an older ledger gains it when
/// this host opens it, and an older host then refuses the file rather
/// than vet a run's calls without the labels other processes keep there.
const SCHEMA_VERSION: i64 = 3;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS approval_requests (
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
    created_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    decision TEXT CHECK (decision IN ('approve', 'reject')),
    reviewer TEXT,
    message TEXT,
    scope TEXT CHECK (scope IN ('once', 'run')),
    decided_at_ms INTEGER,
    consumed_at_ms INTEGER,
    attributes TEXT
);
CREATE INDEX IF NOT EXISTS approval_requests_call ON approval_requests (run_id, call_id);
CREATE INDEX IF NOT EXISTS approval_requests_binding ON approval_requests (run_id, tool, arguments_sha256);
CREATE INDEX IF NOT EXISTS approval_requests_grants ON approval_requests (run_id, tool, arguments_sha256) WHERE scope = 'run';
CREATE INDEX IF NOT EXISTS approval_requests_pending ON approval_requests (status, expires_at_ms);
CREATE TABLE IF NOT EXISTS approval_signed_decisions (
    id TEXT PRIMARY KEY,
    token TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS run_labels (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    run_key TEXT NOT NULL,
    label_sha256 TEXT NOT NULL,
    label TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    UNIQUE (run_key, label_sha256)
);
CREATE INDEX IF NOT EXISTS run_labels_expiry ON run_labels (expires_at_ms);
";

/// How many other runs' expired labels one addition deletes at most (the
/// adding run's own are all deleted).
const PRUNE_BATCH: i64 = 1024;

const COLUMNS: &str = "id, status, tool, arguments_sha256, arguments, call_id, run_id, agent, \
    principal, escalations, created_at_ms, expires_at_ms, decision, reviewer, message, scope, \
    decided_at_ms, consumed_at_ms, attributes";

/// An approval ledger in an SQLite file.
#[derive(Clone)]
pub struct SqliteLedger {
    path: PathBuf,
    reader: Arc<Mutex<Connection>>,
    writer: Arc<Mutex<Connection>>,
}

impl std::fmt::Debug for SqliteLedger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteLedger")
            .field("path", &self.path)
            .finish()
    }
}

fn unavailable(e: rusqlite::Error) -> LedgerError {
    match &e {
        rusqlite::Error::SqliteFailure(f, _)
            if matches!(
                f.code,
                rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase
            ) =>
        {
            LedgerError::Corrupt(e.to_string())
        }
        _ => LedgerError::Unavailable(e.to_string()),
    }
}

impl SqliteLedger {
    /// Open (creating when missing) the ledger file at `path`, and its
    /// directory (mode 0700). The file is created with mode 0600.
    ///
    /// # Errors
    /// [`LedgerError::Corrupt`] for a file that is not an SQLite database
    /// or holds a newer schema; [`LedgerError::Unavailable`] when it
    /// cannot be created, opened or locked.
    pub fn open(path: &Path) -> Result<SqliteLedger, LedgerError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            let mut builder = std::fs::DirBuilder::new();
            builder.recursive(true);
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            builder.create(dir).map_err(|e| {
                LedgerError::Unavailable(format!("{}: cannot create: {e}", dir.display()))
            })?;
        }
        #[cfg(unix)]
        if !path.exists() {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .open(path)
                .map_err(|e| {
                    LedgerError::Unavailable(format!("{}: cannot create: {e}", path.display()))
                })?;
        }
        let at = |e: LedgerError| match e {
            LedgerError::Corrupt(m) => LedgerError::Corrupt(format!("{}: {m}", path.display())),
            LedgerError::Unavailable(m) => {
                LedgerError::Unavailable(format!("{}: {m}", path.display()))
            }
        };
        let writer = connect(path).map_err(at)?;
        let version: i64 = writer
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(unavailable)
            .map_err(at)?;
        if version > SCHEMA_VERSION {
            return Err(at(LedgerError::Corrupt(format!(
                "schema version {version}; this host knows up to {SCHEMA_VERSION}"
            ))));
        }
        writer
            .execute_batch(SCHEMA)
            .and_then(|()| add_attributes(&writer))
            .and_then(|()| writer.pragma_update(None, "user_version", SCHEMA_VERSION))
            .map_err(unavailable)
            .map_err(at)?;
        let reader = connect(path).map_err(at)?;
        Ok(SqliteLedger {
            path: path.to_path_buf(),
            reader: Arc::new(Mutex::new(reader)),
            writer: Arc::new(Mutex::new(writer)),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read<T>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, LedgerError> {
        let conn = self
            .reader
            .lock()
            .map_err(|_| LedgerError::Unavailable("a thread panicked holding the ledger".into()))?;
        f(&conn).map_err(unavailable)
    }

    async fn write<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, LedgerError> + Send + 'static,
    ) -> Result<T, LedgerError> {
        let writer = self.writer.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn = writer.lock().map_err(|_| {
                LedgerError::Unavailable("a thread panicked holding the ledger".into())
            })?;
            f(&mut conn)
        })
        .await
        .map_err(|e| LedgerError::Unavailable(format!("the ledger's writer failed: {e}")))?
    }
}

fn connect(path: &Path) -> Result<Connection, LedgerError> {
    let conn = Connection::open(path).map_err(unavailable)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(unavailable)?;
    let mode: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .map_err(unavailable)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(LedgerError::Unavailable(format!(
            "cannot use the WAL journal (got `{mode}`)"
        )));
    }
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(unavailable)?;
    Ok(conn)
}

fn ms(t: UnixMillis) -> i64 {
    i64::try_from(t.0).unwrap_or(i64::MAX)
}

fn corrupt(what: &str) -> rusqlite::Error {
    rusqlite::Error::InvalidColumnType(0, what.to_string(), rusqlite::types::Type::Text)
}

fn row_to_request(row: &rusqlite::Row<'_>) -> rusqlite::Result<ApprovalRequest> {
    let status: String = row.get(1)?;
    let status = match status.as_str() {
        "pending" => ApprovalStatus::Pending,
        "approved" => ApprovalStatus::Approved,
        "rejected" => ApprovalStatus::Rejected,
        "consumed" => ApprovalStatus::Consumed,
        _ => return Err(corrupt("status")),
    };
    let arguments: String = row.get(4)?;
    let arguments =
        serde_json::value::RawValue::from_string(arguments).map_err(|_| corrupt("arguments"))?;
    let escalations: String = row.get(9)?;
    let escalations: Vec<Escalation> =
        serde_json::from_str(&escalations).map_err(|_| corrupt("escalations"))?;
    let time = |i: usize| -> rusqlite::Result<Option<UnixMillis>> {
        Ok(row
            .get::<_, Option<i64>>(i)?
            .map(|v| UnixMillis(u64::try_from(v).unwrap_or(0))))
    };
    let decision: Option<String> = row.get(12)?;
    let review = match decision.as_deref() {
        None => None,
        Some(d) => Some(ReviewRecord {
            decision: match d {
                "approve" => ReviewDecision::Approve,
                "reject" => ReviewDecision::Reject,
                _ => return Err(corrupt("decision")),
            },
            reviewer: row.get::<_, Option<String>>(13)?.unwrap_or_default(),
            message: row.get(14)?,
            scope: match row.get::<_, Option<String>>(15)?.as_deref() {
                Some("run") => Scope::Run,
                _ => Scope::Once,
            },
            decided_at: time(16)?.unwrap_or(UnixMillis(0)),
        }),
    };
    Ok(ApprovalRequest {
        id: row.get(0)?,
        status,
        call: BoundCall {
            tool: row.get(2)?,
            arguments_sha256: row.get(3)?,
            call_id: row.get(5)?,
            run_id: row.get(6)?,
            attributes: match row.get::<_, Option<String>>(18)? {
                Some(text) => serde_json::from_str(&text).map_err(|_| corrupt("attributes"))?,
                None => Default::default(),
            },
        },
        arguments,
        agent: row.get(7)?,
        principal: row.get(8)?,
        escalations,
        created_at: time(10)?.unwrap_or(UnixMillis(0)),
        expires_at: time(11)?.unwrap_or(UnixMillis(0)),
        review,
        consumed_at: time(17)?,
    })
}

/// Version 1 to 2: a ledger made before requests were bound to their
/// context gains the `attributes` column (its rows have none).
/// Under a write lock, so processes opening the file at once add it once.
fn add_attributes(conn: &Connection) -> rusqlite::Result<()> {
    let has = |conn: &Connection| {
        conn.prepare(
            "SELECT 1 FROM pragma_table_info('approval_requests') WHERE name = 'attributes'",
        )?
        .exists([])
    };
    if has(conn)? {
        return Ok(());
    }
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let added = has(conn).and_then(|there| {
        if there {
            Ok(())
        } else {
            conn.execute_batch("ALTER TABLE approval_requests ADD COLUMN attributes TEXT")
        }
    });
    match added {
        Ok(()) => conn.execute_batch("COMMIT"),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

fn get(conn: &Connection, id: &str) -> rusqlite::Result<Option<ApprovalRequest>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM approval_requests WHERE id = ?1"
    ))?
    .query_row([id], row_to_request)
    .optional()
}

/// The earlier requests that may be for the same call as `request` (see
/// [`super::ledger::may_be_same_call`]): of the same principal and agent
/// (`IS`, so a NULL matches only NULL).
fn same_call(
    conn: &Connection,
    request: &ApprovalRequest,
) -> rusqlite::Result<Vec<ApprovalRequest>> {
    let call = &request.call;
    if call.call_id.is_empty() {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM approval_requests WHERE run_id IS ?1 AND tool = ?2 \
             AND arguments_sha256 = ?3 AND call_id = '' AND principal IS ?4 AND agent IS ?5 \
             ORDER BY rowid"
        ))?;
        stmt.query_map(
            params![
                call.run_id,
                call.tool,
                call.arguments_sha256,
                request.principal,
                request.agent
            ],
            row_to_request,
        )?
        .collect()
    } else {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM approval_requests WHERE run_id IS ?1 AND call_id = ?2 \
             AND principal IS ?3 AND agent IS ?4 ORDER BY rowid"
        ))?;
        stmt.query_map(
            params![call.run_id, call.call_id, request.principal, request.agent],
            row_to_request,
        )?
        .collect()
    }
}

/// The pending, unexpired requests at `now`: all, of `request`'s run and
/// of its principal.
fn pending_now(
    conn: &Connection,
    request: &ApprovalRequest,
    now: UnixMillis,
) -> rusqlite::Result<PendingNow> {
    // `=` with a NULL is NULL, which `sum` skips: a request without a run
    // or principal counts none.
    conn.prepare_cached(
        "SELECT count(*), coalesce(sum(run_id = ?2), 0), coalesce(sum(principal = ?3), 0) \
         FROM approval_requests WHERE status = 'pending' AND expires_at_ms > ?1",
    )?
    .query_row(
        params![ms(now), request.call.run_id, request.principal],
        |r| {
            let n = |i: usize| -> rusqlite::Result<usize> {
                Ok(usize::try_from(r.get::<_, i64>(i)?).unwrap_or(usize::MAX))
            };
            Ok(PendingNow {
                total: n(0)?,
                run: n(1)?,
                principal: n(2)?,
            })
        },
    )
}

fn insert(conn: &Connection, r: &ApprovalRequest) -> rusqlite::Result<()> {
    let escalations = serde_json::to_string(&r.escalations).map_err(|_| corrupt("escalations"))?;
    let attributes = (!r.call.attributes.is_empty())
        .then(|| serde_json::to_string(&r.call.attributes))
        .transpose()
        .map_err(|_| corrupt("attributes"))?;
    conn.prepare_cached(
        "INSERT INTO approval_requests (id, status, tool, arguments_sha256, arguments, call_id, \
         run_id, agent, principal, escalations, created_at_ms, expires_at_ms, attributes) \
         VALUES (?1, 'pending', ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?
    .execute(params![
        r.id,
        r.call.tool,
        r.call.arguments_sha256,
        r.arguments.get(),
        r.call.call_id,
        r.call.run_id,
        r.agent,
        r.principal,
        escalations,
        ms(r.created_at),
        ms(r.expires_at),
        attributes,
    ])?;
    Ok(())
}

#[async_trait::async_trait]
impl Ledger for SqliteLedger {
    async fn open(
        &self,
        request: ApprovalRequest,
        now: UnixMillis,
        limits: &PendingLimits,
    ) -> Result<Opened, LedgerError> {
        let limits = *limits;
        // Asking again about a live request needs no write: look first.
        let earlier = self.read(|c| same_call(c, &request))?;
        if let Some(found) = open_against(&request, &earlier, now) {
            return Ok(found);
        }
        // Then in a write transaction, looking again: another process may
        // have opened the request meanwhile.
        self.write(move |conn| {
            let tx = conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .map_err(unavailable)?;
            let earlier = same_call(&tx, &request).map_err(unavailable)?;
            if let Some(found) = open_against(&request, &earlier, now) {
                return Ok(found);
            }
            // Counted in the write transaction that inserts: no other
            // process opens a request between the count and the insert.
            let pending = pending_now(&tx, &request, now).map_err(unavailable)?;
            if let Some(reason) = pending_refusal(&request, pending, &limits) {
                return Ok(Opened::TooManyPending(reason));
            }
            insert(&tx, &request).map_err(unavailable)?;
            tx.commit().map_err(unavailable)?;
            Ok(Opened::Created(request))
        })
        .await
    }

    async fn get(&self, id: &str) -> Result<Option<ApprovalRequest>, LedgerError> {
        self.read(|c| get(c, id))
    }

    async fn decide(
        &self,
        id: &str,
        review: &Review,
        now: UnixMillis,
    ) -> Result<Decided, LedgerError> {
        let (id, review) = (id.to_string(), review.clone());
        self.write(move |conn| {
            // One conditional UPDATE in a write transaction: of two
            // reviewers deciding at once, exactly one changes the row, and
            // each reads back what it decided against.
            let tx = conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .map_err(unavailable)?;
            let changed = tx
                .prepare_cached(
                    "UPDATE approval_requests SET status = ?2, decision = ?3, reviewer = ?4, \
                     message = ?5, scope = ?6, decided_at_ms = ?7 \
                     WHERE id = ?1 AND status = 'pending' AND expires_at_ms > ?7",
                )
                .and_then(|mut s| {
                    let (status, decision) = match review.decision() {
                        ReviewDecision::Approve => ("approved", "approve"),
                        ReviewDecision::Reject => ("rejected", "reject"),
                    };
                    s.execute(params![
                        id,
                        status,
                        decision,
                        review.reviewer(),
                        review.message(),
                        review.scope().as_str(),
                        ms(now),
                    ])
                })
                .map_err(unavailable)?;
            let current = get(&tx, &id).map_err(unavailable)?;
            tx.commit().map_err(unavailable)?;
            match current {
                None => Ok(Decided::NotFound),
                Some(r) if changed == 1 => Ok(Decided::Done(r)),
                Some(r) => decide_against(&r, now).ok_or_else(|| {
                    LedgerError::Unavailable(format!("the decision on `{id}` was not recorded"))
                }),
            }
        })
        .await
    }

    async fn consume(&self, id: &str, now: UnixMillis) -> Result<bool, LedgerError> {
        let id = id.to_string();
        self.write(move |conn| {
            conn.prepare_cached(
                "UPDATE approval_requests SET status = 'consumed', consumed_at_ms = ?2 \
                 WHERE id = ?1 AND status = 'approved' AND expires_at_ms > ?2",
            )
            .and_then(|mut s| s.execute(params![id, ms(now)]))
            .map(|changed| changed == 1)
            .map_err(unavailable)
        })
        .await
    }

    async fn list(
        &self,
        query: &ListQuery,
        now: UnixMillis,
    ) -> Result<Vec<ApprovalRequest>, LedgerError> {
        let condition = match query.status {
            StatusFilter::All => "1",
            StatusFilter::Pending => "status = 'pending' AND expires_at_ms > ?1",
            StatusFilter::Approved => "status = 'approved' AND expires_at_ms > ?1",
            StatusFilter::Rejected => "status = 'rejected' AND ?1 = ?1",
            StatusFilter::Consumed => "status = 'consumed' AND ?1 = ?1",
            StatusFilter::Expired => "status IN ('pending', 'approved') AND expires_at_ms <= ?1",
        };
        self.read(|c| {
            // Insertion order (rowid), after the named request; an unknown
            // `after` gives an empty page.
            let after: i64 = match &query.after {
                Some(id) => c
                    .prepare_cached("SELECT rowid FROM approval_requests WHERE id = ?1")?
                    .query_row([id], |r| r.get(0))
                    .optional()?
                    .unwrap_or(i64::MAX),
                None => 0,
            };
            let mut stmt = c.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM approval_requests WHERE ({condition}) \
                 AND rowid > ?2 ORDER BY rowid LIMIT ?3"
            ))?;
            stmt.query_map(params![ms(now), after, query.limit as i64], row_to_request)?
                .collect()
        })
    }

    async fn run_grant(
        &self,
        run_id: &str,
        principal: Option<&str>,
        agent: Option<&str>,
        tool: &str,
        arguments_sha256: &str,
    ) -> Result<Option<ApprovalRequest>, LedgerError> {
        self.read(|c| {
            c.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM approval_requests WHERE run_id = ?1 AND tool = ?2 \
                 AND arguments_sha256 = ?3 AND principal IS ?4 AND agent IS ?5 \
                 AND status IN ('approved', 'consumed') AND scope = 'run' \
                 ORDER BY rowid LIMIT 1"
            ))?
            .query_row(
                params![run_id, tool, arguments_sha256, principal, agent],
                row_to_request,
            )
            .optional()
        })
    }

    async fn latest(
        &self,
        run_id: &str,
        principal: Option<&str>,
        agent: Option<&str>,
        tool: &str,
        arguments_sha256: &str,
    ) -> Result<Option<ApprovalRequest>, LedgerError> {
        self.read(|c| {
            c.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM approval_requests WHERE run_id = ?1 AND tool = ?2 \
                 AND arguments_sha256 = ?3 AND principal IS ?4 AND agent IS ?5 \
                 ORDER BY rowid DESC LIMIT 1"
            ))?
            .query_row(
                params![run_id, tool, arguments_sha256, principal, agent],
                row_to_request,
            )
            .optional()
        })
    }

    async fn ping(&self) -> Result<(), LedgerError> {
        self.read(|c| c.query_row("SELECT count(*) FROM approval_requests", [], |_| Ok(())))
    }

    fn default_realm(&self) -> String {
        let path = self
            .path
            .canonicalize()
            .unwrap_or_else(|_| self.path.clone());
        format!("sqlite:{}", path.display())
    }

    async fn put_signed_decision(&self, id: &str, token: &str) -> Result<(), LedgerError> {
        let (id, token) = (id.to_string(), token.to_string());
        self.write(move |conn| {
            conn.execute(
                "INSERT OR REPLACE INTO approval_signed_decisions (id, token) VALUES (?1, ?2)",
                params![id, token],
            )
            .map(|_| ())
            .map_err(unavailable)
        })
        .await
    }

    async fn remove_signed_decision(&self, id: &str) -> Result<(), LedgerError> {
        let id = id.to_string();
        self.write(move |conn| {
            conn.execute(
                "DELETE FROM approval_signed_decisions WHERE id = ?1",
                params![id],
            )
            .map(|_| ())
            .map_err(unavailable)
        })
        .await
    }

    async fn signed_decision(&self, id: &str) -> Result<Option<String>, LedgerError> {
        self.read(|c| {
            c.query_row(
                "SELECT token FROM approval_signed_decisions WHERE id = ?1",
                params![id],
                |r| r.get(0),
            )
            .optional()
        })
    }

    async fn add_run_labels(
        &self,
        run: &RunKey,
        labels: &[RunLabel],
        now: UnixMillis,
        ttl_ms: u64,
    ) -> Result<(), LedgerError> {
        let (key, labels) = (run.stored(), labels.to_vec());
        let expires = ms(expiry(now, ttl_ms));
        self.write(move |conn| {
            // One write transaction: no other process adds to the run
            // between reading what it keeps and storing.
            let tx = conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .map_err(unavailable)?;
            tx.execute(
                "DELETE FROM run_labels WHERE run_key = ?1 AND expires_at_ms <= ?2",
                params![key, ms(now)],
            )
            .and_then(|_| {
                tx.execute(
                    "DELETE FROM run_labels WHERE seq IN (SELECT seq FROM run_labels \
                     WHERE expires_at_ms <= ?1 LIMIT ?2)",
                    params![ms(now), PRUNE_BATCH],
                )
            })
            .map_err(unavailable)?;
            let kept: HashSet<String> = tx
                .prepare_cached("SELECT label_sha256 FROM run_labels WHERE run_key = ?1")
                .and_then(|mut s| s.query_map([&key], |r| r.get(0))?.collect())
                .map_err(unavailable)?;
            for new in new_labels(&kept, &labels)? {
                tx.prepare_cached(
                    "INSERT INTO run_labels (run_key, label_sha256, label, expires_at_ms) \
                     VALUES (?1, ?2, ?3, ?4)",
                )
                .and_then(|mut s| s.execute(params![key, new.sha256, new.json, expires]))
                .map_err(unavailable)?;
            }
            tx.execute(
                "UPDATE run_labels SET expires_at_ms = ?2 WHERE run_key = ?1",
                params![key, expires],
            )
            .map_err(unavailable)?;
            tx.commit().map_err(unavailable)
        })
        .await
    }

    async fn run_labels(&self, run: &RunKey, now: UnixMillis) -> Result<KeptLabels, LedgerError> {
        let key = run.stored();
        let stored: Vec<String> = self.read(|c| {
            c.prepare_cached(
                "SELECT label FROM run_labels WHERE run_key = ?1 AND expires_at_ms > ?2 \
                 ORDER BY seq LIMIT ?3",
            )?
            .query_map(params![key, ms(now), MAX_STORED_LABELS as i64], |r| {
                r.get(0)
            })?
            .collect()
        })?;
        let labels = stored
            .iter()
            .map(|json| stored_label(json, &self.path.display().to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(KeptLabels::from_stored(labels))
    }
}
