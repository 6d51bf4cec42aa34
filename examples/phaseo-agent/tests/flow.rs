//! A phaseo-agent agent whose `bash` tool toolvet gates with the example
//! policy: a scripted model (no network), the real phaseo-agent 0.2.0 run
//! loop, the real host and approvals ledger.

use phaseo_agent::{AgentDefinition, RunOptions, RunResult, Tool, create_agent};
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use toolvet_example_phaseo::{Gate, example_host, scripted::ScriptedModel};

/// A gated `bash` tool that counts how often it really ran.
fn agent(gate: &Gate) -> (phaseo_agent::Agent, Arc<AtomicUsize>) {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = runs.clone();
    let bash = Tool::new(
        "bash",
        "Run a shell command in the workspace",
        json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}),
        move |input, _ctx| {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok(json!({"ran": input["command"], "exit": 0}))
        },
    );
    let agent = create_agent(
        AgentDefinition::new("coder", "scripted")
            .instructions("Use bash for shell work.")
            .tool(gate.tool(bash)),
    );
    (agent, runs)
}

fn options() -> RunOptions {
    let mut options = RunOptions::new("set up the project");
    options.context = json!({"cwd": "/home/alice/project"});
    options
}

fn tool_text(model: &ScriptedModel) -> String {
    model
        .tool_messages()
        .iter()
        .map(|m| m.content.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

fn setup() -> (tempfile::TempDir, Gate) {
    let state = tempfile::tempdir().unwrap();
    let host = example_host(state.path()).expect("the example policy loads (run `make plugins`)");
    (state, Gate::new(host))
}

fn paused_for_sudo(
    gate: &Gate,
    agent: &phaseo_agent::Agent,
    model: &mut ScriptedModel,
) -> RunResult {
    let result = gate.run(agent, model, options()).unwrap();
    assert_eq!(result.run.status, "waiting_for_human");
    assert_eq!(result.run.pause.as_ref().unwrap().kind, "tool_approval");
    let waiting = gate.waiting(&result);
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    assert_eq!(waiting[0].0, "call_sudo");
    assert_eq!(
        waiting[0].1.escalations[0].rule.as_deref(),
        Some("shell.sudo")
    );
    result
}

#[test]
fn a_denied_call_is_the_tool_error_the_model_reads() {
    let (_state, gate) = setup();
    let (agent, runs) = agent(&gate);
    let mut model = ScriptedModel::calls(
        "call_rm",
        "bash",
        json!({"command": "rm -rf ~"}),
        "ok, I won't",
    );
    let result = gate.run(&agent, &mut model, options()).unwrap();
    assert_eq!(result.run.status, "completed", "{:?}", result.run);
    assert_eq!(runs.load(Ordering::SeqCst), 0, "a denied call never runs");
    let tool = &model.tool_messages()[0];
    assert!(tool.is_error, "{tool:?}");
    assert!(
        tool.content.contains("error") && tool.content.contains("home directory"),
        "{}",
        tool.content
    );
}

#[test]
fn an_allowed_call_runs_without_a_pause() {
    let (_state, gate) = setup();
    let (agent, runs) = agent(&gate);
    let mut model = ScriptedModel::calls("call_ls", "bash", json!({"command": "ls -la"}), "listed");
    let result = gate.run(&agent, &mut model, options()).unwrap();
    assert_eq!(result.run.status, "completed");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert!(
        tool_text(&model).contains("\"ran\":\"ls -la\""),
        "{}",
        tool_text(&model)
    );
}

#[test]
fn an_escalated_call_pauses_and_runs_exactly_once_after_approval() {
    let (_state, gate) = setup();
    let (agent, runs) = agent(&gate);
    let sudo = json!({"command": "sudo apt-get install -y jq"});
    let mut model = ScriptedModel::calls("call_sudo", "bash", sudo, "installed");
    let result = paused_for_sudo(&gate, &agent, &mut model);
    assert_eq!(runs.load(Ordering::SeqCst), 0, "paused before running");
    gate.approve("call_sudo", "alice", Some("jq only")).unwrap();
    let result = gate
        .continue_run(&agent, &mut model, result, &["call_sudo"])
        .unwrap();
    assert_eq!(result.run.status, "completed", "{:?}", result.run);
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "the approved call ran exactly once"
    );
    assert!(
        tool_text(&model).contains("sudo apt-get install"),
        "{}",
        tool_text(&model)
    );
}

#[test]
fn a_rejected_call_gives_the_model_the_reviewers_message() {
    let (_state, gate) = setup();
    let (agent, runs) = agent(&gate);
    let sudo = json!({"command": "sudo apt-get install -y jq"});
    let mut model = ScriptedModel::calls("call_sudo", "bash", sudo, "understood");
    let result = paused_for_sudo(&gate, &agent, &mut model);
    gate.reject(
        "call_sudo",
        "bob",
        Some("use the project's toolchain, not system packages"),
    )
    .unwrap();
    let result = gate
        .continue_run(&agent, &mut model, result, &["call_sudo"])
        .unwrap();
    assert_eq!(result.run.status, "completed");
    assert_eq!(runs.load(Ordering::SeqCst), 0, "a rejected call never runs");
    let tool = &model.tool_messages()[0];
    assert!(tool.is_error);
    assert!(
        tool.content
            .contains("bob rejected this call: use the project's toolchain, not system packages"),
        "{}",
        tool.content
    );
}

#[test]
fn an_approval_naming_an_unknown_call_id_fails_the_continuation() {
    let (_state, gate) = setup();
    let (agent, runs) = agent(&gate);
    let sudo = json!({"command": "sudo apt-get install -y jq"});
    let mut model = ScriptedModel::calls("call_sudo", "bash", sudo, "installed");
    let result = paused_for_sudo(&gate, &agent, &mut model);
    assert!(gate.approve("call_nope", "alice", None).is_err());
    let e = gate
        .continue_run(&agent, &mut model, result.clone(), &["call_nope"])
        .unwrap_err();
    assert!(e.message().contains("call_nope"), "{e}");
    // Without an answer the run stays paused.
    let still = gate
        .continue_run(&agent, &mut model, result.clone(), &[])
        .unwrap();
    assert_eq!(still.run.status, "waiting_for_human");
    // And phaseo itself fails a continuation that names an unknown call
    // and leaves the real one unanswered.
    let mut options = phaseo_agent::ContinueOptions::new(result);
    options.approvals = vec![phaseo_agent::ToolDecision {
        tool_call_id: "call_nope".into(),
        reason: None,
    }];
    let e = agent.continue_run(&mut model, options).unwrap_err();
    assert!(e.message().contains("call_sudo"), "{e}");
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}
