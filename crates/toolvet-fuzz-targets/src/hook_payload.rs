//! Every agent's hook payload parser on arbitrary bytes: never panics; what
//! it accepts has a non-empty tool name and maps onto calls the core
//! accepts or refuses with an error (never a panic): a Codex patch parses
//! into per-file calls or is refused, an `mcp__server__tool` name is
//! vetted under its bare name too; every answer and every failure answer
//! renders as the agent's JSON (or nothing), post-tool ones too.

use toolvet_hooks::{AGENTS, Answer, HookEvent, ResultAnswer, ToolMap};

/// Nothing, or one JSON value.
fn json_or_nothing(out: &str) {
    assert!(
        out.is_empty() || serde_json::from_str::<serde_json::Value>(out).is_ok(),
        "{out}"
    );
}

/// The property, on one input (any bytes).
pub fn run(data: &[u8]) {
    for agent in AGENTS {
        let failure = agent.render_failure(&String::from_utf8_lossy(data));
        assert!(serde_json::from_str::<serde_json::Value>(&failure.stdout).is_ok());
        json_or_nothing(
            &agent
                .render_result_failure(&String::from_utf8_lossy(data))
                .stdout,
        );
        if let Ok(HookEvent::Result(returned)) = agent.parse_event(data) {
            assert!(!returned.call.tool.trim().is_empty());
            for answer in [
                ResultAnswer::Withhold(returned.call.tool.clone()),
                ResultAnswer::Redact {
                    masked: returned.output.clone(),
                    reason: returned.call.tool.clone(),
                },
            ] {
                json_or_nothing(&agent.render_result(&returned, &answer).stdout);
            }
        }
        let Ok(call) = agent.parse(data) else {
            continue;
        };
        assert!(!call.tool.trim().is_empty());
        let map = ToolMap::defaults(agent);
        if let Ok((name, args)) = map.apply(&call.tool, &call.arguments) {
            let _ = toolvet::CallRequest::new(&name, &serde_json::Value::Object(args));
        }
        match map.calls(&call.tool, &call.arguments) {
            Ok(calls) => {
                // Never an empty set of calls: that would allow unvetted.
                assert!(!calls.is_empty(), "{}", call.tool);
                if let Some(bare) = toolvet_hooks::mcp_bare_name(&call.tool) {
                    let bare = map.apply(bare, &call.arguments).unwrap().0;
                    assert!(bare == "apply_patch" || calls.iter().any(|(n, _)| *n == bare));
                }
                for (name, args) in calls {
                    assert!(!name.trim().is_empty());
                    let _ = toolvet::CallRequest::new(&name, &serde_json::Value::Object(args));
                }
            }
            // Only a patch that does not parse, arguments that disagree,
            // a bad file filter or a name of too many parts are refused.
            Err(e) => assert!(matches!(e, toolvet_hooks::HookError::Input(_)), "{e}"),
        }
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
