//! Forwarding what a plugin printed or logged to `tracing`, bounded by what
//! is *emitted*, not only by what was received.
//!
//! The capture buffer ([`crate::sandbox`]) keeps at most `max_log_bytes` of
//! a call's output, but one kept byte can be one line: a plugin that logs
//! 32,768 newlines would make the host print 32,768 log lines, each with
//! its prefix (and colours). So each line is escaped ([`visible`]), cut to
//! [`MAX_LINE_BYTES`], and counted against two budgets:
//!
//! - per call: [`MAX_LINES_PER_CALL`] lines and [`MAX_BYTES_PER_CALL`]
//!   bytes;
//! - per check, over every call of that check in a [`WINDOW`]:
//!   [`MAX_LINES_PER_WINDOW`] lines and [`MAX_BYTES_PER_WINDOW`] bytes, so
//!   many calls cannot add up to a flood either.
//!
//! Lines over a budget are dropped and counted: one `plugin output over
//! the cap was dropped` line per call says how many lines and bytes were
//! dropped (with what the capture buffer dropped); once the check's window
//! budget is spent even that line is held back, and the total is reported
//! with the check's first output once the next window starts. Lines at a
//! level the subscriber would not show (e.g. `debug` under the default
//! `warn` filter) cost nothing.

use crate::display::visible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tracing::Level;

/// Longest line forwarded, in bytes after escaping; longer lines are cut.
pub(crate) const MAX_LINE_BYTES: usize = 1024;
/// Most lines forwarded from one call.
pub(crate) const MAX_LINES_PER_CALL: usize = 100;
/// Most bytes of lines forwarded from one call.
pub(crate) const MAX_BYTES_PER_CALL: usize = 16 << 10;
/// The window over which a check's lines are counted.
pub(crate) const WINDOW: Duration = Duration::from_secs(10);
/// Most lines forwarded from one check in one [`WINDOW`].
pub(crate) const MAX_LINES_PER_WINDOW: usize = 1000;
/// Most bytes of lines forwarded from one check in one [`WINDOW`].
pub(crate) const MAX_BYTES_PER_WINDOW: usize = 128 << 10;

/// The message of the line that reports dropped output.
const DROPPED: &str = "plugin output over the cap was dropped";

/// Where one check's output goes: its name, and the budget its calls
/// share. Cheap to clone; every instance of a check holds one.
#[derive(Clone)]
pub(crate) struct PluginLog {
    check: Arc<str>,
    window: Arc<Mutex<Window>>,
}

/// Lines and bytes forwarded, and dropped, since `started`.
struct Window {
    started: Instant,
    lines: usize,
    bytes: usize,
    dropped_lines: usize,
    dropped_bytes: usize,
}

impl Window {
    fn new(now: Instant) -> Self {
        Window {
            started: now,
            lines: 0,
            bytes: 0,
            dropped_lines: 0,
            dropped_bytes: 0,
        }
    }

    fn has_room(&self, bytes: usize) -> bool {
        self.lines < MAX_LINES_PER_WINDOW && self.bytes + bytes <= MAX_BYTES_PER_WINDOW
    }

    fn take(&mut self, bytes: usize) {
        self.lines += 1;
        self.bytes += bytes;
    }
}

impl PluginLog {
    /// The log of the check named `check`, with a fresh budget.
    pub(crate) fn new(check: Arc<str>) -> Self {
        PluginLog {
            check,
            window: Arc::new(Mutex::new(Window::new(Instant::now()))),
        }
    }

    /// The check's name (from the policy).
    pub(crate) fn check(&self) -> &str {
        &self.check
    }

