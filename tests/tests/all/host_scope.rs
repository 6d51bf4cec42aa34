//! A host loaded for one tool (`LoadOptions::only_tool`, what `toolvet
//! hook` uses): it loads only the checks that can select that tool, knows
//! a plugin's own globs only from an earlier load with the same settings,
//! gives the same verdicts as a full host for that tool, and denies every
//! other tool. Over the real shell-guard, path-guard and sql-guard
//! (target/plugins/, built by `make plugins`), each test with its own
//! artifact cache so what is remembered is known.

use serde_json::json;
use std::path::{Path, PathBuf};
use toolvet::{Decision, Host, LoadOptions, Policy};
use toolvet_tests::call;

fn plugin(name: &str) -> PathBuf {
    toolvet_tests::shipped_plugin(name)
}

/// shell-guard and path-guard with the globs their plugins declare, and
/// sql-guard limited to `run_sql` by the policy; `shell_settings` for
/// shell-guard. The artifact cache is `cache`.
fn policy(cache: &Path, shell_settings: serde_json::Value) -> Policy {
    let spec = json!({
        "host": {"cache_dir": cache, "default_timeout_ms": 10_000},
        "check": [
            {"name": "shell", "plugin": plugin("shell_guard"), "settings": shell_settings},
            {"name": "paths", "plugin": plugin("path_guard")},
            {"name": "sql", "plugin": plugin("sql_guard"), "tools": ["run_sql"]},
        ],
    });
    let text = toml::to_string(&spec).unwrap();
    Policy::from_toml(&text, Path::new("<host scope test>"), cache).unwrap()
}

async fn load_for(policy: Policy, tool: &str) -> Host {
    let options = LoadOptions {
        only_tool: Some(tool.into()),
        ..LoadOptions::default()
    };
    Host::load_with(policy, options).await.unwrap()
}

fn names(host: &Host) -> Vec<String> {
    host.checks().into_iter().map(|c| c.name).collect()
}

#[tokio::test]
async fn a_host_for_one_tool_loads_only_the_checks_that_can_select_it() {
    let cache = tempfile::tempdir().unwrap();
    let settings = json!({"protected_branches": ["main"]});
    // Nothing remembered yet: no check is known to load, so every one
    // loads (even sql, whose policy `tools` exclude read_file), and their
    // plugins' globs are remembered.
    let first = load_for(policy(cache.path(), settings.clone()), "read_file").await;
    assert_eq!(names(&first), ["shell", "paths", "sql"]);
    drop(first);
    // Now each is known to load, and sql's policy `tools` do not select
    // read_file (shell-guard's own glob is `*`: it routes by content, a
    // command argument of any tool; a plugin's own narrower globs are
    // tested below with a fixture's).
    let scoped = load_for(policy(cache.path(), settings.clone()), "read_file").await;
    assert_eq!(names(&scoped), ["shell", "paths"]);
    let bash = load_for(policy(cache.path(), settings.clone()), "bash").await;
    assert!(
        names(&bash).contains(&"shell".to_string()),
        "{:?}",
        names(&bash)
    );
    assert!(
        !names(&bash).contains(&"sql".to_string()),
        "{:?}",
        names(&bash)
    );

    // Its verdicts for its tool are a full host's.
    let full = Host::load(policy(cache.path(), settings.clone()))
        .await
        .unwrap();
    assert_eq!(names(&full), ["shell", "paths", "sql"]);
    for path in ["/home/alice/.ssh/id_rsa", "README.md", "../../etc/shadow"] {
        let request = call("read_file", json!({"path": path}));
        let (a, b) = (scoped.check(&request).await, full.check(&request).await);
        assert_eq!((a.decision, &a.rule), (b.decision, &b.rule), "{path}");
    }
    let request = call("bash", json!({"command": "rm -rf ~"}));
    let (a, b) = (bash.check(&request).await, full.check(&request).await);
    assert_eq!((a.decision, &a.rule), (b.decision, &b.rule));
    assert_eq!(a.decision, Decision::Deny);

    // Any other tool is denied, never vetted by a partial set of checks.
    let other = scoped.check(&call("bash", json!({"command": "ls"}))).await;
    assert_eq!(other.decision, Decision::Deny);
    assert_eq!(other.rule.as_deref(), Some("toolvet.host-scope"));
    assert_eq!(
        other.reason.as_deref(),
        Some(
            "this host loaded only the checks for calls to `read_file`, so it cannot vet a \
             call to `bash`"
        )
    );
    assert!(other.checks.is_empty(), "{:?}", other.checks);
    let preview = scoped
        .preview(&call("run_sql", json!({"query": "select 1"})))
        .await;
    assert_eq!(preview.rule.as_deref(), Some("toolvet.host-scope"));
}

