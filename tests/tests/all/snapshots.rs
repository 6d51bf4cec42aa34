//! Pre-initialised checks (`[host] preinitialize`, on by default): a
//! per-call check's fresh instances start from a snapshot taken after
//! `configure`. A snapshot must never carry one call into the next, never
//! replace `configure` for a check that does not run per call unless the
//! host asks (`LoadOptions::preinitialize_reused`), and never be loaded from
//! a cache file the host did not write.
//!
//! Fixtures: `bash tests/hostile/build.sh` (see tests/hostile/fixtures.md).

use serde_json::{Value, json};
use std::path::Path;
use toolvet::{Host, host::CheckSummary};
use toolvet_tests::{call, check, load_ok, run_cli, timed_check};

fn summary<'a>(checks: &'a [CheckSummary], name: &str) -> &'a CheckSummary {
    checks
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no check {name} in {checks:?}"))
}

/// Loads `spec` with `LoadOptions::preinitialize_reused` (what `toolvet
/// hook` sets) and asserts its check `kept` is made from a snapshot.
async fn load_reused_from_snapshot(spec: Value) -> Host {
    let options = toolvet::LoadOptions {
        preinitialize_reused: true,
        ..toolvet::LoadOptions::default()
    };
    let host = Host::load_with(toolvet_tests::policy(spec), options)
        .await
        .unwrap();
    assert_eq!(summary(&host.checks(), "kept").snapshot, Some(true));
    host
}

/// Three calls with secrets; each must find no earlier call.
async fn assert_every_call_fresh(host: &Host, tool: &str) {
    for secret in ["first-call-secret", "second-call-secret", "third"] {
        let (v, _) = timed_check(host, &call(tool, json!({"token": secret}))).await;
        assert_eq!(v.rule.as_deref(), Some("hostile.state-fresh"), "{v:?}");
        assert_eq!(v.reason.as_deref(), Some("no previous call"), "{v:?}");
    }
}

#[tokio::test]
async fn fresh_instances_from_a_snapshot_see_no_earlier_call() {
    let host = load_ok(json!({"check": [
        check("victim", "hostile.wasm", json!({"behave": "state"}), json!({"tools": ["victim"]}))
    ]}))
    .await;
    assert_eq!(summary(&host.checks(), "victim").snapshot, Some(true));
    assert_every_call_fresh(&host, "victim").await;
}

/// The counts `counter.wasm` reports for `calls` calls: `global=GG memory=MM`.
async fn counts(host: &Host, tool: &str, calls: usize) -> Vec<String> {
    let mut seen = Vec::new();
    for i in 0..calls {
        let (v, _) = timed_check(host, &call(tool, json!({"call": i}))).await;
        assert_eq!(v.rule.as_deref(), Some("counter.count"), "{v:?}");
        seen.push(v.reason.expect("a deny has a reason"));
    }
    seen
}

#[tokio::test]
async fn a_count_kept_in_a_wasm_global_and_in_memory_never_reaches_the_next_call() {
    // `counter.wasm` (tests/hostile/wat/counter.wat) adds 1 to a mutable
    // wasm global and to a word of memory in `configure` and in each
    // `check`. From a snapshot, every fresh instance starts with what
    // `configure` left (1, 1), never with what a call left; reused, the
    // counts go on.
    let host = load_ok(json!({"check": [
        check("fresh", "counter.wasm", json!({}), json!({"tools": ["fresh"]})),
        check("kept", "counter.wasm", json!({}), json!({"isolation": "reuse", "tools": ["kept"]})),
    ]}))
    .await;
    let checks = host.checks();
    assert_eq!(summary(&checks, "fresh").snapshot, Some(true));
    assert_eq!(summary(&checks, "kept").snapshot, Some(false));
    assert_eq!(counts(&host, "fresh", 3).await, ["global=02 memory=02"; 3]);
    assert_eq!(
        counts(&host, "kept", 3).await,
        [
            "global=02 memory=02",
            "global=03 memory=03",
            "global=04 memory=04"
        ]
    );
    // Calls that overlap each get their own instance too.
    let calls: Vec<_> = (0..8).map(|i| call("fresh", json!({"call": i}))).collect();
    let verdicts = futures::future::join_all(calls.iter().map(|c| host.check(c))).await;
    for v in verdicts {
        assert_eq!(v.reason.as_deref(), Some("global=02 memory=02"), "{v:?}");
    }

    // Without a snapshot each fresh instance runs `configure` itself.
    let host = load_ok(json!({
        "host": {"preinitialize": false},
        "check": [check("fresh", "counter.wasm", json!({}), json!({"tools": ["fresh"]}))],
    }))
    .await;
    assert_eq!(summary(&host.checks(), "fresh").snapshot, Some(false));
    assert_eq!(counts(&host, "fresh", 2).await, ["global=02 memory=02"; 2]);

    // A reused instance made from the snapshot starts where `configure`
    // left both counts, and keeps counting.
    let spec = json!({"check": [
        check("kept", "counter.wasm", json!({}), json!({"isolation": "reuse", "tools": ["kept"]})),
    ]});
    let host = load_reused_from_snapshot(spec).await;
    assert_eq!(
        counts(&host, "kept", 2).await,
        ["global=02 memory=02", "global=03 memory=03"]
    );
}

