//! Gating the tools of a [`phaseo_agent`] agent with toolvet.
//!
//! phaseo-agent pauses a run for a person only for tools declared
//! `require_approval()`: the run stops with `status = "waiting_for_human"`
//! and a pause of kind `tool_approval`, and `Agent::continue_run` resumes
//! it with the approved call ids, running those tools. [`Gate`] makes that
//! pause toolvet's decision:
//!
//! - [`Gate::tool`] wraps a tool: it is declared `require_approval`, and
//!   its executor asks toolvet before the real tool runs. An allowed call
//!   runs; a denied one returns the reason as the tool's error (phaseo
//!   gives the model `{"error": reason}` with `is_error`), so the model
//!   reads why.
//! - [`Gate::run`] and [`Gate::continue_run`] drive the agent. At every
//!   `tool_approval` pause they ask toolvet about each pending call of a
//!   gated tool: calls toolvet allows or denies by itself are released at
//!   once (the executor gives the tool's output, or the deny reason); the
//!   run stays paused only for calls toolvet escalated, each with its
//!   approval request ([`Gate::waiting`]).
//! - A person answers by exact call id ([`Gate::approve`], [`Gate::reject`]);
//!   [`Gate::continue_run`] then resumes, and the executor checks the call
//!   again with the request's ticket: approved → the tool runs once;
//!   rejected → the model reads the reviewer's message. A decision naming a
//!   call that is not waiting fails the continuation, as phaseo itself
//!   fails a continuation that leaves a pending call unanswered.
//!
//! Every failure fails closed: a verdict the gate cannot obtain is a deny.

use phaseo_agent::{
    Agent, AgentError, ContinueOptions, ModelClient, RunOptions, RunResult, RuntimeContext, Tool,
    ToolDecision,
};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use toolvet::{ApprovalClaim, CallRequest, Decision, Host, Verdict, approval::VerdictApproval};

/// The run's attribute handed to checks as `cwd`, read from the run's
/// context (`RunOptions::context`, e.g. `{"cwd": "/home/alice/project"}`).
const CWD: &str = "cwd";

/// What the gate knows about one call, by call id.
#[derive(Debug, Clone)]
enum Known {
    /// toolvet decided without a person; the executor uses this verdict.
    Decided(Verdict),
    /// Held for approval: the request and its ticket.
    Waiting(VerdictApproval),
}

/// toolvet in front of a phaseo-agent agent's tools. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Gate {
    host: Host,
    calls: Arc<Mutex<HashMap<String, Known>>>,
}

impl Gate {
    /// A gate vetting calls with `host`, whose policy must have an
    /// `[approvals]` table for escalations to be answerable.
    pub fn new(host: Host) -> Gate {
        Gate {
            host,
            calls: Arc::default(),
        }
    }

    /// `tool`, declared `require_approval` so that phaseo pauses before it
    /// runs, with an executor that runs it only when toolvet allows.
    pub fn tool(&self, mut tool: Tool) -> Tool {
        let Some(inner) = tool.execute.take() else {
            // An externally fulfilled tool has no executor to guard.
            return tool.require_approval();
        };
        let gate = self.clone();
        let name = tool.id.clone();
        tool.execute = Some(Arc::new(move |input: Value, ctx: &RuntimeContext| {
            let verdict = gate.verdict_for_execution(&name, &input, ctx);
            match verdict.decision {
                Decision::Allow => inner(input, ctx),
                // The model reads the reason as the tool's error.
                _ => {
                    Err(AgentError::new(verdict.reason.unwrap_or_else(|| {
                        format!("toolvet did not allow `{name}`")
                    })))
                }
            }
        }));
        tool.require_approval()
    }

    /// Start a run, then release what toolvet decides by itself (see
    /// [`Gate::settle`]).
    ///
    /// # Errors
    /// What phaseo-agent returns.
    pub fn run(
        &self,
        agent: &Agent,
        model: &mut dyn ModelClient,
        options: RunOptions,
    ) -> Result<RunResult, AgentError> {
        let result = agent.run(model, options)?;
        self.settle(agent, model, result, &[])
    }

    /// Resume a run paused for the calls in [`Gate::waiting`], once a
    /// person answered them with [`Gate::approve`] or [`Gate::reject`]
    /// (`answered`: their call ids).
    ///
    /// # Errors
    /// A call id that is not waiting for a person; what phaseo-agent
    /// returns (e.g. a pending call left unanswered).
    pub fn continue_run(
        &self,
        agent: &Agent,
        model: &mut dyn ModelClient,
        result: RunResult,
        answered: &[&str],
    ) -> Result<RunResult, AgentError> {
        let waiting: Vec<String> = self
            .waiting(&result)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        if let Some(unknown) = answered.iter().find(|id| !waiting.iter().any(|w| w == *id)) {
            return Err(AgentError::new(format!(
                "no call `{unknown}` is waiting for a person in this run"
            )));
        }
        self.settle(agent, model, result, answered)
    }

