//! The JSON boundary's property (`json_boundary_property.rs`) on every
//! committed seed (`tests/json-boundary-seeds/`), each whole, cut at every
//! byte and with fixed single-byte changes (`toolvet_fuzz_targets::variants`,
//! the replay the fuzz targets' corpora get). Coverage-guided runs:
//! `crates/toolvet-c/fuzz` (docs/c-go-java.md).

use std::path::Path;

#[test]
fn every_seed_and_its_variants_hold_the_json_boundary_property() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/json-boundary-seeds");
    let mut seeds: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    seeds.sort();
    assert!(seeds.len() >= 8, "{} holds too few seeds", dir.display());
    for path in seeds {
        let seed = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for variant in toolvet_fuzz_targets::variants(&seed) {
            let outcome = std::panic::catch_unwind(|| super::json_boundary_property::run(&variant));
            assert!(
                outcome.is_ok(),
                "the property fails on a variant of {}: {:?}",
                path.display(),
                String::from_utf8_lossy(&variant)
            );
        }
    }
}

/// The seeds the property's oracle (the core's own parse) must refuse, each
/// for its own reason: pinned here, so that a parse that began to accept one
/// fails a test rather than moving the oracle with it.
#[test]
fn the_ambiguous_and_unreadable_seeds_are_refused_for_what_they_are() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/json-boundary-seeds");
    let read = |seed: &str| std::fs::read(dir.join(seed)).expect("the seed");
    for (seed, why) in [
        ("duplicate-key.json", "duplicate field `name`"),
        ("case-folded-key.json", "differ only in case"),
        (
            "inexact-number.json",
            "beyond the 64-bit floating-point range",
        ),
        ("not-utf8.json", "UTF-8"),
    ] {
        let [decision, rule, reason] = super::json_boundary_property::checked(&read(seed));
        assert_eq!(
            (decision.as_str(), rule.as_str()),
            ("deny", "toolvet.invalid-call"),
            "{seed}"
        );
        assert!(reason.contains(why), "{seed}: {reason}");
    }
    for (seed, decision) in [
        ("call-allowed.json", "allow"),
        ("nul-inside.json", "allow"),
        ("call-over-limit.json", "deny"),
        ("call-with-ticket.json", "deny"),
        ("call-with-labels.json", "deny"),
    ] {
        assert_eq!(
            super::json_boundary_property::checked(&read(seed))[0],
            decision,
            "{seed}"
        );
    }
}
