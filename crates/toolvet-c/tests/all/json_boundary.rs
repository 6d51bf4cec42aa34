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
