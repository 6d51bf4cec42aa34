//! A run's earlier calls, as the checks see them, kept by the front ends
//! that vet a whole run themselves (the MCP proxy, ExtMcp, `toolvet
//! serve`), and fitted by the one rule of [`crate::history_fit`] so that no
//! call, however large, makes the run's later calls too large to vet, and
//! none pushes earlier calls out.
//!
//! The host refuses a call whose whole text (arguments, tool info, context
//! and history) is over `max_call_bytes`, and keeps `max_history` entries.
//! A history kept by dropping its oldest entries let five ~950 kB calls
//! (denied ones too) flush every earlier call, and with it spend-guard's
//! run totals and the session's symbolic links. Now every entry keeps its
//! name, outcome and small arguments: large arguments are elided oldest
//! first (marked `toolvet.elided`), both in what is kept and in what the
//! checks are handed, within half of `max_call_bytes` and `max_history`
//! entries. A run whose history cannot fit even so is over: every later
//! call is refused naming the limit ([`crate::history_fit::OVERFLOW_RULE`]), and nothing more
//! is kept.
//!
//! [`Runs`] holds many runs' histories, at most a fixed number, each
//! keyed by its run id with the principal and agent it belongs to
//! ([`Runs::of`]). It is the one owner of the rule every front end keeping
//! runs follows (`toolvet serve`'s runs, ExtMcp's sessions): a full store
//! forgets only a run of the same principal and agent unused for
//! [`RUN_IDLE`], and otherwise refuses the new run ([`TooManyRuns`],
//! [`TOO_MANY_RUNS_RULE`]): forgetting a busy run, or another caller's,
//! would restart its run totals (reviews s13 M1, s14 N4, s20 T5).

use crate::approval::Approvals;
use crate::history_fit::{HistoryBudget, HistoryOverflow};
use crate::tool_result::{ResultVerdict, RunLabel};
use crate::verdict::{Decision, Verdict};
use crate::{call::Outcome, call::PriorCall, config::HostSettings};
use serde_json::value::RawValue;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The most earlier calls a session keeps: the largest `[host]
/// max_history` a policy may set. A session whose calls are more than its
/// policy's `max_history` is refused from then on.
pub const MAX_HISTORY: usize = 100_000;

/// A session's calls, oldest first, each with its sequence number (a
/// forwarded call is in it from the moment it is forwarded, and its
/// outcome is set once its answer comes).
#[derive(Debug, Default)]
pub struct RunHistory {
    entries: VecDeque<(u64, PriorCall)>,
    next_seq: u64,
    /// Set once the history could not be fitted: the session is over.
    overflow: Option<HistoryOverflow>,
    /// The labels the run's results raised, oldest first, each once.
    labels: Vec<RunLabel>,
}

/// Where a run's labels are kept ([`RunHistory::labels_in`],
/// [`RunHistory::keep_labels_in`]).
#[derive(Debug, Clone, Copy)]
pub enum LabelStore<'a> {
    /// In the run's [`RunHistory`]: this process only.
    History,
    /// In the approvals ledger, under the run's key, for `[approvals]
    /// label_ttl_s`: shared by every process on the ledger (replicas of
    /// `toolvet serve`).
    Ledger(&'a Approvals, &'a RunKey),
}

/// The most distinct labels a run keeps ([`RunHistory::record_labels`]);
/// a run whose results raise more is over, as one whose history overflows.
pub const MAX_RUN_LABELS: usize = 1024;

/// The budget of the history under `settings`
/// ([`HistoryBudget::for_checks`]).
pub fn budget(settings: &HostSettings) -> HistoryBudget {
    let mut budget = HistoryBudget::for_checks(settings);
    budget.max_entries = budget.max_entries.min(MAX_HISTORY);
    budget
}

