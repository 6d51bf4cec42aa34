//! Run labels in the approvals ledger: the labels a run's results raised
//! ([`RunLabel`]), kept per run ([`RunKey`]: run id, principal and agent)
//! with a time to live, so every process sharing the ledger (replicas of
//! `toolvet serve` on one SQLite file or one Postgres) judges the run's
//! later calls by them.
//!
//! The rules every ledger follows are here, so every store answers alike
//! ([`super::ledger_rules`]):
//! - a label is kept once per run: two labels are the same when they are
//!   equal ([`RunLabel`]'s fields), as [`crate::run_history::RunHistory`]
//!   dedupes them, told apart in storage by the sha256 of their JSON
//!   ([`new_labels`]);
//! - a run keeps its labels oldest first, at most
//!   [`MAX_RUN_LABELS`]; a run whose results raise more is over, as one
//!   whose history overflows ([`KeptLabels::Over`]): its later calls are
//!   refused, never vetted with a label left out. A ledger stores at most
//!   [`MAX_STORED_LABELS`] per run, enough to know the run is over;
//! - a run's labels live `[approvals] label_ttl_s` after the last result
//!   that raised one: every label of the run gets the same expiry, so the
//!   set expires whole (never a run with some labels forgotten); expired
//!   labels are not answered, and are deleted when labels are next added.

use super::service::Approvals;
use super::types::{LedgerError, UnixMillis};
use crate::run_history::{MAX_RUN_LABELS, RunKey};
use crate::tool_result::RunLabel;
use std::collections::HashSet;

/// The most labels a ledger stores for one run: one more than
/// [`MAX_RUN_LABELS`], so that a run over the limit is known to be over.
pub const MAX_STORED_LABELS: usize = MAX_RUN_LABELS + 1;

/// A run's labels as a ledger keeps them ([`super::Ledger::run_labels`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeptLabels {
    /// The run's unexpired labels, oldest first, each once (at most
    /// [`MAX_RUN_LABELS`]; none for a run the ledger has no labels of).
    Labels(Vec<RunLabel>),
    /// The run's results raised more than [`MAX_RUN_LABELS`] distinct
    /// labels: the run is over until its labels expire, and its calls are
    /// refused ([`crate::history_fit::HistoryOverflow::Labels`]).
    Over {
        /// How many distinct labels are stored (at least
        /// [`MAX_STORED_LABELS`]).
        count: usize,
    },
}

impl KeptLabels {
    /// The answer for a run's stored labels, oldest first: `Over` when
    /// they are more than [`MAX_RUN_LABELS`].
    pub fn from_stored(labels: Vec<RunLabel>) -> KeptLabels {
        if labels.len() > MAX_RUN_LABELS {
            KeptLabels::Over {
                count: labels.len(),
            }
        } else {
            KeptLabels::Labels(labels)
        }
    }

    /// The labels, or the overflow a call of the run is refused with.
    ///
    /// # Errors
    /// [`crate::history_fit::HistoryOverflow::Labels`] for a run that is
    /// over.
    pub fn into_labels(self) -> Result<Vec<RunLabel>, crate::history_fit::HistoryOverflow> {
        match self {
            KeptLabels::Labels(labels) => Ok(labels),
            KeptLabels::Over { count } => Err(crate::history_fit::HistoryOverflow::Labels {
                count,
                limit: MAX_RUN_LABELS,
            }),
        }
    }
}

/// A label a ledger is to store ([`new_labels`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLabel<'a> {
    /// Lowercase hex sha256 of `json`: the label's identity in its run.
    pub sha256: String,
    /// The label as JSON, as the ledger stores it.
    pub json: String,
    /// The label.
    pub label: &'a RunLabel,
}

/// The sha256 (lowercase hex) of `json`, a label's stored text.
fn digest(json: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(json.as_bytes()))
}

