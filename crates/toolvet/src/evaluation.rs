//! Evaluating one call against a loaded [`Generation`]: refuse what cannot
//! be vetted, select the checks whose tool globs match, admit and run each
//! in an instance (fresh, from a snapshot, or warm from the pool), combine
//! their outcomes, settle approvals, and record the verdict
//! ([`Generation::evaluate`]); or the same without approvals or a record
//! ([`Generation::preview`]).

use crate::approval::rules as approval_rules;
use crate::audit::Unrecorded;
use crate::bindings::WitCall;
use crate::bindings::wit;
use crate::call::{CallRequest, Outcome, PriorCall};
use crate::config::{Isolation, LogFailure};
use crate::generation::{
    DECISION_LOG_RULE, Generation, HOST_SCOPE_RULE, LoadedCheck, Ready, host_failure,
};
use crate::instance::{Failure, InstanceLimits, LiveInstance};
use crate::text::{panic_message, truncate};
use crate::verdict::{CheckDecision, CheckError, CheckOutcome, Decision, ErrorKind, Verdict};
use futures_util::FutureExt as _;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

impl Generation {
    /// The verdict about one call (never fails: every failure is a deny or
    /// the failed check's `on_error`).
    pub(crate) async fn evaluate(self: &Arc<Self>, request: &CallRequest) -> Verdict {
        let started = Instant::now();
        let (mut verdict, ran) = match AssertUnwindSafe(self.decide(request)).catch_unwind().await {
            Ok(decided) => decided,
            Err(panic) => (host_failure(&panic_message(&panic)), Vec::new()),
        };
        verdict.duration_us = started.elapsed().as_micros() as u64;
        self.record(request, verdict, &ran)
    }

    /// What the checks decide about `request`, combined, without settling
    /// approvals (no request is opened, a ticket is ignored) and without a
    /// decision record. See [`crate::Host::preview`].
    pub(crate) async fn preview(self: &Arc<Self>, request: &CallRequest) -> Verdict {
        let started = Instant::now();
        let decided = AssertUnwindSafe(async {
            if let Some(refusal) = self.refuse_unvettable(request) {
                return refusal;
            }
            self.combined(request).await.0
        })
        .catch_unwind()
        .await;
        let mut verdict = decided.unwrap_or_else(|panic| host_failure(&panic_message(&panic)));
        verdict.duration_us = started.elapsed().as_micros() as u64;
        verdict
    }

    /// Run the checks that apply to `request` (with its history brought up
    /// to date by the ledger), and to every call it makes through a
    /// wrapping tool, and combine their outcomes.
    async fn combined(self: &Arc<Self>, request: &CallRequest) -> (Verdict, Vec<usize>) {
        let history = match &self.approvals {
            Some(a) => a.reflect_history(request).await,
            None => None,
        };
        let history = history.as_deref().unwrap_or(&request.context.history);
        // Earlier calls made through a wrapping tool count as the calls
        // they made (spend so far, the order of a run's tools).
        let history = self.facts.unwrapped_history(history);
        let (outcomes, ran) = match self.outcomes(request, &history, 0).await {
            Ok(found) => found,
            Err(refusal) => return (refusal, Vec::new()),
        };
        let verdict = crate::verdict::combine(
            self.settings.combine,
            outcomes,
            self.settings.default_decision,
            0,
        );
        (verdict, ran)
    }