impl RunHistory {
    /// Add a call; returns its sequence number. Arguments over the host's
    /// `max_arguments_bytes` (refused by the host anyway) are kept elided;
    /// then the history is fitted into [`budget`] (larger arguments elided,
    /// oldest first). When it cannot be, the session's history is over
    /// ([`RunHistory::for_checks`] refuses from then on) and nothing more is
    /// kept.
    pub fn record(
        &mut self,
        name: String,
        arguments: Box<RawValue>,
        outcome: Outcome,
        settings: &HostSettings,
    ) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        if self.overflow.is_some() {
            return seq;
        }
        let budget = budget(settings);
        let arguments =
            if arguments.get().len() > settings.max_arguments_bytes.min(budget.max_bytes) {
                crate::history_fit::elide(&arguments, budget.keep_whole_bytes)
            } else {
                arguments
            };
        self.entries.push_back((
            seq,
            PriorCall {
                name,
                arguments,
                outcome,
            },
        ));
        if let Err(overflow) = budget.fit_mut(self.entries.iter_mut().map(|(_, call)| call)) {
            tracing::warn!("the session's history is over: {overflow}");
            self.entries.clear();
            self.overflow = Some(overflow);
        }
        seq
    }

    /// Record that the call `seq`, recorded as passed, never reached the
    /// server, so did not run: its outcome becomes [`Outcome::Denied`].
    /// The only change of an outcome once recorded. A call that reached
    /// the server keeps the gate's verdict whatever the server answers
    /// (an error, `isError: true`) or if it never answers: the tool may
    /// have acted before it failed, and a run total or `max_calls` limit
    /// that forgot it would let the next call past (review s7 F7).
    pub fn not_sent(&mut self, seq: u64) {
        if let Some((_, call)) = self.entries.iter_mut().find(|(s, _)| *s == seq) {
            call.outcome = Outcome::Denied;
        }
    }

    /// Record the call `name` with `arguments` as `verdict` leaves it:
    /// allowed, denied or held; allowed by a person's approval is
    /// [`Outcome::Approved`]. A call whose newest entry of the same tool and
    /// arguments is held is that held call, not a new one, when it is
    /// approved (the entry becomes approved, so a run total counts it
    /// once), rejected (the entry becomes rejected), held again (asked
    /// about while it waits) or refused by the approval step (`approval.*`:
    /// a resume in another context, a spent ticket); nothing is added, so
    /// asking again is never a loop. Returns the entry's sequence number.
    pub fn record_verdict(
        &mut self,
        name: String,
        arguments: Box<RawValue>,
        verdict: &Verdict,
        settings: &HostSettings,
    ) -> u64 {
        let outcome = match verdict.decision {
            Decision::Allow if verdict.approval.is_some() => Outcome::Approved,
            Decision::Allow => Outcome::Allowed,
            Decision::Deny => Outcome::Denied,
            Decision::Escalate => Outcome::Escalated,
        };
        let rule = verdict.rule.as_deref().unwrap_or("");
        self.record_outcome(name, arguments, outcome, rule, settings)
    }

    /// [`RunHistory::record_verdict`] for a front end that decided the
    /// outcome itself (a person's answer in the client): `outcome`, by
    /// rule `rule` (`""` for none; an `approval.*` rule is a refusal by
    /// the approval step). The same rule for a held call coming again.
    pub fn record_outcome(
        &mut self,
        name: String,
        arguments: Box<RawValue>,
        outcome: Outcome,
        rule: &str,
        settings: &HostSettings,
    ) -> u64 {
        // The held call asked about again: the same call, not a new one
        // (review s13 M3: re-asks counted as a loop, and the loop then held
        // the approved resume).
        let same_held = outcome == Outcome::Approved
            || outcome == Outcome::Escalated
            || rule.starts_with("approval.");
        if same_held
            && self.overflow.is_none()
            && let Some((seq, held)) = self
                .entries
                .iter_mut()
                .rev()
                .find(|(_, c)| is_held(c, &name, &arguments))
        {
            match outcome {
                // It ran once a person approved it.
                Outcome::Approved => held.outcome = Outcome::Approved,
                // A person rejected it.
                Outcome::Denied if rule == crate::approval::rules::REJECTED => {
                    held.outcome = Outcome::Rejected;
                }
                // Still held, or a resume refused before it could run
                // (another context, a spent ticket): it is what it was.
                _ => {}
            }
            return *seq;
        }
        self.record(name, arguments, outcome, settings)
    }

    /// [`RunHistory::for_checks`] for vetting the call `name` with
    /// `arguments`: without that call's own held entry (the one still
    /// `escalated` of the same tool and arguments, at most one: a held call
    /// coming again adds none), since a held call asked about again or
    /// resumed is that call, and a run total or count must not hold it
    /// twice (review s14 N3). Every `escalated` entry here was held for a
    /// person and did not run.
    ///
    /// # Errors
    /// As [`RunHistory::for_checks`].
    pub fn for_call(
        &self,
        name: &str,
        arguments: &RawValue,
        settings: &HostSettings,
    ) -> Result<Vec<PriorCall>, HistoryOverflow> {
        let mut entries = self.for_checks(settings)?;
        if let Some(i) = self
            .entries
            .iter()
            .rposition(|(_, c)| is_held(c, name, arguments))
        {
            entries.remove(i);
        }
        Ok(entries)
    }

    /// The calls the checks see, oldest first: every one kept, fitted into
    /// [`budget`] (the settings may have changed since they were
    /// recorded).
    ///
    /// # Errors
    /// [`HistoryOverflow`] (its text names the limit) when the history
    /// could not be fitted, now or at an earlier call: the caller refuses
    /// the call rather than vet it with earlier calls left out.
    pub fn for_checks(&self, settings: &HostSettings) -> Result<Vec<PriorCall>, HistoryOverflow> {
        if let Some(overflow) = &self.overflow {
            return Err(overflow.clone());
        }
        let entries: Vec<PriorCall> = self.entries.iter().map(|(_, c)| c.clone()).collect();
        budget(settings).fit(&entries)
    }

    /// Keep the labels a result of this run raised
    /// ([`crate::tool_result::ResultVerdict::labels`]), each distinct one
    /// once. Over [`MAX_RUN_LABELS`] the run is over: every later call is
    /// refused ([`RunHistory::for_checks`]), never vetted with a label
    /// left out.
    pub fn record_labels(&mut self, labels: &[RunLabel]) {
        if self.overflow.is_some() {
            return;
        }
        for label in labels {
            if !self.labels.contains(label) {
                self.labels.push(label.clone());
            }
        }
        if self.labels.len() > MAX_RUN_LABELS {
            let count = self.labels.len();
            tracing::warn!("the session's labels are over: {count}");
            self.entries.clear();
            self.labels.clear();
            self.overflow = Some(HistoryOverflow::Labels {
                count,
                limit: MAX_RUN_LABELS,
            });
        }
    }

    /// The labels the run's results raised, oldest first (for
    /// `context.labels`; empty once the run is over, whose calls
    /// [`RunHistory::for_checks`] refuses).
    pub fn labels(&self) -> &[RunLabel] {
        &self.labels
    }

    /// The labels the run's results raised, oldest first, from `store`:
    /// this history's own ([`RunHistory::labels`]) or the approvals
    /// ledger's, which every process sharing the ledger keeps
    /// ([`crate::approval::Approvals::run_labels`]).
    ///
    /// # Errors
    /// The deny verdict to refuse the call (or withhold the result) with,
    /// never vetted without the run's labels: the ledger's run is over
    /// ([`crate::history_fit::OVERFLOW_RULE`], as
    /// [`RunHistory::record_labels`] makes a history's), or the ledger
    /// cannot be read ([`crate::approval::rules::LEDGER`]).
    pub async fn labels_in(&self, store: LabelStore<'_>) -> Result<Vec<RunLabel>, Verdict> {
        let LabelStore::Ledger(approvals, run) = store else {
            return Ok(self.labels.clone());
        };
        match approvals.run_labels(run).await {
            Ok(kept) => kept.into_labels().map_err(|over| over.verdict()),
            Err(e) => {
                tracing::error!(target: "toolvet::approvals", "{e}; the run's labels cannot be read");
                Err(Verdict::by_host(
                    Decision::Deny,
                    crate::approval::rules::LEDGER,
                    "the approval ledger cannot be reached, so the labels this run's results \
                     raised cannot be read; toolvet does not vet the run without them, so this \
                     is refused (try again later)",
                    Vec::new(),
                ))
            }
        }
    }

    /// Keep `labels`, raised by a result of the run, in `store` for the
    /// run's later calls: this history ([`RunHistory::record_labels`]) or
    /// the approvals ledger, for `[approvals] label_ttl_s`
    /// ([`crate::approval::Approvals::add_run_labels`]).
    ///
    /// # Errors
    /// The verdict to answer the result with instead when the ledger
    /// cannot keep them: withheld ([`crate::approval::rules::LEDGER`]),
    /// since a later call would be vetted as if the model had not read it.
    pub async fn keep_labels_in(
        &mut self,
        store: LabelStore<'_>,
        labels: &[RunLabel],
    ) -> Result<(), ResultVerdict> {
        let LabelStore::Ledger(approvals, run) = store else {
            self.record_labels(labels);
            return Ok(());
        };
        approvals.add_run_labels(run, labels).await.map_err(|e| {
            tracing::error!(target: "toolvet::approvals", "{e}; the result is withheld");
            ResultVerdict::withheld_by_host(
                crate::approval::rules::LEDGER,
                "the approval ledger cannot be reached, so the labels this result raised cannot \
                 be kept for the run's later calls; the result is withheld (try again later)"
                    .into(),
            )
        })
    }

    /// How many calls are kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no call is kept.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Whether `entry` is the held call `name` with `arguments`: still
