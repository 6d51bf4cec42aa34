//! Replays each fuzz target's inputs through its property: the committed
//! seeds under `fuzz/corpus/<target>/` (where a fixed crash goes to stay a
//! test) and the crashes a local run saved under `fuzz/artifacts/<target>/`
//! (git-ignored), each whole, cut at every byte, and with 64 fixed
//! single-byte changes. Coverage-guided fuzzing is `bash fuzz/run.sh`
//! (fuzz/README.md).

use std::path::{Path, PathBuf};
use toolvet_fuzz_targets::{TARGETS, variants};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The inputs of `target`: seeds first, then locally saved crashes.
fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    for kind in ["corpus", "artifacts"] {
        let dir = fuzz_dir().join(kind).join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries
            .map(|e| e.expect("directory entry").path())
            .collect();
        paths.sort();
        for path in paths {
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            found.push((path, bytes));
        }
    }
    found
}

#[test]
fn every_target_has_seeds() {
    for (target, _) in TARGETS {
        assert!(
            !inputs(target).is_empty(),
            "fuzz/corpus/{target}/ holds no seed"
        );
    }
}

#[test]
fn every_committed_input_and_its_variants_hold_the_property() {
    for (target, run) in TARGETS {
        for (path, input) in inputs(target) {
            for variant in variants(&input) {
                let outcome = std::panic::catch_unwind(|| run(&variant));
                assert!(
                    outcome.is_ok(),
                    "{target}: the property fails on a variant of {}: {:?}",
                    path.display(),
                    String::from_utf8_lossy(&variant)
                );
            }
        }
    }
}
