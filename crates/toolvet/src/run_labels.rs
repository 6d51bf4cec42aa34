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
//! run is refused). A call or result without a `run_id` belongs to no run:
//! its labels are only answered. Only results make a run: a call reads the
//! labels of a run that is kept, and a run that never raised a label has
//! none.

use crate::run_history::{Runs, SharedRun};
use crate::tool_result::{ResultVerdict, ToolResult};
use crate::verdict::{Decision, Verdict};
use crate::{CallRequest, Host};
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
pub const DEFAULT_LABEL_RUNS: usize = 1024;

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

    /// The run of `request`, when it names one and it is kept.
    fn kept(&self, request: &CallRequest) -> Option<SharedRun> {
        let context = &request.context;
        let run_id = context.run_id.as_deref()?;
        self.runs.kept(
            context.principal.as_deref(),
            context.agent.as_deref(),
            run_id,
        )
    }

    /// Put into `request`'s `context.labels` the labels its run's results
    /// raised so far, oldest first (none for a call without a `run_id`, or
    /// of a run no result of which raised one). Makes no run.
    ///
    /// Returns `None` when the call may be vetted, else the deny verdict to
    /// answer it with instead: [`LABELS_SENT_RULE`] when it carries labels
    /// of its own ([`LABELS_SENT`]); the history overflow's
    /// ([`crate::history_fit::OVERFLOW_RULE`]) when its run raised more
    /// than [`crate::run_history::MAX_RUN_LABELS`] labels.
    #[must_use]
    pub async fn label_call(&self, host: &Host, request: &mut CallRequest) -> Option<Verdict> {
        if !request.context.labels.is_empty() {
            return Some(Verdict::by_host(
                Decision::Deny,
                LABELS_SENT_RULE,
                LABELS_SENT,
                Vec::new(),
            ));
        }
        let run = self.kept(request)?;
        let run = run.lock().await;
        if let Err(overflow) = run.for_checks(&host.settings()) {
            return Some(overflow.verdict());
        }
        request.context.labels = run.labels().to_vec();
        None
    }

    /// [`RunLabels::label_call`] for synchronous callers (as
    /// [`Host::check_blocking`]).
    #[must_use]
    pub fn label_call_blocking(&self, host: &Host, request: &mut CallRequest) -> Option<Verdict> {
        let (labels, host, mut owned) = (self.clone(), host.clone(), request.clone());
        let (refused, labelled) = crate::block_on(async move {
            let refused = labels.label_call(&host, &mut owned).await;
            (refused, owned)
        });
        *request = labelled;
        refused
    }

    /// Vet `result` of `request`'s call ([`Host::check_result`]) with its
    /// run's labels, and keep the labels the verdict raises for the run's
    /// later calls (one result of a run at a time, so none is lost). A
    /// result without a `run_id` is vetted alone; its labels are only
    /// answered.
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
        let context = &request.context;
        let Some(run_id) = context.run_id.as_deref() else {
            return host.check_result(request, result).await;
        };
        let run = match self.runs.of(
            context.principal.as_deref(),
            context.agent.as_deref(),
            run_id,
        ) {
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

/// A result withheld for the reason a call of its run is refused.
fn withheld(refused: Verdict) -> ResultVerdict {
    ResultVerdict::withheld_by_host(
        refused.rule.as_deref().unwrap_or("toolvet.host-error"),
        refused.reason.unwrap_or_default(),
    )
}