#[tokio::test]
async fn reuse_and_preinitialize_off_never_use_a_snapshot() {
    let host = load_ok(json!({"check": [
        check("kept", "hostile.wasm", json!({"behave": "state"}), json!({"isolation": "reuse", "tools": ["kept"]})),
        check("fresh", "hostile.wasm", json!({"behave": "state"}), json!({"tools": ["fresh"]})),
    ]}))
    .await;
    let checks = host.checks();
    assert_eq!(summary(&checks, "kept").snapshot, Some(false));
    assert_eq!(summary(&checks, "fresh").snapshot, Some(true));

    // Without pre-initialisation every fresh instance runs `configure`, and
    // is just as fresh.
    let host = load_ok(json!({
        "host": {"preinitialize": false},
        "check": [check("fresh", "hostile.wasm", json!({"behave": "state"}), json!({"tools": ["fresh"]}))],
    }))
    .await;
    assert_eq!(summary(&host.checks(), "fresh").snapshot, Some(false));
    assert_every_call_fresh(&host, "fresh").await;
}

#[tokio::test]
async fn a_reused_check_starts_from_its_snapshot_only_when_asked_and_stays_reused() {
    // `LoadOptions::preinitialize_reused` (what `toolvet hook` sets): the
    // reused instance is made from the snapshot instead of running
    // `configure`, and is still kept between calls.
    let spec = json!({"check": [
        check("kept", "hostile.wasm", json!({"behave": "state"}), json!({"isolation": "reuse", "tools": ["kept"]})),
    ]});
    let host = load_reused_from_snapshot(spec).await;
    let (first, _) = timed_check(&host, &call("kept", json!({"token": "one"}))).await;
    assert_eq!(
        first.rule.as_deref(),
        Some("hostile.state-fresh"),
        "{first:?}"
    );
    let (second, _) = timed_check(&host, &call("kept", json!({"token": "two"}))).await;
    assert_eq!(
        second.rule.as_deref(),
        Some("hostile.state-kept"),
        "{second:?}"
    );
}

#[tokio::test]
async fn each_check_snapshot_keeps_its_own_settings() {
    // One plugin, two settings: the snapshot of each is its own configured
    // state (the control allows, the state check denies).
    let host = load_ok(json!({"check": [
        check("control", "hostile.wasm", json!({}), json!({"tools": ["control"]})),
        check("victim", "hostile.wasm", json!({"behave": "state"}), json!({"tools": ["victim"]})),
    ]}))
    .await;
    let checks = host.checks();
    assert_eq!(summary(&checks, "control").snapshot, Some(true));
    assert_eq!(summary(&checks, "victim").snapshot, Some(true));
    for _ in 0..2 {
        let (v, _) = timed_check(&host, &call("control", json!({}))).await;
        assert_eq!(v.decision, toolvet::Decision::Allow, "{v:?}");
        let (v, _) = timed_check(&host, &call("victim", json!({}))).await;
        assert_eq!(v.rule.as_deref(), Some("hostile.state-fresh"), "{v:?}");
    }
}

/// The cache files written by a load, by name.
fn cache_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("cache dir")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A host loaded from `spec` with its load events, in order.
async fn load_seen(spec: Value) -> (Host, Vec<toolvet::progress::LoadEvent>) {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let options = toolvet::LoadOptions {
        observer: Some(std::sync::Arc::new({
            let seen = seen.clone();
            move |e: &toolvet::progress::LoadEvent| seen.lock().unwrap().push(e.clone())
        })),
        ..toolvet::LoadOptions::default()
    };
    let host = Host::load_with(toolvet_tests::policy(spec), options)
        .await
        .unwrap();
    let seen = seen.lock().unwrap().clone();
    (host, seen)
}