    /// The outcomes of the checks that apply to `request`, with the indices
    /// of those checks, and then those of every call it makes through a
    /// wrapping tool (Cline's `use_mcp_tool`, [`crate::facts::FactFinder::wrapped_calls`]),
    /// vetted as if made directly, `depth` wrappers deep: every check that
    /// knows the inner tool by name, or by its arguments, judges it.
    ///
    /// # Errors
    /// The host's deny: a call whose paths cannot be placed, a wrapped call
    /// that cannot be read, or one more than [`MAX_WRAPPED_DEPTH`] deep.
    fn outcomes<'a>(
        self: &'a Arc<Self>,
        request: &'a CallRequest,
        history: &'a [PriorCall],
        depth: usize,
    ) -> futures_util::future::BoxFuture<'a, Result<Ran, Verdict>> {
        Box::pin(async move {
            // Where the call's paths really are, when the front end runs
            // beside the tools: a call whose paths cannot be placed is
            // denied, never judged with them as written alone.
            let located;
            let caller = match self
                .locator
                .as_deref()
                .map(|l| l.locate(request, &self.state_paths))
            {
                None => &request.context.attributes,
                Some(Ok(found)) if found.is_empty() => &request.context.attributes,
                Some(Ok(found)) => {
                    let mut attributes = request.context.attributes.clone();
                    attributes.extend(found);
                    located = attributes;
                    &located
                }
                Some(Err(why)) => {
                    return Err(Verdict::by_host(
                        Decision::Deny,
                        crate::locate::UNPLACED_RULE,
                        format!("{why}; toolvet cannot vet this call"),
                        Vec::new(),
                    ));
                }
            };
            let attributes = self.state_paths.attributes(caller);
            let facts = self.facts.facts(request);
            let wit_call = Arc::new(to_wit(
                request,
                history,
                self.settings.max_history,
                attributes,
                &facts,
            ));
            let mut ran: Vec<usize> = self
                .checks
                .iter()
                .enumerate()
                .filter(|(_, c)| c.applies(&request.call.name, &facts))
                .map(|(i, _)| i)
                .collect();
            let mut outcomes = self.run_checks(&ran, wit_call).await;
            let wrapped = self.facts.wrapped_calls(request).map_err(|why| {
                Verdict::by_host(
                    Decision::Deny,
                    WRAPPED_RULE,
                    format!("{why}; toolvet cannot vet the call it makes"),
                    Vec::new(),
                )
            })?;
            for inner in wrapped {
                if depth + 1 > MAX_WRAPPED_DEPTH {
                    return Err(Verdict::by_host(
                        Decision::Deny,
                        WRAPPED_RULE,
                        format!(
                            "`{}` is called through more than {MAX_WRAPPED_DEPTH} tools that \
                             call other tools; call it directly",
                            crate::display::visible(&inner.call.name)
                        ),
                        Vec::new(),
                    ));
                }
                let (more, more_ran) = self.outcomes(&inner, history, depth + 1).await?;
                outcomes.extend(more);
                ran.extend(more_ran);
            }
            Ok((outcomes, ran))
        })
    }

    /// Everything but the record: the verdict, and the indices of the
    /// checks whose outcomes it holds.
    async fn decide(self: &Arc<Self>, request: &CallRequest) -> (Verdict, Vec<usize>) {
        if let Some(refusal) = self.refuse_unvettable(request) {
            return (refusal, Vec::new());
        }
        if self.log_refuses() {
            return (
                Verdict::by_host(
                    Decision::Deny,
                    DECISION_LOG_RULE,
                    "the decision log cannot be written, so no call may run until it can \
                     ([host] decision_log_on_failure = \"deny\")",
                    Vec::new(),
                ),
                Vec::new(),
            );
        }
        let claims = match &self.approvals {
            Some(approvals) => {
                match approvals.verify_claim(request, crate::approval::types::UnixMillis::now()) {
                    Ok(claims) => claims,
                    Err(refusal) => {
                        let verdict = Verdict::by_host(
                            Decision::Deny,
                            refusal.rule,
                            refusal.reason,
                            Vec::new(),
                        );
                        return (verdict, Vec::new());
                    }
                }
            }
            None if request.approval.is_some() => {
                let refusal = Verdict::by_host(
                    Decision::Deny,
                    approval_rules::DISABLED,
                    "the call carries an approval ticket, but this policy has no [approvals]; \
                     nothing here can approve it",
                    Vec::new(),
                );
                return (refusal, Vec::new());
            }
            None => None,
        };
        let (verdict, applicable) = self.combined(request).await;
        let verdict = match &self.approvals {
            Some(approvals) => approvals.settle(request, verdict, claims).await,
            None => verdict,
        };
        (verdict, applicable)
    }

    async fn run_checks(
        self: &Arc<Self>,
        applicable: &[usize],
        call: Arc<WitCall>,
    ) -> Vec<CheckOutcome> {
        if !(self.settings.parallel_checks && applicable.len() > 1) {
            let mut outcomes = Vec::with_capacity(applicable.len());
            for &i in applicable {
                outcomes.push(self.run_check(i, &call).await);
            }
            return outcomes;
        }
        let tasks: Vec<_> = applicable
            .iter()
            .map(|&i| {
                let (this, call) = (self.clone(), call.clone());
                tokio::spawn(async move { this.run_check(i, &call).await })
            })
            .collect();
        let mut outcomes = Vec::with_capacity(tasks.len());
        for (task, &i) in tasks.into_iter().zip(applicable) {
            outcomes.push(match task.await {
                Ok(outcome) => outcome,
                // A panic in the host while running the check.
                Err(e) => self.failed_outcome(
                    i,
                    Failure {
                        kind: ErrorKind::HostError,
                        message: format!(
                            "the host failed running check `{}`: {e}",
                            self.checks[i].name
                        ),
                    },
                    0,
                ),
            });
        }
        outcomes
    }

    /// A deny for a call this generation cannot vet: one whose tool name
    /// the validating constructors refuse (a Rust embedder may build a
    /// [`CallRequest`] without them), one to a tool it was not loaded for,
    /// or an oversized one.
    pub(crate) fn refuse_unvettable(&self, request: &CallRequest) -> Option<Verdict> {
        if let Some(problem) = crate::call::names_problem(request) {
            return Some(Verdict::by_host(
                Decision::Deny,
                crate::run_labels::LABELS_SENT_RULE,
                crate::call::CallError::new(problem).to_string(),
                Vec::new(),
            ));
        }
        match &self.only_tool {
            Some(tool) if *tool != request.call.name => Some(Verdict::by_host(
                Decision::Deny,
                HOST_SCOPE_RULE,
                format!(
                    "this host loaded only the checks for calls to `{}`, so it cannot vet a \
                     call to `{}`",
                    crate::display::visible(tool),
                    crate::display::visible(&request.call.name)
                ),
                Vec::new(),
            )),
            _ => self
                .refuse_oversized(request)
                .or_else(|| self.refuse_reserved(request))
                .or_else(|| self.refuse_state_paths(request)),
        }
    }

    /// A deny for a call whose context carries an attribute only the host
    /// sets (`toolvet.real_paths`, any other `toolvet.` name but the state
    /// and secret paths a caller may add to): a check must never be handed
    /// a caller's word for the host's facts (review s25 F1), whatever the
    /// front end (serve, AuthZEN, `toolvet check`, `toolvet mcp`, the
    /// bindings all come through here). See [`crate::locate::caller_may_send`]
    /// for why the call is denied rather than the value dropped.
    fn refuse_reserved(&self, request: &CallRequest) -> Option<Verdict> {
        if self.caller_is_host {
            return None;
        }
        let name = crate::locate::reserved_attribute(request.context.attributes.keys())?;
        Some(Verdict::by_host(
            Decision::Deny,
            crate::locate::RESERVED_ATTRIBUTE_RULE,
            format!(
                "the call's context sets the attribute `{}`, which only toolvet itself sets \
                 (its own facts about the machine the tools run on, such as where the call's \
                 paths really are); a caller may not send it, so toolvet cannot vet this call",
                crate::display::visible(name)
            ),
            Vec::new(),
        ))
    }

    /// A deny for a call whose own `toolvet.state_paths` or
    /// `toolvet.secret_paths` attribute is not a JSON array of absolute
    /// paths: the host's paths could not be added to it, and a check
    /// failing on it would leave the guard rails to its `on_error`.
    fn refuse_state_paths(&self, request: &CallRequest) -> Option<Verdict> {
        let why = self.state_paths.refusal(&request.context.attributes)?;
        Some(Verdict::by_host(
            Decision::Deny,
            crate::state_paths::INVALID_STATE_PATHS_RULE,
            format!("{why}; toolvet cannot vet this call"),
            Vec::new(),
        ))
    }

    fn refuse_oversized(&self, request: &CallRequest) -> Option<Verdict> {
        let arguments = request.call.arguments.get().len();
        let whole = request.size_bytes();
        let message = if arguments > self.settings.max_arguments_bytes {
            format!(
                "the call's arguments are {arguments} bytes, over the host's {}-byte limit",
                self.settings.max_arguments_bytes
            )
        } else if whole > self.settings.max_call_bytes {
            format!(
                "the call (arguments, tool info, context and history) is {whole} bytes, \
                 over the host's {}-byte limit",
                self.settings.max_call_bytes
            )
        } else {
            return None;
        };
        Some(Verdict::by_host(
            Decision::Deny,
            format!("toolvet.{}", ErrorKind::OversizedCall.as_str()),
            message,
            Vec::new(),
        ))
    }

    /// Emit the verdict's event and queue its decision record. A verdict
    /// whose record cannot be queued follows `decision_log_on_failure`.
    fn record(&self, request: &CallRequest, verdict: Verdict, ran: &[usize]) -> Verdict {
        let tool = request.call.name.as_str();
        match verdict.decision {
            Decision::Deny => {
                tracing::info!(target: "tool.denied", tool, rule = verdict.rule.as_deref(), reason = verdict.reason.as_deref(), "denied")
            }
            Decision::Escalate => {
                tracing::info!(target: "tool.escalated", tool, rule = verdict.rule.as_deref(), reason = verdict.reason.as_deref(), approval = verdict.approval.as_ref().map(|a| a.id.as_str()), "escalated")
            }
            Decision::Allow => tracing::debug!(target: "tool.allowed", tool, "allowed"),
        }
        let Some(log) = &self.decision_log else {
            return verdict;
        };
        let digests = self.plugin_digests(ran);
        match log.append_verdict(request, &verdict, &digests, &self.policy_sha256) {
            Ok(()) => verdict,
            Err(Unrecorded::QueueFull | Unrecorded::Closed)
                if log.on_failure() == LogFailure::Deny && verdict.decision != Decision::Deny =>
            {
                Verdict::by_host(
                    Decision::Deny,
                    DECISION_LOG_RULE,
                    "the decision log is falling behind, so this call could not be recorded \
                     and may not run ([host] decision_log_on_failure = \"deny\")",
                    verdict.checks,
                )
            }
            Err(_) => verdict,
        }
    }

    /// The sha256 of the plugin behind each of the checks `ran` (`None`
    /// for one that failed to load), for decision records.
    pub(crate) fn plugin_digests(&self, ran: &[usize]) -> Vec<Option<&str>> {
        ran.iter()
            .map(|&i| {
                self.checks[i]
                    .state
                    .as_ref()
                    .ok()
                    .map(|r| r.compiled.sha256.as_str())
            })
            .collect()
    }

    /// Whether the decision log refuses every decision now: it cannot be
    /// written and `decision_log_on_failure` is `deny`.
    pub(crate) fn log_refuses(&self) -> bool {
        self.decision_log
            .as_ref()
            .is_some_and(|log| log.on_failure() == LogFailure::Deny && !log.is_healthy())
    }

    /// Run check `index` on one call, always producing an outcome.
    async fn run_check(&self, index: usize, call: &WitCall) -> CheckOutcome {
        let started = Instant::now();
        let elapsed = || started.elapsed().as_micros() as u64;
        let result = self
            .run_guarded(index, started, async |instance, limits| {
                instance.check(call, limits).await
            })
            .await;
        match result {
            Ok(decision) => self.decided_outcome(index, decision, elapsed()),
            Err(failure) => self.failed_outcome(index, failure, elapsed()),
        }
    }

    /// Run `op` on an instance of check `index` (fresh, from a snapshot or
    /// warm from the pool), after admission, within the check's budget
    /// that started at `started`, and return a warm instance to the pool
    /// when `op` succeeded. Every way this fails is a [`Failure`]: a check
    /// that failed to load, an overloaded host, the instance's own
    /// failures, and a panic in the host (`host-error`).
    pub(crate) async fn run_guarded<R>(
        &self,
        index: usize,
        started: Instant,
        op: impl AsyncFnOnce(&mut LiveInstance, InstanceLimits) -> Result<R, Failure>,
    ) -> Result<R, Failure> {
        let check = &self.checks[index];
        let ready = match &check.state {
            Ok(ready) => ready,
            Err(e) => {
                return Err(Failure {
                    kind: ErrorKind::LoadFailed,
                    message: format!("check `{}` failed to load: {}", check.name, e.kind),
                });
            }
        };
        // Admission: a bounded queue in front of a bounded number of slots.
        // The wait for a slot is bounded by the check's own deadline, and
        // the queue count is released even if the caller drops this future.
        let overloaded = |why: String| Failure {
            kind: ErrorKind::Overloaded,
            message: format!(
                "check `{}` did not run: host overloaded ({why})",
                check.name
            ),
        };
        let queued = QueueSlot::enter(&self.queued, self.settings.max_queued_checks);
        let Some(queued) = queued else {
            let why = format!("{} calls queued", self.settings.max_queued_checks);
            return Err(overloaded(why));
        };
        // A free slot is taken at once; only a full host arms a timer.
        let permit = match self.slots.try_acquire() {
            Ok(permit) => Ok(permit),
            Err(_) => tokio::time::timeout_at(
                (started + check.limits.timeout).into(),
                self.slots.acquire(),
            )
            .await
            .map(|permit| permit.expect("the semaphore is never closed")),
        };
        drop(queued);
        let _permit = match permit {
            Ok(permit) => permit,
            Err(_) => {
                let why = format!(
                    "no slot free within {} ms",
                    check.limits.timeout.as_millis()
                );
                return Err(overloaded(why));
            }
        };
        AssertUnwindSafe(self.run_instance(check, ready, started, op))
            .catch_unwind()
            .await
            .unwrap_or_else(|panic| {
                Err(Failure {
                    kind: ErrorKind::HostError,
                    message: format!(
                        "the host failed running check `{}`: {}",
                        check.name,
                        panic_message(&panic)
                    ),
                })
            })
    }

    /// Get an instance (fresh, or warm from the pool), run `op` on it, and
    /// return a warm instance to the pool on success. The check's budget
    /// started at `started` (before admission).
    async fn run_instance<R>(
        &self,
        check: &LoadedCheck,
        ready: &Ready,
        started: Instant,
        op: impl AsyncFnOnce(&mut LiveInstance, InstanceLimits) -> Result<R, Failure>,
    ) -> Result<R, Failure> {
        #[cfg(test)]
        tests::maybe_panic(&check.name);
        // One budget for admission + instantiate + configure + check.
        let limits = InstanceLimits {
            deadline: Some(started + check.limits.timeout),
            ..check.limits
        };
        let reuse = check.config.isolation == Isolation::Reuse;
        let ready_instance = ready.pool.lock().ok().and_then(|mut pool| pool.pop());
        let mut instance = match ready_instance {
            Some(instance) => instance,
            None if ready.snapshot => {
                LiveInstance::new(self.engine, &ready.compiled.pre, limits, check.log.clone())
                    .await?
            }
            None => {
                let mut instance =
                    LiveInstance::new(self.engine, &ready.compiled.pre, limits, check.log.clone())
                        .await?;
                instance
                    .configure(&check.settings_json, limits)
                    .await?
                    .map_err(|m| Failure {
                        kind: ErrorKind::InvalidSettings,
                        message: format!("check `{}` rejected its settings: {m}", check.name),
                    })?;
                instance
            }
        };
        let answer = op(&mut instance, limits).await?;
        if reuse
            && let Ok(mut pool) = ready.pool.lock()
            && pool.len() < self.settings.reuse_pool_size
        {
            pool.push(instance);
        }
        Ok(answer)
    }

    fn decided_outcome(
        &self,
        index: usize,
        decision: wit::Decision,
        duration_us: u64,
    ) -> CheckOutcome {
        let check = &self.checks[index];
        let (kind, reason) = match decision {
            wit::Decision::Allow => (CheckDecision::Allow, None),
            wit::Decision::Abstain => (CheckDecision::Abstain, None),
            wit::Decision::Deny(r) => (CheckDecision::Deny, Some(r)),
            wit::Decision::Escalate(r) => (CheckDecision::Escalate, Some(r)),
        };
        let Some(reason) = reason else {
            return self.outcome(index, kind, None, None, duration_us, None);
        };
        let size = reason.message.len() + reason.rule.as_ref().map_or(0, String::len);
        if size > self.settings.max_result_bytes {
            let failure = Failure {
                kind: ErrorKind::OversizedResult,
                message: format!(
                    "check `{}` returned a {size}-byte reason, over the {}-byte limit",
                    check.name, self.settings.max_result_bytes
                ),
            };
            return self.failed_outcome(index, failure, duration_us);
        }
        let message = truncate(reason.message, self.settings.max_reason_bytes);
        let rule = reason.rule.map(|r| truncate(r, MAX_RULE_BYTES));
        self.outcome(index, kind, rule, Some(message), duration_us, None)
    }

    fn failed_outcome(&self, index: usize, failure: Failure, duration_us: u64) -> CheckOutcome {
        let check = &self.checks[index];
        // A failure message can quote the plugin (e.g. a settings error).
        let failure = Failure {
            message: truncate(failure.message, self.settings.max_reason_bytes),
            ..failure
        };
        tracing::warn!(check = %check.name, kind = failure.kind.as_str(), "{}", crate::display::visible(&failure.message));
        // `on_error = "allow"` lets the call through as far as this check
        // is concerned: it abstains, so the other checks and
        // `default_decision` still decide. A failure of the host itself is
        // always a deny.
        let decision = match failure.kind {
            ErrorKind::HostError => CheckDecision::Deny,
            _ => CheckDecision::from(check.config.on_error),
        };
        self.outcome(
            index,
            decision,
            Some(format!("toolvet.{}", failure.kind.as_str())),
            Some(failure.message.clone()),
            duration_us,
            Some(CheckError {
                kind: failure.kind,
                message: failure.message,
            }),
        )
    }

    fn outcome(
        &self,
        index: usize,
        decision: CheckDecision,
        rule: Option<String>,
        reason: Option<String>,
        duration_us: u64,
        error: Option<CheckError>,
    ) -> CheckOutcome {
        let check = &self.checks[index];
        CheckOutcome {
            check: check.config.name.clone(),
            mode: check.config.mode,
            decision,
            rule,
            reason,
            duration_us,
            error,
        }
    }
}

