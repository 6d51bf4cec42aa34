//! `CallRequest::from_json` on arbitrary text: never panics, and what it
//! accepts has the documented shape (non-empty tool name, object
//! arguments) and survives a serialise/parse round trip unchanged. It
//! refuses exactly what `toolvet::strict_json::parse_json_strict` finds ambiguous in the
//! text (a key twice in one object, two keys of one object that
//! `toolvet::fold::fold` alike, a number a 64-bit reader would round), so
//! the arguments it accepts read alike in every reader, a case-insensitive
//! one included, and their digest is that of their one meaning.

use serde_json::Value;
use toolvet::{CallRequest, strict_json::StrictJsonError, strict_json::parse_json_strict};

/// No two keys of one object in `value`, at any depth, fold alike.
fn assert_no_look_alikes(value: &Value) {
    match value {
        Value::Object(map) => {
            let mut folded: Vec<String> = map.keys().map(|k| toolvet::fold::fold(k)).collect();
            folded.retain(|f| !f.is_empty());
            let count = folded.len();
            folded.sort();
            folded.dedup();
            assert_eq!(
                folded.len(),
                count,
                "keys folding alike were accepted: {value}"
            );
            map.values().for_each(assert_no_look_alikes);
        }
        Value::Array(items) => items.iter().for_each(assert_no_look_alikes),
        _ => {}
    }
}

/// The property, on one input (any bytes).
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let strict = parse_json_strict(text);
    let Ok(request) = CallRequest::from_json(text) else {
        return;
    };
    match strict {
        Ok(_) => {}
        Err(StrictJsonError::Ambiguous(why)) => {
            panic!("a call with ambiguous JSON was accepted: {why}")
        }
        // serde_json's Value parser stops at 128 levels; the call's raw
        // arguments are bounded by the call's own nesting rule instead.
        Err(e) => assert!(e.to_string().contains("recursion limit"), "{e}"),
    }
    let arguments = parse_json_strict(request.call.arguments.get());
    if let Ok(value) = &arguments {
        assert_no_look_alikes(value);
        // The digest is that of the one value the arguments mean.
        let again = CallRequest::new(&request.call.name, value).expect("the same call");
        assert_eq!(again.arguments_sha256(), request.arguments_sha256());
    }
    assert!(!request.call.name.trim().is_empty());
    assert!(request.call.arguments.get().trim_start().starts_with('{'));
    for prior in &request.context.history {
        assert!(prior.arguments.get().trim_start().starts_with('{'));
    }
    let again = serde_json::to_string(&request).expect("serialisable");
    let reparsed = CallRequest::from_json(&again).expect("a serialised call parses again");
    assert_eq!(reparsed.call.name, request.call.name);
    assert_eq!(reparsed.call.id, request.call.id);
    assert_eq!(reparsed.call.arguments.get(), request.call.arguments.get());
    assert_eq!(
        reparsed.context.history.len(),
        request.context.history.len()
    );
    assert_eq!(reparsed.context.attributes, request.context.attributes);
}