/// `escalated`, the same tool, and the same arguments by their canonical
/// digest (a resume may spell them in another key order, review s15 N7).
fn is_held(entry: &PriorCall, name: &str, arguments: &RawValue) -> bool {
    entry.outcome == Outcome::Escalated
        && entry.name == name
        && (entry.arguments.get() == arguments.get()
            || crate::call::arguments_sha256(entry.arguments.get())
                == crate::call::arguments_sha256(arguments.get()))
}

/// How long a run must go unused before a new run of the same principal
/// and agent may forget it to make room ([`Runs::of`]).
pub const RUN_IDLE: std::time::Duration = std::time::Duration::from_secs(600);

/// The rule of a new run refused because every kept run is in use
/// ([`TooManyRuns::verdict`]).
pub const TOO_MANY_RUNS_RULE: &str = "toolvet.too-many-runs";

/// A new run refused by [`Runs::of`]: the store is full, and no run of the
/// same principal and agent has been idle for [`RUN_IDLE`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooManyRuns {
    /// How many runs the store keeps at most.
    pub capacity: usize,
}

impl TooManyRuns {
    /// The verdict a front end answers the call with: deny,
    /// [`TOO_MANY_RUNS_RULE`], a reason naming the limit; `limit` names
    /// the setting or constant that sets it (e.g. `[serve] max_runs`).
    pub fn verdict(&self, limit: &str) -> Verdict {
        Verdict::by_host(
            Decision::Deny,
            TOO_MANY_RUNS_RULE,
            format!(
                "the server keeps the history of at most {} runs ({limit}), and none of \
                 this principal and agent has been idle for {} minutes; a new run is refused \
                 rather than forget a run's earlier calls",
                self.capacity,
                RUN_IDLE.as_secs() / 60
            ),
            Vec::new(),
        )
    }
}

