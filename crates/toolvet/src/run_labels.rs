//! The labels a run's results raised, kept for the front ends whose
//! callers hand over each call themselves, history included: the Node and
//! Python bindings. A caller may say what its run did (the packages' gates
//! keep and send `context.history`), but never which labels its run has:
//! a label is raised by a result check and must reach every later call of
//! the run ([`crate::CallContext::labels`]), or an agent that read untrusted
//! content could act as if it had not. So the binding's host keeps them
//! here, per run, and a call or result that carries labels of its own is
//! refused.
//!
//! A run is a `run_id` with the principal and agent the call speaks for,
//! kept in a [`Runs`] store (its rule for a full store: only an idle run
//! of the same principal and agent is forgotten to make room, else the new
//! run is refused). Calls and results without a `run_id` share one run per
//! principal and agent (the packages' gates treat them as one run too): a
//! label one of them raised reaches all of them, which vets more strictly,
//! never less. Only results make a run: a call reads the labels of a run
//! that is kept, and a run that never raised a label has none.

use crate::run_history::{RunHistory, Runs, SharedRun};
use crate::tool_result::RunLabel;
use crate::tool_result::{ResultVerdict, ToolResult};
use crate::verdict::{Decision, Verdict};
use crate::{CallContext, CallRequest, Host};
use std::sync::Arc;

/// The rule of a call or result refused because it carries
/// `context.labels` of its own (the rule of every invalid call).
pub const LABELS_SENT_RULE: &str = "toolvet.invalid-call";

/// Why a call or result that carries `context.labels` is refused (what
/// [`RunLabels`] answers, with [`LABELS_SENT_RULE`]).
pub const LABELS_SENT: &str = "`context.labels`: the host keeps each run's labels itself \
     (raised by its result checks), so a call may not send any: send it without \
     `context.labels`, with its `run_id`";

/// How many runs' labels [`RunLabels::default`] keeps.
pub const DEFAULT_LABEL_RUNS: usize = 4096;

/// The store key of calls that name no run: a run id no gate sends (a
/// caller that named it would only share these labels, never remove any).
const RUN_LESS: &str = "\u{0}toolvet:run-less";

/// The labels of many runs (see the module's documentation). Cheap to
/// clone: clones share the runs.
#[derive(Debug, Clone)]
pub struct RunLabels {
    runs: Arc<Runs>,
}

impl Default for RunLabels {
    fn default() -> Self {
        RunLabels::new(DEFAULT_LABEL_RUNS)
    }
}

impl RunLabels {
    /// An empty store of at most `capacity` runs (at least 1).
    pub fn new(capacity: usize) -> RunLabels {
        RunLabels {
            runs: Arc::new(Runs::new(capacity)),
        }
    }

    /// The store key of `context`'s run: its principal, agent and run id
    /// (the shared run-less one without a run id).
    fn key(context: &CallContext) -> (Option<&str>, Option<&str>, &str) {
        (
            context.principal.as_deref(),
            context.agent.as_deref(),
            context.run_id.as_deref().unwrap_or(RUN_LESS),
        )
    }

    /// The run of `context`, when it is kept.
    fn kept(&self, context: &CallContext) -> Option<SharedRun> {
        let (principal, agent, run) = Self::key(context);
        self.runs.kept(principal, agent, run)
    }

    /// The labels kept for the run `context` names (`run_id`, `principal`,
    /// `agent`; no `run_id`: the calls that name none), oldest first:
    /// copies, for inspection. Blocks on the run's lock: call it off any
    /// async runtime.
    pub fn labels_blocking(&self, context: &CallContext) -> Vec<RunLabel> {
        self.kept(context)
            .map(|run| run.blocking_lock().labels().to_vec())
            .unwrap_or_default()
    }

