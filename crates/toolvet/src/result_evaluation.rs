//! Evaluating one tool result against a loaded [`Generation`]
//! ([`Generation::evaluate_result`]): refuse what cannot be vetted, select
//! the checks that vet results and whose tool globs match the call, run
//! each one's `check-result` in an instance under the same admission,
//! deadline and limits as a call, read its answer
//! ([`crate::tool_result::read_answer`]) and combine
//! ([`crate::tool_result::combine`]).

use crate::audit::Unrecorded;
use crate::bindings::{WitCall, wit};
use crate::call::CallRequest;
use crate::config::LogFailure;
use crate::evaluation::MAX_RULE_BYTES;
use crate::generation::{DECISION_LOG_RULE, Generation};
use crate::instance::Failure;
use crate::text::{panic_message, truncate};
use crate::tool_result::{
    self, Answer, OVERSIZED_RESULT_RULE, ResultAction, ResultCheckOutcome, ResultVerdict,
    ToolResult,
};
use crate::verdict::{CheckError, ErrorKind};
use futures_util::FutureExt as _;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Instant;

impl Generation {
    /// The verdict about what the tool of `request` returned (never fails:
    /// every failure withholds, or follows the failed check's `on_error`).
    pub(crate) async fn evaluate_result(
        self: &Arc<Self>,
        request: &CallRequest,
        result: &ToolResult,
    ) -> ResultVerdict {
        let started = Instant::now();
        let (mut verdict, ran) = AssertUnwindSafe(self.decide_result(request, result))
            .catch_unwind()
            .await
            .unwrap_or_else(|panic| {
                let why = panic_message(&panic);
                tracing::error!(target: "toolvet::host", "the host failed while vetting a result: {why}");
                let verdict = ResultVerdict::by_host(
                    crate::generation::HOST_ERROR_RULE,
                    "toolvet failed while vetting this result, so it is withheld; the error is \
                     in the host's log"
                        .into(),
                    Vec::new(),
                );
                (verdict, Vec::new())
            });
        verdict.duration_us = started.elapsed().as_micros() as u64;
        let verdict = self.record_result(request, result, verdict, &ran);
        match verdict.action {
            ResultAction::Withhold => {
                tracing::info!(target: "tool.result-withheld", tool = %request.call.name, rule = verdict.rule.as_deref(), "withheld")
            }
            ResultAction::Redact => {
                tracing::info!(target: "tool.result-redacted", tool = %request.call.name, "redacted")
            }
            ResultAction::Pass => {
                tracing::debug!(target: "tool.result-passed", tool = %request.call.name, "passed")
            }
        }
        verdict
    }

    /// Queue `verdict`'s record in the decision log, if the policy keeps
    /// one. A result whose record cannot be queued is withheld under
    /// `decision_log_on_failure = "deny"`, as a call is denied.
    fn record_result(
        &self,
        request: &CallRequest,
        result: &ToolResult,
        verdict: ResultVerdict,
        ran: &[usize],
    ) -> ResultVerdict {
        let Some(log) = &self.decision_log else {
            return verdict;
        };
        let digests = self.plugin_digests(ran);
        match log.append_result(request, result, &verdict, &digests, &self.policy_sha256) {
            Err(Unrecorded::QueueFull | Unrecorded::Closed)
                if log.on_failure() == LogFailure::Deny
                    && verdict.action != ResultAction::Withhold =>
            {
                ResultVerdict::by_host(
                    DECISION_LOG_RULE,
                    "the decision log is falling behind, so this result could not be recorded \
                     and is withheld ([host] decision_log_on_failure = \"deny\")"
                        .into(),
                    verdict.checks,
                )
            }
            _ => verdict,
        }
    }

