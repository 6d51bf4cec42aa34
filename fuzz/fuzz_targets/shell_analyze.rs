//! shell-guard's analyser (bash parser, word expansion, wrapper
//! unwrapping) on arbitrary command text: never panics, is deterministic,
//! and the normaliser behind `deny_patterns` never panics either. libFuzzer's
//! `-timeout` (set by run.sh) catches inputs that make it slow.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shell_guard::{Options, Settings, analyze_with_home, normalised_commands};
use std::sync::OnceLock;

fn options() -> &'static Options {
    static OPTIONS: OnceLock<Options> = OnceLock::new();
    OPTIONS.get_or_init(|| Options::from_settings(Settings::default()).expect("default settings"))
}

fuzz_target!(|data: &[u8]| {
    let Ok(command) = std::str::from_utf8(data) else {
        return;
    };
    let opts = options();
    let cwd = Some("/home/alice/project");
    let first = analyze_with_home(command, opts, cwd, Some("/home/alice"));
    let second = analyze_with_home(command, opts, cwd, Some("/home/alice"));
    assert_eq!(first, second, "the analysis is deterministic");
    let _ = normalised_commands(command, opts, cwd);
});