/// Many runs' histories by key (a run id with the principal and agent it
/// belongs to: [`Runs::of`]), each behind its own lock so a run's calls
/// are vetted one at a time, each against every call before it. At most
/// `capacity` runs are kept; a new run beyond it only ever forgets an idle
/// run of its own principal and agent, else it is refused.
#[derive(Debug)]
pub struct Runs {
    capacity: usize,
    /// Per key: the run, when it was last used, and its owner.
    runs: Mutex<HashMap<String, (SharedRun, Instant, String)>>,
}

/// One run's history, locked while one of its calls is vetted.
pub type SharedRun = Arc<tokio::sync::Mutex<RunHistory>>;

/// A run: its `run_id` with the principal and agent its calls speak for.
/// Two principals (or agents) naming the same run id are two runs; `None`
/// is a value of its own (it matches only `None`), as for approvals
/// ([`crate::approval::ledger_rules::same_asker`]). The key a run's
/// history is kept under in [`Runs`], and its labels in the approvals
/// ledger ([`crate::approval::Ledger::run_labels`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RunKey {
    /// The principal the run's calls speak for.
    pub principal: Option<String>,
    /// The agent making the calls.
    pub agent: Option<String>,
    /// The run id.
    pub run_id: String,
}

impl RunKey {
    /// The run `run_id` of `principal` and `agent`.
    pub fn new(principal: Option<&str>, agent: Option<&str>, run_id: &str) -> RunKey {
        RunKey {
            principal: principal.map(str::to_string),
            agent: agent.map(str::to_string),
            run_id: run_id.to_string(),
        }
    }

    /// The key as one string, as stores keep it: the JSON array
    /// `[principal, agent, run_id]` (`null` for `None`, so no principal is
    /// never the empty one).
    pub fn stored(&self) -> String {
        serde_json::json!([self.principal, self.agent, self.run_id]).to_string()
    }

    /// The owner of the run: the JSON array `[principal, agent]`.
    fn owner(&self) -> String {
        serde_json::json!([self.principal, self.agent]).to_string()
    }
}

