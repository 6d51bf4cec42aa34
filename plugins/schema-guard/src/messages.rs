//! Turning validation errors into short messages the model can act on:
//! which field (a JSON pointer into the arguments, RFC 6901) and what was
//! expected. Values from the arguments are never quoted, only their types.

use boon::{ErrorKind, ValidationError};
use toolvet_pdk::serde_json::Value;

/// At most this many enum values are listed.
const MAX_ENUM_VALUES: usize = 12;
/// At most this many allowed property names are listed.
const MAX_ALLOWED_NAMES: usize = 20;
/// Strings from the schema (patterns, enum values) are cut to this length.
const MAX_QUOTED_CHARS: usize = 80;

/// Describe a validation failure: at most `max` messages, and the total
/// number of errors found.
///
/// Wrapper errors (`$ref`, `allOf`, groups) are replaced by the errors
/// inside them; `anyOf`/`oneOf` failures are reported once, at their
/// location, with the first reason of the first alternative as an example.
/// `document` is the schema the errors refer to; it supplies the declared
/// property names when an undeclared property is refused.
pub fn describe_errors(
    error: &ValidationError<'_, '_>,
    document: &Value,
    max: usize,
) -> (Vec<String>, usize) {
    let mut leaves = Vec::new();
    collect_leaves(error, &mut leaves);
    let mut messages: Vec<String> = Vec::new();
    for leaf in leaves {
        for m in describe(leaf, document) {
            if !messages.contains(&m) {
                messages.push(m);
            }
        }
    }
    let total = messages.len();
    messages.truncate(max);
    (messages, total)
}

/// The errors that say something, in order.
fn collect_leaves<'a, 's, 'v>(
    e: &'a ValidationError<'s, 'v>,
    out: &mut Vec<&'a ValidationError<'s, 'v>>,
) {
    match &e.kind {
        ErrorKind::Group
        | ErrorKind::Schema { .. }
        | ErrorKind::Reference { .. }
        | ErrorKind::AllOf
            if !e.causes.is_empty() =>
        {
            for c in &e.causes {
                collect_leaves(c, out);
            }
        }
        _ => out.push(e),
    }
}

/// The JSON pointer of the offending value, quoted for the message; the
/// whole arguments object for the root.
fn location(e: &ValidationError<'_, '_>) -> String {
    let p = e.instance_location.to_string();
    if p.is_empty() {
        "the arguments".into()
    } else {
        format!("`{p}`")
    }
}

/// Escape one property name as a JSON pointer token (RFC 6901 §3).
fn pointer_token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn cut(s: &str) -> String {
    if s.chars().count() > MAX_QUOTED_CHARS {
        let mut t: String = s.chars().take(MAX_QUOTED_CHARS).collect();
        t.push('…');
        t
    } else {
        s.to_string()
    }
}

/// A value from the schema (enum member, const), as JSON, shortened.
fn schema_value(v: &Value) -> String {
    cut(&v.to_string())
}

