//! Every agent's hook payload parser on arbitrary bytes: never panics; what
//! it accepts has a non-empty tool name and maps onto a call the core
//! accepts or refuses with an error (never a panic); every answer and
//! every failure answer renders as the agent's JSON (or nothing).

use toolvet_hooks::{AGENTS, Answer, ToolMap};

/// The property, on one input (any bytes).
pub fn run(data: &[u8]) {
    for agent in AGENTS {
        let failure = agent.render_failure(&String::from_utf8_lossy(data));
        assert!(serde_json::from_str::<serde_json::Value>(&failure.stdout).is_ok());
        let Ok(call) = agent.parse(data) else {
            continue;
        };
        assert!(!call.tool.trim().is_empty());
        let (name, args) = ToolMap::defaults(agent).apply(&call.tool, &call.arguments);
        let _ = toolvet::CallRequest::new(&name, &serde_json::Value::Object(args));
        for answer in [
            Answer::Deny(call.tool.clone()),
            Answer::Ask(call.tool.clone()),
        ] {
            let out = agent.render(&answer).stdout;
            assert!(
                serde_json::from_str::<serde_json::Value>(&out).is_ok(),
                "{out}"
            );
        }
    }
}
