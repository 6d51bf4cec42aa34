//! A phaseo-agent agent with a toolvet-gated `bash` tool, driven by a
//! scripted model: the escalated call pauses the run, a person (here: the
//! program) approves it by call id, and the resumed run executes it once.
//!
//! ```sh
//! make plugins && cargo run --release -p toolvet-example-phaseo
//! ```

use phaseo_agent::{AgentDefinition, RunOptions, Tool, create_agent};
use serde_json::json;
use toolvet_example_phaseo::{Gate, example_host, scripted::ScriptedModel};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let state = tempfile::tempdir()?;
    let gate = Gate::new(example_host(state.path())?);
    let bash = Tool::new(
        "bash",
        "Run a shell command in the workspace",
        json!({"type": "object", "properties": {"command": {"type": "string"}}}),
        |input, _ctx| {
            println!("  [tool] bash runs: {}", input["command"]);
            Ok(json!({"exit": 0}))
        },
    );
    let agent = create_agent(AgentDefinition::new("coder", "scripted").tool(gate.tool(bash)));
    let mut options = RunOptions::new("install jq");
    options.context = json!({"cwd": "/home/alice/project"});
    let mut model = ScriptedModel::calls(
        "call_1",
        "bash",
        json!({"command": "sudo apt-get install -y jq"}),
        "jq is installed",
    );

    let result = gate.run(&agent, &mut model, options)?;
    println!("run {}: {}", result.run.id, result.run.status);
    for (call_id, approval) in gate.waiting(&result) {
        let why = approval
            .escalations
            .first()
            .and_then(|e| e.reason.clone())
            .unwrap_or_default();
        println!("  waiting: {call_id} (approval {}): {why}", approval.id);
        gate.approve(&call_id, "alice", Some("jq only"))?;
        println!("  approved {call_id} as alice");
    }
    let result = gate.continue_run(&agent, &mut model, result, &["call_1"])?;
    println!(
        "run {}: {} — {}",
        result.run.id, result.run.status, result.output
    );
    Ok(())
}