    /// The calls the run waits on, with their approval requests, in the
    /// order the model made them.
    pub fn waiting(&self, result: &RunResult) -> Vec<(String, VerdictApproval)> {
        let calls = self.calls.lock().expect("gate state");
        pending_ids(result)
            .into_iter()
            .filter_map(|id| match calls.get(&id) {
                Some(Known::Waiting(approval)) => Some((id, approval.clone())),
                _ => None,
            })
            .collect()
    }

    /// Approve the waiting call `call_id` (its toolvet approval request).
    ///
    /// # Errors
    /// The call is not waiting, or the approval cannot be recorded.
    pub fn approve(
        &self,
        call_id: &str,
        reviewer: &str,
        message: Option<&str>,
    ) -> Result<(), AgentError> {
        let (approvals, id) = self.request_of(call_id)?;
        let (reviewer, message) = (reviewer.to_string(), message.map(str::to_string));
        toolvet::block_on(async move {
            approvals
                .approve(
                    &id,
                    &reviewer,
                    message.as_deref(),
                    toolvet::approval::Scope::Once,
                )
                .await
        })
        .map(drop)
        .map_err(|e| AgentError::new(e.to_string()))
    }

    /// Reject the waiting call `call_id`; the model reads `message`.
    ///
    /// # Errors
    /// The call is not waiting, or the rejection cannot be recorded.
    pub fn reject(
        &self,
        call_id: &str,
        reviewer: &str,
        message: Option<&str>,
    ) -> Result<(), AgentError> {
        let (approvals, id) = self.request_of(call_id)?;
        let (reviewer, message) = (reviewer.to_string(), message.map(str::to_string));
        toolvet::block_on(async move { approvals.reject(&id, &reviewer, message.as_deref()).await })
            .map(drop)
            .map_err(|e| AgentError::new(e.to_string()))
    }

    fn request_of(
        &self,
        call_id: &str,
    ) -> Result<(toolvet::approval::Approvals, String), AgentError> {
        let calls = self.calls.lock().expect("gate state");
        let Some(Known::Waiting(approval)) = calls.get(call_id) else {
            return Err(AgentError::new(format!(
                "no call `{call_id}` is waiting for a person"
            )));
        };
        let approvals = self
            .host
            .approvals()
            .ok_or_else(|| AgentError::new("the policy has no [approvals]"))?;
        Ok((approvals, approval.id.clone()))
    }

    /// While the run is paused for tool approval: vet every pending call
    /// toolvet has not seen, and continue the run with those it decided
    /// by itself (and with `answered`), until it completes, fails, or
    /// waits only for calls toolvet escalated.
    fn settle(
        &self,
        agent: &Agent,
        model: &mut dyn ModelClient,
        mut result: RunResult,
        answered: &[&str],
    ) -> Result<RunResult, AgentError> {
        let mut answered: Vec<String> = answered.iter().map(|s| s.to_string()).collect();
        loop {
            let Some(pause) = result
                .run
                .pause
                .as_ref()
                .filter(|p| p.kind == "tool_approval")
            else {
                return Ok(result);
            };
            let mut release = Vec::new();
            let mut holds = false;
            for pending in &pause.pending_tool_calls {
                let id = pending.call.id.clone();
                let known = self.calls.lock().expect("gate state").get(&id).cloned();
                let known = match known {
                    Some(k) => k,
                    None => {
                        let request = call_request(
                            &pending.call.name,
                            &pending.call.input,
                            &id,
                            &result.run.id,
                            &result.run.agent_id,
                            &result.run.context,
                        );
                        let verdict = match request {
                            Ok(request) => self.host.check_blocking(&request),
                            Err(e) => refusal(&e.to_string()),
                        };
                        let known = match (&verdict.decision, &verdict.approval) {
                            (Decision::Escalate, Some(approval)) => {
                                Known::Waiting(approval.clone())
                            }
                            _ => Known::Decided(verdict),
                        };
                        self.calls
                            .lock()
                            .expect("gate state")
                            .insert(id.clone(), known.clone());
                        known
                    }
                };
                match known {
                    Known::Decided(_) => release.push(id),
                    Known::Waiting(_) if answered.contains(&id) => release.push(id),
                    Known::Waiting(_) => holds = true,
                }
            }
            if holds {
                // A person must answer first; the run stays paused.
                return Ok(result);
            }
            let mut options = ContinueOptions::new(result);
            options.approvals = release
                .into_iter()
                .map(|tool_call_id| ToolDecision {
                    tool_call_id,
                    reason: None,
                })
                .collect();
            result = agent.continue_run(model, options)?;
            answered.clear();
        }
    }