#[tokio::test]
async fn globs_remembered_for_other_settings_or_another_file_are_not_used() {
    let cache = tempfile::tempdir().unwrap();
    let settings = json!({"protected_branches": ["main"]});
    drop(Host::load(policy(cache.path(), settings)).await.unwrap());
    // Other settings: the record is another's, so shell-guard loads.
    let other = json!({"protected_branches": ["main", "release"]});
    let scoped = load_for(policy(cache.path(), other), "read_file").await;
    assert_eq!(names(&scoped), ["shell", "paths"]);

    // Another file at the plugin's path: its stamp is not the remembered
    // one, so it loads (and here it declares other globs).
    let dir = tempfile::tempdir().unwrap();
    // A check that declares no tools (the `no-tools` fixture of
    // `make hostile`): its own globs do not select read_file. (sql-guard's
    // did not either, until it routed every tool by its arguments' SQL.)
    let copy = dir.path().join("narrow.wasm");
    std::fs::copy(toolvet_tests::hostile_dir().join("no-tools.wasm"), &copy).unwrap();
    let spec = |plugin_file: &Path| {
        let spec = json!({
            "host": {"cache_dir": cache.path(), "default_timeout_ms": 10_000},
            "check": [{"name": "shell", "plugin": plugin_file}],
        });
        let text = toml::to_string(&spec).unwrap();
        Policy::from_toml(&text, Path::new("<host scope test>"), dir.path()).unwrap()
    };
    // A file's digest is remembered by its stamp only once its last
    // change is 2 s old (the cache's settle time).
    tokio::time::sleep(std::time::Duration::from_millis(2_100)).await;
    drop(Host::load(spec(&copy)).await.unwrap());
    assert!(names(&load_for(spec(&copy), "read_file").await).is_empty());
    std::fs::copy(plugin("path_guard"), &copy).unwrap();
    let replaced = load_for(spec(&copy), "read_file").await;
    assert_eq!(names(&replaced), ["shell"]);
    let verdict = replaced
        .check(&call(
            "read_file",
            json!({"path": "/home/alice/.ssh/id_rsa"}),
        ))
        .await;
    assert_eq!(verdict.decision, Decision::Deny, "{verdict:?}");
}

#[tokio::test]
async fn a_check_that_would_not_load_fails_the_host_even_when_it_cannot_select_the_tool() {
    // As a host for every tool would: a missing plugin is a load error,
    // though its policy `tools` leave the call's tool out.
    let cache = tempfile::tempdir().unwrap();
    let spec = json!({
        "host": {"cache_dir": cache.path()},
        "check": [
            {"name": "paths", "plugin": plugin("path_guard")},
            {"name": "gone", "plugin": cache.path().join("missing.wasm"), "tools": ["run_sql"]},
        ],
    });
    let text = toml::to_string(&spec).unwrap();
    let policy = Policy::from_toml(&text, Path::new("<host scope test>"), cache.path()).unwrap();
    let options = LoadOptions {
        only_tool: Some("read_file".into()),
        ..LoadOptions::default()
    };
    match Host::load_with(policy, options).await {
        Err(toolvet::Error::Load(errors)) => {
            assert_eq!(errors.len(), 1, "{errors:?}");
            assert_eq!(errors[0].check, "gone");
        }
        Err(e) => panic!("expected the missing plugin's load error, got {e}"),
        Ok(host) => panic!("loaded {:?} despite a missing plugin", names(&host)),
    }
}
