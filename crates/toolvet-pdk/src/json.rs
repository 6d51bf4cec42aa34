//! Walking a call's JSON arguments with the path of every value, as reasons
//! name them: `arguments.headers.Authorization`, `arguments.items[2]`,
//! `arguments["content-type"]`.

use serde_json::Value;

/// How deep [`walk`] descends. The host refuses arguments nested deeper
/// than 128 levels before any check runs, so this bound is only reached
/// natively (tests, benchmarks).
pub const MAX_DEPTH: usize = 128;

/// `parent.key` when `key` is a plain identifier (a letter or `_`, then
/// letters, digits, `_` or `-`), else `parent["key"]` with the key as a
/// JSON string, so that every path reads back unambiguously.
pub fn child_path(parent: &str, key: &str) -> String {
    let plain = key
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if plain {
        format!("{parent}.{key}")
    } else {
        format!("{parent}[{}]", Value::String(key.to_string()))
    }
}

/// `parent[i]`.
pub fn index_path(parent: &str, i: usize) -> String {
    format!("{parent}[{i}]")
}

/// One value met by [`walk`].
#[derive(Debug, Clone, Copy)]
pub struct Node<'a> {
    /// The value's path, e.g. `arguments.edits[0].path`.
    pub path: &'a str,
    /// The name of the nearest object member on the way to the value (for
    /// `{"paths": ["a", "b"]}`, `paths` for the array and for each
    /// string); `""` for the root.
    pub key: &'a str,
    /// How many members and items lie between the root and the value.
    pub depth: usize,
    /// The value.
    pub value: &'a Value,
}

/// What [`walk`] does after visiting a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Visit the value's members or items.
    Descend,
    /// Leave them out.
    Skip,
    /// Stop the whole walk.
    Stop,
}

