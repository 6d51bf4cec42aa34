//! "The same call" for loop detection, beyond byte-equal arguments: the
//! shape of a call's arguments ([`loop_shape`]), in which what changes
//! between two tries of one call without naming anything else is written
//! the same way:
//!
//! - white space: every run of it in a string is one space, and none at
//!   either end (`rm  -rf /x` is `rm -rf /x`);
//! - paths: in every word holding a `/`, runs of `/` are one, a trailing
//!   `/` is dropped and a leading `./` too (`/x/` is `/x`, `.//a` is `a`);
//! - timestamps: a date with a time of day (`2026-12-03T16:31:13Z`,
//!   `2026-12-03T16:31`, with fractions and offsets) anywhere in a string
//!   is written `#`;
//! - counters and nonces: the number or string under a key named for a
//!   try, a nonce, a clock reading or a request id (`attempt`, `retry`,
//!   `nonce`, `timestamp`, `ts`, `request_id`, …; see [`VOLATILE_KEYS`]),
//!   and in a string the value after such a name and `=` or `:`
//!   (`?ts=1733240000`, `--nonce=ab12`, `&_=1733240000`), is `#`.
//!
//! Everything else stays as it is: other numbers (a page, a line, an
//! offset, a bare Unix time, which may as well be an id), plain dates,
//! ids, hashes and file names name different things, and reading them one
//! after another is work, not a loop.

use crate::canonical_json;
use toolvet_pdk::serde_json::Value;

/// The names of keys whose value is a counter, a nonce or a clock reading
/// (compared lower-cased, without `_` and `-`: `requestId`, `request-id`
/// and `request_id` are one name).
pub const VOLATILE_KEYS: &[&str] = &[
    "attempt",
    "attempts",
    "retry",
    "retries",
    "retrycount",
    "try",
    "tries",
    "nonce",
    "timestamp",
    "ts",
    "requestid",
    "idempotencykey",
    "traceid",
    "spanid",
    "correlationid",
    "cachebuster",
    "cachebust",
];

/// The mark a masked value or text is written as.
const MASK: &str = "#";

/// The shape of `value` (a call's arguments) as text: canonical JSON
/// ([`canonical_json`]: keys sorted, `1.0` as `1`) with white space,
/// paths, timestamps and counters written as the module doc says. Two
/// calls of one tool with the same shape are the same call tried again.
pub fn loop_shape(value: &Value) -> String {
    canonical_json(&shaped(value))
}

/// `value` with its strings shaped and the values of volatile keys
/// masked; written out by [`canonical_json`], so key order and number
/// spelling count as they do for exact repeats.
fn shaped(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, v)| {
                    let v = if volatile_key(key) && (v.is_number() || v.is_string()) {
                        Value::String(MASK.into())
                    } else {
                        shaped(v)
                    };
                    (key.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(shaped).collect()),
        Value::String(s) => Value::String(text_shape(s)),
        Value::Number(_) | Value::Bool(_) | Value::Null => value.clone(),
    }
}

/// Whether `key` names a counter, a nonce or a clock reading (`_` alone,
/// a cache buster's usual name, too).
fn volatile_key(key: &str) -> bool {
    let name: String = key
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect();
    VOLATILE_KEYS.contains(&name.as_str()) || (name.is_empty() && key.contains('_'))
}

/// The shape of one string: its words joined by one space, each with
/// paths tidied and timestamps masked.
pub fn text_shape(text: &str) -> String {
    let words: Vec<String> = text
        .split_whitespace()
        .map(|word| mask_volatile(&tidy_path(word)))
        .collect();
    words.join(" ")
}

/// `word` with runs of `/` made one, a trailing `/` and a leading `./`
/// dropped, when it holds a `/` at all (`/` alone stays).
fn tidy_path(word: &str) -> String {
    if !word.contains('/') {
        return word.to_string();
    }
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        if !(c == '/' && out.ends_with('/')) {
            out.push(c);
        }
    }
    while out.len() > 1 && out.ends_with('/') {
        out.pop();
    }
    while out.len() > 2 && out.starts_with("./") {
        out.drain(..2);
    }
    out
}

/// `word` with each date with a time of day in it, and each value after a
/// volatile name and `=` or `:` (`ts=1733240000`), written `#`.
fn mask_volatile(word: &str) -> String {
    let b = word.as_bytes();
    let name_byte = |c: &u8| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-';
    let value_byte = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.');
    let mut out = String::with_capacity(word.len());
    let mut i = 0;
    while i < b.len() {
        let boundary = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        if boundary
            && b[i].is_ascii_digit()
            && let Some(end) = date_time(b, i)
        {
            out.push_str(MASK);
            i = end;
            continue;
        }
        if matches!(b[i], b'=' | b':') {
            let start = b[..i]
                .iter()
                .rposition(|c| !name_byte(c))
                .map_or(0, |p| p + 1);
            let value = b[i + 1..].iter().take_while(|c| value_byte(c)).count();
            if value > 0 && volatile_key(&word[start..i]) {
                out.push(b[i] as char);
                out.push_str(MASK);
                i += 1 + value;
                continue;
            }
        }
        // Copy one character (the word may hold any UTF-8).
        let len = word[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&word[i..i + len]);
        i += len;
    }
    out
}

