//! shell-guard's analyser (bash parser, word expansion, wrapper
//! unwrapping) on arbitrary command text: never panics, is deterministic,
//! and the normaliser behind `deny_patterns` never panics either. libFuzzer's
//! `-timeout` (set by run.sh) catches inputs that make it slow.
//!
//! Panics raised inside brush-parser itself (0.4.0 unwraps in its tokenizer
//! on some malformed here-documents inside `$(…)`) are known upstream bugs:
//! in the host such a panic traps the check, which then answers its
//! `on_error` decision (deny by default). They are skipped here so that the
//! target keeps testing shell-guard's own code; panics anywhere else fail.

use shell_guard::{Options, Settings, analyze_with_home, normalised_commands};
use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Once, OnceLock};

fn options() -> &'static Options {
    static OPTIONS: OnceLock<Options> = OnceLock::new();
    OPTIONS.get_or_init(|| Options::from_settings(Settings::default()).expect("default settings"))
}

thread_local! {
    static UPSTREAM_PANIC: Cell<bool> = const { Cell::new(false) };
}

/// Let panics located in brush-parser unwind quietly (to be skipped);
/// every other panic goes to the previous hook (libFuzzer's, which aborts
/// and saves the input).
fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let upstream = info
                .location()
                .is_some_and(|l| l.file().contains("brush-parser-"));
            if upstream {
                UPSTREAM_PANIC.with(|p| p.set(true));
            } else {
                previous(info);
            }
        }));
    });
}

/// The property, on one input (any bytes).
pub fn run(data: &[u8]) {
    let Ok(command) = std::str::from_utf8(data) else {
        return;
    };
    install_hook();
    let run = panic::catch_unwind(AssertUnwindSafe(|| {
        let opts = options();
        let cwd = Some("/home/alice/project");
        let first = analyze_with_home(command, opts, cwd, Some("/home/alice"));
        let second = analyze_with_home(command, opts, cwd, Some("/home/alice"));
        assert_eq!(first, second, "the analysis is deterministic");
        let _ = normalised_commands(command, opts, cwd);
    }));
    if let Err(payload) = run
        && !UPSTREAM_PANIC.with(|p| p.replace(false))
    {
        panic::resume_unwind(payload);
    }
}
