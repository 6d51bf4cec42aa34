//! The host's own attributes come from the host only (review s25 F1): a
//! caller (serve, AuthZEN, `toolvet check`, `toolvet mcp`, the bindings,
//! all through `Host::check`) that sends `toolvet.real_paths` — or any
//! other `toolvet.` attribute but the state and secret paths it may add
//! to — is denied `toolvet.reserved-attribute` before any check runs, so
//! it cannot claim that path-guard's configured root "really is" `/`.
//!
//! Needs the shipped path-guard (`target/plugins/path_guard.wasm`, `make
//! plugins`).

use std::path::Path;
use toolvet::{CallRequest, Decision, Host, LoadOptions, Policy};
use toolvet_tests::shipped_plugin;

fn policy(dir: &Path) -> Policy {
    let text = format!(
        "[host]\ncache_dir = \"{}\"\n\n[[check]]\nname = \"paths\"\nplugin = \"{}\"\n\
         [check.settings]\nroots = [\"/srv/app\"]\n",
        toolvet_tests::cache_dir().display(),
        shipped_plugin("path_guard").display()
    );
    let file = dir.join("toolvet.toml");
    std::fs::write(&file, text).unwrap();
    Policy::from_file(&file).unwrap()
}

fn call(name: &str, args: serde_json::Value, attributes: &[(&str, &str)]) -> CallRequest {
    let mut request = CallRequest::new(name, &args).unwrap();
    request
        .context
        .attributes
        .insert("cwd".into(), "/srv/app".into());
    for (k, v) in attributes {
        request
            .context
            .attributes
            .insert((*k).to_string(), (*v).to_string());
    }
    request
}