/// Which of `labels` a ledger stores for a run that holds `kept` (the
/// [`NewLabel::sha256`] of every label it stores for the run, expired ones
/// deleted first), in order: those not kept yet, each once, and no more
/// than make the run's labels [`MAX_STORED_LABELS`] (a run past
/// [`MAX_RUN_LABELS`] is over, and more would only grow the store).
///
/// # Errors
/// [`LedgerError::Unavailable`] when a label cannot be written as JSON
/// (never, for its strings): nothing is stored.
pub fn new_labels<'a>(
    kept: &HashSet<String>,
    labels: &'a [RunLabel],
) -> Result<Vec<NewLabel<'a>>, LedgerError> {
    let room = MAX_STORED_LABELS.saturating_sub(kept.len());
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for label in labels {
        if out.len() >= room {
            break;
        }
        // Strings and a list of strings: the JSON of two labels is equal
        // exactly when the labels are.
        let json = serde_json::to_string(label)
            .map_err(|e| LedgerError::Unavailable(format!("a run label cannot be stored: {e}")))?;
        let sha256 = digest(&json);
        if kept.contains(&sha256) || !seen.insert(sha256.clone()) {
            continue;
        }
        out.push(NewLabel {
            sha256,
            json,
            label,
        });
    }
    Ok(out)
}

/// A label read back from a ledger's stored `json`.
///
/// # Errors
/// [`LedgerError::Corrupt`] naming `store` when it is not a label.
pub fn stored_label(json: &str, store: &str) -> Result<RunLabel, LedgerError> {
    serde_json::from_str(json)
        .map_err(|_| LedgerError::Corrupt(format!("{store}: a run label is unreadable")))
}

/// The expiry of labels added at `now` with a time to live of `ttl_ms`.
pub fn expiry(now: UnixMillis, ttl_ms: u64) -> UnixMillis {
    UnixMillis(now.0.saturating_add(ttl_ms))
}

impl Approvals {
    /// How long the ledger keeps a run's labels, in ms (`[approvals]
    /// label_ttl_s`).
    pub fn label_ttl_ms(&self) -> u64 {
        self.inner.settings.label_ttl_s.saturating_mul(1000)
    }

    /// The labels of `run` kept in the ledger, as of now
    /// ([`super::Ledger::run_labels`]).
    ///
    /// # Errors
    /// [`LedgerError`]: the caller refuses the call
    /// ([`super::rules::LEDGER`]).
    pub async fn run_labels(&self, run: &RunKey) -> Result<KeptLabels, LedgerError> {
        let (ledger, run) = (self.inner.ledger.clone(), run.clone());
        crate::runtime::on_runtime(async move { ledger.run_labels(&run, UnixMillis::now()).await })
            .await
            .map_err(task_failed)?
    }

    /// Keep `labels` for `run` in the ledger for `[approvals]
    /// label_ttl_s` from now ([`super::Ledger::add_run_labels`]); nothing
    /// is written when `labels` is empty.
    ///
    /// # Errors
    /// [`LedgerError`]: the labels are not kept, so the caller withholds
    /// the result that raised them ([`super::rules::LEDGER`]).
    pub async fn add_run_labels(
        &self,
        run: &RunKey,
        labels: &[RunLabel],
    ) -> Result<(), LedgerError> {
        if labels.is_empty() {
            return Ok(());
        }
        let (ledger, run, labels) = (self.inner.ledger.clone(), run.clone(), labels.to_vec());
        let ttl_ms = self.label_ttl_ms();
        crate::runtime::on_runtime(async move {
            ledger
                .add_run_labels(&run, &labels, UnixMillis::now(), ttl_ms)
                .await
        })
        .await
        .map_err(task_failed)?
    }
}

fn task_failed(e: tokio::task::JoinError) -> LedgerError {
    LedgerError::Unavailable(format!("the approvals task failed: {e}"))
}

/// A label as a result of `fetch` in call `call_id` raises it.
fn test_label(name: &str, call_id: &str) -> RunLabel {
    RunLabel {
        name: name.into(),
        values: Vec::new(),
        check: "injection-guard".into(),
        tool: "fetch".into(),
        call_id: call_id.into(),
    }
}