/// A place in the admission queue, released on drop (also when the caller
/// abandons the call while it waits).
struct QueueSlot<'a>(&'a AtomicUsize);

impl<'a> QueueSlot<'a> {
    /// Take a place unless `max` are taken.
    fn enter(count: &'a AtomicUsize, max: usize) -> Option<Self> {
        count
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()
            .map(|_| QueueSlot(count))
    }
}

impl Drop for QueueSlot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The outcomes of the checks that ran on a call, and the index of each
/// check, in the same order.
type Ran = (Vec<CheckOutcome>, Vec<usize>);

/// The rule of the host's deny of a call made through a wrapping tool that
/// cannot be vetted ([`Generation::outcomes`]).
pub(crate) const WRAPPED_RULE: &str = "toolvet.wrapped-call";

/// Most wrapping tools one call is vetted through (`use_mcp_tool` calling
/// a tool that calls another, …); deeper is denied ([`WRAPPED_RULE`]).
pub(crate) const MAX_WRAPPED_DEPTH: usize = 3;

/// Longest rule id kept, in bytes (of calls and of results).
pub(crate) const MAX_RULE_BYTES: usize = 128;

/// Convert a call to the WIT types once per verdict, keeping the newest
/// `max_history` entries of `history`, with `attributes` (the call's, with
/// the host's state paths: [`crate::state_paths::StatePaths::attributes`])
/// and the call's `facts` ([`crate::facts`]).
pub(crate) fn to_wit(
    request: &CallRequest,
    history: &[PriorCall],
    max_history: usize,
    attributes: Vec<(String, String)>,
    facts: &crate::facts::ToolFacts,
) -> WitCall {
    let skip = history.len().saturating_sub(max_history);
    WitCall::new(
        wit::ToolCall {
            id: request.call.id.clone(),
            name: request.call.name.clone(),
            arguments: request.call.arguments.get().to_string(),
        },
        wit::ToolInfo {
            description: request.tool.description.clone(),
            risk: request.tool.risk.clone(),
            requires_approval: request.tool.requires_approval,
            tags: request.tool.tags.clone(),
            parameters_schema: request
                .tool
                .parameters_schema
                .as_ref()
                .map(|s| s.get().to_string()),
            facts: Some(facts.to_wit()),
        },
        wit::CallContext {
            agent: request.context.agent.clone(),
            run_id: request.context.run_id.clone(),
            principal: request.context.principal.clone(),
            history: history[skip..]
                .iter()
                .map(|p| wit::PriorCall {
                    name: p.name.clone(),
                    arguments: p.arguments.get().to_string(),
                    outcome: match p.outcome {
                        Outcome::Allowed => wit::Outcome::Allowed,
                        Outcome::Denied => wit::Outcome::Denied,
                        Outcome::Escalated => wit::Outcome::Escalated,
                        Outcome::Approved => wit::Outcome::Approved,
                        Outcome::Rejected => wit::Outcome::Rejected,
                    },
                    returned: None,
                })
                .collect(),
            attributes,
            labels: request
                .context
                .labels
                .iter()
                .map(crate::tool_result::RunLabel::to_wit)
                .collect(),
        },
    )
}

