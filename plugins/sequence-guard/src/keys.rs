//! Keys taken from arguments, their normalisation, and canonical JSON.

use serde::Deserialize;
use toolvet_pdk::serde_json::Value;

/// How key strings are compared (`normalize` of a `read_before_write` rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Normalize {
    /// As a file path: see [`normalize_path`]. The default.
    #[default]
    Path,
    /// Leading and trailing whitespace removed, otherwise byte for byte.
    Exact,
    /// Whitespace trimmed and lower-cased (e.g. e-mail addresses, hostnames).
    Lowercase,
}

/// The key at JSON `pointer` (RFC 6901) in `arguments`, as a string:
/// strings as they are, numbers and booleans as their JSON text, arrays and
/// objects as canonical JSON ([`canonical_json`]). `None` when the pointer
/// finds nothing, `null`, or an empty string.
pub fn key_at(arguments: &Value, pointer: &str) -> Option<String> {
    match arguments.pointer(pointer)? {
        Value::Null => None,
        Value::String(s) if s.trim().is_empty() => None,
        Value::String(s) => Some(s.clone()),
        other @ (Value::Array(_) | Value::Object(_)) => Some(canonical_json(other)),
        other => Some(other.to_string()),
    }
}

/// Normalise a key for comparison. `cwd` (the call context's `cwd`
/// attribute) resolves relative paths under [`Normalize::Path`].
pub fn normalize_key(key: &str, how: Normalize, cwd: Option<&str>) -> String {
    match how {
        Normalize::Path => normalize_path(key, cwd),
        Normalize::Exact => key.trim().to_string(),
        Normalize::Lowercase => key.trim().to_lowercase(),
    }
}

/// Lexical path normalisation, so that `src/main.rs`, `./src/main.rs`,
/// `src//main.rs`, `src/lib/../main.rs` and (with `cwd` =
/// `/home/alice/project`) `/home/alice/project/src/main.rs` compare equal.
///
/// Steps: trim whitespace; a `file://` prefix is dropped; a relative path is
/// joined to `cwd` when `cwd` is absolute; empty and `.` segments are
/// dropped; `..` removes the segment before it (at the root of an absolute
/// path it is dropped, at the start of a relative one it is kept); a
/// trailing `/` is dropped. The file system is not consulted, so symbolic
/// links are not resolved.
pub fn normalize_path(path: &str, cwd: Option<&str>) -> String {
    let path = path.trim();
    let path = path.strip_prefix("file://").unwrap_or(path);
    let joined;
    let path = match cwd {
        Some(cwd) if !path.starts_with('/') && cwd.starts_with('/') => {
            joined = format!("{cwd}/{path}");
            joined.as_str()
        }
        _ => path,
    };
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&last) if last != ".." => {
                    parts.pop();
                }
                _ if absolute => {}
                _ => parts.push(".."),
            },
            s => parts.push(s),
        }
    }
    let body = parts.join("/");
    match (absolute, body.is_empty()) {
        (true, _) => format!("/{body}"),
        (false, true) => ".".into(),
        (false, false) => body,
    }
}

/// JSON text with object keys sorted at every level and integral numbers
/// written without a fraction (`1.0` as `1`), so two argument objects that
/// differ only in key order or number spelling give the same text.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 9.0e15 => {
                out.push_str(&format!("{}", f as i64));
            }
            _ => out.push_str(&n.to_string()),
        },
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolvet_pdk::serde_json::json;

    #[test]
    fn paths_normalise_lexically() {
        let cwd = Some("/home/alice/project");
        let want = "/home/alice/project/src/main.rs";
        for p in [
            "src/main.rs",
            "./src/main.rs",
            "src//main.rs",
            "src/lib/../main.rs",
            " /home/alice/project/src/main.rs ",
            "/home/alice/project/./src/main.rs/",
            "file:///home/alice/project/src/main.rs",
        ] {
            assert_eq!(normalize_path(p, cwd), want, "{p}");
        }
        assert_eq!(normalize_path("src/main.rs", None), "src/main.rs");
        assert_eq!(normalize_path("../x", None), "../x");
        assert_eq!(normalize_path("a/../../x", None), "../x");
        assert_eq!(normalize_path("/../etc/passwd", None), "/etc/passwd");
        assert_eq!(normalize_path("./", None), ".");
        assert_eq!(normalize_path("/", None), "/");
        // A relative cwd is not used.
        assert_eq!(normalize_path("a", Some("rel")), "a");
        // Different files stay different.
        assert_ne!(
            normalize_path("src/main.rs", cwd),
            normalize_path("src/lib.rs", cwd)
        );
    }

    #[test]
    fn other_normalisations() {
        assert_eq!(
            normalize_key(" Bob@Example.com ", Normalize::Lowercase, None),
            "bob@example.com"
        );
        assert_eq!(normalize_key(" A/./b ", Normalize::Exact, None), "A/./b");
    }

    #[test]
    fn keys_by_pointer() {
        let args = json!({"path": "a.txt", "id": 42, "opts": {"b": 1, "a": [true]}, "none": null, "empty": " "});
        assert_eq!(key_at(&args, "/path").as_deref(), Some("a.txt"));
        assert_eq!(key_at(&args, "/id").as_deref(), Some("42"));
        assert_eq!(
            key_at(&args, "/opts").as_deref(),
            Some(r#"{"a":[true],"b":1}"#)
        );
        assert_eq!(key_at(&args, "/opts/a/0").as_deref(), Some("true"));
        assert_eq!(key_at(&args, "/none"), None);
        assert_eq!(key_at(&args, "/empty"), None);
        assert_eq!(key_at(&args, "/missing"), None);
    }

    #[test]
    fn canonical_json_ignores_key_order_and_number_spelling() {
        let a = json!({"b": {"y": 1, "x": [2, {"q": 1, "p": 0}]}, "a": "s"});
        let b = json!({"a": "s", "b": {"x": [2.0, {"p": 0, "q": 1}], "y": 1}});
        assert_eq!(canonical_json(&a), canonical_json(&b));
        assert_eq!(
            canonical_json(&a),
            r#"{"a":"s","b":{"x":[2,{"p":0,"q":1}],"y":1}}"#
        );
        assert_ne!(
            canonical_json(&json!({"a": 1})),
            canonical_json(&json!({"a": "1"}))
        );
        assert_eq!(canonical_json(&json!({"k": "a\"b"})), r#"{"k":"a\"b"}"#);
        assert_eq!(canonical_json(&json!(1.5)), "1.5");
    }
}
