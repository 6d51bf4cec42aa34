//! `Policy::from_toml` on arbitrary text: never panics (no stack overflow on
//! deep nesting, no slicing past a line), and whatever it accepts passes
//! its own validation, has unique check names and in-range limits.

use std::path::Path;
use toolvet::{Policy, config::MAX_MEMORY_MB, config::MAX_TIMEOUT_MS};

/// The property, on one input (any bytes).
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Policy::from_toml(text, Path::new("fuzz.toml"), Path::new("/base")) {
        Ok(policy) => {
            policy.validate().expect("an accepted policy validates");
            for (i, c) in policy.checks().iter().enumerate() {
                assert!(!c.name.is_empty());
                assert!(
                    policy.checks()[..i].iter().all(|o| o.name != c.name),
                    "duplicate {}",
                    c.name
                );
                assert!((1..=MAX_TIMEOUT_MS).contains(&c.timeout_ms));
                assert!((1..=MAX_MEMORY_MB).contains(&c.memory_mb));
                assert!(c.settings.is_object());
                assert!(c.plugin.starts_with("/base") || c.plugin.is_absolute());
                assert!(c.line >= 1 && c.line <= text.lines().count().max(1));
            }
        }
        Err(e) => {
            // Errors name the file.
            assert!(e.to_string().starts_with("fuzz.toml"), "{e}");
        }
    }
}
