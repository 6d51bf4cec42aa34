//! Strict JSON: the reading that refuses text two JSON readers could take
//! for different values: a key twice in one object, two keys of one object
//! that fold alike (`query` and `QUERY`), a number a 64-bit reader would
//! round, a lone surrogate escape. The call shape (`call.rs`) reads every
//! call through it, so the text checks read, the digest approvals bind and
//! the arguments a person is shown all mean one call.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// JSON text that [`parse_json_strict`] refuses.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum StrictJsonError {
    /// Not JSON: serde_json's reason, with its line and column.
    #[error("malformed JSON: {0}")]
    Syntax(Arc<serde_json::Error>),
    /// JSON whose meaning depends on the reader: a key twice in one
    /// object, or a number that a 64-bit reader cannot hold exactly.
    #[error("{0}")]
    Ambiguous(String),
}

/// Parse JSON text into a value, refusing JSON that two readers may read
/// differently, so that what is vetted, digested and shown to a person is
/// what the tool runs:
/// - a key that appears twice in one object, at any depth (one reader
///   keeps the first value, another the last; keys are compared after
///   their escapes are decoded, so `"a"` and `"\u0061"` are the same key);
/// - two keys of one object, at any depth, that [`crate::fold::fold`]
///   alike (`query` and `QUERY`, `statement` and `ſtatement`, `path` and
///   `pa\u200bth`): Go's `encoding/json` and many MCP servers match keys
///   case-insensitively, so a check would judge one value and the tool
///   run the other;
/// - an integer outside the 64-bit range (i64 and u64), which a
///   `serde_json::Value` would turn into a float: `100000000000000000001`
///   and `100000000000000000002` would become the same number;
/// - a number with a fraction or exponent whose decimal value is not the
///   value of the nearest 64-bit float written shortest (`0.1`, `1e23` and
///   `2.5e-3` pass; `1.00000000000000001`, `1e400` and `1e-400` are
///   refused: the float a reader gets is not the number that was sent).
///
/// Every front end that turns call text into a call parses it here (or
/// through [`crate::CallRequest::from_json`], which applies the same rules).
///
/// # Errors
/// [`StrictJsonError::Syntax`] for text that is not JSON (nesting deeper
/// than 128 levels included); [`StrictJsonError::Ambiguous`] naming the
/// key path (`` `call.arguments.account` ``) and what is wrong.
pub fn parse_json_strict(text: &str) -> Result<serde_json::Value, StrictJsonError> {
    let value = serde_json::from_str(text).map_err(|e| StrictJsonError::Syntax(Arc::new(e)))?;
    check_unambiguous(text).map_err(StrictJsonError::Ambiguous)?;
    Ok(value)
}

/// One step of the path to a value: an object key (borrowed from the text
/// unless it holds escapes) or an array index.
enum Step<'t> {
    Key(Cow<'t, str>),
    Index(usize),
}

fn path_text(path: &[Step<'_>]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&crate::display::visible(key));
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    if out.is_empty() {
        out.push_str("(top level)");
    }
    out
}

/// The keys an object has had so far in the scan: as written (decoded),
/// and by their [`crate::fold::fold`], to the first key with that fold.
#[derive(Default)]
struct Keys<'t> {
    exact: HashSet<Cow<'t, str>>,
    folded: HashMap<String, Cow<'t, str>>,
}

/// The containers open at one point of the scan.
enum Frame<'t> {
    /// An object and the keys it has had so far.
    Object(Keys<'t>),
    /// An array and the index of its current element.
    Array(usize),
}

/// Check JSON text that serde_json already accepted for the rules of
/// [`parse_json_strict`]: no key twice in one object, no two keys of one
/// object that fold alike, every number exact. Iterative, so any nesting
/// depth is scanned without recursion. Text that is not JSON after all is
/// refused, never passed.
pub(crate) fn check_unambiguous(text: &str) -> Result<(), String> {
    check_unambiguous_in(text, &[])
}

