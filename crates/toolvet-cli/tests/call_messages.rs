//! Messages about a malformed call name the key and carry no parser line
//! and column (issue 18). Needs the Rust plugins (`make rust-plugins`).

mod common;

use common::{setup, toolvet};

#[test]
fn call_shape_errors_name_the_key_without_a_parser_position() {
    let (dir, cache) = setup();
    for (input, expected) in [
        (
            r#"{"call": {"name": "a", "arguments": {}, "args": {}}}"#,
            "invalid tool call: `call.args`: unknown field `args`, expected one of `id`, `name`, `arguments`\n",
        ),
        (
            r#"{"call": {"name": "a", "arguments": {}}, "context": {"history": [{"name": "b", "arguments": {}, "outcome": "ok"}]}}"#,
            "invalid tool call: `context.history[0].outcome`: unknown variant `ok`",
        ),
    ] {
        let run = toolvet(dir.path(), &cache, &["check", "-c", "toolvet.toml"], input);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(run.stderr.contains(expected), "{}", run.stderr);
        assert!(!run.stderr.contains(" at line "), "{}", run.stderr);
        assert_eq!(
            run.stderr.matches("unknown").count(),
            1,
            "said once: {}",
            run.stderr
        );
    }
}
