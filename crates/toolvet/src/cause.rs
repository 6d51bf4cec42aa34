//! The plugin's own account of why it crashed, found in what it printed or
//! logged during the failed call: a Rust panic message, a Python exception,
//! a JavaScript error.
//!
//! When a check traps, wasmtime only knows the instruction (`wasm
//! `unreachable` instruction executed`); the cause a person needs
//! (`KeyError: 'USD'`, `args.thread_ts is null`) went to the plugin's
//! stderr or to `host.log`. [`find`] picks it out of the call's captured
//! output, so a failure's message can carry it. The text is the plugin's:
//! it is shown escaped ([`visible`]), on one line, cut to
//! [`MAX_CAUSE_BYTES`], and the message marks it as the plugin's report.
//!
//! Recognised shapes, in this order:
//!
//! - a Python traceback (the toolvet kit logs it at error level; a bare
//!   componentize-py trap prints it on stderr): the last line, the
//!   exception, with the innermost frame outside the toolvet kit →
//!   `KeyError: 'USD' (app.py, line 12)`;
//! - the JavaScript kit's `check threw: <error>` (or `configure threw:`)
//!   with the first stack frame → `TypeError: x is null (at
//!   check@app.js:12:5)`;
//! - Rust's panic hook: `thread '…' panicked at src/lib.rs:42:9:` then the
//!   message → `panicked at src/lib.rs:42:9: <message>`;
//! - otherwise the last error-level log message, else the last line on
//!   stderr.

use crate::display::visible;

/// Longest cause kept, in bytes (after escaping).
pub(crate) const MAX_CAUSE_BYTES: usize = 512;

