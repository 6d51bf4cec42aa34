//! Bad inputs: call JSON and policies that are malformed, hostile or absurd
//! must give a clear error (or, for an oversized call, a deny before any
//! check runs), never a panic. The library is tested directly; file-level
//! cases (invalid UTF-8 in a policy or call file) go through the real CLI,
//! `target/release/toolvet`, which must exit 2 with a message naming the
//! file.

use serde_json::json;
use std::path::Path;
use toolvet::{CallRequest, Decision, LoadErrorKind, Policy, verdict::ErrorKind};
use toolvet_tests::{call, check, fixture, load_err, load_ok, policy_text, timed_check};

fn call_error(text: &str) -> String {
    match CallRequest::from_json(text) {
        Ok(r) => panic!("accepted {text:.80}: {r:?}"),
        Err(e) => e.to_string(),
    }
}

fn policy_error(text: &str) -> String {
    match Policy::from_toml(text, Path::new("toolvet.toml"), Path::new("/p")) {
        Ok(p) => panic!("accepted:\n{text:.300}\n{p:?}"),
        Err(e) => e.to_string(),
    }
}

fn assert_contains(haystack: &str, needles: &[&str]) {
    for n in needles {
        assert!(haystack.contains(n), "`{n}` not in: {haystack:.400}");
    }
}

// ---- call JSON -----------------------------------------------------------

