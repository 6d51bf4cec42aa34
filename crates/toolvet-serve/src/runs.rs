//! The runs the server vets: each call is vetted against the server's own
//! record of its run's earlier calls, and added to it.
//!
//! A run is a `run_id` together with the principal and agent the call
//! speaks for (after the agent token settled them), so two principals
//! that pick the same `run_id` never share one. Under `[serve]
//! run_history = "server"` (the default) a call that sends
//! `context.history` is refused: the history is not the caller's to say,
//! or an agent token could send none and every run-level rule (spend-guard's
//! run limit, sequence-guard's `max_calls` and loops, what the run read
//! before it writes) would see an empty run. AuthZEN carries no history at
//! all, so without this an honest enforcement point got no run-level rules.
//! The record lives in the server's memory, at most `[serve] max_runs`
//! runs ([`toolvet::run_history::Runs`], whose [`Runs::of`] owns the rule:
//! when they are all kept, only a run of the same principal and agent
//! unused for [`toolvet::run_history::RUN_IDLE`] is forgotten to make room;
//! if none is, the new run is refused, `toolvet.too-many-runs`: forgetting
//! a busy run would restart its run totals); replicas do not share it.
//!
//! The labels a run's results raised are kept in the approvals ledger
//! when the policy has `[approvals]` (for `label_ttl_s`), so replicas
//! sharing the ledger (one SQLite file, one Postgres) judge the run's later
//! calls by every replica's results; without `[approvals]` they are kept in
//! the run's record in memory. A ledger that cannot be read refuses the call
//! (or withholds the result), and one that cannot keep a result's labels
//! withholds that result (`approval.ledger-unavailable`).
//!
//! [`Runs::of`]: toolvet::run_history::Runs::of

use crate::error::ApiError;
use crate::settings::RunHistorySource;
use crate::state::{AppState, Current};
use toolvet::approval::Approvals;
use toolvet::run_history::{LabelStore, RunKey};
use toolvet::tool_result::{ResultRequest, ResultVerdict};
use toolvet::{CallRequest, Verdict};

/// Refuse a call that sends what the server keeps for each run itself
/// (`[serve] run_history = "server"`): its history and its labels. A
/// caller that sent none would be vetted as if its run had done nothing.
///
/// # Errors
/// 400 `history-not-accepted` / `labels-not-accepted`.
fn refuse_run_record(request: &CallRequest) -> Result<(), ApiError> {
    if !request.context.history.is_empty() {
        return Err(ApiError::bad_request(
            "history-not-accepted",
            "this server keeps each run's history itself ([serve] run_history = \"server\"): \
             send the call without `context.history`, with its `run_id`",
        ));
    }
    if !request.context.labels.is_empty() {
        return Err(ApiError::bad_request(
            "labels-not-accepted",
            "this server keeps each run's labels itself ([serve] run_history = \"server\"): \
             send the call without `context.labels`, with its `run_id`",
        ));
    }
    Ok(())
}

/// The verdict on what the call of `item` returned, vetted with its run's
/// record (history and labels) as `current`'s `[serve] run_history` says;
/// the labels it raises are kept in the run's record, so the run's later
/// calls are judged by them. A result of a call without a `run_id` is
/// vetted alone and its labels are only answered.
///
/// # Errors
/// As [`vet`].
pub(crate) async fn vet_result(
    state: &AppState,
    current: &Current,
    item: ResultRequest,
) -> Result<(CallRequest, ResultVerdict), ApiError> {
    let ResultRequest {
        mut request,
        result,
    } = item;
    if current.settings.run_history == RunHistorySource::Caller {
        let verdict = state.host.check_result(&request, &result).await;
        return Ok((request, verdict));
    }
    refuse_run_record(&request)?;
    let Some(run_id) = request.context.run_id.as_deref() else {
        let verdict = state.host.check_result(&request, &result).await;
        return Ok((request, verdict));
    };
    let run = match state.runs.of(
        request.context.principal.as_deref(),
        request.context.agent.as_deref(),
        run_id,
    ) {
        Ok(run) => run,
        Err(full) => {
            let refused = full.verdict("[serve] max_runs");
            return Ok((request, withheld_for(refused)));
        }
    };
    let key = run_key(&request, run_id);
    let approvals = state.host.approvals();
    let store = label_store(approvals.as_ref(), &key);
    let mut history = run.lock().await;
    let settings = state.host.settings();
    let verdict = match history.for_checks(&settings) {
        Ok(prior) => match history.labels_in(store).await {
            Ok(labels) => {
                request.context.history = prior;
                request.context.labels = labels;
                let verdict = state.host.check_result(&request, &result).await;
                match history.keep_labels_in(store, &verdict.labels).await {
                    Ok(()) => verdict,
                    Err(withheld) => withheld,
                }
            }
            Err(refused) => withheld_for(refused),
        },
        Err(overflow) => withheld_for(overflow.verdict()),
    };
    request.context.history = Vec::new();
    request.context.labels = Vec::new();
    Ok((request, verdict))
}