/// The run `id` of `principal` and `agent`.
fn run(principal: Option<&str>, agent: Option<&str>, id: &str) -> RunKey {
    RunKey::new(principal, agent, id)
}

/// `name@call_id` of each label, or `over N`.
fn label_names(kept: KeptLabels) -> Vec<String> {
    match kept {
        KeptLabels::Labels(l) => l
            .iter()
            .map(|l| format!("{}@{}", l.name, l.call_id))
            .collect(),
        KeptLabels::Over { count } => vec![format!("over {count}")],
    }
}

/// When the checked ledger's first labels are added.
const T0: UnixMillis = UnixMillis(1_000_000);
/// The time to live the checked ledger keeps labels for, in ms.
const TTL: u64 = 60_000;

/// The rules of this module, checked against `ledger` from an empty
/// store: dedupe, order, runs kept apart by principal and agent (`None` a
/// value of its own), the time to live of a run's labels, and the run over
/// [`MAX_RUN_LABELS`]. For the tests of every ledger, in this crate and
/// others (Postgres).
///
/// # Panics
/// Naming the rule `ledger` breaks, or on a ledger error.
pub async fn assert_keeps_labels_by_the_rules(ledger: &dyn super::Ledger) {
    let bob = run(Some("bob"), Some("ci"), "r1");
    let at = |ms: u64| UnixMillis(T0.0 + ms);
    assert_eq!(
        ledger.run_labels(&bob, T0).await.unwrap(),
        KeptLabels::Labels(vec![])
    );

    // Oldest first, each once (also within one add), values told apart.
    let mut with_value = test_label("untrusted-instructions", "c1");
    with_value.values = vec!["x@evil.test".into()];
    ledger
        .add_run_labels(
            &bob,
            &[
                test_label("untrusted-instructions", "c1"),
                test_label("secret-seen", "c1"),
            ],
            T0,
            TTL,
        )
        .await
        .unwrap();
    ledger
        .add_run_labels(
            &bob,
            &[
                test_label("secret-seen", "c1"),
                with_value.clone(),
                with_value.clone(),
                test_label("untrusted-instructions", "c2"),
            ],
            at(10),
            TTL,
        )
        .await
        .unwrap();
    let kept = ledger.run_labels(&bob, at(20)).await.unwrap();
    let KeptLabels::Labels(list) = &kept else {
        panic!("{kept:?}")
    };
    assert_eq!(list.len(), 4, "{list:?}");
    assert_eq!(list[2], with_value);
    assert_eq!(
        label_names(kept),
        [
            "untrusted-instructions@c1",
            "secret-seen@c1",
            "untrusted-instructions@c1",
            "untrusted-instructions@c2"
        ]
    );

    // Another principal, another agent, no principal: other runs.
    for other in [
        run(Some("mallory"), Some("ci"), "r1"),
        run(Some("bob"), Some("other"), "r1"),
        run(None, Some("ci"), "r1"),
        run(Some("bob"), None, "r1"),
        run(Some(""), Some("ci"), "r1"),
        run(Some("bob"), Some("ci"), "r2"),
    ] {
        assert_eq!(
            ledger.run_labels(&other, at(20)).await.unwrap(),
            KeptLabels::Labels(vec![]),
            "{other:?}"
        );
    }
    let anonymous = run(None, None, "r1");
    ledger
        .add_run_labels(&anonymous, &[test_label("secret-seen", "c9")], at(20), TTL)
        .await
        .unwrap();
    assert_eq!(
        label_names(ledger.run_labels(&anonymous, at(21)).await.unwrap()),
        ["secret-seen@c9"]
    );
    assert_eq!(
        ledger
            .run_labels(&bob, at(21))
            .await
            .unwrap()
            .into_labels()
            .unwrap()
            .len(),
        4
    );

    // The run's labels live TTL after the last add, all of them.
    assert_eq!(
        label_names(ledger.run_labels(&bob, at(10 + TTL - 1)).await.unwrap()).len(),
        4
    );
    assert_eq!(
        ledger.run_labels(&bob, at(10 + TTL)).await.unwrap(),
        KeptLabels::Labels(vec![])
    );
    // Expired labels do not come back when the run raises new ones.
    ledger
        .add_run_labels(&bob, &[test_label("secret-seen", "c3")], at(10 + TTL), TTL)
        .await
        .unwrap();
    assert_eq!(
        label_names(ledger.run_labels(&bob, at(10 + TTL)).await.unwrap()),
        ["secret-seen@c3"]
    );

    // Over MAX_RUN_LABELS the run is over, and stays so, until its
    // labels expire; the store keeps no more than MAX_STORED_LABELS.
    let flood = run(Some("bob"), Some("ci"), "flood");
    let many: Vec<RunLabel> = (0..MAX_RUN_LABELS - 1)
        .map(|i| test_label("untrusted-content", &format!("c{i}")))
        .collect();
    ledger.add_run_labels(&flood, &many, T0, TTL).await.unwrap();
    ledger
        .add_run_labels(
            &flood,
            &[test_label("last", "c"), test_label("last", "c")],
            T0,
            TTL,
        )
        .await
        .unwrap();
    let full = ledger
        .run_labels(&flood, T0)
        .await
        .unwrap()
        .into_labels()
        .unwrap();
    assert_eq!(full.len(), MAX_RUN_LABELS);
    assert_eq!(full[MAX_RUN_LABELS - 1].name, "last");
    let more: Vec<RunLabel> = (0..5)
        .map(|i| test_label("more", &format!("m{i}")))
        .collect();
    ledger
        .add_run_labels(&flood, &more, at(1), TTL)
        .await
        .unwrap();
    let over = ledger.run_labels(&flood, at(2)).await.unwrap();
    assert_eq!(
        over,
        KeptLabels::Over {
            count: MAX_STORED_LABELS
        }
    );
    let refused = over.into_labels().unwrap_err().to_string();
    assert!(refused.contains("over the limit of 1024"), "{refused}");
    ledger
        .add_run_labels(&flood, &more, at(3), TTL)
        .await
        .unwrap();
    assert_eq!(
        ledger.run_labels(&flood, at(3 + TTL - 1)).await.unwrap(),
        KeptLabels::Over {
            count: MAX_STORED_LABELS
        }
    );
    assert_eq!(
        ledger.run_labels(&flood, at(3 + TTL)).await.unwrap(),
        KeptLabels::Labels(vec![])
    );
}