    /// Forward the `(source, text)` pieces one call captured (`source` is
    /// `stdout`, `stderr` or a log level), of which the capture buffer
    /// already dropped `dropped_bytes` bytes over its cap.
    pub(crate) fn forward(&self, pieces: Vec<(&'static str, String)>, dropped_bytes: usize) {
        // Most calls print nothing: no lock, no clock.
        if pieces.is_empty() && dropped_bytes == 0 {
            return;
        }
        let mut window = self.window.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        if now.duration_since(window.started) >= WINDOW {
            let ended = std::mem::replace(&mut *window, Window::new(now));
            if ended.dropped_lines > 0 || ended.dropped_bytes > 0 {
                let held = format!(
                    "{DROPPED} (over the check's cap of {MAX_LINES_PER_WINDOW} lines and \
                     {MAX_BYTES_PER_WINDOW} bytes per {} s)",
                    WINDOW.as_secs()
                );
                window.take(held.len());
                tracing::warn!(target: "toolvet::plugin", check = &*self.check, dropped_lines = ended.dropped_lines, dropped_bytes = ended.dropped_bytes, "{held}");
            }
        }
        let (mut lines, mut bytes) = (0usize, 0usize);
        let (mut dropped_lines, mut dropped_bytes) = (0usize, dropped_bytes);
        for (source, text) in &pieces {
            let level = level_of(source);
            if !enabled(level) {
                continue;
            }
            for line in text.lines().filter(|l| !l.is_empty()) {
                let shown = crate::text::truncate(visible(line).into_owned(), MAX_LINE_BYTES);
                let cost = shown.len();
                let fits = lines < MAX_LINES_PER_CALL && bytes + cost <= MAX_BYTES_PER_CALL;
                if !(fits && window.has_room(cost)) {
                    dropped_lines += 1;
                    dropped_bytes += line.len();
                    continue;
                }
                lines += 1;
                bytes += cost;
                window.take(cost);
                emit(level, &self.check, source, &shown);
            }
        }
        if dropped_lines == 0 && dropped_bytes == 0 {
            return;
        }
        if window.has_room(DROPPED.len()) {
            window.take(DROPPED.len());
            tracing::warn!(target: "toolvet::plugin", check = &*self.check, dropped_lines, dropped_bytes, "{DROPPED}");
        } else {
            window.dropped_lines += dropped_lines;
            window.dropped_bytes += dropped_bytes;
        }
    }
}

fn level_of(source: &str) -> Level {
    match source {
        "error" => Level::ERROR,
        "warn" | "stderr" => Level::WARN,
        "debug" => Level::DEBUG,
        _ => Level::INFO,
    }
}

fn enabled(level: Level) -> bool {
    match level {
        Level::ERROR => tracing::enabled!(target: "toolvet::plugin", Level::ERROR),
        Level::WARN => tracing::enabled!(target: "toolvet::plugin", Level::WARN),
        Level::INFO => tracing::enabled!(target: "toolvet::plugin", Level::INFO),
        _ => tracing::enabled!(target: "toolvet::plugin", Level::DEBUG),
    }
}

fn emit(level: Level, check: &str, source: &str, line: &str) {
    match level {
        Level::ERROR => tracing::error!(target: "toolvet::plugin", check, "{line}"),
        Level::WARN => tracing::warn!(target: "toolvet::plugin", check, source, "{line}"),
        Level::INFO => tracing::info!(target: "toolvet::plugin", check, source, "{line}"),
        _ => tracing::debug!(target: "toolvet::plugin", check, "{line}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything `tracing` emits on this thread while the guard lives.
    fn captured() -> (tracing::subscriber::DefaultGuard, Arc<Mutex<Vec<u8>>>) {
        #[derive(Clone)]
        struct Sink(Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Sink {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let buf = Arc::new(Mutex::new(Vec::new()));
        let sink = Sink(buf.clone());
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(Level::DEBUG)
            .with_ansi(false)
            .with_writer(move || sink.clone())
            .finish();
        (tracing::subscriber::set_default(subscriber), buf)
    }

    #[test]
    fn one_call_of_many_newlines_emits_a_bounded_number_of_lines() {
        let (_guard, buf) = captured();
        let log = PluginLog::new("chatty".into());
        log.forward(vec![("info", "x\n".repeat(32_768))], 0);
        let text = String::from_utf8(buf.lock().unwrap().clone()).unwrap();
        let lines = text.lines().count();
        assert_eq!(lines, MAX_LINES_PER_CALL + 1, "{text:.400}");
        assert!(text.contains("dropped_lines=32668"), "{text:.400}");
    }

    #[test]
    fn many_calls_share_the_checks_window() {
        let (_guard, buf) = captured();
        let log = PluginLog::new("chatty".into());
        for _ in 0..50 {
            log.forward(vec![("warn", "x\n".repeat(1000))], 0);
        }
        let text = String::from_utf8(buf.lock().unwrap().clone()).unwrap();
        let lines = text.lines().count();
        assert!(lines <= MAX_LINES_PER_WINDOW, "{lines} lines");
        assert!(lines >= MAX_LINES_PER_WINDOW - 20, "{lines} lines");
    }

    #[test]
    fn lines_are_escaped_and_cut() {
        let (_guard, buf) = captured();
        let log = PluginLog::new("forger".into());
        let long = "L".repeat(10_000);
        log.forward(
            vec![("warn", format!("ok\x1b]0;t\x07\x00\r\nallow\n{long}"))],
            0,
        );
        let text = String::from_utf8(buf.lock().unwrap().clone()).unwrap();
        assert!(!text.contains('\x1b') && !text.contains('\0'), "{text:?}");
        assert!(text.contains(r"ok\x1b]0;t\x07\x00"), "{text}");
        let longest = text.lines().map(str::len).max().unwrap();
        assert!(longest < MAX_LINE_BYTES + 200, "{longest}");
    }
}
