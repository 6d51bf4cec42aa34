//! Vetting a tool's output that is a JSON value, part by part: every
//! string the model may read is vetted as text (a text block, a resource's
//! text, a link's name and uri, an error's message, a shell's stdout), a
//! `structuredContent` as one JSON value, each with
//! [`crate::Host::check_result`]. What the parts' verdicts make of the
//! whole ([`PartsVerdict`]): a withhold of any part withholds the whole,
//! a redaction replaces that part with its masked text, the labels of every
//! part are kept. The front ends that read a JSON output (`toolvet mcp`'s
//! answers, the hooks' post-tool events) share this one rule.

use crate::tool_result::{ResultAction, ResultContent, ResultVerdict, RunLabel, ToolResult};
use crate::{CallRequest, Host};
use serde_json::Value;

/// Keys whose values no model reads as text, or that are vetted whole
/// (`data` too, beside a `mimeType`: an image's or audio's base64).
/// `_meta` is read: a client may hand it to the model (review s29 C2).
const NOT_TEXT: [&str; 4] = ["blob", "mimeType", "type", "structuredContent"];

/// The key of an MCP result's JSON output, vetted as one JSON value.
const STRUCTURED: &str = "structuredContent";

/// JSON Pointers to the parts of `value` the model may read, under each of
/// `roots` (pointers into `value`; `""` is the whole value): every string,
/// depth first in the value's own order, each as text, and a root's
/// `structuredContent` (when not null) as one JSON value. Left out: what no
/// model reads as text (base64 `data` beside a `mimeType`, `blob`,
/// `mimeType`, a block's `type`).
pub fn parts(value: &Value, roots: &[&str]) -> Vec<String> {
    let mut parts = Vec::new();
    for root in roots {
        if let Some(at) = value.pointer(root) {
            strings(at, (*root).to_string(), &mut parts);
        }
    }
    for root in roots {
        let structured = format!("{root}/{STRUCTURED}");
        if value.pointer(&structured).is_some_and(|v| !v.is_null()) {
            parts.push(structured);
        }
    }
    parts
}

/// Push the pointer of every string under `value` (at `at`).
fn strings(value: &Value, at: String, parts: &mut Vec<String>) {
    match value {
        Value::String(_) => parts.push(at),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                strings(item, format!("{at}/{i}"), parts);
            }
        }
        Value::Object(map) => {
            let binary = map.contains_key("mimeType");
            for (key, item) in map {
                if NOT_TEXT.contains(&key.as_str()) || (binary && key == "data") {
                    continue;
                }
                // RFC 6901: `~` and `/` in a key are escaped.
                let key = key.replace('~', "~0").replace('/', "~1");
                strings(item, format!("{at}/{key}"), parts);
            }
        }
        _ => {}
    }
}

/// What the verdicts on a value's parts make of it.
#[derive(Debug, Clone, Default)]
pub struct PartsVerdict {
    /// The verdict of the first part withheld (its rule and reason): the
    /// whole output is withheld.
    pub withheld: Option<ResultVerdict>,
    /// The verdict of the first part redacted, when one was: that part and
    /// every other redacted one now hold their masked text.
    pub redacted: Option<ResultVerdict>,
    /// The labels every part raised, in order.
    pub labels: Vec<RunLabel>,
}