/// The run of `request` (its principal and agent, as the agent token
/// settled them) named `run_id`.
fn run_key(request: &CallRequest, run_id: &str) -> RunKey {
    let context = &request.context;
    RunKey::new(
        context.principal.as_deref(),
        context.agent.as_deref(),
        run_id,
    )
}

/// Where the run `key`'s labels are kept: in the approvals ledger when the
/// policy has one (so replicas sharing it share them), else in the run's
/// record in this server's memory.
fn label_store<'a>(approvals: Option<&'a Approvals>, key: &'a RunKey) -> LabelStore<'a> {
    match approvals {
        Some(approvals) => LabelStore::Ledger(approvals, key),
        None => LabelStore::History,
    }
}

/// A result withheld for the reason a call of its run would be refused.
fn withheld_for(refused: Verdict) -> ResultVerdict {
    ResultVerdict::withheld_by_host(
        refused.rule.as_deref().unwrap_or("toolvet.host-error"),
        refused.reason.unwrap_or_default(),
    )
}

/// The verdict on `request`, vetted against its run's record as
/// `current`'s `[serve] run_history` says, and recorded in it.
///
/// # Errors
/// 400 `history-not-accepted` for a call that sends `context.history`
/// to a server that keeps run histories itself.
pub(crate) async fn vet(
    state: &AppState,
    current: &Current,
    mut request: CallRequest,
) -> Result<(CallRequest, Verdict), ApiError> {
    if current.settings.run_history == RunHistorySource::Caller {
        let verdict = state.host.check(&request).await;
        return Ok((request, verdict));
    }
    refuse_run_record(&request)?;
    let Some(run_id) = request.context.run_id.as_deref() else {
        let verdict = state.host.check(&request).await;
        return Ok((request, verdict));
    };
    let run = state.runs.of(
        request.context.principal.as_deref(),
        request.context.agent.as_deref(),
        run_id,
    );
    let run = match run {
        Ok(run) => run,
        // Forgetting a run to make room would restart its run totals, and
        // new runs are free to make (review s13 M1): refuse the new one.
        Err(full) => return Ok((request, full.verdict("[serve] max_runs"))),
    };
    let key = run_key(&request, run_id);
    let approvals = state.host.approvals();
    let store = label_store(approvals.as_ref(), &key);
    let mut history = run.lock().await;
    let settings = state.host.settings();
    let verdict = match history.for_call(&request.call.name, &request.call.arguments, &settings) {
        Ok(prior) => match history.labels_in(store).await {
            Ok(labels) => {
                request.context.history = prior;
                request.context.labels = labels;
                let verdict = state.host.check(&request).await;
                history.record_verdict(
                    request.call.name.clone(),
                    request.call.arguments.clone(),
                    &verdict,
                    &settings,
                );
                verdict
            }
            // Never vetted without the run's labels; not recorded, as it
            // was never vetted.
            Err(refused) => refused,
        },
        // Never vetted with earlier calls left out.
        Err(overflow) => overflow.verdict(),
    };
    request.context.history = Vec::new();
    request.context.labels = Vec::new();
    Ok((request, verdict))
}
