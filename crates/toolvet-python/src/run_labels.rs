//! The labels each run's results raised, kept by the binding's host so the
//! run's later calls are vetted with them (`context.labels`), and never
//! taken from the caller.
//!
//! The store is the core's [`toolvet::run_history::Runs`] (the one `toolvet
//! serve` keeps runs in), used for labels only: the framework gates keep a
//! run's calls themselves and hand them over as `context.history`. A run is
//! its `run_id` with the principal and agent of the call, as in serve, and
//! a run is kept from the first result that raised a label. Calls without a
//! `run_id` share one run per principal and agent (the gates treat them as
//! one run too): a label one of them raised reaches all of them, which
//! vets more strictly, never less. When every kept run is busy
//! ([`toolvet::run_history::TooManyRuns`]), a result that raises a label is
//! withheld rather than let the label be lost.

use toolvet::run_history::{Runs, SharedRun};
use toolvet::tool_result::{ResultVerdict, RunLabel};
use toolvet::{CallContext, Verdict};

/// The most runs whose labels one host keeps (a new run beyond it only
/// ever forgets an idle run of its own principal and agent; see
/// [`Runs::of`]).
pub(crate) const MAX_LABELED_RUNS: usize = 4096;

/// The store key of calls that name no run: a run id no gate sends (a
/// caller that named it would only share these labels, never remove any).
const RUN_LESS: &str = "\u{0}toolvet:run-less";

/// The labels of every run a host vetted results of.
#[derive(Debug)]
pub(crate) struct RunLabels {
    runs: Runs,
}

impl RunLabels {
    pub(crate) fn new() -> Self {
        RunLabels {
            runs: Runs::new(MAX_LABELED_RUNS),
        }
    }

    fn key(context: &CallContext) -> (Option<&str>, Option<&str>, &str) {
        (
            context.principal.as_deref(),
            context.agent.as_deref(),
            context.run_id.as_deref().unwrap_or(RUN_LESS),
        )
    }

    fn kept(&self, context: &CallContext) -> Option<SharedRun> {
        let (principal, agent, run) = Self::key(context);
        self.runs.kept(principal, agent, run)
    }

    /// Put the labels of the run `context` names into it (the caller has
    /// refused any it brought). `Some` is the deny for a run whose labels
    /// overflowed ([`toolvet::run_history::MAX_RUN_LABELS`]): it is never
    /// vetted with a label left out. Blocks on the run's lock: call it off
    /// any async runtime.
    pub(crate) fn fill(
        &self,
        context: &mut CallContext,
        settings: &toolvet::config::HostSettings,
    ) -> Option<Verdict> {
        let run = self.kept(context)?;
        let run = run.blocking_lock();
        if let Err(overflow) = run.for_checks(settings) {
            return Some(overflow.verdict());
        }
        context.labels = run.labels().to_vec();
        None
    }

    /// Keep the labels `verdict` raised for the run `context` names. A
    /// result whose labels cannot be kept (every kept run busy) becomes a
    /// withhold, since a later call of its run would be vetted without
    /// them. Blocks on the run's lock.
    pub(crate) fn record(&self, context: &CallContext, verdict: ResultVerdict) -> ResultVerdict {
        if verdict.labels.is_empty() {
            return verdict;
        }
        let (principal, agent, run) = Self::key(context);
        match self.runs.of(principal, agent, run) {
            Ok(run) => {
                run.blocking_lock().record_labels(&verdict.labels);
                verdict
            }
            Err(full) => {
                let refused = full.verdict("the binding's limit of labelled runs");
                ResultVerdict::withheld_by_host(
                    refused
                        .rule
                        .as_deref()
                        .unwrap_or(crate::host::HOST_ERROR_RULE),
                    refused.reason.unwrap_or_default(),
                )
            }
        }
    }

    /// The labels kept for the run `context` names (for tests and
    /// inspection from Python): copies, oldest first.
    pub(crate) fn of(&self, context: &CallContext) -> Vec<RunLabel> {
        self.kept(context)
            .map(|run| run.blocking_lock().labels().to_vec())
            .unwrap_or_default()
    }
}