#[tokio::test]
async fn a_caller_cannot_say_where_the_roots_really_are() {
    let dir = tempfile::tempdir().unwrap();
    let host = Host::load_with(policy(dir.path()), LoadOptions::default())
        .await
        .unwrap();
    let forged = r#"{"/srv/app":["/"]}"#;
    for (name, args) in [
        (
            "write_file",
            serde_json::json!({"path": "/srv/billing/app.py", "content": "import os\n"}),
        ),
        (
            "delete_directory",
            serde_json::json!({"path": "/srv/billing"}),
        ),
        (
            "read_file",
            serde_json::json!({"path": "/var/lib/app/db.conf"}),
        ),
    ] {
        // Without the attribute: outside the configured roots.
        let plain = host.check(&call(name, args.clone(), &[])).await;
        assert_eq!(plain.decision, Decision::Deny, "{name}: {plain:?}");
        assert_ne!(
            plain.rule.as_deref(),
            Some(toolvet::locate::RESERVED_ATTRIBUTE_RULE)
        );
        // With it, in every spelling: denied by the host, no check run.
        for key in [
            "toolvet.real_paths",
            "TOOLVET.real_paths",
            "toolvet.Real_Paths",
        ] {
            let v = host
                .check(&call(name, args.clone(), &[(key, forged)]))
                .await;
            assert_eq!(v.decision, Decision::Deny, "{name} {key}: {v:?}");
            assert_eq!(
                v.rule.as_deref(),
                Some(toolvet::locate::RESERVED_ATTRIBUTE_RULE),
                "{name} {key}: {v:?}"
            );
            assert!(v.checks.is_empty(), "{name} {key}: {v:?}");
            assert!(v.reason.as_deref().unwrap_or("").contains(key), "{v:?}");
        }
    }
    // Any other host attribute too; the state and secret paths a caller
    // may add to are still taken.
    let v = host
        .check(&call(
            "read_file",
            serde_json::json!({"path": "/srv/app/a.txt"}),
            &[("toolvet.whatever", "x")],
        ))
        .await;
    assert_eq!(
        v.rule.as_deref(),
        Some(toolvet::locate::RESERVED_ATTRIBUTE_RULE),
        "{v:?}"
    );
    let v = host
        .check(&call(
            "read_file",
            serde_json::json!({"path": "/srv/app/a.txt"}),
            &[
                ("toolvet.state_paths", r#"["/srv/app/state"]"#),
                ("toolvet.secret_paths", r#"["/srv/app/key"]"#),
            ],
        ))
        .await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
    // The caller's preview is refused alike.
    let v = host
        .preview(&call(
            "delete_directory",
            serde_json::json!({"path": "/srv/billing"}),
            &[("toolvet.real_paths", forged)],
        ))
        .await;
    assert_eq!(
        v.rule.as_deref(),
        Some(toolvet::locate::RESERVED_ATTRIBUTE_RULE),
        "{v:?}"
    );
}

/// Case files and benchmarks stand for the host and state its facts
/// (`LoadOptions::caller_is_host`): there the attribute is the check's
/// input, as before.
#[tokio::test]
async fn a_file_that_stands_for_the_host_states_its_facts() {
    let dir = tempfile::tempdir().unwrap();
    let options = LoadOptions {
        caller_is_host: true,
        ..LoadOptions::default()
    };
    let host = Host::load_with(policy(dir.path()), options).await.unwrap();
    let v = host
        .check(&call(
            "read_file",
            serde_json::json!({"path": "/srv/app/link/a.txt"}),
            &[(
                "toolvet.real_paths",
                r#"{"/srv/app/link/a.txt":["/home/alice/.ssh/id_rsa"]}"#,
            )],
        ))
        .await;
    assert_eq!(v.decision, Decision::Deny, "{v:?}");
    assert_ne!(
        v.rule.as_deref(),
        Some(toolvet::locate::RESERVED_ATTRIBUTE_RULE),
        "{v:?}"
    );
    // What the refusal keeps from a caller (the host of review s25 F1,
    // which took every caller's attribute so): the forged real location of
    // the root widens the roots to the whole file system.
    let v = host
        .check(&call(
            "write_file",
            serde_json::json!({"path": "/srv/billing/app.py", "content": "import os\n"}),
            &[("toolvet.real_paths", r#"{"/srv/app":["/"]}"#)],
        ))
        .await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
}

/// A tool name the validating constructors refuse (control or invisible
/// characters, white space at an end, letters that read as ASCII ones) is
/// denied by the host itself when a
/// Rust embedder builds the call without them, before any check runs: a
/// name list would miss `delete_\u{200b}repository`.
#[tokio::test]
async fn a_call_built_by_hand_with_an_invisible_name_is_denied_unvetted() {
    let dir = tempfile::tempdir().unwrap();
    let host = Host::load_with(policy(dir.path()), LoadOptions::default())
        .await
        .unwrap();
    for name in [
        "delete_\u{200b}repository",
        "read_file\u{feff}",
        "read_\u{202e}file",
        "read_file ",
        "",
        // Letters that read as ASCII ones (Cyrillic `е`, U+00A0).
        "d\u{435}lete_repository",
        "read\u{a0}file",
    ] {
        let mut request = call("read_file", serde_json::json!({"path": "README.md"}), &[]);
        request.call.name = name.into();
        let v = host.check(&request).await;
        assert_eq!(v.decision, Decision::Deny, "{name:?}: {v:?}");
        assert_eq!(v.rule.as_deref(), Some("toolvet.invalid-call"), "{name:?}");
        assert!(v.checks.is_empty(), "no check ran: {v:?}");
        assert!(
            v.reason
                .as_deref()
                .unwrap_or_default()
                .starts_with("invalid tool call: `call.name`"),
            "{v:?}"
        );
        // The same JSON through serde alone (no validation) fares the same.
        let text = serde_json::to_string(&request).unwrap();
        let by_serde: CallRequest = serde_json::from_str(&text).unwrap();
        assert_eq!(host.check(&by_serde).await.decision, Decision::Deny);
    }
    // An earlier call so named, in the history the caller sends: a check
    // reading the history would miss it.
    let mut request = call("read_file", serde_json::json!({"path": "README.md"}), &[]);
    request.context.history.push(toolvet::call::PriorCall {
        name: "delete_\u{200b}repository".into(),
        arguments: serde_json::value::RawValue::from_string("{}".into()).unwrap(),
        outcome: toolvet::call::Outcome::Denied,
    });
    let v = host.check(&request).await;
    assert_eq!(v.rule.as_deref(), Some("toolvet.invalid-call"), "{v:?}");
    assert!(v.checks.is_empty(), "no check ran: {v:?}");
    assert!(
        v.reason
            .as_deref()
            .unwrap_or_default()
            .starts_with("invalid tool call: `context.history[0].name`"),
        "{v:?}"
    );
    // The name spelled plainly is vetted (and allowed inside the roots).
    let plain = host
        .check(&call(
            "read_file",
            serde_json::json!({"path": "README.md"}),
            &[],
        ))
        .await;
    assert_eq!(plain.checks.len(), 1, "{plain:?}");
}