/// [`check_unambiguous`] for text that sits at `root` (key names) in a
/// larger document, so that errors name the whole path
/// (`call.arguments.query`).
pub(crate) fn check_unambiguous_in<'t>(text: &'t str, root: &[&'t str]) -> Result<(), String> {
    let b = text.as_bytes();
    let malformed = || "malformed JSON".to_string();
    let at = |i: usize| b.get(i).copied().ok_or_else(malformed);
    let skip_ws = |i: &mut usize| {
        while matches!(b.get(*i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            *i += 1;
        }
    };
    // The end of the string that opens at `i` (just past its quote).
    let string_end = |mut i: usize| -> Result<usize, String> {
        i += 1;
        loop {
            match at(i)? {
                b'\\' => i += 2,
                b'"' => return Ok(i + 1),
                _ => i += 1,
            }
        }
    };
    let mut path: Vec<Step<'t>> = root.iter().map(|k| Step::Key(Cow::Borrowed(*k))).collect();
    let mut frames: Vec<Frame<'t>> = Vec::new();
    let mut i = 0;
    // Read the key that starts at `i` (after whitespace) into `keys`, and
    // its colon; the key becomes the last step of `path`.
    let read_key =
        |i: &mut usize, keys: &mut Keys<'t>, path: &mut Vec<Step<'t>>| -> Result<(), String> {
            skip_ws(i);
            if at(*i)? != b'"' {
                return Err(malformed());
            }
            let end = string_end(*i)?;
            // Compared decoded: `"a"` and `"\u0061"` are the same key.
            let inner = &text[*i + 1..end - 1];
            let key: Cow<'t, str> = if inner.contains('\\') {
                Cow::Owned(serde_json::from_str(&text[*i..end]).map_err(|_| malformed())?)
            } else {
                Cow::Borrowed(inner)
            };
            *i = end;
            skip_ws(i);
            if at(*i)? != b':' {
                return Err(malformed());
            }
            *i += 1;
            if !keys.exact.insert(key.clone()) {
                let inside = path_text(path);
                return Err(format!(
                    "`{inside}` has the key `{}` twice; a key may appear once in an object \
                 (readers disagree on which value counts)",
                    crate::display::visible(&key)
                ));
            }
            // `query` and `QUERY` (or `ſtatement` and `statement`): a decoder
            // that matches keys case-insensitively reads one of them, the last
            // one usually, while a check reads the other.
            let folded = crate::fold::fold(&key);
            if !folded.is_empty() {
                if let Some(first) = keys.folded.get(&folded) {
                    let shown = |k: &str| {
                        crate::display::visible(&crate::fold::escape_invisible(k)).to_string()
                    };
                    return Err(format!(
                        "`{}` has the keys `{}` and `{}`, which differ only in case, Unicode form \
                     or invisible characters; send one (a tool that reads keys \
                     case-insensitively would run the other)",
                        path_text(path),
                        shown(first),
                        shown(&key)
                    ));
                }
                keys.folded.insert(folded, key.clone());
            }
            path.push(Step::Key(key));
            Ok(())
        };
    let mut expect_value = true;
    loop {
        skip_ws(&mut i);
        if expect_value {
            match at(i)? {
                b'{' => {
                    i += 1;
                    skip_ws(&mut i);
                    if at(i)? == b'}' {
                        i += 1;
                        expect_value = false;
                    } else {
                        let mut keys = Keys::default();
                        read_key(&mut i, &mut keys, &mut path)?;
                        frames.push(Frame::Object(keys));
                    }
                }
                b'[' => {
                    i += 1;
                    skip_ws(&mut i);
                    if at(i)? == b']' {
                        i += 1;
                        expect_value = false;
                    } else {
                        frames.push(Frame::Array(0));
                        path.push(Step::Index(0));
                    }
                }
                b'"' => {
                    let end = string_end(i)?;
                    // A `\u` escape of a lone UTF-16 surrogate is text some
                    // readers refuse and others keep or replace: refused.
                    if text[i..end].contains("\\u")
                        && serde_json::from_str::<String>(&text[i..end]).is_err()
                    {
                        return Err(format!(
                            "`{}`: a string holds a `\\u` escape of a lone UTF-16 surrogate \
                             (readers decode it differently)",
                            path_text(&path)
                        ));
                    }
                    i = end;
                    expect_value = false;
                }
                b't' | b'n' => {
                    i += 4;
                    expect_value = false;
                }
                b'f' => {
                    i += 5;
                    expect_value = false;
                }
                _ => {
                    let start = i;
                    while matches!(
                        b.get(i),
                        Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                    ) {
                        i += 1;
                    }
                    if start == i {
                        return Err(malformed());
                    }
                    if let Err(why) = exact_number(&text[start..i]) {
                        return Err(format!("`{}`: {why}", path_text(&path)));
                    }
                    expect_value = false;
                }
            }
            continue;
        }
        match frames.last_mut() {
            None => {
                return if i == b.len() {
                    Ok(())
                } else {
                    Err(malformed())
                };
            }
            Some(Frame::Object(keys)) => match at(i)? {
                b',' => {
                    i += 1;
                    path.pop();
                    read_key(&mut i, keys, &mut path)?;
                    expect_value = true;
                }
                b'}' => {
                    i += 1;
                    path.pop();
                    frames.pop();
                }
                _ => return Err(malformed()),
            },
            Some(Frame::Array(index)) => match at(i)? {
                b',' => {
                    i += 1;
                    *index += 1;
                    path.pop();
                    path.push(Step::Index(*index));
                    expect_value = true;
                }
                b']' => {
                    i += 1;
                    path.pop();
                    frames.pop();
                }
                _ => return Err(malformed()),
            },
        }
    }
}

