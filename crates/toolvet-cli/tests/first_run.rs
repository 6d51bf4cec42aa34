//! The `toolvet` binary on a cold compiled cache (issue 18): progress on
//! stderr and never on stdout (and none at all from `toolvet hook`), and
//! each check's own compile time from `toolvet compile`.
//!
//! Needs the Rust plugins (`make rust-plugins`); each test uses a cache
//! directory of its own, so it starts cold.

mod common;

use common::{CALL, setup, toolvet};
use serde_json::Value;
use std::path::Path;

#[test]
fn a_cold_check_says_it_compiles_on_stderr_and_prints_only_verdicts_on_stdout() {
    let (dir, cache) = setup();
    let run = toolvet(dir.path(), &cache, &["check", "-c", "toolvet.toml"], CALL);
    assert_eq!(run.code, 3, "{}", run.stderr);
    // stdout: one verdict, nothing else.
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    let verdict: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(verdict["decision"], "deny");
    // stderr, not a terminal: one plain line before, one after. The
    // per-call check runs from a snapshot and compiles only that (quietly:
    // a Rust check's snapshot takes under a second); the reused one
    // compiles.
    assert!(
        run.stderr.contains(
            "toolvet: compiling 1 check, first run only (later runs load it from the cache)…"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("toolvet: compiled 1 check in "),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains('\u{1b}'),
        "no terminal codes when piped: {:?}",
        run.stderr
    );
    // Warm: nothing to say.
    let run = toolvet(dir.path(), &cache, &["check", "-c", "toolvet.toml"], CALL);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(!run.stderr.contains("compil"), "{}", run.stderr);
}

#[test]
fn compile_reports_each_checks_own_time_and_the_batch_wall_time() {
    let (dir, cache) = setup();
    // Without snapshots, so both components compile in the batch.
    let policy = dir.path().join("toolvet.toml");
    let text = std::fs::read_to_string(&policy).unwrap();
    std::fs::write(&policy, format!("[host]\npreinitialize = false\n{text}")).unwrap();
    let run = toolvet(dir.path(), &cache, &["compile", "-c", "toolvet.toml"], "");
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("toolvet: compiling 2 checks"),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("first run only"), "{}", run.stdout);
    // `tools   compiled   812.3 ms  /…/tool_policy.wasm`
    let own: Vec<f64> = run
        .stdout
        .lines()
        .filter(|l| l.contains(" compiled "))
        .map(|l| {
            let ms = l.split_whitespace().nth(2).unwrap();
            ms.parse().unwrap()
        })
        .collect();
    assert_eq!(own.len(), 2, "{}", run.stdout);
    // `loaded 2 checks in … ms; compiling 2 of them took W ms (wall time, …)`
    let last = run.stdout.lines().last().unwrap();
    let wall: f64 = last
        .split("took ")
        .nth(1)
        .and_then(|rest| rest.split(" ms").next())
        .unwrap_or_else(|| panic!("no batch wall time in {last:?}"))
        .parse()
        .unwrap();
    assert!(last.contains("compiling 2 of them"), "{last}");
    // Each time is the check's own, not the batch's: each fits in the
    // batch, and they are not all the batch's time. (Their sum is not
    // compared with the batch: how much the two compilations overlap
    // depends on the machine's load.)
    for t in &own {
        assert!(
            *t <= wall * 1.05 + 5.0,
            "own time {t} ms is longer than the batch's {wall} ms ({own:?})"
        );
    }
    let shortest = own.iter().copied().fold(f64::INFINITY, f64::min);
    assert!(
        shortest < wall * 0.95,
        "every check reports the batch's time ({own:?}, batch {wall} ms)"
    );
    // A second run finds everything in the cache.
    let run = toolvet(dir.path(), &cache, &["compile", "-c", "toolvet.toml"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.matches(" cached ").count(), 2, "{}", run.stdout);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

#[test]
fn compile_fills_the_cache_with_a_snapshotted_checks_snapshot_only() {
    let (dir, cache) = setup();
    let run = toolvet(dir.path(), &cache, &["compile", "-c", "toolvet.toml"], "");
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    // The reused check compiles in the batch; the per-call one compiles
    // its snapshot only, outside it.
    assert!(
        run.stderr.contains("toolvet: compiling 1 check,"),
        "{}",
        run.stderr
    );
    // `tools    snapshot   …`: its row says what was made for it.
    assert_eq!(
        run.stdout.matches(" compiled ").count(),
        1,
        "{}",
        run.stdout
    );
    let snapshot_rows: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains(" snapshot "))
        .collect();
    assert_eq!(snapshot_rows.len(), 1, "{}", run.stdout);
    assert!(snapshot_rows[0].starts_with("tools "), "{}", run.stdout);
    let last = run.stdout.lines().last().unwrap();
    assert!(last.contains("compiling 1 of them took"), "{last}");
    // The cache holds the reused plugin's artifact, the snapshot and the
    // instrumented copy it was taken with, not the snapshotted plugin's
    // own.
    let tools_sha = hex_sha256(&common::plugin("tool_policy"));
    let artifacts: Vec<String> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".cwasm"))
        .collect();
    assert_eq!(artifacts.len(), 3, "{artifacts:?}");
    assert!(
        !artifacts.iter().any(|n| n.starts_with(&tools_sha)),
        "{artifacts:?}"
    );
    let run = toolvet(dir.path(), &cache, &["compile", "-c", "toolvet.toml"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.matches(" cached ").count(), 2, "{}", run.stdout);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

/// The hex sha256 of the file at `path`.
fn hex_sha256(path: &Path) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(std::fs::read(path).unwrap()))
}

#[test]
fn the_hook_stays_quiet_on_a_cold_cache() {
    let (dir, cache) = setup();
    let payload = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/hooks/payloads/claude-code/bash.json"),
    )
    .unwrap()
    .replace("COMMAND", "ls");
    let run = toolvet(
        dir.path(),
        &cache,
        &[
            "hook",
            "claude-code",
            "--config",
            "toolvet.toml",
            "--timeout-ms",
            "600000",
        ],
        &payload,
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains("compil"), "{}", run.stdout);
    assert!(!run.stderr.contains("compil"), "{}", run.stderr);
}