/// The cause a plugin reported for a crash, from the `(source, text)`
/// pieces captured during the call (`source` is `stdout`, `stderr` or a
/// log level). `None` when it reported nothing useful.
pub(crate) fn find(pieces: &[(&'static str, String)]) -> Option<String> {
    // Pieces are chunks of writes: stderr may arrive in several.
    let stderr: String = pieces
        .iter()
        .filter(|(source, _)| *source == "stderr")
        .map(|(_, text)| text.as_str())
        .collect();
    let errors: Vec<&str> = pieces
        .iter()
        .filter(|(source, _)| *source == "error")
        .map(|(_, text)| text.as_str())
        .collect();
    // A language runtime's exception before a Rust panic: componentize-py's
    // runtime (Rust) panics with "Python function threw an unexpected
    // exception" after the traceback that says which.
    let found = errors
        .iter()
        .rev()
        .find_map(|t| python(t))
        .or_else(|| python(&stderr))
        .or_else(|| errors.iter().rev().find_map(|t| javascript(t)))
        .or_else(|| javascript(&stderr))
        .or_else(|| rust_panic(&stderr))
        .or_else(|| errors.last().and_then(|t| last_line(t)))
        .or_else(|| last_line(&stderr))?;
    let shown = visible(found.trim()).into_owned();
    Some(crate::text::truncate(shown, MAX_CAUSE_BYTES))
}

/// `thread 'main' panicked at src/lib.rs:42:9:\nmessage\nnote: …`, the
/// format of Rust's default panic hook (1.73 and later).
fn rust_panic(text: &str) -> Option<String> {
    let at = text.rfind("panicked at ")?;
    let rest = &text[at + "panicked at ".len()..];
    let (location, message) = rest.split_once('\n').unwrap_or((rest, ""));
    let location = location.trim_end().trim_end_matches(':');
    let message: Vec<&str> = message
        .lines()
        .take_while(|l| !l.starts_with("note: ") && !l.starts_with("stack backtrace:"))
        .filter(|l| !l.trim().is_empty())
        .collect();
    Some(if message.is_empty() {
        format!("panicked at {location}")
    } else {
        format!("panicked at {location}: {}", message.join(" "))
    })
}

/// The exception of a Python traceback, with the innermost frame that is
/// not in the toolvet kit (the user's line), when there is one.
fn python(text: &str) -> Option<String> {
    let at = text.rfind("Traceback (most recent call last):")?;
    let lines: Vec<&str> = text[at..].lines().collect();
    let exception = lines
        .iter()
        .rev()
        .find(|l| !l.trim().is_empty() && !l.starts_with(' '))
        .filter(|l| !l.starts_with("Traceback"))?;
    let frame = lines
        .iter()
        .filter_map(|l| python_frame(l))
        .rfind(|(file, _)| !file.contains("toolvet_check"));
    Some(match frame {
        Some((file, line)) => format!("{exception} ({file}, line {line})"),
        None => exception.to_string(),
    })
}

/// `  File "app.py", line 12, in check` → `("app.py", "12")`.
fn python_frame(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim_start().strip_prefix("File \"")?;
    let (file, rest) = rest.split_once('"')?;
    let rest = rest.strip_prefix(", line ")?;
    let number = rest.split(|c: char| !c.is_ascii_digit()).next()?;
    (!number.is_empty()).then_some((file, number))
}

/// The JavaScript kit's `check threw: <error>` line and the first frame of
/// the stack it logs after it (SpiderMonkey's `function@file:line:column`).
fn javascript(text: &str) -> Option<String> {
    let at = text
        .rfind("check threw: ")
        .map(|i| i + "check threw: ".len())
        .or_else(|| {
            text.rfind("configure threw: ")
                .map(|i| i + "configure threw: ".len())
        })?;
    let mut lines = text[at..].lines();
    let error = lines.next()?.trim();
    let frame = lines
        .map(str::trim)
        .find(|l| l.contains('@') || l.starts_with("at "));
    Some(match frame {
        Some(frame) if !error.is_empty() => format!("{error} (at {frame})"),
        _ => error.to_string(),
    })
}

fn last_line(text: &str) -> Option<String> {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(source: &'static str, text: &str) -> Vec<(&'static str, String)> {
        vec![(source, text.to_string())]
    }

    #[test]
    fn a_rust_panic_gives_its_location_and_message() {
        let stderr = "\nthread '<unnamed>' panicked at src/lib.rs:42:9:\n\
                      hostile: deliberate panic in check\n\
                      note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
        assert_eq!(
            find(&one("stderr", stderr)).unwrap(),
            "panicked at src/lib.rs:42:9: hostile: deliberate panic in check"
        );
    }

    #[test]
    fn a_python_traceback_gives_the_exception_and_the_users_line() {
        let logged = "check raised:\nTraceback (most recent call last):\n  \
             File \"/build/toolvet_check/_component.py\", line 80, in check\n    \
             decision = configured().check(_call(call), _tool(tool), _context(ctx))\n  \
             File \"/build/app.py\", line 12, in check\n    \
             rate = RATES[currency]\n           ~~~~~^^^^^^^^^^\nKeyError: 'USD'\n";
        assert_eq!(
            find(&one("error", logged)).unwrap(),
            "KeyError: 'USD' (/build/app.py, line 12)"
        );
        // componentize-py's runtime panics after the traceback.
        let pieces = vec![
            ("error", logged.to_string()),
            (
                "stderr",
                "thread '<unnamed>' panicked at runtime/src/lib.rs:1280:25:\n\
                 Python function threw an unexpected exception\n"
                    .to_string(),
            ),
        ];
        assert_eq!(
            find(&pieces).unwrap(),
            "KeyError: 'USD' (/build/app.py, line 12)"
        );
    }

    #[test]
    fn a_javascript_error_gives_the_message_and_the_first_frame() {
        let logged = "check threw: TypeError: args.thread_ts is null\n\
                      check@app.js:12:5\ncheck@toolvet-check/index.js:430:33\n";
        assert_eq!(
            find(&one("error", logged)).unwrap(),
            "TypeError: args.thread_ts is null (at check@app.js:12:5)"
        );
    }

    #[test]
    fn otherwise_the_last_error_or_stderr_line() {
        let pieces = vec![
            ("info", "all fine\n".to_string()),
            ("error", "cannot parse the rate table\n".to_string()),
            ("stderr", "abort\n".to_string()),
        ];
        assert_eq!(find(&pieces).unwrap(), "cannot parse the rate table");
        assert_eq!(
            find(&one("stderr", "a\nlast words\n\n")).unwrap(),
            "last words"
        );
        assert_eq!(find(&one("info", "chatter")), None);
        assert_eq!(find(&[]), None);
    }

    #[test]
    fn the_cause_is_escaped_and_bounded() {
        let stderr = format!(
            "thread 'x' panicked at src/lib.rs:1:1:\n\x1b]0;owned\x07{}\n",
            "E".repeat(10_000)
        );
        let cause = find(&one("stderr", &stderr)).unwrap();
        assert!(
            !cause.contains('\x1b') && !cause.contains('\n'),
            "{cause:?}"
        );
        assert!(cause.len() <= MAX_CAUSE_BYTES, "{}", cause.len());
        assert!(
            cause.starts_with("panicked at src/lib.rs:1:1: \\x1b]0;owned"),
            "{cause}"
        );
    }
}