/// The key of the run `run_id` of `principal` and `agent`, and its owner.
fn run_key(principal: Option<&str>, agent: Option<&str>, run_id: &str) -> (String, String) {
    let run = RunKey::new(principal, agent, run_id);
    (run.stored(), run.owner())
}

impl Runs {
    /// An empty set of at most `capacity` runs (at least 1).
    pub fn new(capacity: usize) -> Runs {
        Runs {
            capacity: capacity.max(1),
            runs: Mutex::new(HashMap::new()),
        }
    }

    /// The history of the run `run_id` of `principal` and `agent` (as the
    /// checks see them), a new empty one the first time. Two principals
    /// (or agents) naming the same run id never share a run, so one's
    /// calls never satisfy another's sequence rules (review s20 T5).
    ///
    /// # Errors
    /// [`TooManyRuns`] when the store is full and no run of the same
    /// principal and agent has been idle for [`RUN_IDLE`]: the caller
    /// refuses the call ([`TooManyRuns::verdict`]).
    pub fn of(
        &self,
        principal: Option<&str>,
        agent: Option<&str>,
        run_id: &str,
    ) -> Result<SharedRun, TooManyRuns> {
        let (key, owner) = run_key(principal, agent, run_id);
        self.try_run(&key, &owner, RUN_IDLE).ok_or(TooManyRuns {
            capacity: self.capacity,
        })
    }

    /// The history of the run [`Runs::of`] would give, when it is kept;
    /// never makes one (for what only reads a run, e.g. which tools a
    /// session's list hides).
    pub fn kept(
        &self,
        principal: Option<&str>,
        agent: Option<&str>,
        run_id: &str,
    ) -> Option<SharedRun> {
        let (key, _) = run_key(principal, agent, run_id);
        let runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        runs.get(&key).map(|(run, _, _)| run.clone())
    }

    /// The history of the run `key` of `owner` (the principal and agent it
    /// belongs to; [`Runs::of`] makes both), a new empty one the first
    /// time; a run is forgotten to make room only when
    /// it is `owner`'s own and has not been used for `min_idle`: `None`
    /// when no such run is kept (the caller refuses the new run rather
    /// than let a burst of new runs reset run totals: its own busy runs',
    /// review s13 M1, or another owner's, review s14 N4).
    pub fn try_run(
        &self,
        key: &str,
        owner: &str,
        min_idle: std::time::Duration,
    ) -> Option<SharedRun> {
        let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        if let Some((run, used, _)) = runs.get_mut(key) {
            *used = now;
            return Some(run.clone());
        }
        if runs.len() >= self.capacity {
            let oldest = runs
                .iter()
                .filter(|(_, (_, _, o))| o == owner)
                .min_by_key(|(_, (_, used, _))| *used)
                .map(|(k, (_, used, _))| (k.clone(), *used))?;
            if now.duration_since(oldest.1) < min_idle {
                return None;
            }
            tracing::warn!(
                "{} runs are kept, the limit: this caller's least recently used idle run is \
                 forgotten, history and all",
                runs.len()
            );
            runs.remove(&oldest.0);
        }
        let run = SharedRun::default();
        runs.insert(key.to_string(), (run.clone(), now, owner.to_string()));
        Some(run)
    }