/// The names of the checks whose snapshots `events` report, with whether
/// each was taken, and the checks compiled before any snapshot.
fn snapshots_and_compiles(
    events: &[toolvet::progress::LoadEvent],
) -> (Vec<(String, bool)>, Vec<String>) {
    use toolvet::progress::LoadEvent;
    let mut snapshots = Vec::new();
    let mut compiled = Vec::new();
    for e in events {
        match e {
            LoadEvent::SnapshotFinished { check, ok, .. } => snapshots.push((check.clone(), *ok)),
            LoadEvent::CompileStarted { checks } => compiled.extend(checks.iter().cloned()),
            _ => {}
        }
    }
    (snapshots, compiled)
}

#[tokio::test]
async fn a_snapshotted_check_compiles_its_snapshot_only_and_its_component_when_none_can_be_taken() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let spec = json!({
        "host": {"cache_dir": cache.to_str().unwrap()},
        "check": [
            check("victim", "hostile.wasm", json!({"behave": "state"}), json!({"tools": ["victim"]})),
            // One table instruction: the snapshot transform refuses it.
            check("table", "counter-table.wasm", json!({}), json!({"tools": ["table"]})),
            check("kept", "counter.wasm", json!({}), json!({"isolation": "reuse", "tools": ["kept"]})),
        ],
    });
    let (host, events) = load_seen(spec.clone()).await;
    let (snapshots, compiled) = snapshots_and_compiles(&events);
    // Only the reused check compiles before the snapshots; the table check
    // compiles after its snapshot is refused.
    assert_eq!(compiled, ["kept"], "{events:?}");
    let mut snapshots = snapshots;
    snapshots.sort();
    assert_eq!(
        snapshots,
        [("table".to_string(), false), ("victim".to_string(), true)],
        "{events:?}"
    );
    let checks = host.checks();
    let (victim, table) = (summary(&checks, "victim"), summary(&checks, "table"));
    assert_eq!((victim.cached, victim.snapshot), (Some(false), Some(true)));
    assert_eq!((table.cached, table.snapshot), (Some(false), Some(false)));
    assert_every_call_fresh(&host, "victim").await;
    // Without a snapshot, each fresh instance runs `configure` itself.
    assert_eq!(counts(&host, "table", 2).await, ["global=02 memory=02"; 2]);
    // The cache holds no artifact of the snapshotted plugin itself, and one
    // of the plugin that could not be snapshotted.
    let artifacts = cache_files(&cache);
    let sha = |s: &CheckSummary| s.sha256.clone().unwrap();
    assert!(
        !artifacts.iter().any(|n| n.starts_with(&sha(victim))),
        "{artifacts:?}"
    );
    assert!(
        artifacts
            .iter()
            .any(|n| n.starts_with(&sha(table)) && n.ends_with(".cwasm")),
        "{artifacts:?}"
    );
    drop(host);

    // Warm: nothing compiles, and the table check's component is mapped.
    let (host, events) = load_seen(spec).await;
    let (_, compiled) = snapshots_and_compiles(&events);
    assert!(compiled.is_empty(), "{events:?}");
    let checks = host.checks();
    let (victim, table) = (summary(&checks, "victim"), summary(&checks, "table"));
    assert_eq!((victim.cached, victim.snapshot), (Some(true), Some(true)));
    assert_eq!((table.cached, table.snapshot), (Some(true), Some(false)));
    assert_eq!(counts(&host, "table", 2).await, ["global=02 memory=02"; 2]);
}

