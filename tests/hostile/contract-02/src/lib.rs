//! `contract-02`: a well-behaved check of `toolvet:check@0.2.0`
//! (`wit/check-0.2`), exporting both `check` and `result-check`, so the
//! host's 0.2 path can be tested beside 0.1 checks.
//!
//! - `describe`: applies to every tool and declares the role
//!   `shell-command` and the effect `write`;
//! - `check`: denies (`contract02.deny-me`) a call whose arguments hold
//!   `deny-me`; escalates (`contract02.labelled`) one made after a result
//!   raised the run label `untrusted-content`; allows the rest;
//! - `check-result`: withholds a text holding `IGNORE PREVIOUS`
//!   (`contract02.injection`, label `untrusted-content`), masks every
//!   `SECRET-` word of a text (label `secret-seen`) and the `/token` member
//!   of a JSON result, and allows the rest. A text holding `BAD-SPAN`
//!   gets a mask past its end, which the host must treat as this check's
//!   error.
//!
//! With the feature `capability-dns` it also imports
//! `toolvet:check/dns@0.2.0` (`tests/hostile/wit-capability`), which no
//! policy can grant yet: the host must refuse it at load, naming the
//! capability.

#[cfg(not(feature = "capability-dns"))]
wit_bindgen::generate!({ path: "../../../wit/check-0.2", world: "result-plugin" });
#[cfg(feature = "capability-dns")]
wit_bindgen::generate!({
    path: ["../../../wit/check-0.2", "../wit-capability"],
    world: "toolvet-hostile:capability/plugin",
    generate_all,
});

use exports::toolvet::check::check::{Guest, PluginInfo};
use exports::toolvet::check::result_check::Guest as ResultGuest;
use toolvet::check::host::{Level, log};
use toolvet::check::types::{
    CallContext, Decision, Effects, Label, Mask, Reason, Redaction, ResultAction, ResultContent,
    ResultDecision, Role, ToolCall, ToolInfo, ToolResult,
};

struct Contract02;

fn reason(message: &str, rule: &str) -> Reason {
    Reason {
        message: message.into(),
        rule: Some(rule.into()),
    }
}

fn label(name: &str) -> Label {
    Label {
        name: name.into(),
        values: Vec::new(),
    }
}

impl Guest for Contract02 {
    fn describe() -> PluginInfo {
        PluginInfo {
            name: "contract-02".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            description: "A check of toolvet:check@0.2.0 (test fixture)".into(),
            tools: vec!["*".into()],
            roles: vec![Role::ShellCommand],
            effects: Effects::WRITE,
        }
    }

    fn configure(_settings: String) -> Result<(), String> {
        Ok(())
    }

    fn check(call: ToolCall, tool: ToolInfo, ctx: CallContext) -> Decision {
        log(
            Level::Info,
            &format!("contract-02 saw {} with {} run labels", call.name, ctx.labels.len()),
        );
        if call.arguments.contains("deny-me") {
            return Decision::Deny(reason("the arguments say deny-me", "contract02.deny-me"));
        }
        if ctx
            .labels
            .iter()
            .any(|l| l.label.name == "untrusted-content")
        {
            let from = ctx.labels.iter().map(|l| l.tool.as_str()).collect::<Vec<_>>();
            return Decision::Escalate(reason(
                &format!("the run read untrusted content (from {})", from.join(", ")),
                "contract02.labelled",
            ));
        }
        let _ = tool.facts;
        #[cfg(feature = "capability-dns")]
        if toolvet::check::dns::resolve("example.com").is_err() {
            return Decision::Abstain;
        }
        Decision::Allow
    }
}

impl ResultGuest for Contract02 {
    fn check_result(
        _call: ToolCall,
        _tool: ToolInfo,
        _ctx: CallContext,
        returned: ToolResult,
    ) -> ResultDecision {
        match returned.content {
            ResultContent::Text(text) => {
                if text.contains("IGNORE PREVIOUS") {
                    return ResultDecision {
                        action: ResultAction::Withhold(reason(
                            "the result holds instructions aimed at the model",
                            "contract02.injection",
                        )),
                        labels: vec![label("untrusted-content")],
                    };
                }
                if text.contains("BAD-SPAN") {
                    let end = text.len() as u32 + 10;
                    return ResultDecision {
                        action: ResultAction::Redact(vec![Mask {
                            target: Redaction::Span((0, end)),
                            kind: "past-the-end".into(),
                        }]),
                        labels: Vec::new(),
                    };
                }
                let masks: Vec<Mask> = text
                    .match_indices("SECRET-")
                    .map(|(start, _)| {
                        let rest = &text[start..];
                        let len = rest
                            .find(|c: char| c.is_whitespace())
                            .unwrap_or(rest.len());
                        Mask {
                            target: Redaction::Span((start as u32, (start + len) as u32)),
                            kind: "secret".into(),
                        }
                    })
                    .collect();
                if masks.is_empty() {
                    ResultDecision {
                        action: ResultAction::Allow,
                        labels: Vec::new(),
                    }
                } else {
                    ResultDecision {
                        action: ResultAction::Redact(masks),
                        labels: vec![label("secret-seen")],
                    }
                }
            }
            ResultContent::Json(json) if json.contains("\"token\"") => ResultDecision {
                action: ResultAction::Redact(vec![Mask {
                    target: Redaction::Pointer("/token".into()),
                    kind: "token".into(),
                }]),
                labels: vec![label("secret-seen")],
            },
            ResultContent::Json(_) => ResultDecision {
                action: ResultAction::Allow,
                labels: Vec::new(),
            },
        }
    }
}

export!(Contract02);