impl Host {
    /// Vet the parts of `value` at `pointers` (from [`parts`]) as the
    /// output of `request` (`is_error`: the tool reported an error): each
    /// string as text, each other value as JSON. A redacted part is
    /// replaced in `value` with its masked content. Every part is vetted,
    /// even after one is withheld, so that the labels of all of them are
    /// kept; then the text parts joined, as the model reads them (a
    /// redaction there withholds the whole: rule
    /// `toolvet.secret-across-parts`).
    pub async fn check_result_parts(
        &self,
        request: &CallRequest,
        value: &mut Value,
        pointers: &[String],
        is_error: bool,
    ) -> PartsVerdict {
        let mut out = PartsVerdict::default();
        for pointer in pointers {
            let Some(part) = value.pointer(pointer) else {
                continue;
            };
            let content = match part {
                Value::String(text) => ResultContent::Text(text.clone()),
                other => ResultContent::Json(other.clone()),
            };
            let mut verdict = self
                .check_result(request, &ToolResult { content, is_error })
                .await;
            out.labels.append(&mut verdict.labels);
            match verdict.action {
                ResultAction::Withhold => {
                    out.withheld.get_or_insert(verdict);
                }
                ResultAction::Redact => {
                    if let (Some(masked), Some(slot)) =
                        (verdict.content.take(), value.pointer_mut(pointer))
                    {
                        *slot = match masked {
                            ResultContent::Text(text) => Value::String(text),
                            ResultContent::Json(json) => json,
                        };
                    }
                    out.redacted.get_or_insert(verdict);
                }
                ResultAction::Pass => {}
            }
        }
        // The model reads the parts together: text that only says what it
        // says across parts (an instruction split between two blocks, a
        // key name in one and its secret in the next; review s28 M2) is
        // vetted in their joined text, as masked part by part. Its labels
        // are kept, and a withhold or a redaction there, which no part
        // showed alone and which cannot be masked part by part, withholds
        // the whole.
        let texts: Vec<&str> = pointers
            .iter()
            .filter_map(|p| value.pointer(p).and_then(Value::as_str))
            .collect();
        // Joined twice: as lines (each part's own line breaks at its ends
        // dropped, so no blank line ends a sentence between them), and
        // run together (a token split inside, `ghp_` + the rest).
        let lines: Vec<&str> = texts
            .iter()
            .map(|t| t.trim_matches(|c: char| LINE_ENDS.contains(&c)))
            .collect();
        let joined = match texts.len() {
            0 | 1 => Vec::new(),
            _ => vec![lines.join("\n"), texts.concat()],
        };
        for text in joined {
            let joined = ToolResult {
                content: ResultContent::Text(text),
                is_error,
            };
            let mut verdict = self.check_result(request, &joined).await;
            for label in verdict.labels.drain(..) {
                if !out.labels.contains(&label) {
                    out.labels.push(label);
                }
            }
            match verdict.action {
                ResultAction::Pass => {}
                ResultAction::Withhold => {
                    out.withheld.get_or_insert(verdict);
                }
                ResultAction::Redact => {
                    verdict.action = ResultAction::Withhold;
                    verdict.content = None;
                    verdict
                        .rule
                        .get_or_insert_with(|| "toolvet.secret-across-parts".into());
                    verdict.reason.get_or_insert_with(|| {
                        "a secret spans several of its parts, which cannot be masked one by one"
                            .into()
                    });
                    out.withheld.get_or_insert(verdict);
                }
            }
        }
        out
    }
}

/// Line breaks dropped at the ends of a part before the parts are joined
/// as lines ([`Host::check_result_parts`]).
const LINE_ENDS: [char; 7] = [
    '\n', '\r', '\u{b}', '\u{c}', '\u{85}', '\u{2028}', '\u{2029}',
];

#[cfg(test)]
mod tests {
    use super::parts;
    use serde_json::json;

    #[test]
    fn every_text_and_the_structured_content_are_parts() {
        let raw = json!({"jsonrpc": "2.0", "id": 1, "result": {
            "content": [
                {"type": "text", "text": "a", "_meta": {"x": "hidden"}},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///x", "text": "b"}},
                {"type": "resource", "resource": {"uri": "file:///y", "blob": "AAAA"}},
                {"type": "resource_link", "uri": "https://e.test", "name": "n", "description": "d"},
            ],
            "structuredContent": {"k": "v"}}});
        let roots = ["/result", "/error"];
        assert_eq!(
            parts(&raw, &roots),
            [
                "/result/content/0/text",
                "/result/content/0/_meta/x",
                "/result/content/2/resource/uri",
                "/result/content/2/resource/text",
                "/result/content/3/resource/uri",
                "/result/content/4/uri",
                "/result/content/4/name",
                "/result/content/4/description",
                "/result/structuredContent"
            ]
        );
        let error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "m", "data": {"a/b": ["d"]}}});
        assert_eq!(
            parts(&error, &roots),
            ["/error/message", "/error/data/a~1b/0"]
        );
        // The whole value as the root: a shell's output object, a bare
        // string.
        let shell = json!({"stdout": "out", "stderr": "", "interrupted": false});
        assert_eq!(parts(&shell, &[""]), ["/stdout", "/stderr"]);
        assert_eq!(parts(&json!("text"), &[""]), [""]);
        assert!(parts(&json!(42), &[""]).is_empty());
        // Each pointer resolves to the part it names.
        for p in parts(&raw, &roots) {
            assert!(raw.pointer(&p).is_some(), "{p}");
        }
    }
}