#[cfg(test)]
mod tests {
    use crate::{Decision, Host, Policy, verdict::CheckDecision, verdict::ErrorKind};
    use std::path::{Path, PathBuf};

    /// The check whose runs panic inside the host (only this test module's
    /// checks are named `boom`).
    static PANIC_ANYWHERE: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

    /// Panic, as a bug in the host would, when the test asked for it.
    pub(super) fn maybe_panic(check: &str) {
        if PANIC_ANYWHERE.lock().unwrap().as_deref() == Some(check) {
            panic!("injected host bug in `{check}`");
        }
    }

    fn fixture() -> Option<PathBuf> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/hostile/hostile.wasm");
        path.exists().then_some(path)
    }

    fn policy(plugin: &Path, parallel: bool) -> Policy {
        let text = format!(
            "[host]\nparallel_checks = {parallel}\n\
             [[check]]\nname = \"boom\"\nplugin = \"{p}\"\non_error = \"allow\"\n\
             [[check]]\nname = \"calm\"\nplugin = \"{p}\"\n",
            p = plugin.display()
        );
        Policy::from_toml(&text, Path::new("t.toml"), Path::new("/")).unwrap()
    }

    /// A panic inside the host while it runs a check is the host's failure,
    /// not the plugin's: recorded as `host-error` and a deny even though
    /// the check's `on_error` is `allow` (before, a task's `JoinError` was
    /// reported as the plugin's `trap`, and a panic on the sequential path
    /// reached the caller).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panic_in_the_host_is_a_host_error_and_denies() {
        let Some(plugin) = fixture() else {
            eprintln!("skipped: build the hostile fixtures first (bash tests/hostile/build.sh)");
            return;
        };
        *PANIC_ANYWHERE.lock().unwrap() = Some("boom".into());
        for parallel in [false, true] {
            let host = Host::load(policy(&plugin, parallel)).await.unwrap();
            let call = crate::CallRequest::new("any", &serde_json::json!({})).unwrap();
            let v = host.check(&call).await;
            assert_eq!(v.decision, Decision::Deny, "parallel {parallel}: {v:?}");
            let boom = v.checks.iter().find(|o| o.check == "boom").unwrap();
            assert_eq!(boom.decision, CheckDecision::Deny);
            assert_eq!(
                boom.error.as_ref().unwrap().kind,
                ErrorKind::HostError,
                "{boom:?}"
            );
            assert!(
                boom.reason
                    .as_deref()
                    .unwrap()
                    .contains("injected host bug"),
                "{boom:?}"
            );
            // The other check ran normally.
            let calm = v.checks.iter().find(|o| o.check == "calm").unwrap();
            assert_eq!(calm.decision, CheckDecision::Allow);
        }
        *PANIC_ANYWHERE.lock().unwrap() = None;
    }
}