#[tokio::test]
async fn a_tampered_snapshot_is_never_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let spec = |settings: Value| {
        json!({
            "host": {"cache_dir": cache.to_str().unwrap()},
            "check": [
                check("victim", "hostile.wasm", settings, json!({"tools": ["victim"]})),
                // Reused, so compiled: its artifact names the shared engine.
                check("kept", "counter.wasm", json!({}), json!({"isolation": "reuse", "tools": ["kept"]})),
            ],
        })
    };
    // First load: the snapshot's artifact is compiled.
    let host = load_ok(spec(json!({"behave": "state"}))).await;
    assert_eq!(summary(&host.checks(), "victim").cached, Some(false));
    drop(host);
    let host = load_ok(spec(json!({"behave": "state"}))).await;
    let checks = host.checks();
    let sha = |name: &str| summary(&checks, name).sha256.clone().unwrap();
    let (sha, kept) = (sha("victim"), sha("kept"));
    drop(host);
    let artifacts: Vec<String> = cache_files(&cache)
        .into_iter()
        .filter(|n| n.ends_with(".cwasm"))
        .collect();
    // `<name>-<engine fingerprint>-<layout>.cwasm`: the reused plugin's and
    // the snapshot's artifacts are the shared engine's; the instrumented
    // copy the snapshot was taken with is the snapshot engine's. The
    // snapshotted plugin itself is never compiled.
    let engine_of = |n: &str| n.split('-').nth(1).unwrap_or_default().to_string();
    assert!(
        !artifacts.iter().any(|n| n.starts_with(&sha)),
        "{artifacts:?}"
    );
    let plugin = artifacts.iter().find(|n| n.starts_with(&kept)).unwrap();
    let (snapshots, instrumented): (Vec<&String>, Vec<&String>) = artifacts
        .iter()
        .filter(|n| !n.starts_with(&kept))
        .partition(|n| engine_of(n) == engine_of(plugin));
    assert_eq!(snapshots.len(), 1, "one snapshot artifact in {artifacts:?}");
    assert_eq!(
        instrumented.len(),
        1,
        "one instrumented copy in {artifacts:?}"
    );
    let snapshot = cache.join(snapshots[0]);
    let instrumented = cache.join(instrumented[0]);

    // A second load maps the snapshot from the cache.
    let host = load_ok(spec(json!({"behave": "state"}))).await;
    let checks = host.checks();
    let s = summary(&checks, "victim");
    assert_eq!((s.cached, s.snapshot), (Some(true), Some(true)), "{s:?}");
    drop(host);

    // Overwrite the snapshot's code, and the instrumented copy's, with
    // other bytes of the same length (what an attacker with write access
    // to the cache could do): the tags no longer verify, so the host
    // instruments the component and takes the snapshot again instead of
    // running those bytes, and the check still works.
    let tamper = |path: &Path| {
        let mut bytes = std::fs::read(path).unwrap();
        let middle = bytes.len() / 2;
        for b in &mut bytes[middle..middle + 64] {
            *b ^= 0xA5;
        }
        std::fs::write(path, &bytes).unwrap();
        bytes
    };
    let tampered = [tamper(&snapshot), tamper(&instrumented)];
    let host = load_ok(spec(json!({"behave": "state"}))).await;
    let checks = host.checks();
    let s = summary(&checks, "victim");
    assert_eq!((s.cached, s.snapshot), (Some(false), Some(true)), "{s:?}");
    assert_every_call_fresh(&host, "victim").await;
    for (path, bytes) in [&snapshot, &instrumented].into_iter().zip(tampered) {
        assert_ne!(
            std::fs::read(path).unwrap(),
            bytes,
            "the tampered artifact {} was replaced",
            path.display()
        );
    }
}

#[tokio::test]
async fn prune_keeps_the_snapshots_a_policy_uses() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = toolvet_tests::fixture("hostile.wasm");
    let text = |behave: &str| {
        format!(
            "[host]\ncache_dir = \"cache\"\n[[check]]\nname = \"victim\"\nplugin = {plugin:?}\n\
             tools = [\"victim\"]\n[check.settings]\nbehave = \"{behave}\"\n"
        )
    };
    let (kept, other) = (dir.path().join("kept.toml"), dir.path().join("other.toml"));
    std::fs::write(&kept, text("state")).unwrap();
    std::fs::write(&other, text("allow")).unwrap();
    let load = |path: &Path| Host::load(toolvet::Policy::from_file(path).unwrap());
    for path in [&kept, &other] {
        let host = load(path).await.unwrap();
        assert_eq!(summary(&host.checks(), "victim").snapshot, Some(true));
    }
    let artifacts = || {
        cache_files(&dir.path().join("cache"))
            .into_iter()
            .filter(|n| n.ends_with(".cwasm"))
            .count()
    };
    assert_eq!(
        artifacts(),
        3,
        "the plugin's instrumented copy and two snapshots (the plugin is never compiled itself)"
    );
    let run = run_cli(
        &["cache", "prune", "--config", kept.to_str().unwrap()],
        dir.path(),
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The instrumented copy is needed only to take a snapshot, and this
    // policy's is taken: it goes too.
    assert_eq!(
        artifacts(),
        1,
        "the other settings' snapshot and the instrumented copy are gone: {}",
        run.stdout
    );
    let host = load(&kept).await.unwrap();
    let checks = host.checks();
    let s = summary(&checks, "victim");
    assert_eq!((s.cached, s.snapshot), (Some(true), Some(true)), "{s:?}");
    assert_every_call_fresh(&host, "victim").await;
}