/// Visit `value` and everything in it, depth first (members in the order
/// `serde_json` keeps them: sorted by name without its `preserve_order`
/// feature),
/// calling `visit` with each value (objects and arrays before their
/// contents). `root` is the root's path, usually `"arguments"`. Members and
/// items deeper than [`MAX_DEPTH`] are not visited.
pub fn walk(value: &Value, root: &str, visit: &mut impl FnMut(Node<'_>) -> Step) {
    walk_at(value, root, "", 0, visit);
}

fn walk_at(
    value: &Value,
    path: &str,
    key: &str,
    depth: usize,
    visit: &mut impl FnMut(Node<'_>) -> Step,
) -> bool {
    let step = visit(Node {
        path,
        key,
        depth,
        value,
    });
    match step {
        Step::Stop => return false,
        Step::Skip => return true,
        Step::Descend => {}
    }
    if depth >= MAX_DEPTH {
        return true;
    }
    match value {
        Value::Object(map) => {
            for (k, child) in map {
                if !walk_at(child, &child_path(path, k), k, depth + 1, visit) {
                    return false;
                }
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                if !walk_at(child, &index_path(path, i), key, depth + 1, visit) {
                    return false;
                }
            }
        }
        _ => {}
    }
    true
}

/// Every string in `value` with its path and nearest member name, in
/// document order (see [`walk`]).
pub fn strings<'a>(value: &'a Value, root: &str) -> Vec<(String, String, &'a str)> {
    let mut out = Vec::new();
    collect_strings(value, root, "", 0, &mut out);
    out
}

fn collect_strings<'a>(
    value: &'a Value,
    path: &str,
    key: &str,
    depth: usize,
    out: &mut Vec<(String, String, &'a str)>,
) {
    match value {
        Value::String(s) => out.push((path.to_string(), key.to_string(), s)),
        _ if depth >= MAX_DEPTH => {}
        Value::Object(map) => {
            for (k, child) in map {
                collect_strings(child, &child_path(path, k), k, depth + 1, out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                collect_strings(child, &index_path(path, i), key, depth + 1, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths() {
        assert_eq!(child_path("arguments", "url"), "arguments.url");
        assert_eq!(child_path("arguments", "_x-y2"), "arguments._x-y2");
        assert_eq!(child_path("a", "content-type"), "a.content-type");
        assert_eq!(child_path("a", "2fa"), "a[\"2fa\"]");
        assert_eq!(child_path("a", "-x"), "a[\"-x\"]");
        assert_eq!(child_path("a", "a b"), "a[\"a b\"]");
        assert_eq!(child_path("a", ""), "a[\"\"]");
        assert_eq!(child_path("a", "q\""), "a[\"q\\\"\"]");
        assert_eq!(index_path("a", 3), "a[3]");
    }

    #[test]
    fn walks_in_order_with_keys() {
        let v = json!({"url": "u", "edits": [{"path": "p"}, "s"], "skip": {"x": "no"}});
        let mut seen = Vec::new();
        walk(&v, "arguments", &mut |n| {
            if let Value::String(s) = n.value {
                seen.push(format!("{} {} {s}", n.path, n.key));
            }
            if n.key == "skip" {
                Step::Skip
            } else {
                Step::Descend
            }
        });
        assert_eq!(
            seen,
            [
                "arguments.edits[0].path path p",
                "arguments.edits[1] edits s",
                "arguments.url url u",
            ]
        );
        let mut count = 0;
        walk(&v, "arguments", &mut |_| {
            count += 1;
            if count == 2 {
                Step::Stop
            } else {
                Step::Descend
            }
        });
        assert_eq!(count, 2);
        let s: Vec<String> = strings(&v, "arguments")
            .into_iter()
            .map(|(p, k, s)| format!("{p} {k} {s}"))
            .collect();
        assert_eq!(s.len(), 4);
        assert_eq!(s[3], "arguments.url url u");
    }

    #[test]
    fn depth_is_bounded() {
        let mut v = json!("deep");
        for _ in 0..(MAX_DEPTH + 5) {
            v = json!([v]);
        }
        assert!(strings(&v, "a").is_empty());
        let mut v = json!("ok");
        for _ in 0..MAX_DEPTH {
            v = json!([v]);
        }
        assert_eq!(strings(&v, "a").len(), 1);
    }
}

/// Every string in `value` with its JSON Pointer (RFC 6901: `~` written
/// `~0`, `/` written `~1`) and nearest member name, in document order,
/// down to the same depth as [`walk`]: the shape a result check's
/// [`crate::Redaction::Pointer`] masks take (`/items/2/body`).
pub fn string_pointers(value: &Value) -> Vec<(String, String, &str)> {
    let mut out = Vec::new();
    collect_pointers(value, String::new(), "", 0, &mut out);
    out
}

fn collect_pointers<'a>(
    value: &'a Value,
    pointer: String,
    key: &str,
    depth: usize,
    out: &mut Vec<(String, String, &'a str)>,
) {
    match value {
        Value::String(s) => out.push((pointer, key.to_string(), s)),
        _ if depth >= MAX_DEPTH => {}
        Value::Object(map) => {
            for (k, child) in map {
                let step = k.replace('~', "~0").replace('/', "~1");
                collect_pointers(child, format!("{pointer}/{step}"), k, depth + 1, out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                collect_pointers(child, format!("{pointer}/{i}"), key, depth + 1, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod pointer_tests {
    use super::*;

    #[test]
    fn string_pointers_escape_per_rfc_6901() {
        let v: Value = serde_json::from_str(
            r#"{"a/b": {"m~n": ["x", 3, {"k": "y"}]}, "top": "z", "n": null}"#,
        )
        .unwrap();
        let got: Vec<(String, String, &str)> = string_pointers(&v);
        let got: Vec<(&str, &str, &str)> = got
            .iter()
            .map(|(p, k, s)| (p.as_str(), k.as_str(), *s))
            .collect();
        assert_eq!(
            got,
            vec![
                ("/a~1b/m~0n/0", "m~n", "x"),
                ("/a~1b/m~0n/2/k", "k", "y"),
                ("/top", "top", "z"),
            ]
        );
        assert_eq!(
            string_pointers(&Value::String("whole".into())),
            vec![(String::new(), String::new(), "whole")]
        );
    }
}