/// The end of a date with a time of day starting at `i`, if one does:
/// `YYYY-MM-DD` then `T` or `_`, `HH:MM`, optionally `:SS`, a fraction
/// and `Z` or an offset (`+01:00`, `-0500`).
fn date_time(b: &[u8], i: usize) -> Option<usize> {
    let digits = |at: usize, n: usize| {
        (at + n <= b.len() && b[at..at + n].iter().all(u8::is_ascii_digit)).then_some(at + n)
    };
    let byte = |at: usize, want: &[u8]| b.get(at).filter(|c| want.contains(c)).map(|_| at + 1);
    let mut at = digits(i, 4)?;
    at = byte(at, b"-")?;
    at = digits(at, 2)?;
    at = byte(at, b"-")?;
    at = digits(at, 2)?;
    at = byte(at, b"Tt_")?;
    at = digits(at, 2)?;
    at = byte(at, b":")?;
    at = digits(at, 2)?;
    if let Some(seconds) = byte(at, b":").and_then(|a| digits(a, 2)) {
        at = seconds;
        if let Some(dot) = byte(at, b".,") {
            let n = b[dot..].iter().take_while(|c| c.is_ascii_digit()).count();
            if n > 0 {
                at = dot + n;
            }
        }
    }
    if let Some(z) = byte(at, b"Zz") {
        return Some(z);
    }
    if let Some(sign) = byte(at, b"+-")
        && let Some(hours) = digits(sign, 2)
    {
        at = match byte(hours, b":").and_then(|a| digits(a, 2)) {
            Some(minutes) => minutes,
            None => digits(hours, 2).unwrap_or(hours),
        };
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolvet_pdk::serde_json::json;

    #[test]
    fn white_space_paths_timestamps_and_counters_are_one_shape() {
        for (a, b) in [
            (
                json!({"command": "rm -rf /x"}),
                json!({"command": "  rm  -rf\t/x/ "}),
            ),
            (
                json!({"command": "ls ./src//lib/"}),
                json!({"command": "ls src/lib"}),
            ),
            (
                json!({"command": "curl 'https://api.example.com/v1?ts=1733240000'"}),
                json!({"command": "curl 'https://api.example.com/v1?ts=1733240061'"}),
            ),
            (
                json!({"command": "echo 2026-12-03T16:31:13.250Z >> log"}),
                json!({"command": "echo 2026-12-03T16:40:02+01:00 >> log"}),
            ),
            (
                json!({"q": "x", "attempt": 1}),
                json!({"q": "x", "attempt": 2}),
            ),
            (
                json!({"q": "x", "requestId": "a1"}),
                json!({"q": "x", "requestId": "b2"}),
            ),
            (
                json!({"url": "https://h/x?_=1733240000123&nonce=ab12"}),
                json!({"url": "https://h/x?_=1733240999999&nonce=cd34"}),
            ),
            (
                json!({"command": "run --ts=5 a"}),
                json!({"command": "run --ts=6 a"}),
            ),
            (json!({"a": 1, "b": [1.0]}), json!({"b": [1], "a": 1.0})),
        ] {
            assert_eq!(loop_shape(&a), loop_shape(&b), "{a} vs {b}");
        }
    }

    #[test]
    fn what_names_another_thing_keeps_its_shape() {
        for (a, b) in [
            (json!({"path": "src/a.rs"}), json!({"path": "src/b.rs"})),
            (json!({"path": "file1.txt"}), json!({"path": "file2.txt"})),
            (json!({"q": "x", "page": 1}), json!({"q": "x", "page": 2})),
            (
                json!({"command": "sed -n 1,20p a"}),
                json!({"command": "sed -n 21,40p a"}),
            ),
            (json!({"date": "2026-12-01"}), json!({"date": "2026-12-02"})),
            (
                json!({"command": "git show 1a2b3c4d5e"}),
                json!({"command": "git show 9f8e7d6c5b"}),
            ),
            (json!({"id": 1733240000}), json!({"id": 1733240001})),
            (
                json!({"command": "gh issue view 2749283745"}),
                json!({"command": "gh issue view 2749283746"}),
            ),
            (
                json!({"url": "https://h/x?page=2"}),
                json!({"url": "https://h/x?page=3"}),
            ),
            (json!({"text": "a  b"}), json!({"text": "a b c"})),
            (
                json!({"command": "rm -rf /"}),
                json!({"command": "rm -rf /x"}),
            ),
            (json!({"n": "12345678901"}), json!({"n": "12345678902"})),
        ] {
            assert_ne!(loop_shape(&a), loop_shape(&b), "{a} vs {b}");
        }
    }

    #[test]
    fn the_pieces() {
        assert_eq!(text_shape(" a \n b "), "a b");
        assert_eq!(tidy_path("/"), "/");
        assert_eq!(tidy_path("//"), "/");
        assert_eq!(tidy_path("./"), ".");
        assert_eq!(tidy_path("./a/"), "a");
        assert_eq!(tidy_path("https://h/p/"), "https:/h/p");
        assert_eq!(mask_volatile("?ts=1733240000&x=1"), "?ts=#&x=1");
        assert_eq!(mask_volatile("?t=1733240000"), "?t=1733240000");
        assert_eq!(mask_volatile("--nonce=a.b-c_d/e"), "--nonce=#/e");
        assert_eq!(mask_volatile("at_2026-12-03_16:31"), "at_#");
        assert_eq!(mask_volatile("2026-12-03"), "2026-12-03");
        assert_eq!(mask_volatile("x2026-12-03T01:02"), "x2026-12-03T01:02");
        assert_eq!(mask_volatile("é2026-12-03T01:02Z!"), "é#!");
        assert_eq!(mask_volatile("ts:"), "ts:");
        assert!(volatile_key("_"));
        assert!(volatile_key("Retry-Count"));
        assert!(!volatile_key("page"));
    }
}