    /// The verdict the executor acts on: the one toolvet gave without a
    /// person, or a fresh check with the ticket of an answered request.
    fn verdict_for_execution(&self, tool: &str, input: &Value, ctx: &RuntimeContext) -> Verdict {
        let id = ctx.tool_call.id.clone();
        let known = self.calls.lock().expect("gate state").remove(&id);
        let mut request =
            match call_request(tool, input, &id, &ctx.run_id, &ctx.agent_id, &ctx.context) {
                Ok(request) => request,
                Err(e) => return refusal(&e.to_string()),
            };
        match known {
            Some(Known::Decided(verdict)) => verdict,
            Some(Known::Waiting(approval)) => match approval.ticket {
                Some(ticket) => {
                    request.approval = Some(ApprovalClaim { ticket });
                    self.host.check_blocking(&request)
                }
                None => refusal("the approval request has no ticket"),
            },
            // Not vetted at the pause (a tool run some other way): vet now.
            None => self.host.check_blocking(&request),
        }
    }
}

/// The call ids of a paused run's pending calls.
fn pending_ids(result: &RunResult) -> Vec<String> {
    result
        .run
        .pause
        .as_ref()
        .map(|p| {
            p.pending_tool_calls
                .iter()
                .map(|c| c.call.id.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// The toolvet call shape for a phaseo tool call.
fn call_request(
    tool: &str,
    input: &Value,
    call_id: &str,
    run_id: &str,
    agent_id: &str,
    context: &Value,
) -> Result<CallRequest, toolvet::CallError> {
    let arguments = if input.is_null() {
        Value::Object(Default::default())
    } else {
        input.clone()
    };
    let mut request = CallRequest::new(tool, &arguments)?;
    request.call.id = call_id.to_string();
    request.context.run_id = Some(run_id.to_string());
    request.context.agent = Some(agent_id.to_string());
    if let Some(cwd) = context.get(CWD).and_then(Value::as_str) {
        request.context.attributes.insert(CWD.into(), cwd.into());
    }
    Ok(request)
}

/// A deny the gate gives itself when it cannot vet a call.
fn refusal(why: &str) -> Verdict {
    serde_json::from_value(serde_json::json!({
        "decision": "deny",
        "rule": "gate.error",
        "reason": format!("the call could not be vetted ({why}), so it does not run"),
        "checks": [],
        "duration_us": 0,
    }))
    .expect("a verdict")
}

/// A model that answers from a script, for running agents without a
/// network: each turn it records the messages it was sent and gives the
/// next scripted response.
pub mod scripted {
    use phaseo_agent::{AgentError, Message, ModelClient, ModelRequest, ModelResponse, ToolCall};
    use serde_json::Value;
    use std::collections::VecDeque;

    /// The scripted model.
    #[derive(Default, Debug)]
    pub struct ScriptedModel {
        turns: VecDeque<Message>,
        /// The messages of every request, in order.
        pub seen: Vec<Vec<Message>>,
    }

    impl ScriptedModel {
        /// A model that first calls `tool` with `input` as call `call_id`,
        /// then answers `final_text`.
        pub fn calls(call_id: &str, tool: &str, input: Value, final_text: &str) -> ScriptedModel {
            let call = Message {
                role: "assistant".into(),
                tool_calls: vec![ToolCall {
                    id: call_id.into(),
                    name: tool.into(),
                    input,
                }],
                ..Message::default()
            };
            ScriptedModel {
                turns: VecDeque::from([call, Message::assistant(final_text)]),
                seen: Vec::new(),
            }
        }

        /// The tool messages the model was sent (what it read about the
        /// tools' results).
        pub fn tool_messages(&self) -> Vec<Message> {
            self.seen
                .last()
                .map(|m| m.iter().filter(|m| m.role == "tool").cloned().collect())
                .unwrap_or_default()
        }
    }

    impl ModelClient for ScriptedModel {
        fn generate(&mut self, request: &ModelRequest) -> Result<ModelResponse, AgentError> {
            self.seen.push(request.messages.clone());
            let message = self
                .turns
                .pop_front()
                .ok_or_else(|| AgentError::new("the script has no more turns"))?;
            Ok(ModelResponse {
                message,
                usage: Default::default(),
                request_id: None,
                provider: Some("script".into()),
                model: Some("scripted".into()),
                finish_reason: Some("stop".into()),
            })
        }
    }
}

/// The repository's example policy (`examples/toolvet.toml`), with its
/// approvals ledger, key and decision log moved into `state` (so runs of
/// this example leave the repository alone).
///
/// # Errors
/// The policy does not load (build the plugins first: `make plugins`).
pub fn example_host(state: &std::path::Path) -> Result<Host, toolvet::Error> {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../toolvet.toml");
    let policy = toolvet::Policy::from_file(&file)?.edit(|host, approvals, _| {
        if let Some(approvals) = approvals {
            approvals.ledger = toolvet::config::LedgerLocation::Sqlite(state.join("approvals.db"));
            approvals.key = toolvet::config::KeySource::File(state.join("approvals.key"));
        }
        host.decision_log = Some(state.join("decisions.jsonl"));
    })?;
    toolvet::block_on(Host::load(policy))
}