/// Whether the JSON number `text` reads the same in every 64-bit reader:
/// an integer within i64 or u64, or a number whose decimal value is that of
/// the f64 nearest to it (written shortest, as serde_json writes it).
fn exact_number(text: &str) -> Result<(), String> {
    if !text.contains(['.', 'e', 'E']) {
        if text.parse::<i64>().is_ok() || text.parse::<u64>().is_ok() {
            return Ok(());
        }
        return Err(format!(
            "the integer {text} does not fit in 64 bits, so readers would round it; \
             send it as a string"
        ));
    }
    let nearest: f64 = text
        .parse()
        .map_err(|_| format!("{text} is not a number"))?;
    let Some(shortest) = serde_json::Number::from_f64(nearest) else {
        return Err(format!(
            "the number {text} is beyond the 64-bit floating-point range; send it as a string"
        ));
    };
    let shortest = shortest.to_string();
    if decimal_value(text) != decimal_value(&shortest) {
        return Err(format!(
            "the number {text} has no exact 64-bit floating-point value (readers get \
             {shortest}); send it as a string, or with at most 17 significant digits"
        ));
    }
    Ok(())
}

/// The decimal value of the JSON number `text`: sign, significant digits
/// (no leading or trailing zeros) and the exponent of the last digit; zero
/// is `(false, "", 0)` whatever its sign.
fn decimal_value(text: &str) -> (bool, String, i128) {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(e) => (&unsigned[..e], &unsigned[e + 1..]),
        None => (unsigned, "0"),
    };
    let (exp_negative, exp_digits) = match exponent.as_bytes().first() {
        Some(b'-') => (true, &exponent[1..]),
        Some(b'+') => (false, &exponent[1..]),
        _ => (false, exponent),
    };
    // Saturating: an exponent this large is refused by its float anyway.
    let mut exp: i128 = exp_digits.bytes().fold(0i128, |acc, d| {
        acc.saturating_mul(10)
            .saturating_add(i128::from(d.wrapping_sub(b'0')))
            .min(i128::from(i64::MAX))
    });
    if exp_negative {
        exp = -exp;
    }
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    exp -= frac.len() as i128;
    let digits = digits.trim_start_matches('0');
    let trimmed = digits.trim_end_matches('0');
    if trimmed.is_empty() {
        return (false, String::new(), 0);
    }
    exp += (digits.len() - trimmed.len()) as i128;
    (negative, trimmed.to_string(), exp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::CallError;
    use crate::call::CallRequest;

    fn call_with(arguments: &str) -> Result<CallRequest, CallError> {
        CallRequest::from_json(&format!(
            r#"{{"call":{{"name":"pay","arguments":{arguments}}}}}"#
        ))
    }

    #[test]
    fn integers_beyond_64_bits_are_refused_not_rounded() {
        // 2^64 + 1 and 2^64 + 2: a Value would make both the float 2^64.
        for account in [
            "18446744073709551617",
            "18446744073709551618",
            "-9223372036854775809",
        ] {
            let e = call_with(&format!(r#"{{"account":{account}}}"#))
                .unwrap_err()
                .to_string();
            assert_eq!(
                e,
                format!(
                    "invalid tool call: `call.arguments.account`: the integer {account} does not \
                     fit in 64 bits, so readers would round it; send it as a string"
                )
            );
        }
        // At the edges of the 64-bit ranges: exact, and told apart.
        let a = call_with(r#"{"account":18446744073709551615}"#).unwrap();
        let b = call_with(r#"{"account":18446744073709551614}"#).unwrap();
        assert_ne!(a.arguments_sha256(), b.arguments_sha256());
        assert!(call_with(r#"{"account":-9223372036854775808}"#).is_ok());
        // As strings, any digits are fine and differ.
        let a = call_with(r#"{"account":"100000000000000000000001"}"#).unwrap();
        let b = call_with(r#"{"account":"100000000000000000000002"}"#).unwrap();
        assert_ne!(a.arguments_sha256(), b.arguments_sha256());
    }

    #[test]
    fn numbers_without_an_exact_float_are_refused() {
        for (number, readers_get) in [
            ("100000000000000000000001.0", "1.0000000000000001e+23"),
            ("1.00000000000000001", "1.0"),
            ("3.14159265358979323846", "3.141592653589793"),
            ("1e-400", "0.0"),
        ] {
            let e = call_with(&format!(r#"{{"x":[1,{{"y":{number}}}]}}"#))
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with(&format!(
                    "invalid tool call: `call.arguments.x[1].y`: the number {number} has no exact \
                     64-bit floating-point value (readers get {readers_get})"
                )),
                "{e}"
            );
        }
        let e = call_with(r#"{"x":1e400}"#).unwrap_err().to_string();
        assert!(e.contains("beyond the 64-bit floating-point range"), "{e}");
        // Numbers whose nearest float is their decimal value pass, in any
        // spelling, and the digest binds the value.
        for ok in [
            "0.1",
            "1e23",
            "1E+23",
            "2.5e-3",
            "-0.0",
            "0e7",
            "123.4560",
            "1.7976931348623157e308",
        ] {
            assert!(call_with(&format!(r#"{{"x":{ok}}}"#)).is_ok(), "{ok}");
        }
        let a = call_with(r#"{"x":1e23}"#).unwrap();
        let b = call_with(r#"{"x":1E+23}"#).unwrap();
        let c = call_with(r#"{"x":2e23}"#).unwrap();
        assert_eq!(a.arguments_sha256(), b.arguments_sha256());
        assert_ne!(a.arguments_sha256(), c.arguments_sha256());
    }

    #[test]
    fn lone_surrogate_escapes_are_refused_anywhere_with_their_path() {
        // Found by the call_json fuzz target: the history's arguments are
        // kept as raw text, which serde_json does not decode.
        let cases = [
            (
                r#"{"call":{"name":"a","arguments":{}},"context":{"history":[{"name":"b","arguments":{"p":"a\u0000\ud66d\ude00"},"outcome":"allowed"}]}}"#,
                "`context.history[0].arguments.p`: a string holds",
            ),
            (
                r#"{"call":{"name":"a","arguments":{"cmd":"rm \ud800 x"}}}"#,
                "`call.arguments.cmd`: a string holds",
            ),
        ];
        for (text, expected) in cases {
            let e = CallRequest::from_json(text).unwrap_err().to_string();
            assert!(e.contains(expected), "{text}: {e}");
        }
        // A pair is one character.
        let ok = r#"{"call":{"name":"a","arguments":{"s":"\ud83d\ude00"}}}"#;
        assert!(CallRequest::from_json(ok).is_ok());
    }

    #[test]
    fn duplicate_keys_are_refused_anywhere_with_their_path() {
        let cases = [
            (
                r#"{"call":{"name":"bash","arguments":{"command":"rm -rf ~","command":"ls"}}}"#,
                "`call.arguments` has the key `command` twice",
            ),
            (
                r#"{"call":{"name":"a","arguments":{"opts":[{},{"x":{"path":"/","p\u0061th":"/tmp"}}]}}}"#,
                "`call.arguments.opts[1].x` has the key `path` twice",
            ),
            (
                r#"{"call":{"name":"a","arguments":{}},"context":{"attributes":{"cwd":"/","cwd":"/w"}}}"#,
                "`context.attributes` has the key `cwd` twice",
            ),
            (
                r#"{"call":{"name":"a","arguments":{}},"context":{"history":[{"name":"b","arguments":{"k":1,"k":2},"outcome":"allowed"}]}}"#,
                "`context.history[0].arguments` has the key `k` twice",
            ),
            (
                r#"{"call":{"name":"a","arguments":{},"name":"b"}}"#,
                "duplicate field `name`",
            ),
        ];
        for (text, expected) in cases {
            let e = CallRequest::from_json(text).unwrap_err().to_string();
            assert!(e.contains(expected), "{text}: {e}");
            let e = parse_json_strict(text).unwrap_err().to_string();
            assert!(
                e.contains("twice") || expected.starts_with("duplicate field"),
                "{text}: {e}"
            );
        }
        // The same key in different objects is fine.
        assert!(
            CallRequest::from_json(
                r#"{"call":{"name":"a","arguments":{"k":{"k":1},"j":{"k":2}}}}"#
            )
            .is_ok()
        );
    }

    #[test]
    fn parse_json_strict_reads_values_and_refuses_with_paths() {
        let v = parse_json_strict(r#" {"a":[1,2.5,"x",null,true,false,{}],"b":{}} "#).unwrap();
        assert_eq!(v["a"][1], 2.5);
        let e = parse_json_strict(r#"{"a":1,"a":1}"#)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "`(top level)` has the key `a` twice; a key may appear once in an object (readers \
             disagree on which value counts)"
        );
        let e = parse_json_strict("[18446744073709551616]")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("`[0]`: the integer 18446744073709551616"),
            "{e}"
        );
        let e = parse_json_strict(r#"{"a":"#).unwrap_err().to_string();
        assert!(e.starts_with("malformed JSON: EOF while parsing"), "{e}");
        // A key with a control character is shown escaped.
        let e = parse_json_strict("{\"a\\n\":1,\"a\\n\":2}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("the key `a\\n` twice"), "{e}");
        // from_value goes through the same rules, and a Value always passes.
        assert!(
            CallRequest::from_value(
                serde_json::json!({"call":{"name":"a","arguments":{"x":1e23,"y":u64::MAX}}})
            )
            .is_ok()
        );
    }

    #[test]
    fn keys_that_fold_alike_are_refused_anywhere_with_their_path() {
        // Go's encoding/json and many MCP servers read `QUERY` as `query`
        // (the last match winning): a check would judge `SELECT 1` and the
        // tool run the DROP.
        let cases = [
            (
                r#"{"call":{"name":"query","arguments":{"query":"SELECT 1","QUERY":"DROP TABLE users"}}}"#,
                "`call.arguments` has the keys `query` and `QUERY`",
            ),
            (
                r#"{"call":{"name":"query","arguments":{"statement":"SELECT 1","\u017ftatement":"DROP TABLE users"}}}"#,
                "`call.arguments` has the keys `statement` and `ſtatement`",
            ),
            (
                r#"{"call":{"name":"a","arguments":{"opts":[{},{"x":{"path":"/tmp","pa\u200bth":"/"}}]}}}"#,
                "`call.arguments.opts[1].x` has the keys `path` and `pa\\u{200b}th`",
            ),
            (
                r#"{"call":{"name":"pay","arguments":{"amount":5,"currency":"USD","\uff21\uff2d\uff2f\uff35\uff2e\uff34":5000}}}"#,
                "`call.arguments` has the keys `amount` and `ＡＭＯＵＮＴ`",
            ),
        ];
        for (text, expected) in cases {
            let e = CallRequest::from_json(text).unwrap_err().to_string();
            assert!(e.contains(expected), "{text}: {e}");
            assert!(e.contains("differ only in case"), "{e}");
            let e = parse_json_strict(text).unwrap_err();
            assert!(
                matches!(&e, StrictJsonError::Ambiguous(why) if why.contains(expected)),
                "{e}"
            );
        }
        // A call built from a value (the hooks) is held to the same rule.
        let e = CallRequest::new(
            "query",
            &serde_json::json!({"q": {"query": "SELECT 1", "QUERY": "DROP TABLE users"}}),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("`call.arguments.q` has the keys `QUERY` and `query`")
                || e.contains("`call.arguments.q` has the keys `query` and `QUERY`"),
            "{e}"
        );
        let e = CallRequest::from_value(serde_json::json!(
            {"call": {"name": "a", "arguments": {"Path": "/", "path": "/tmp"}}}
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("`call.arguments` has the keys"), "{e}");
        // One key in any case, and keys that only share letters, pass.
        for arguments in [
            serde_json::json!({"QUERY": "SELECT 1"}),
            serde_json::json!({"query": "a", "queries": ["b"], "query_id": 1}),
            serde_json::json!({"": 1, "x": {"": 2}}),
        ] {
            assert!(CallRequest::new("q", &arguments).is_ok(), "{arguments}");
        }
        // Elsewhere in the call too: one reader, one rule.
        let e = CallRequest::from_json(
            r#"{"call":{"name":"a","arguments":{}},"context":{"attributes":{"cwd":"/","CWD":"/w"}}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("`context.attributes` has the keys `cwd` and `CWD`"),
            "{e}"
        );
    }
}
