//! `CallRequest::from_json` on arbitrary text: never panics, and what it
//! accepts has the documented shape (non-empty tool name, object
//! arguments) and survives a serialise/parse round trip unchanged.

use toolvet::CallRequest;

/// The property, on one input (any bytes).
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(request) = CallRequest::from_json(text) else {
        return;
    };
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
