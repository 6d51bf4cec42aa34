//! `toolvet inspect` through the compiled cache, naming the imports the
//! sandbox denies (issue 18). Needs the hostile fixtures (`make hostile`):
//! `hostile.wasm` imports the filesystem, `net-probe.wasm` sockets.

mod common;

use common::{setup, toolvet};
use serde_json::Value;
use std::path::{Path, PathBuf};

#[test]
fn inspect_compiles_once_through_the_cache_and_names_the_denied_imports() {
    let (dir, cache) = setup();
    let wasm = fixture("hostile");
    let wasm = wasm.to_str().unwrap();
    let first = toolvet(
        dir.path(),
        &cache,
        &["inspect", "--format", "json", wasm],
        "",
    );
    assert_eq!(first.code, 0, "{}", first.stderr);
    let report: Value = serde_json::from_str(&first.stdout).unwrap();
    assert_eq!(report["cached"], false);
    assert!(
        first.stderr.contains("toolvet: compiling 1 check"),
        "{}",
        first.stderr
    );
    let second = toolvet(
        dir.path(),
        &cache,
        &["inspect", "--format", "json", wasm],
        "",
    );
    let again: Value = serde_json::from_str(&second.stdout).unwrap();
    assert_eq!(again["cached"], true, "the second inspect compiles nothing");
    assert!(second.stderr.is_empty(), "{}", second.stderr);
    // Every import is listed with what the sandbox makes of it; this one
    // imports the filesystem, which is denied.
    let access = again["import_access"].as_array().unwrap();
    assert_eq!(access.len(), again["imports"].as_array().unwrap().len());
    let denied: Vec<&str> = access
        .iter()
        .filter(|i| i["access"] == "denied")
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert!(
        denied.iter().any(|n| n.starts_with("wasi:filesystem/")),
        "{denied:?}"
    );
    assert!(
        denied
            .iter()
            .all(|n| n.starts_with("wasi:filesystem/") || n.starts_with("wasi:sockets/")),
        "{denied:?}"
    );
    // The text form says it at a glance.
    let text = toolvet(dir.path(), &cache, &["inspect", wasm], "");
    assert!(
        text.stdout.contains("compiled:   from the artifact cache"),
        "{}",
        text.stdout
    );
    let line = text
        .stdout
        .lines()
        .find(|l| l.starts_with("denied:"))
        .unwrap_or_else(|| panic!("{}", text.stdout));
    assert!(line.contains("wasi:filesystem/"), "{line}");
    assert!(
        text.stdout
            .lines()
            .any(|l| l.contains("wasi:filesystem/preopens") && l.contains("denied: no file access")),
        "{}",
        text.stdout
    );
}

#[test]
fn inspect_names_sockets_as_denied() {
    let (dir, cache) = setup();
    let wasm = fixture("net-probe");
    let run = toolvet(dir.path(), &cache, &["inspect", wasm.to_str().unwrap()], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("denied:"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(line.contains("wasi:sockets/tcp@"), "{line}");
    assert!(
        run.stdout
            .lines()
            .any(|l| l.contains("wasi:sockets/ip-name-lookup@") && l.contains("denied: no network")),
        "{}",
        run.stdout
    );
}

/// A fixture of the hostile corpus (`target/hostile`, `make hostile`).
fn fixture(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/hostile")
        .join(format!("{name}.wasm"));
    assert!(
        path.exists(),
        "{} is missing: run `make hostile`",
        path.display()
    );
    path.canonicalize().unwrap()
}