    /// How many runs are kept.
    pub fn len(&self) -> usize {
        self.runs.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether no run is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history_fit::{ELIDED_KEY, is_elided};

    fn raw(text: String) -> Box<RawValue> {
        RawValue::from_string(text).unwrap()
    }

    fn settings() -> HostSettings {
        HostSettings::default()
    }

    #[test]
    fn a_held_call_coming_again_is_vetted_without_its_own_entry() {
        let s = settings();
        let mut h = RunHistory::default();
        let pay = || raw(r#"{"amount":900}"#.into());
        h.record("read".into(), raw("{}".into()), Outcome::Allowed, &s);
        h.record_outcome("pay".into(), pay(), Outcome::Escalated, "", &s);
        // Asked again: added nothing; vetted without its held entry.
        h.record_outcome("pay".into(), pay(), Outcome::Escalated, "", &s);
        assert_eq!(h.len(), 2);
        let names = |v: Vec<PriorCall>| v.into_iter().map(|c| c.name).collect::<Vec<_>>();
        assert_eq!(names(h.for_call("pay", &pay(), &s).unwrap()), ["read"]);
        // Another call sees the held one.
        let other = raw(r#"{"amount":1}"#.into());
        assert_eq!(
            names(h.for_call("pay", &other, &s).unwrap()),
            ["read", "pay"]
        );
        // Resumed, its arguments in another key order (review s15 N7): the
        // entry becomes approved, and counts for what follows.
        let reordered = raw(r#"{ "amount": 900 }"#.into());
        assert_eq!(names(h.for_call("pay", &reordered, &s).unwrap()), ["read"]);
        h.record_outcome("pay".into(), reordered, Outcome::Approved, "", &s);
        assert_eq!(h.len(), 2);
        assert_eq!(
            names(h.for_call("pay", &pay(), &s).unwrap()),
            ["read", "pay"]
        );
    }

    #[test]
    fn one_huge_call_never_makes_later_calls_too_large() {
        let s = settings();
        assert_eq!(
            s.max_call_bytes,
            8 << 20,
            "the default the finding was seen with"
        );
        let mut h = RunHistory::default();
        h.record(
            "read".into(),
            raw(r#"{"path":"a"}"#.into()),
            Outcome::Allowed,
            &s,
        );
        // 9 MB of arguments: kept elided, name, outcome and small values
        // kept.
        let huge = format!(r#"{{"path":"b","text":"{}"}}"#, "x".repeat(9 << 20));
        h.record("write".into(), raw(huge), Outcome::Denied, &s);
        let seen = h.for_checks(&s).unwrap();
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[1].name, "write");
        let args: serde_json::Value = serde_json::from_str(seen[1].arguments.get()).unwrap();
        assert_eq!(args["path"], "b");
        assert!(args[ELIDED_KEY].is_object(), "{args}");
        assert_eq!(seen[1].outcome, Outcome::Denied);
        let bytes: usize = seen.iter().map(HistoryBudget::entry_bytes).sum();
        assert!(bytes <= budget(&s).max_bytes, "{bytes}");
    }

    /// Fifth review F3 through `toolvet mcp`: 21 payments, then five
    /// ~950 kB calls (denied), flushed every payment out of what the
    /// checks saw, and spend-guard's run total restarted from zero.
    #[test]
    fn large_calls_never_push_earlier_calls_out() {
        let s = settings();
        let mut h = RunHistory::default();
        for i in 0..21 {
            h.record(
                "pay_invoice".into(),
                raw(format!(r#"{{"amount":{},"currency":"USD"}}"#, 90 + i % 10)),
                Outcome::Allowed,
                &s,
            );
        }
        let big = format!(
            r#"{{"path":"big.txt","content":"{}"}}"#,
            "A".repeat(950_000)
        );
        for _ in 0..5 {
            h.record("write_file".into(), raw(big.clone()), Outcome::Denied, &s);
        }
        let seen = h.for_checks(&s).unwrap();
        assert_eq!(seen.len(), 26, "no call dropped");
        let payments: Vec<&str> = seen
            .iter()
            .filter(|c| c.name == "pay_invoice" && c.outcome == Outcome::Allowed)
            .map(|c| c.arguments.get())
            .collect();
        assert_eq!(payments.len(), 21);
        assert_eq!(payments[0], r#"{"amount":90,"currency":"USD"}"#);
        let bytes: usize = seen.iter().map(HistoryBudget::entry_bytes).sum();
        assert!(bytes <= budget(&s).max_bytes, "{bytes}");
        // The oldest big ones were elided, the newest kept whole.
        assert!(is_elided(&seen[21].arguments));
        assert_eq!(seen[25].arguments.get(), big);
        // A small call after them is recorded and seen, the payments too.
        h.record("ls".into(), raw("{}".into()), Outcome::Allowed, &s);
        let seen = h.for_checks(&s).unwrap();
        assert_eq!(seen.len(), 27);
        assert_eq!(seen[0].name, "pay_invoice");
    }

    /// Review s7 F7: only a call that never reached the server becomes
    /// denied; the others keep the gate's outcome.
    #[test]
    fn only_a_call_never_sent_becomes_denied() {
        let s = settings();
        let mut h = RunHistory::default();
        let pay = |h: &mut RunHistory, outcome| {
            h.record(
                "pay_invoice".into(),
                raw(r#"{"amount":99,"currency":"USD"}"#.into()),
                outcome,
                &s,
            )
        };
        let sent = pay(&mut h, Outcome::Allowed);
        let unsent = pay(&mut h, Outcome::Approved);
        let third = pay(&mut h, Outcome::Approved);
        h.not_sent(unsent);
        let outcomes: Vec<Outcome> = h
            .for_checks(&s)
            .unwrap()
            .iter()
            .map(|c| c.outcome)
            .collect();
        assert_eq!(
            outcomes,
            [Outcome::Allowed, Outcome::Denied, Outcome::Approved]
        );
        assert!(sent < unsent && unsent < third);
    }

    #[test]
    fn past_max_history_the_session_is_refused_never_reset() {
        let mut s = settings();
        s.max_history = 3;
        let mut h = RunHistory::default();
        for i in 0..3 {
            h.record(format!("c{i}"), raw("{}".into()), Outcome::Allowed, &s);
        }
        assert_eq!(h.for_checks(&s).unwrap().len(), 3);
        h.record("c3".into(), raw("{}".into()), Outcome::Allowed, &s);
        let e = h.for_checks(&s).unwrap_err().to_string();
        assert!(
            e.contains("max_history") && e.contains("4 earlier calls"),
            "{e}"
        );
        // And stays so: nothing more is kept.
        h.record("c4".into(), raw("{}".into()), Outcome::Allowed, &s);
        assert!(h.for_checks(&s).is_err());
        assert_eq!(h.len(), 0);
        // A policy with a smaller max_history than what was kept.
        let mut h = RunHistory::default();
        for i in 0..3 {
            h.record(format!("c{i}"), raw("{}".into()), Outcome::Allowed, &s);
        }
        s.max_history = 2;
        assert!(h.for_checks(&s).is_err());
    }

    fn approved() -> Verdict {
        let mut v = Verdict::by_host(Decision::Allow, "approval.approved", "approved", Vec::new());
        v.approval = Some(crate::approval::types::VerdictApproval {
            id: "apr_1".into(),
            status: crate::approval::types::ApprovalStatus::Consumed,
            ticket: None,
            created_at: crate::approval::types::UnixMillis(0),
            expires_at: crate::approval::types::UnixMillis(0),
            escalations: Vec::new(),
            reviewer: Some("carol".into()),
            message: None,
            scope: None,
            opened: false,
        });
        v
    }

    /// A held call that a person approved and that then ran is one entry,
    /// approved, not a held one and an approved one (a run total would
    /// count the payment twice).
    #[test]
    fn a_resumed_call_takes_the_place_of_the_held_one() {
        let s = settings();
        let mut h = RunHistory::default();
        let pay = || raw(r#"{"amount":500,"currency":"USD"}"#.into());
        let allow = Verdict::by_host(Decision::Allow, "r", "ok", Vec::new());
        let held = Verdict::by_host(Decision::Escalate, "spend.soft", "ask", Vec::new());
        let deny = Verdict::by_host(Decision::Deny, "spend.hard", "no", Vec::new());
        h.record_verdict("ls".into(), raw("{}".into()), &allow, &s);
        let first = h.record_verdict("pay".into(), pay(), &held, &s);
        h.record_verdict("pay".into(), raw(r#"{"amount":1}"#.into()), &deny, &s);
        let resumed = h.record_verdict("pay".into(), pay(), &approved(), &s);
        assert_eq!(first, resumed);
        let seen = h.for_checks(&s).unwrap();
        let outcomes: Vec<(&str, Outcome)> =
            seen.iter().map(|c| (c.name.as_str(), c.outcome)).collect();
        assert_eq!(
            outcomes,
            [
                ("ls", Outcome::Allowed),
                ("pay", Outcome::Approved),
                ("pay", Outcome::Denied)
            ]
        );
        // Approved again (a run-scope grant): a new entry.
        h.record_verdict("pay".into(), pay(), &approved(), &s);
        assert_eq!(h.len(), 4);
        assert_eq!(h.for_checks(&s).unwrap()[3].outcome, Outcome::Approved);
    }

    #[test]
    fn a_full_set_refuses_a_new_run_until_one_is_idle() {
        let runs = Runs::new(2);
        let idle = std::time::Duration::from_secs(600);
        assert!(runs.try_run("a", "o", idle).is_some());
        assert!(runs.try_run("b", "o", idle).is_some());
        assert!(runs.try_run("c", "o", idle).is_none(), "a and b are in use");
        assert!(
            runs.try_run("a", "o", idle).is_some(),
            "a kept run is still served"
        );
        assert!(runs.try_run("c", "o", std::time::Duration::ZERO).is_some());
        assert_eq!(runs.len(), 2);
    }

    /// Review s14 N4: another owner's new runs never make room by
    /// forgetting a run, however long it has been idle.
    #[test]
    fn a_new_run_forgets_only_an_idle_run_of_its_own_owner() {
        let runs = Runs::new(2);
        let none = std::time::Duration::ZERO;
        let alice = runs.try_run("alice-1", "alice", none).unwrap();
        alice.try_lock().unwrap().record(
            "pay".into(),
            RawValue::from_string("{}".into()).unwrap(),
            Outcome::Allowed,
            &HostSettings::default(),
        );
        assert!(runs.try_run("mallory-1", "mallory", none).is_some());
        assert!(runs.try_run("mallory-2", "mallory", none).is_some());
        assert!(runs.try_run("mallory-3", "mallory", none).is_some());
        let kept = runs.try_run("alice-1", "alice", none).unwrap();
        assert_eq!(kept.try_lock().unwrap().len(), 1, "alice's run is kept");
        assert!(runs.try_run("mallory-4", "bob", none).is_none());
    }

    /// Review s13 M3: a held call asked about again while it waits, or a
    /// resume refused by the approval step, is the held call, not a new
    /// identical one (three of them made a loop that held the approved
    /// resume).
    #[test]
    fn asking_again_about_a_held_call_adds_nothing() {
        let s = settings();
        let mut h = RunHistory::default();
        let call = || raw(r#"{"env":"staging"}"#.into());
        let held = Verdict::by_host(
            Decision::Escalate,
            "policy.requires-approval",
            "ask",
            vec![],
        );
        let moved = Verdict::by_host(Decision::Deny, "approval.context-changed", "no", vec![]);
        let first = h.record_verdict("rotate".into(), call(), &held, &s);
        for _ in 0..3 {
            assert_eq!(h.record_verdict("rotate".into(), call(), &held, &s), first);
            assert_eq!(h.record_verdict("rotate".into(), call(), &moved, &s), first);
        }
        assert_eq!(h.len(), 1);
        assert_eq!(
            h.record_verdict("rotate".into(), call(), &approved(), &s),
            first
        );
        assert_eq!(h.for_checks(&s).unwrap()[0].outcome, Outcome::Approved);
        // A rejection: the held entry is rejected.
        h.record_verdict("rotate".into(), raw("{}".into()), &held, &s);
        let rejected = Verdict::by_host(Decision::Deny, "approval.rejected", "no", vec![]);
        h.record_verdict("rotate".into(), raw("{}".into()), &rejected, &s);
        let seen = h.for_checks(&s).unwrap();
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[1].outcome, Outcome::Rejected);
        // A check's deny of the same call is a call of its own.
        let denied = Verdict::by_host(Decision::Deny, "shell.rm-home", "no", vec![]);
        h.record_verdict("rotate".into(), raw("{}".into()), &denied, &s);
        assert_eq!(h.len(), 3);
    }

    /// Review s20 T5: runs are kept apart by principal and agent (one
    /// principal's calls never satisfy another's sequence rules), and a
    /// full store refuses a new run rather than forget a busy one.
    #[test]
    fn runs_are_kept_apart_by_principal_and_a_full_store_refuses() {
        let s = settings();
        let runs = Runs::new(2);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let dave = runs.of(Some("dave"), None, "shared").unwrap();
            dave.lock()
                .await
                .record("x".into(), raw("{}".into()), Outcome::Allowed, &s);
            let mallory = runs.of(Some("mallory"), None, "shared").unwrap();
            assert!(mallory.lock().await.is_empty(), "another principal's run");
            assert!(runs.kept(Some("dave"), Some("bot"), "shared").is_none());
            assert_eq!(
                runs.of(Some("mallory"), None, "burst-1").err(),
                Some(TooManyRuns { capacity: 2 })
            );
            let again = runs.kept(Some("dave"), None, "shared").unwrap();
            assert_eq!(again.lock().await.len(), 1, "dave's run is kept");
            let refused = TooManyRuns { capacity: 2 }.verdict("[serve] max_runs");
            assert_eq!(refused.rule.as_deref(), Some(TOO_MANY_RUNS_RULE));
            assert_eq!(refused.decision, Decision::Deny);
        });
    }
}