#[cfg(test)]
mod tests {
    use super::super::{Ledger, MemoryLedger, SqliteLedger};
    use super::*;

    fn label(name: &str, call_id: &str) -> RunLabel {
        test_label(name, call_id)
    }

    fn labels(kept: KeptLabels) -> Vec<String> {
        label_names(kept)
    }

    #[tokio::test]
    async fn the_memory_ledger_keeps_labels_by_the_rules() {
        assert_keeps_labels_by_the_rules(&MemoryLedger::new()).await;
    }

    #[tokio::test]
    async fn the_sqlite_ledger_keeps_labels_by_the_rules_and_shares_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("approvals.db");
        let ledger = SqliteLedger::open(&path).unwrap();
        assert_keeps_labels_by_the_rules(&ledger).await;
        // Another process opening the same file sees them.
        let bob = run(Some("bob"), Some("ci"), "shared");
        ledger
            .add_run_labels(&bob, &[label("secret-seen", "c1")], T0, TTL)
            .await
            .unwrap();
        let other = SqliteLedger::open(&path).unwrap();
        assert_eq!(
            labels(other.run_labels(&bob, T0).await.unwrap()),
            ["secret-seen@c1"]
        );
        // Expired rows are deleted when labels are next added.
        let count = |path: &std::path::Path| -> i64 {
            rusqlite::Connection::open(path)
                .unwrap()
                .query_row("SELECT count(*) FROM run_labels", [], |r| r.get(0))
                .unwrap()
        };
        let before = count(&path);
        assert!(before > 1025, "{before}");
        // Each addition deletes its run's expired labels and a batch of
        // other runs' (the flooded run alone holds 1025).
        let late = UnixMillis(T0.0 + 100 * TTL);
        other
            .add_run_labels(&bob, &[label("secret-seen", "c2")], late, TTL)
            .await
            .unwrap();
        assert!(count(&path) < before - 1000, "{}", count(&path));
        other
            .add_run_labels(&bob, &[label("secret-seen", "c2")], late, TTL)
            .await
            .unwrap();
        assert_eq!(count(&path), 1);
        assert_eq!(
            labels(other.run_labels(&bob, late).await.unwrap()),
            ["secret-seen@c2"]
        );
    }

    /// A version 2 file (before run labels) is upgraded when opened; a
    /// file of a newer schema is refused, naming it.
    #[tokio::test]
    async fn an_older_sqlite_ledger_gains_the_labels_table_and_a_newer_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("approvals.db");
        drop(SqliteLedger::open(&path).unwrap());
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("DROP TABLE run_labels; PRAGMA user_version = 2;")
            .unwrap();
        drop(conn);
        let ledger = SqliteLedger::open(&path).unwrap();
        let bob = run(Some("bob"), None, "r1");
        ledger
            .add_run_labels(&bob, &[label("secret-seen", "c1")], T0, TTL)
            .await
            .unwrap();
        assert_eq!(
            labels(ledger.run_labels(&bob, T0).await.unwrap()),
            ["secret-seen@c1"]
        );
        let conn = rusqlite::Connection::open(&path).unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, 3);
        conn.execute_batch("PRAGMA user_version = 4;").unwrap();
        drop(conn);
        let refused = SqliteLedger::open(&path).unwrap_err().to_string();
        assert!(
            refused.contains("schema version 4") && refused.contains("approvals.db"),
            "{refused}"
        );
    }

    /// A ledger that keeps no labels refuses, so the caller fails closed.
    #[tokio::test]
    async fn a_ledger_without_labels_refuses() {
        #[derive(Debug)]
        struct Old;
        #[async_trait::async_trait]
        impl Ledger for Old {
            async fn open(
                &self,
                _: crate::approval::ApprovalRequest,
                _: UnixMillis,
                _: &crate::approval::PendingLimits,
            ) -> Result<crate::approval::Opened, LedgerError> {
                unreachable!()
            }
            async fn get(
                &self,
                _: &str,
            ) -> Result<Option<crate::approval::ApprovalRequest>, LedgerError> {
                unreachable!()
            }
            async fn decide(
                &self,
                _: &str,
                _: &crate::approval::Review,
                _: UnixMillis,
            ) -> Result<crate::approval::Decided, LedgerError> {
                unreachable!()
            }
            async fn consume(&self, _: &str, _: UnixMillis) -> Result<bool, LedgerError> {
                unreachable!()
            }
            async fn list(
                &self,
                _: &crate::approval::ListQuery,
                _: UnixMillis,
            ) -> Result<Vec<crate::approval::ApprovalRequest>, LedgerError> {
                unreachable!()
            }
            async fn run_grant(
                &self,
                _: &str,
                _: Option<&str>,
                _: Option<&str>,
                _: &str,
                _: &str,
            ) -> Result<Option<crate::approval::ApprovalRequest>, LedgerError> {
                unreachable!()
            }
            async fn latest(
                &self,
                _: &str,
                _: Option<&str>,
                _: Option<&str>,
                _: &str,
                _: &str,
            ) -> Result<Option<crate::approval::ApprovalRequest>, LedgerError> {
                unreachable!()
            }
            async fn ping(&self) -> Result<(), LedgerError> {
                Ok(())
            }
            fn default_realm(&self) -> String {
                "old".into()
            }
        }
        let bob = run(Some("bob"), None, "r1");
        assert!(Old.run_labels(&bob, T0).await.is_err());
        assert!(
            Old.add_run_labels(&bob, &[label("x", "c")], T0, TTL)
                .await
                .is_err()
        );
    }
}