/// One error's messages (a `required` error can name several properties).
fn describe(e: &ValidationError<'_, '_>, document: &Value) -> Vec<String> {
    let at = location(e);
    let child = |name: &str| {
        let base = e.instance_location.to_string();
        format!("`{base}/{}`", pointer_token(name))
    };
    match &e.kind {
        ErrorKind::Required { want } => want
            .iter()
            .map(|w| format!("{}: required property is missing", child(w)))
            .collect(),
        ErrorKind::DependentRequired { prop, missing }
        | ErrorKind::Dependency { prop, missing } => missing
            .iter()
            .map(|m| {
                format!(
                    "{}: required when `{}` is given, but missing",
                    child(m),
                    cut(prop)
                )
            })
            .collect(),
        ErrorKind::Type { got, want } => {
            let want: Vec<String> = want.iter().map(|t| t.to_string()).collect();
            vec![format!("{at}: expected {}, got {got}", want.join(" or "))]
        }
        ErrorKind::Enum { want } => {
            let mut values: Vec<String> = want
                .iter()
                .take(MAX_ENUM_VALUES)
                .map(schema_value)
                .collect();
            if want.len() > MAX_ENUM_VALUES {
                values.push(format!("… ({} values)", want.len()));
            }
            vec![format!("{at}: must be one of {}", values.join(", "))]
        }
        ErrorKind::Const { want } => vec![format!("{at}: must be {}", schema_value(want))],
        ErrorKind::AdditionalProperties { got } => {
            let allowed = allowed_names(document, e.schema_url);
            got.iter()
                .map(|p| format!("{}: property is not allowed{allowed}", child(p)))
                .collect()
        }
        ErrorKind::FalseSchema if e.schema_url.ends_with("/unevaluatedProperties") => {
            let allowed = allowed_names(document, e.schema_url);
            vec![format!("{at}: property is not allowed{allowed}")]
        }
        ErrorKind::FalseSchema => vec![format!("{at}: no value is allowed here")],
        ErrorKind::Format { want, .. } => vec![format!("{at}: must be a valid {want}")],
        ErrorKind::Pattern { want, .. } => {
            vec![format!("{at}: must match the pattern `{}`", cut(want))]
        }
        ErrorKind::AnyOf | ErrorKind::OneOf(None) => {
            let example = e
                .causes
                .first()
                .map(|c| {
                    let mut leaves = Vec::new();
                    collect_leaves(c, &mut leaves);
                    leaves
                        .first()
                        .and_then(|l| describe(l, document).into_iter().next())
                        .map(|m| format!(" (the first alternative fails with {m})"))
                        .unwrap_or_default()
                })
                .unwrap_or_default();
            vec![format!(
                "{at}: matches none of the allowed alternatives{example}"
            )]
        }
        ErrorKind::OneOf(Some((i, j))) => vec![format!(
            "{at}: matches more than one of the alternatives (#{i} and #{j}); it must match \
             exactly one"
        )],
        ErrorKind::Not => vec![format!("{at}: has a shape the schema forbids")],
        // Bounds (length, value, items, properties), uniqueness, content:
        // boon's own wording, which quotes only numbers.
        _ => vec![format!("{at}: {}", e.kind)],
    }
}

/// ` (allowed: a, b)`: the property names declared by the schema at
/// `schema_url` (the `additionalProperties`/`unevaluatedProperties`
/// keyword's parent), including those of its direct `allOf`/`anyOf`/`oneOf`
/// members; empty when they cannot be found.
fn allowed_names(document: &Value, schema_url: &str) -> String {
    let Some((_, fragment)) = schema_url.split_once('#') else {
        return String::new();
    };
    let parent = fragment
        .strip_suffix("/additionalProperties")
        .or_else(|| fragment.strip_suffix("/unevaluatedProperties"))
        .unwrap_or(fragment);
    let Some(schema) = document.pointer(&percent_decode(parent)) else {
        return String::new();
    };
    let mut parts: Vec<&Value> = vec![schema];
    for k in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(members)) = schema.get(k) {
            parts.extend(members);
        }
    }
    let mut names: Vec<&str> = parts
        .iter()
        .filter_map(|p| p.get("properties").and_then(Value::as_object))
        .flat_map(|props| props.keys().map(String::as_str))
        .collect();
    names.sort_unstable();
    names.dedup();
    if names.is_empty() {
        return String::new();
    }
    let mut shown: Vec<String> = names
        .iter()
        .take(MAX_ALLOWED_NAMES)
        .map(|n| cut(n))
        .collect();
    if names.len() > MAX_ALLOWED_NAMES {
        shown.push("…".into());
    }
    format!(" (allowed: {})", shown.join(", "))
}

/// Decode `%XX` escapes of a URL fragment (boon percent-encodes pointer
/// tokens in schema locations).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let hex = |b: u8| (b as char).to_digit(16);
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_decoding_of_fragments() {
        assert_eq!(percent_decode("/properties/a%20b"), "/properties/a b");
        assert_eq!(percent_decode("/properties/x%2"), "/properties/x%2");
        assert_eq!(percent_decode("%7E"), "~");
        assert_eq!(percent_decode(""), "");
        assert_eq!(percent_decode("/é%zz"), "/é%zz");
    }

    #[test]
    fn pointer_tokens_are_escaped() {
        assert_eq!(pointer_token("a/b~c"), "a~1b~0c");
    }
}