#[test]
fn call_that_is_not_json_is_an_error_with_position() {
    assert_contains(
        &call_error("not json"),
        &["invalid tool call", "expected ident", "line 1 column 2"],
    );
    assert_contains(&call_error(""), &["EOF while parsing"]);
    assert_contains(
        &call_error("{\"call\": {\"name\": \"a\", "),
        &["EOF while parsing", "line 1"],
    );
    assert_contains(
        &call_error(r#"{"call": {"name": "a", "arguments": {}}} trailing"#),
        &["trailing characters"],
    );
}

#[test]
fn call_that_is_not_an_object_is_an_error() {
    for text in ["42", "\"bash\"", "null", "true", "[]"] {
        assert_contains(&call_error(text), &["invalid tool call", "CallRequest"]);
    }
    // Arguments must be an object, and so must history arguments and schemas.
    assert_contains(
        &call_error(r#"{"call": {"name": "a", "arguments": "rm -rf /"}}"#),
        &["`call.arguments` must be a JSON object, got a string"],
    );
    assert_contains(
        &call_error(r#"{"call": {"name": "a", "arguments": null}}"#),
        &["`call.arguments` must be a JSON object, got null"],
    );
    assert_contains(
        &call_error(
            r#"{"call": {"name": "a", "arguments": {}}, "tool": {"parameters_schema": 3}}"#,
        ),
        &["`tool.parameters_schema` must be a JSON object"],
    );
}

#[test]
fn deeply_nested_call_is_an_error_not_a_stack_overflow() {
    // serde_json stops decoding at 128 levels; the raw texts handed to checks
    // (arguments, schema) must be refused at the same depth, or a padding
    // field could make a check's own parser fail.
    let depth = 10_000;
    let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let in_arguments = format!(r#"{{"call": {{"name": "a", "arguments": {{"x": {nested}}}}}}}"#);
    assert_contains(&call_error(&in_arguments), &["`call.arguments`", "128"]);
    let objects = format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth));
    let in_schema = format!(
        r#"{{"call": {{"name": "a", "arguments": {{}}}}, "tool": {{"parameters_schema": {objects}}}}}"#
    );
    assert_contains(
        &call_error(&in_schema),
        &["`tool.parameters_schema`", "128"],
    );
    assert_contains(&call_error(&nested), &["invalid tool call"]);
    // 100 levels is fine.
    let ok = format!(
        r#"{{"call": {{"name": "a", "arguments": {{"x": {}{}}}}}}}"#,
        "[".repeat(100),
        "]".repeat(100)
    );
    assert!(CallRequest::from_json(&ok).is_ok());
}

#[test]
fn unknown_fields_are_named() {
    assert_contains(
        &call_error(r#"{"call": {"name": "a", "arguments": {}}, "extra": 1}"#),
        &["unknown field `extra`"],
    );
    assert_contains(
        &call_error(r#"{"call": {"name": "a", "arguments": {}, "args": {}}}"#),
        &["unknown field `args`"],
    );
    assert_contains(
        &call_error(r#"{"call": {"name": "a", "arguments": {}}, "context": {"user": "x"}}"#),
        &["unknown field `user`"],
    );
    assert_contains(
        &call_error(
            r#"{"call": {"name": "a", "arguments": {}}, "call": {"name": "b", "arguments": {}}}"#,
        ),
        &["duplicate field `call`"],
    );
}

#[test]
fn empty_or_blank_tool_name_is_an_error() {
    for name in ["", " ", "\t\n"] {
        let text = json!({"call": {"name": name, "arguments": {}}}).to_string();
        assert_contains(&call_error(&text), &["`call.name` must not be empty"]);
        assert!(CallRequest::new(name, &json!({})).is_err());
    }
    assert_contains(
        &call_error(r#"{"call": {"arguments": {}}}"#),
        &["missing field `name`"],
    );
    assert_contains(
        &call_error(r#"{"call": {"name": 7, "arguments": {}}}"#),
        &["invalid type: integer `7`"],
    );
}

#[test]
fn odd_but_valid_strings_are_kept_as_sent() {
    // Escapes and NUL inside the arguments stay text; the checks receive
    // exactly what was sent.
    let text = r#"{"call": {"name": "a", "arguments": {"x": "\ud83d\ude00 \u0000 \"q\""}}}"#;
    let request = CallRequest::from_json(text).unwrap();
    assert_eq!(
        request.call.arguments.get(),
        r#"{"x": "\ud83d\ude00 \u0000 \"q\""}"#
    );
    // A lone surrogate is text readers decode differently (serde refuses it,
    // Python keeps it): refused wherever it is, with its key path.
    assert_contains(
        &call_error(r#"{"call": {"name": "a", "arguments": {"x": "\ud800"}}}"#),
        &["`call.arguments.x`", "lone UTF-16 surrogate"],
    );
    assert_contains(
        &call_error(r#"{"call": {"name": "\ud800", "arguments": {}}}"#),
        &["invalid tool call", "escape"],
    );
}

#[tokio::test]
async fn oversized_call_is_denied_before_any_check_runs() {
    let host = load_ok(json!({
        "host": {"max_arguments_bytes": 4096},
        "check": [check("watch", "hostile.wasm", json!({"behave": "state"}), json!({}))]
    }))
    .await;
    // Exactly at the limit: the check runs.
    let filler = "x".repeat(4096 - r#"{"f":""}"#.len());
    let at_limit = call("t", json!({"f": filler}));
    assert_eq!(at_limit.call.arguments.get().len(), 4096);
    let (v, _) = timed_check(&host, &at_limit).await;
    assert_eq!(v.rule.as_deref(), Some("hostile.state-fresh"), "{v:?}");
    // One byte over: denied by the host itself, no check ran.
    let over = call("t", json!({"f": format!("{filler}y")}));
    let (v, elapsed) = timed_check(&host, &over).await;
    assert_eq!(v.decision, Decision::Deny);
    assert_eq!(v.rule.as_deref(), Some("toolvet.oversized-call"));
    assert_eq!(ErrorKind::OversizedCall.as_str(), "oversized-call");
    assert!(v.checks.is_empty(), "{v:?}");
    assert_eq!(v.decided_by, None);
    assert_eq!(
        v.reason.as_deref(),
        Some("the call's arguments are 4097 bytes, over the host's 4096-byte limit")
    );
    assert!(elapsed.as_millis() < 50, "{elapsed:?}");
}

#[tokio::test]
async fn default_limit_refuses_a_16_mib_call() {
    let host = load_ok(json!({"check": [check("ok", "hostile.wasm", json!({}), json!({}))]})).await;
    let huge = format!(
        r#"{{"call": {{"name": "write_file", "arguments": {{"content": "{}"}}}}}}"#,
        "A".repeat(16 << 20)
    );
    let request = CallRequest::from_json(&huge).unwrap();
    let (v, _) = timed_check(&host, &request).await;
    assert_eq!(v.decision, Decision::Deny);
    assert_eq!(v.rule.as_deref(), Some("toolvet.oversized-call"));
    assert_contains(
        v.reason.as_deref().unwrap(),
        &["over the host's 1048576-byte limit"],
    );
}

#[tokio::test]
async fn long_history_is_capped_not_refused() {
    let history: Vec<_> = (0..2000)
        .map(|i| json!({"name": "read", "arguments": {"i": i}, "outcome": "allowed"}))
        .collect();
    let text = json!({"call": {"name": "t", "arguments": {}}, "context": {"history": history}})
        .to_string();
    let request = CallRequest::from_json(&text).unwrap();
    let host = load_ok(json!({
        "host": {"max_history": 10},
        "check": [check("ok", "hostile.wasm", json!({}), json!({}))]
    }))
    .await;
    let (v, _) = timed_check(&host, &request).await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
}

// ---- policies -------------------------------------------------------------

#[test]
fn empty_policy_is_valid_and_the_default_decision_applies() {
    // Documented: a policy with no checks parses; loading it needs
    // `default_decision` other than allow, or `allow_without_checks`
    // (`cli_refuses_a_policy_that_would_allow_every_call_unvetted`).
    let p = Policy::from_toml("", Path::new("toolvet.toml"), Path::new("/p")).unwrap();
    assert!(p.checks().is_empty());
    let p = Policy::from_toml(
        "[host]\ndefault_decision = \"deny\"\n",
        Path::new("t"),
        Path::new("/p"),
    )
    .unwrap();
    assert_eq!(
        p.host().default_decision,
        toolvet::config::DefaultDecision::Deny
    );
}

#[tokio::test]
async fn empty_policy_with_deny_default_denies_everything() {
    let host = load_ok(json!({"host": {"default_decision": "deny"}})).await;
    let (v, _) = timed_check(&host, &call("anything", json!({}))).await;
    assert_eq!(v.decision, Decision::Deny);
    assert!(v.checks.is_empty());
}

#[test]
fn duplicate_check_names_point_at_both_lines() {
    let e = policy_error(
        "[[check]]\nname = \"shell\"\nplugin = \"a.wasm\"\n\n[[check]]\nname = \"shell\"\nplugin = \"b.wasm\"\n",
    );
    assert_contains(
        &e,
        &[
            "toolvet.toml:6",
            "check `shell`: `name`: duplicate check name (first defined on line 2)",
        ],
    );
}

#[tokio::test]
async fn recursive_globs_match_every_tool_and_broken_globs_are_named() {
    for glob in ["**", "***", "*"] {
        let host = load_ok(json!({"check": [
            check("all", "malformed.wasm", json!({"behave": "deny"}), json!({"tools": [glob]}))
        ]}))
        .await;
        for tool in ["bash", "mcp__fs__write", "a/b", ""] {
            if tool.is_empty() {
                continue;
            }
            let (v, _) = timed_check(&host, &call(tool, json!({}))).await;
            assert_eq!(v.decision, Decision::Deny, "glob {glob} on {tool}");
        }
    }
    for (glob, words) in [
        ("[", "unclosed character class"),
        ("", "empty glob"),
        ("{a,b", "unclosed alternate group"),
    ] {
        let text = format!(
            "[[check]]\nname = \"g\"\nplugin = \"a.wasm\"\ntools = [\"ok\", {}]\n",
            toml_string(glob)
        );
        assert_contains(
            &policy_error(&text),
            &["toolvet.toml:2", "check `g`: `tools[1]`", words],
        );
    }
    assert_contains(
        &policy_error("[[check]]\nname = \"g\"\nplugin = \"a.wasm\"\ntools = []\n"),
        &["`tools`: must list at least one glob"],
    );
}

fn toml_string(s: &str) -> String {
    toml::Value::String(s.into()).to_string()
}

#[test]
fn zero_negative_and_absurd_limits_are_refused_with_the_key() {
    let check = |key: &str, value: &str| {
        format!("[[check]]\nname = \"c\"\nplugin = \"a.wasm\"\n{key} = {value}\n")
    };
    for (key, value, words) in [
        (
            "timeout_ms",
            "0",
            vec![
                "toolvet.toml:2",
                "check `c`: `timeout_ms`: 0 is out of range (1..=60000)",
            ],
        ),
        (
            "timeout_ms",
            "60001",
            vec!["`timeout_ms`: 60001 is out of range"],
        ),
        (
            "timeout_ms",
            "-1",
            vec!["toolvet.toml:4", "invalid value: integer `-1`"],
        ),
        (
            "timeout_ms",
            "1.5",
            vec!["toolvet.toml:4", "invalid type: floating point `1.5`"],
        ),
        (
            "timeout_ms",
            "\"100\"",
            vec!["invalid type: string \"100\""],
        ),
        ("timeout_ms", "99999999999999999999", vec!["toolvet.toml:4"]),
        (
            "memory_mb",
            "0",
            vec!["`memory_mb`: 0 is out of range (1..=4096)"],
        ),
        (
            "memory_mb",
            "4097",
            vec!["`memory_mb`: 4097 is out of range"],
        ),
    ] {
        assert_contains(&policy_error(&check(key, value)), &words);
    }
    for (line, words) in [
        (
            "default_timeout_ms = 0",
            "[host] `default_timeout_ms`: 0 is out of range",
        ),
        (
            "default_timeout_ms = 86400000",
            "[host] `default_timeout_ms`: 86400000 is out of range",
        ),
        (
            "default_memory_mb = 100000",
            "[host] `default_memory_mb`: 100000 is out of range",
        ),
        (
            "max_concurrent_checks = 0",
            "[host] `max_concurrent_checks`: must be at least 1",
        ),
        (
            "max_arguments_bytes = 0",
            "[host] `max_arguments_bytes`: must be at least 1",
        ),
        (
            "max_reason_bytes = 10\nmax_result_bytes = 5",
            "`max_reason_bytes`: must not exceed `max_result_bytes`",
        ),
        ("timeout = 5", "unknown field `timeout`"),
    ] {
        assert_contains(&policy_error(&format!("[host]\n{line}\n")), &[words]);
    }
}

#[test]
fn malformed_policies_are_refused_with_the_key() {
    for (text, words) in [
        (
            "[[check]]\nplugin = \"a.wasm\"\n",
            vec!["missing field `name`"],
        ),
        ("[[check]]\nname = \"a\"\n", vec!["missing field `plugin`"]),
        (
            "[[check]]\nname = \"has space\"\nplugin = \"a.wasm\"\n",
            vec!["check `has space`: `name`: must be non-empty"],
        ),
        (
            "[[check]]\nname = \"\"\nplugin = \"a.wasm\"\n",
            vec!["`name`: must be non-empty"],
        ),
        (
            "[[check]]\nname = \"a\"\nplugin = \"a.wasm\"\nsha256 = \"abc\"\n",
            vec!["`sha256`: must be 64 hex digits"],
        ),
        (
            "[[check]]\nname = \"a\"\nplugin = \"a.wasm\"\nmode = \"audit\"\n",
            vec!["unknown variant `audit`", "enforce", "monitor"],
        ),
        (
            "[[check]]\nname = \"a\"\nplugin = \"a.wasm\"\nisolation = \"shared\"\n",
            vec!["unknown variant `shared`"],
        ),
        (
            "[[check]]\nname = \"a\"\nplugin = \"a.wasm\"\nsettings = 3\n",
            vec!["toolvet.toml:4", "invalid type: integer `3`"],
        ),
        (
            "[[check]]\nname = \"a\"\nplugin = \"a.wasm\"\nname = \"b\"\n",
            vec!["toolvet.toml:4", "duplicate key"],
        ),
        (
            "[check]\nname = \"a\"\n",
            vec!["invalid type: map, expected a sequence"],
        ),
        ("this is not toml", vec!["toolvet.toml:1"]),
    ] {
        assert_contains(&policy_error(text), &words);
    }
}

#[test]
fn deeply_nested_settings_are_an_error_not_a_stack_overflow() {
    for nested in [
        format!("{}{}", "[".repeat(10_000), "]".repeat(10_000)),
        format!("{}1{}", "{a=".repeat(10_000), "}".repeat(10_000)),
    ] {
        let text = format!(
            "[[check]]\nname = \"a\"\nplugin = \"a.wasm\"\n[check.settings]\nx = {nested}\n"
        );
        assert_contains(
            &policy_error(&text),
            &["toolvet.toml:5", "recursion limit exceeded"],
        );
    }
}

#[tokio::test]
async fn missing_plugin_file_is_a_read_error() {
    let spec = json!({"check": [{"name": "gone", "plugin": "/nonexistent/dir/gone.wasm"}]});
    let (error, _) = load_err(spec).await;
    assert_eq!(error.check, "gone");
    assert!(
        matches!(&error.kind, LoadErrorKind::Read(e) if e.kind() == std::io::ErrorKind::NotFound),
        "{error}"
    );
}

// ---- tampered artifacts: the sha256 pin and the compiled-artifact cache ------------

#[tokio::test]
async fn sha256_pin_refuses_a_changed_plugin() {
    // The digest the host computes for the real file.
    let host =
        load_ok(json!({"check": [check("pinned", "hostile.wasm", json!({}), json!({}))]})).await;
    let digest = host.checks()[0].sha256.clone().unwrap();
    let pinned = load_ok(json!({"check": [
        check("pinned", "hostile.wasm", json!({}), json!({"sha256": digest.to_uppercase()}))
    ]}))
    .await;
    let (v, _) = timed_check(&pinned, &call("t", json!({}))).await;
    assert_eq!(v.decision, Decision::Allow);
    // The same pin on another file (a plugin swapped on disk).
    let (error, _) = load_err(json!({"check": [
        check("pinned", "patch-version.wasm", json!({}), json!({"sha256": digest}))
    ]}))
    .await;
    match &error.kind {
        LoadErrorKind::DigestMismatch { expected, actual } => {
            assert_eq!(expected, &digest);
            assert_ne!(actual, &digest);
            assert_eq!(actual.len(), 64);
        }
        other => panic!("{other:?}"),
    }
    assert_contains(&error.to_string(), &["sha256 mismatch: policy pins"]);
}

#[tokio::test]
async fn tampered_cache_artifacts_are_recompiled_not_run() {
    let dir = tempfile::tempdir().unwrap();
    // No snapshot: the cache then holds exactly one artifact, the one this
    // test tampers with (a snapshot is a second artifact, stored and
    // authenticated the same way).
    let spec = || {
        json!({
            "host": {"cache_dir": dir.path().to_str().unwrap(), "preinitialize": false},
            "check": [check("c", "hostile.wasm", json!({}), json!({}))]
        })
    };
    let first = load_ok(spec()).await;
    assert_eq!(first.checks()[0].cached, Some(false), "compiled and stored");
    let second = load_ok(spec()).await;
    assert_eq!(
        second.checks()[0].cached,
        Some(true),
        "loaded from the cache"
    );
    let artifact = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "cwasm"))
        .expect("an artifact in the cache");
    let original = std::fs::read(&artifact).unwrap();

    // 1. One flipped byte in the compiled code: the tag no longer verifies.
    let mut flipped = original.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    std::fs::write(&artifact, &flipped).unwrap();
    let host = load_ok(spec()).await;
    assert_eq!(
        host.checks()[0].cached,
        Some(false),
        "a tampered artifact is not used"
    );
    let (v, _) = timed_check(&host, &call("t", json!({}))).await;
    assert_eq!(v.decision, Decision::Allow);
    assert_eq!(
        std::fs::read(&artifact).unwrap(),
        original,
        "and is replaced"
    );

    // 2. An artifact and tag made by another cache (another key) are
    // foreign: the other key's tag does not verify with ours.
    let other = tempfile::tempdir().unwrap();
    load_ok(json!({
        "host": {"cache_dir": other.path().to_str().unwrap(), "preinitialize": false},
        "check": [check("c", "hostile.wasm", json!({}), json!({}))]
    }))
    .await;
    let tag = artifact.with_extension("tag");
    let our_tag = std::fs::read(&tag).unwrap();
    let foreign_tag = std::fs::read(other.path().join(tag.file_name().unwrap())).unwrap();
    assert_ne!(
        foreign_tag[..32],
        our_tag[..32],
        "each cache has its own key"
    );
    std::fs::write(&tag, &foreign_tag).unwrap();
    let host = load_ok(spec()).await;
    assert_eq!(
        host.checks()[0].cached,
        Some(false),
        "a foreign artifact is not used"
    );

    // 3. Truncated and empty artifacts.
    for bytes in [&original[..original.len() / 3], &[][..]] {
        std::fs::write(&artifact, bytes).unwrap();
        let host = load_ok(spec()).await;
        assert_eq!(host.checks()[0].cached, Some(false));
    }

    // 4. A broken key file makes the cache unusable, never the host.
    std::fs::write(dir.path().join("key"), b"short").unwrap();
    let host = load_ok(spec()).await;
    assert_eq!(host.checks()[0].cached, Some(false));
    let (v, _) = timed_check(&host, &call("t", json!({}))).await;
    assert_eq!(v.decision, Decision::Allow);
}

// ---- the CLI: file-level inputs -------------------------------------------------

fn toolvet(args: &[&str], dir: &Path, stdin: Option<&str>) -> toolvet_tests::CliRun {
    toolvet_tests::run_cli(args, dir, stdin.unwrap_or(""))
}

fn good_policy(dir: &Path) {
    std::fs::write(
        dir.join("ok.toml"),
        format!(
            "[[check]]\nname = \"ok\"\nplugin = {}\n",
            toml_string(&fixture("hostile.wasm"))
        ),
    )
    .unwrap();
}

const GOOD_CALL: &str = r#"{"call": {"name": "bash", "arguments": {"command": "ls"}}}"#;

#[test]
fn cli_refuses_a_policy_that_is_not_utf8() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.toml"),
        b"[[check]]\nname = \"\xff\xfe\"\n",
    )
    .unwrap();
    let run = toolvet(&["check", "-c", "bad.toml"], dir.path(), Some(GOOD_CALL));
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_contains(
        &run.stderr,
        &["bad.toml: cannot read: stream did not contain valid UTF-8"],
    );
    assert!(run.stdout.is_empty());
}

#[test]
fn cli_refuses_a_call_file_that_is_not_utf8() {
    let dir = tempfile::tempdir().unwrap();
    good_policy(dir.path());
    std::fs::write(
        dir.path().join("call.json"),
        b"{\"call\": {\"name\": \"bash\", \"arguments\": {\"c\": \"\xff\"}}}",
    )
    .unwrap();
    let run = toolvet(&["check", "-c", "ok.toml", "call.json"], dir.path(), None);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_contains(
        &run.stderr,
        &["call.json: cannot read: stream did not contain valid UTF-8"],
    );
    // The same bytes on stdin.
    let run = toolvet(&["check", "-c", "ok.toml"], dir.path(), Some("\u{0}"));
    assert_eq!(run.code, 2, "{}", run.stderr);
}

#[test]
fn cli_reports_bad_calls_with_their_position() {
    let dir = tempfile::tempdir().unwrap();
    good_policy(dir.path());
    let deep = format!(
        r#"{{"call": {{"name": "a", "arguments": {{"x": {}{}}}}}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    for (input, words) in [
        (
            "not json",
            vec!["<stdin>: call #1: malformed JSON: expected ident"],
        ),
        ("[1, 2]", vec!["<stdin>: call #1: invalid tool call"]),
        (
            r#"{"call": {"name": "", "arguments": {}}}"#,
            vec!["`call.name` must not be empty"],
        ),
        (
            r#"{"call": {"name": "a", "arguments": {}}, "x": 1}"#,
            vec!["unknown field `x`"],
        ),
        (
            deep.as_str(),
            vec!["call #1: malformed JSON: recursion limit exceeded"],
        ),
        ("", vec!["no calls given"]),
    ] {
        let run = toolvet(&["check", "-c", "ok.toml"], dir.path(), Some(input));
        assert_eq!(run.code, 2, "{input:.60}: {}", run.stderr);
        assert_contains(&run.stderr, &words);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
    // A bad second call: the first verdict is printed, then exit 2.
    let run = toolvet(
        &["check", "-c", "ok.toml"],
        dir.path(),
        Some(&format!("{GOOD_CALL}\n{{oops")),
    );
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
    assert_contains(&run.stderr, &["call #2: malformed JSON"]);
}

#[test]
fn cli_refuses_bad_policies_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = toml_string(&fixture("hostile.wasm"));
    for (text, words) in [
        (
            format!("[[check]]\nname = \"a\"\nplugin = {plugin}\ntimeout_ms = 0\n"),
            "p.toml:2: check `a`: `timeout_ms`: 0 is out of range (1..=60000)",
        ),
        (
            format!("[[check]]\nname = \"a\"\nplugin = {plugin}\ntimeout_ms = 3600000\n"),
            "`timeout_ms`: 3600000 is out of range",
        ),
        (
            format!(
                "[[check]]\nname = \"a\"\nplugin = {plugin}\n[[check]]\nname = \"a\"\nplugin = {plugin}\n"
            ),
            "p.toml:5: check `a`: `name`: duplicate check name (first defined on line 2)",
        ),
        (
            format!("[[check]]\nname = \"a\"\nplugin = {plugin}\ntools = [\"[\"]\n"),
            "`tools[0]`: bad glob `[`",
        ),
        (
            "[[check]]\nname = \"a\"\nplugin = \"missing.wasm\"\n".to_string(),
            "check `a` (",
        ),
        (
            format!("[[check]]\nname = \"a\"\nplugin = {plugin}\n[check.settings]\nbogus = 1\n"),
            "invalid settings: hostile settings: unknown field `bogus`",
        ),
    ] {
        std::fs::write(dir.path().join("p.toml"), &text).unwrap();
        let run = toolvet(&["check", "-c", "p.toml"], dir.path(), Some(GOOD_CALL));
        assert_eq!(run.code, 2, "{text}: {}", run.stderr);
        assert_contains(&run.stderr, &[words]);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
    }
    let run = toolvet(&["check", "-c", "absent.toml"], dir.path(), Some(GOOD_CALL));
    assert_eq!(run.code, 2);
    assert_contains(&run.stderr, &["absent.toml: cannot read"]);
}

#[test]
fn cli_refuses_a_policy_that_would_allow_every_call_unvetted() {
    // An emptied or truncated policy file (or one whose checks were all
    // removed) with the default `default_decision = "allow"` must block,
    // not let every call through (issue 29, fourth review): exit 2 naming
    // the file and the ways out. Saying so on purpose still works.
    let dir = tempfile::tempdir().unwrap();
    for text in ["", "\n", "[host]\ndefault_timeout_ms = 50\n"] {
        std::fs::write(dir.path().join("empty.toml"), text).unwrap();
        let run = toolvet(&["check", "-c", "empty.toml"], dir.path(), Some(GOOD_CALL));
        assert_eq!(run.code, 2, "{text:?}: {}", run.stdout);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
        assert_contains(
            &run.stderr,
            &[
                "empty.toml",
                "lists no checks",
                "allow_without_checks = true",
            ],
        );
    }
    std::fs::write(
        dir.path().join("empty.toml"),
        "[host]\nallow_without_checks = true\n",
    )
    .unwrap();
    let run = toolvet(&["check", "-c", "empty.toml"], dir.path(), Some(GOOD_CALL));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let verdict: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(verdict["decision"], "allow");
    assert_eq!(verdict["checks"], json!([]));
}

#[test]
fn policy_text_helper_round_trips() {
    // The JSON-to-TOML helper the other tests rely on produces what the
    // parser reads back.
    let text = policy_text(
        json!({"check": [{"name": "a", "plugin": "/x.wasm", "settings": {"k": [1, 2]}, "timeout_ms": 7}]}),
    );
    let p = Policy::from_toml(&text, Path::new("t"), Path::new("/")).unwrap();
    assert_eq!(p.checks()[0].timeout_ms, 7);
    assert_eq!(p.checks()[0].settings, json!({"k": [1, 2]}));
}

// ---- ambiguous call JSON: duplicate keys, inexact numbers ------------------

#[test]
fn duplicate_keys_anywhere_in_a_call_are_refused_with_their_path() {
    for (text, path, key) in [
        (
            r#"{"call": {"name": "bash", "arguments": {"command": "rm -rf ~", "command": "ls"}}}"#,
            "call.arguments",
            "command",
        ),
        (
            r#"{"call": {"name": "w", "arguments": {"files": [{"path": "a"}, {"path": "/etc/passwd", "p\u0061th": "b"}]}}}"#,
            "call.arguments.files[1]",
            "path",
        ),
        (
            r#"{"call": {"name": "a", "arguments": {}}, "context": {"attributes": {"cwd": "/", "cwd": "/w"}}}"#,
            "context.attributes",
            "cwd",
        ),
        (
            r#"{"call": {"name": "a", "arguments": {}, "id": "1"}, "tool": {"parameters_schema": {"type": "object", "type": "string"}}}"#,
            "tool.parameters_schema",
            "type",
        ),
    ] {
        assert_contains(
            &call_error(text),
            &[
                "invalid tool call",
                &format!("`{path}` has the key `{key}` twice"),
            ],
        );
    }
}

#[test]
fn numbers_a_64_bit_reader_would_round_are_refused() {
    for (number, words) in [
        (
            "18446744073709551617",
            "the integer 18446744073709551617 does not fit in 64 bits",
        ),
        ("100000000000000000000001", "does not fit in 64 bits"),
        (
            "1.00000000000000001",
            "no exact 64-bit floating-point value (readers get 1.0)",
        ),
        ("1e400", "beyond the 64-bit floating-point range"),
    ] {
        assert_contains(
            &call_error(&format!(
                r#"{{"call": {{"name": "pay", "arguments": {{"to": {{"account": {number}}}}}}}}}"#
            )),
            &["`call.arguments.to.account`", words],
        );
    }
    // Within 64 bits, and floats whose value is their nearest f64, pass.
    for number in [
        "18446744073709551615",
        "-9223372036854775808",
        "1e23",
        "0.1",
        "2.5e-3",
    ] {
        CallRequest::from_json(&format!(
            r#"{{"call": {{"name": "pay", "arguments": {{"n": {number}}}}}}}"#
        ))
        .unwrap();
    }
}

#[test]
fn cli_refuses_ambiguous_calls_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    good_policy(dir.path());
    for (input, words) in [
        (
            r#"{"call": {"name": "bash", "arguments": {"command": "rm -rf ~", "command": "ls"}}}"#,
            "<stdin>: call #1: invalid tool call: `call.arguments` has the key `command` twice",
        ),
        (
            r#"{"call": {"name": "pay", "arguments": {"account": 18446744073709551617}}}"#,
            "<stdin>: call #1: invalid tool call: `call.arguments.account`: the integer",
        ),
    ] {
        let run = toolvet(&["check", "-c", "ok.toml"], dir.path(), Some(input));
        assert_eq!(run.code, 2, "{input}: {}", run.stderr);
        assert_contains(&run.stderr, &[words]);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
    }
    // The second call of a stream is read from its own text.
    let run = toolvet(
        &["check", "-c", "ok.toml"],
        dir.path(),
        Some(&format!(
            "{GOOD_CALL}\n{{\"call\": {{\"name\": \"a\", \"name\": \"b\", \"arguments\": {{}}}}}}"
        )),
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
    assert_contains(&run.stderr, &["call #2", "duplicate field `name`"]);
}

#[test]
fn keys_that_fold_alike_are_refused_by_check_and_the_hooks() {
    // A tool whose decoder matches keys case-insensitively (Go's
    // encoding/json, many MCP servers) runs `QUERY`, the last match, while
    // a check reads `query`: every front end refuses such a pair, naming it.
    let dir = tempfile::tempdir().unwrap();
    good_policy(dir.path());
    for (input, words) in [
        (
            r#"{"call": {"name": "query", "arguments": {"query": "SELECT 1", "QUERY": "DROP TABLE users"}}}"#,
            "<stdin>: call #1: invalid tool call: `call.arguments` has the keys `query` and `QUERY`, which differ only in case",
        ),
        (
            r#"{"call": {"name": "pay", "arguments": {"p": [{"amount": 5, "\uff21MOUNT": 5000}]}}}"#,
            "`call.arguments.p[0]` has the keys `amount` and `ＡMOUNT`",
        ),
        (
            r#"{"call": {"name": "a", "arguments": {"path": "x", "pa\u200bth": "/root/.ssh/id_rsa"}}}"#,
            "`call.arguments` has the keys `path` and `pa\\u{200b}th`",
        ),
    ] {
        let run = toolvet(&["check", "-c", "ok.toml"], dir.path(), Some(input));
        assert_eq!(run.code, 2, "{input}: {}", run.stderr);
        assert_contains(&run.stderr, &[words]);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
    }
    // The hooks build the call from the agent's payload: the same rule.
    let payload = json!({
        "session_id": "s", "cwd": dir.path(), "hook_event_name": "PreToolUse",
        "tool_name": "mcp__db__query",
        "tool_input": {"query": "SELECT 1", "QUERY": "DROP TABLE users"}
    })
    .to_string();
    let run = toolvet(
        &["hook", "claude-code", "--config", "ok.toml"],
        dir.path(),
        Some(&payload),
    );
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert_contains(&run.stdout, &["\"permissionDecision\":\"deny\""]);
    assert_contains(
        &run.stderr,
        &["`call.arguments` has the keys `query` and `QUERY`"],
    );
}