    /// Put into `request`'s `context.labels` the labels its run's results
    /// raised so far, oldest first (none for a run no result of which
    /// raised one). Makes no run.
    ///
    /// Returns `None` when the call may be vetted, else the deny verdict to
    /// answer it with instead: [`LABELS_SENT_RULE`] when it carries labels
    /// of its own ([`LABELS_SENT`]); the history overflow's
    /// ([`crate::history_fit::OVERFLOW_RULE`]) when its run raised more
    /// than [`crate::run_history::MAX_RUN_LABELS`] labels.
    #[must_use]
    pub async fn label_call(&self, host: &Host, request: &mut CallRequest) -> Option<Verdict> {
        if let Some(refused) = refuse_sent(request) {
            return Some(refused);
        }
        let run = self.kept(&request.context)?;
        let run = run.lock().await;
        fill(&run, host, request)
    }

    /// [`RunLabels::label_call`] for synchronous callers (as
    /// [`Host::check_blocking`]), without copying the request. Blocks on
    /// the run's lock: call it off any async runtime.
    #[must_use]
    pub fn label_call_blocking(&self, host: &Host, request: &mut CallRequest) -> Option<Verdict> {
        if let Some(refused) = refuse_sent(request) {
            return Some(refused);
        }
        let run = self.kept(&request.context)?;
        let run = run.blocking_lock();
        fill(&run, host, request)
    }

    /// Vet `result` of `request`'s call ([`Host::check_result`]) with its
    /// run's labels, and keep the labels the verdict raises for the run's
    /// later calls (one result of a run at a time, so none is lost).
    ///
    /// Never fails: a result that carries labels of its own
    /// ([`LABELS_SENT_RULE`]), one of a new run the full store refuses
    /// ([`crate::run_history::TOO_MANY_RUNS_RULE`]) or of a run whose
    /// labels overflowed is withheld, with the reason a call would be
    /// refused for.
    pub async fn check_result(
        &self,
        host: &Host,
        request: &CallRequest,
        result: &ToolResult,
    ) -> ResultVerdict {
        if !request.context.labels.is_empty() {
            return ResultVerdict::withheld_by_host(LABELS_SENT_RULE, LABELS_SENT.into());
        }
        let (principal, agent, run_id) = Self::key(&request.context);
        let run = match self.runs.of(principal, agent, run_id) {
            Ok(run) => run,
            Err(full) => return withheld(full.verdict("the binding's run store")),
        };
        let mut run = run.lock().await;
        if let Err(overflow) = run.for_checks(&host.settings()) {
            return withheld(overflow.verdict());
        }
        let mut labelled = request.clone();
        labelled.context.labels = run.labels().to_vec();
        let verdict = host.check_result(&labelled, result).await;
        run.record_labels(&verdict.labels);
        verdict
    }

    /// [`RunLabels::check_result`] for synchronous callers (as
    /// [`Host::check_result_blocking`]).
    pub fn check_result_blocking(
        &self,
        host: &Host,
        request: &CallRequest,
        result: &ToolResult,
    ) -> ResultVerdict {
        let (labels, host) = (self.clone(), host.clone());
        let (request, result) = (request.clone(), result.clone());
        crate::block_on(async move { labels.check_result(&host, &request, &result).await })
    }
}

/// The deny for a call that carries labels of its own.
fn refuse_sent(request: &CallRequest) -> Option<Verdict> {
    (!request.context.labels.is_empty())
        .then(|| Verdict::by_host(Decision::Deny, LABELS_SENT_RULE, LABELS_SENT, Vec::new()))
}

/// Put `run`'s labels into `request`, unless they overflowed (then the
/// deny to answer with).
fn fill(run: &RunHistory, host: &Host, request: &mut CallRequest) -> Option<Verdict> {
    if let Err(overflow) = run.for_checks(&host.settings()) {
        return Some(overflow.verdict());
    }
    request.context.labels = run.labels().to_vec();
    None
}

/// A result withheld for the reason a call of its run is refused.
fn withheld(refused: Verdict) -> ResultVerdict {
    ResultVerdict::withheld_by_host(
        refused.rule.as_deref().unwrap_or("toolvet.host-error"),
        refused.reason.unwrap_or_default(),
    )
}
