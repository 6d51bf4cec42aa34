//! What a person reads: every text of an approval request as the
//! reviewer page shows it, escaped by one rule on the server.
//!
//! Tool names, run and call ids, agents, principals, rules, reasons,
//! reviewers' messages and arguments all come from callers or plugins. A
//! bidirectional override reorders what follows it, a zero-width character
//! hides a difference, and a raw line break in a reason forges a line that
//! looks like the page's own. So every such text goes through
//! [`toolvet::display::visible`] (the rule the CLI's text output uses)
//! before a person sees it, here, once: the page shows these strings and
//! nothing it formats itself. Names a person compares by eye (the tool,
//! agent, principal, run and call ids, the bound context, the reviewer)
//! go through
//! [`toolvet::display::identifier`] instead, which also writes out every
//! letter outside ASCII: `\u{430}lice@acme.com` is not Alice's.
//!
//! The arguments are shown from their exact text as the ledger holds it,
//! re-indented but with every number, string escape and key order as the
//! caller sent it: a JavaScript `JSON.parse` would round `2^64 + 1` and
//! show another account than the one the ticket binds.
//!
//! Every approval request the API answers with carries these texts as
//! `shown` beside its exact fields (which JSON already escapes), so any
//! client can show the same thing the page does.

use serde_json::{Value, json};
use toolvet::approval::ApprovalRequest;
use toolvet::display::{identifier, visible};

/// `request` as JSON, with `review_sha256` (what a decision names as read:
/// [`ApprovalRequest::review_sha256`]) and `shown`: the texts a person reads, escaped
/// (`tool`, `agent`, `principal`, `run_id`, `call_id`, `attributes` (the
/// bound context: `cwd`, `agent_tool`, `mcp.server`), `escalations`
/// (`check`, `rule`, `reason`), `reviewer`, `message` and `arguments`,
/// the arguments' exact text indented for reading).
pub fn request(request: &ApprovalRequest) -> Value {
    let mut value = serde_json::to_value(request).unwrap_or(Value::Null);
    if let Some(map) = value.as_object_mut() {
        map.insert("review_sha256".into(), request.review_sha256().into());
        map.insert("shown".into(), shown(request));
    }
    value
}

fn text(s: &str) -> Value {
    Value::String(visible(s).into_owned())
}

fn optional(s: Option<&str>) -> Value {
    s.map_or(Value::Null, text)
}

/// A name a person compares by eye, look-alike letters written out.
fn name(s: &str) -> Value {
    Value::String(identifier(s).into_owned())
}

fn optional_name(s: Option<&str>) -> Value {
    s.map_or(Value::Null, name)
}

fn shown(request: &ApprovalRequest) -> Value {
    let escalations: Vec<Value> = request
        .escalations
        .iter()
        .map(|e| {
            json!({
                "check": text(&e.check),
                "rule": optional(e.rule.as_deref()),
                "reason": optional(e.reason.as_deref()),
            })
        })
        .collect();
    let review = request.review.as_ref();
    json!({
        "tool": name(&request.call.tool),
        "agent": optional_name(request.agent.as_deref()),
        "principal": optional_name(request.principal.as_deref()),
        "run_id": optional_name(request.call.run_id.as_deref()),
        "call_id": name(&request.call.call_id),
        "attributes": request
            .call
            .attributes
            .iter()
            .map(|(k, v)| (identifier(k).into_owned(), name(v)))
            .collect::<serde_json::Map<String, Value>>(),
        "escalations": escalations,
        "reviewer": optional_name(review.map(|r| r.reviewer.as_str())),
        "message": optional(review.and_then(|r| r.message.as_deref())),
        "arguments": arguments(request.arguments.get()),
    })
}

/// The JSON text `raw` indented two spaces a level, each token as written
/// (numbers keep their digits, strings their escapes), and the inside of
/// every string through [`visible`]. Text that is not JSON (a ledger
/// cannot hold it, but the page must not be the judge) is shown through
/// [`visible`] as it is.
pub fn arguments(raw: &str) -> String {
    indent(raw).unwrap_or_else(|| visible(raw).into_owned())
}

fn indent(raw: &str) -> Option<String> {
    // Only valid JSON is re-indented: a tokenizer that guessed at broken
    // text could show something else than the bytes hold.
    serde_json::from_str::<serde::de::IgnoredAny>(raw).ok()?;
    let mut out = String::with_capacity(raw.len() + raw.len() / 4);
    let mut depth = 0usize;
    let mut chars = raw.char_indices().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    while let Some((at, c)) = chars.next() {
        match c {
            ' ' | '\t' | '\n' | '\r' => {}
            '"' => {
                // The string's text up to its closing quote, escapes
                // included as written.
                let start = at + 1;
                let mut end = start;
                let mut escaped = false;
                for (i, c) in chars.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == '"' {
                        end = i;
                        break;
                    }
                }
                out.push('"');
                out.push_str(&visible(&raw[start..end]));
                out.push('"');
            }
            '{' | '[' => {
                let close = if c == '{' { '}' } else { ']' };
                // An empty object or array stays on its line.
                while chars.peek().is_some_and(|(_, c)| c.is_ascii_whitespace()) {
                    chars.next();
                }
                if chars.peek().is_some_and(|(_, n)| *n == close) {
                    chars.next();
                    out.push(c);
                    out.push(close);
                } else {
                    out.push(c);
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(',');
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c => out.push(c),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_escapes_are_shown_as_sent() {
        let raw = r#"{"account":18446744073709551617,"amount":1e+23,"f":0.10000000000000000555,"s":"a\"b\\","e":{},"l":[ ],"n":[1,{"k":null}]}"#;
        assert_eq!(
            arguments(raw),
            "{\n  \"account\": 18446744073709551617,\n  \"amount\": 1e+23,\n  \"f\": 0.10000000000000000555,\n  \"s\": \"a\\\"b\\\\\",\n  \"e\": {},\n  \"l\": [],\n  \"n\": [\n    1,\n    {\n      \"k\": null\n    }\n  ]\n}"
        );
        assert_eq!(arguments("{}"), "{}");
    }

    #[test]
    fn characters_that_deceive_are_shown_escaped() {
        // A right-to-left override inside a string (raw, not as \u202e).
        let raw = "{\"command\":\"ls #\u{202e}~ fr- mr\"}";
        assert_eq!(
            arguments(raw),
            "{\n  \"command\": \"ls #\\u{202e}~ fr- mr\"\n}"
        );
        // Keys too.
        assert!(arguments("{\"pa\u{202e}th\":1}").contains("pa\\u{202e}th"));
        // Not JSON: shown escaped as it is, never interpreted.
        assert_eq!(arguments("not json\n\u{202e}"), "not json\\n\\u{202e}");
    }
}
