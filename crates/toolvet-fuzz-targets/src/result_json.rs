//! A tool result as the host reads it and masks it, on arbitrary bytes:
//! `ResultRequest::from_json` never panics, holds a result to the call's
//! rules (what it accepts survives a serialise/parse round trip), and
//! masks derived from the same bytes (spans anywhere, in or out of the
//! text and across characters; pointers that may or may not resolve) are
//! either refused with a message or applied so that the text before the
//! first mask and after the last one is kept and every masked byte range
//! is gone.

use toolvet::tool_result::{ResultContent, ResultRequest, check_and_apply_masks};

/// The property, on one input (any bytes).
pub fn run(data: &[u8]) {
    // The last bytes choose masks; the rest is the request's text.
    let split = data.len().saturating_sub(8);
    let (body, tail) = data.split_at(split);
    let Ok(text) = std::str::from_utf8(body) else {
        return;
    };
    let Ok(request) = ResultRequest::from_json(text) else {
        return;
    };
    let again = serde_json::to_string(&request.result).expect("a result serialises");
    let reread: toolvet::tool_result::ToolResult =
        serde_json::from_str(&again).expect("a serialised result reads back");
    assert_eq!(reread, request.result, "round trip");
    let number = |i: usize| {
        u32::from(u16::from_le_bytes([
            tail.get(i).copied().unwrap_or(0),
            tail.get(i + 1).copied().unwrap_or(0),
        ]))
    };
    let spans = [(number(0), number(2)), (number(4), number(6))];
    match &request.result.content {
        ResultContent::Text(original) => {
            let Ok(masked) = check_and_apply_masks(&request.result.content, &spans, &[], "k")
            else {
                return;
            };
            let ResultContent::Text(masked) = masked else {
                panic!("a text result stays text")
            };
            let first = spans.iter().map(|s| s.0 as usize).min().unwrap();
            let last = spans.iter().map(|s| s.1 as usize).max().unwrap();
            assert!(
                masked.starts_with(&original[..first]),
                "text before the masks kept"
            );
            assert!(
                masked.ends_with(&original[last..]),
                "text after the masks kept"
            );
            assert!(masked.contains("[redacted: k]"));
            // A span is never handed to a JSON result, nor a pointer to text.
            assert!(
                check_and_apply_masks(&request.result.content, &[], &["/a".into()], "k").is_err()
            );
        }
        ResultContent::Json(value) => {
            assert!(check_and_apply_masks(&request.result.content, &spans, &[], "k").is_err());
            // Mask every string the pointers of the value reach.
            let pointers: Vec<String> = pointers_of(value, String::new());
            if pointers.is_empty() {
                return;
            }
            let masked = check_and_apply_masks(&request.result.content, &[], &pointers, "k")
                .expect("pointers taken from the value resolve");
            let ResultContent::Json(masked) = masked else {
                panic!("a JSON result stays JSON")
            };
            for p in &pointers {
                // A pointer inside a masked value is gone with it.
                if let Some(v) = masked.pointer(p) {
                    assert_eq!(v, &serde_json::Value::String("[redacted: k]".into()), "{p}");
                }
            }
        }
    }
}

/// The pointer of every string in `value` (at most 64).
fn pointers_of(value: &serde_json::Value, at: String) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(value, at)];
    while let Some((v, p)) = stack.pop() {
        if out.len() >= 64 {
            break;
        }
        match v {
            serde_json::Value::String(_) if !p.is_empty() => out.push(p),
            serde_json::Value::Object(map) => {
                for (k, child) in map {
                    stack.push((
                        child,
                        format!("{p}/{}", k.replace('~', "~0").replace('/', "~1")),
                    ));
                }
            }
            serde_json::Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    stack.push((child, format!("{p}/{i}")));
                }
            }
            _ => {}
        }
    }
    out
}