    /// Everything but the record: the verdict, and the indices of the
    /// checks whose outcomes it holds.
    async fn decide_result(
        self: &Arc<Self>,
        request: &CallRequest,
        result: &ToolResult,
    ) -> (ResultVerdict, Vec<usize>) {
        let by_host = |rule: &str, reason: String| {
            (ResultVerdict::by_host(rule, reason, Vec::new()), Vec::new())
        };
        if let Some(refusal) = self.refuse_unvettable(request) {
            return by_host(
                refusal.rule.as_deref().unwrap_or(OVERSIZED_RESULT_RULE),
                refusal.reason.unwrap_or_default(),
            );
        }
        if self.log_refuses() {
            return by_host(
                DECISION_LOG_RULE,
                "the decision log cannot be written, so no result may reach the model until it \
                 can ([host] decision_log_on_failure = \"deny\")"
                    .into(),
            );
        }
        let size = request.size_bytes() + result.content.size_bytes();
        if size > self.settings.max_call_bytes {
            return by_host(
                OVERSIZED_RESULT_RULE,
                format!(
                    "the result with its call is {size} bytes, over the host's max_call_bytes of \
                     {}, so it is withheld",
                    self.settings.max_call_bytes
                ),
            );
        }
        let attributes = self.state_paths.attributes(&request.context.attributes);
        let facts = self.facts.facts(request);
        let call = crate::evaluation::to_wit(
            request,
            &request.context.history,
            self.settings.max_history,
            attributes,
            &facts,
        );
        let returned = wit::ToolResult {
            content: result.content.to_wit(),
            is_error: result.is_error,
        };
        // A check that failed to load may vet results: it answers its
        // `on_error`, as it does for calls.
        let applicable: Vec<usize> = self
            .checks
            .iter()
            .enumerate()
            .filter(|(_, c)| c.applies(&request.call.name, &facts))
            .filter(|(_, c)| match &c.state {
                Ok(ready) => ready.compiled.pre.vets_results(),
                Err(_) => true,
            })
            .map(|(i, _)| i)
            .collect();
        let mut outcomes = Vec::with_capacity(applicable.len());
        for &index in &applicable {
            outcomes.push(
                self.run_result_check(index, request, &call, &returned, result)
                    .await,
            );
        }
        (tool_result::combine(&result.content, outcomes), applicable)
    }

    /// Run check `index` on one result, always producing an outcome (and
    /// the masks of a redact).
    async fn run_result_check(
        &self,
        index: usize,
        request: &CallRequest,
        call: &WitCall,
        returned: &wit::ToolResult,
        result: &ToolResult,
    ) -> (ResultCheckOutcome, Vec<tool_result::Masked>) {
        let started = Instant::now();
        let check = &self.checks[index];
        let answered = self
            .run_guarded(index, started, async |instance, limits| {
                instance
                    .check_result(call, returned, limits)
                    .await
                    .unwrap_or_else(|| {
                        Err(Failure {
                            kind: ErrorKind::HostError,
                            message: format!("check `{}` does not vet results", check.name),
                        })
                    })
            })
            .await
            .and_then(|decision| {
                tool_result::read_answer(decision, &result.content, &check.name, &request.call)
                    .map_err(|why| Failure {
                        kind: ErrorKind::MalformedResult,
                        message: format!(
                            "check `{}` returned a malformed result verdict: {why}",
                            check.name
                        ),
                    })
            });
        let duration_us = started.elapsed().as_micros() as u64;
        let mut outcome = ResultCheckOutcome {
            check: check.config.name.clone(),
            mode: check.config.mode,
            action: None,
            rule: None,
            reason: None,
            masks: 0,
            labels: Vec::new(),
            duration_us,
            error: None,
        };
        let masks = match answered {
            Ok((answer, labels)) => {
                outcome.labels = labels;
                match answer {
                    Answer::Allow => {
                        outcome.action = Some(ResultAction::Pass);
                        Vec::new()
                    }
                    Answer::Abstain => Vec::new(),
                    Answer::Withhold(reason) => {
                        outcome.action = Some(ResultAction::Withhold);
                        outcome.reason =
                            Some(truncate(reason.message, self.settings.max_reason_bytes));
                        outcome.rule = reason.rule.map(|r| truncate(r, MAX_RULE_BYTES));
                        Vec::new()
                    }
                    Answer::Redact(masks) => {
                        outcome.action = Some(ResultAction::Redact);
                        outcome.masks = masks.len();
                        masks
                    }
                }
            }
            Err(failure) => {
                let message = truncate(failure.message, self.settings.max_reason_bytes);
                tracing::warn!(check = %check.name, kind = failure.kind.as_str(), "{}", crate::display::visible(&message));
                outcome.action = tool_result::on_error_action(check.config.on_error, failure.kind);
                outcome.rule = Some(format!("toolvet.{}", failure.kind.as_str()));
                outcome.reason = Some(message.clone());
                outcome.error = Some(CheckError {
                    kind: failure.kind,
                    message,
                });
                Vec::new()
            }
        };
        (outcome, masks)
    }
}
