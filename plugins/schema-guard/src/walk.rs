//! A fast path for the schemas tools usually declare: the arguments are
//! checked by walking the schema document itself, with nothing compiled.
//!
//! Compiling a schema ([`crate::CompiledSchema`]) checks it against its
//! draft's meta-schema and builds the validator: tens of microseconds, paid
//! on every call under per-call isolation (a fresh instance has compiled
//! nothing). Most tool schemas use a handful of keywords, and for those the
//! walk below decides in about a microsecond.
//!
//! The walk only ever *allows*. [`covers`] says whether a schema uses
//! nothing but the keywords below, each with a value its draft's
//! meta-schema accepts; for such a schema, [`valid`] answers exactly what
//! the compiled validator answers (the tests compare the two on thousands of
//! generated schemas and arguments). When the walk finds the arguments
//! invalid, the guard compiles the schema anyway, for the validator's
//! error messages; any schema the walk does not cover is compiled as
//! before.
//!
//! Covered, in drafts 6, 7, 2019-09 and 2020-12 (and a schema without
//! `$schema`, read as 2020-12), for boolean and object schemas:
//!
//! | keyword | value the walk accepts |
//! |---|---|
//! | `type` | a type name, or a non-empty array of distinct names |
//! | `properties` | an object of covered schemas |
//! | `required` | an array of distinct strings |
//! | `additionalProperties`, `items` | a covered schema (not an array of them) |
//! | `unevaluatedProperties` | `true` or `false` (2019-09 and 2020-12 only; with no other applicator, `false` refuses what `properties` does not name) |
//! | `enum` | a non-empty array of distinct values |
//! | `const` | any value |
//! | `minLength`, `maxLength`, `minItems`, `maxItems`, `minProperties`, `maxProperties` | an integer from 0 to 2^32 − 1 |
//! | `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` | a number |
//! | `uniqueItems` | a boolean |
//! | `format` | a string, when formats are annotations only (`assert_formats = false`, 2019-09 and 2020-12) |
//! | `title`, `description`, `$comment` | a string |
//! | `default` | any value |
//! | `examples` | an array |
//! | `readOnly`, `writeOnly` (and `deprecated` in 2019-09, 2020-12) | a boolean |
//! | `$schema` | at the root only: one of the drafts above |
//!
//! Anything else (`$ref`, `allOf`, `pattern`, an asserted `format`,
//! `multipleOf`, tuple `items`, draft 4, a value the meta-schema refuses
//! ...) is left to the compiled validator.

use toolvet_pdk::serde_json::{Map, Number, Value};

/// The `$schema` values the walk covers, and whether the draft is 2019-09
/// or later (where `unevaluatedProperties` and `deprecated` exist).
const DRAFTS: &[(&str, bool)] = &[
    ("https://json-schema.org/draft/2020-12/schema", true),
    ("https://json-schema.org/draft/2019-09/schema", true),
    ("http://json-schema.org/draft-07/schema", false),
    ("http://json-schema.org/draft-06/schema", false),
];

/// The seven JSON Schema type names.
const TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "string", "integer",
];

/// Deepest schema nesting the walk follows; deeper schemas are compiled.
const MAX_DEPTH: usize = 64;

/// Whether `schema` (the root of a document) uses only what the walk
/// covers (see the module documentation). `assert_formats` is the guard's
/// setting: when formats are assertions, `format` is not covered.
pub fn covers(schema: &Value, assert_formats: bool) -> bool {
    let modern = match schema.get("$schema") {
        None => true,
        Some(Value::String(url)) => {
            let url = url.strip_suffix('#').unwrap_or(url);
            match DRAFTS.iter().find(|(d, _)| *d == url) {
                Some((_, modern)) => *modern,
                None => return false,
            }
        }
        Some(_) => return false,
    };
    let rules = Rules {
        modern,
        assert_formats,
    };
    rules.covered(schema, true, 0)
}

struct Rules {
    modern: bool,
    assert_formats: bool,
}

impl Rules {
    fn covered(&self, schema: &Value, root: bool, depth: usize) -> bool {
        let map = match schema {
            Value::Bool(_) => return true,
            Value::Object(map) => map,
            _ => return false,
        };
        if depth > MAX_DEPTH {
            return false;
        }
        map.iter().all(|(key, value)| match key.as_str() {
            "$schema" => root,
            "type" => match value {
                Value::String(name) => TYPES.contains(&name.as_str()),
                Value::Array(names) => {
                    !names.is_empty()
                        && names
                            .iter()
                            .all(|n| n.as_str().is_some_and(|n| TYPES.contains(&n)))
                        && distinct(names)
                }
                _ => false,
            },
            "properties" => value
                .as_object()
                .is_some_and(|props| props.values().all(|s| self.covered(s, false, depth + 1))),
            "required" => value
                .as_array()
                .is_some_and(|names| names.iter().all(Value::is_string) && distinct(names)),
            "additionalProperties" | "items" => self.covered(value, false, depth + 1),
            "unevaluatedProperties" | "deprecated" => self.modern && value.is_boolean(),
            "enum" => value
                .as_array()
                .is_some_and(|items| !items.is_empty() && distinct(items)),
            "const" | "default" => true,
            // At most u32::MAX: the validator keeps these as `usize`,
            // which is 32 bits in the plugin, so a larger bound would wrap.
            "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties"
            | "maxProperties" => value.as_u64().is_some_and(|n| n <= u64::from(u32::MAX)),
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => value.is_number(),
            "uniqueItems" | "readOnly" | "writeOnly" => value.is_boolean(),
            // Drafts 7 and earlier assert formats whatever the setting.
            "format" => self.modern && !self.assert_formats && value.is_string(),
            "title" | "description" | "$comment" => value.is_string(),
            "examples" => value.is_array(),
            _ => false,
        })
    }
}

/// Whether `instance` is valid against `schema`, which [`covers`] accepted.
pub fn valid(schema: &Value, instance: &Value) -> bool {
    let map = match schema {
        Value::Bool(b) => return *b,
        Value::Object(map) => map,
        // `covers` accepts only booleans and objects.
        _ => return false,
    };
    if let Some(ty) = map.get("type") {
        let fits = |name: &Value| name.as_str().is_some_and(|n| has_type(instance, n));
        let ok = match ty {
            Value::Array(names) => names.iter().any(fits),
            name => fits(name),
        };
        if !ok {
            return false;
        }
    }
    if let Some(allowed) = map.get("enum").and_then(Value::as_array)
        && !allowed.iter().any(|a| equal(a, instance))
    {
        return false;
    }
    if let Some(constant) = map.get("const")
        && !equal(constant, instance)
    {
        return false;
    }
    match instance {
        Value::String(text) => string_valid(map, text),
        Value::Number(n) => number_valid(map, n),
        Value::Array(items) => array_valid(map, items),
        Value::Object(object) => object_valid(map, object),
        Value::Null | Value::Bool(_) => true,
    }
}

/// Whether `len` is within the bounds `map` sets with the keywords `min`
/// and `max` (either may be absent).
fn within(map: &Map<String, Value>, min: &str, max: &str, len: u64) -> bool {
    map.get(min)
        .and_then(Value::as_u64)
        .is_none_or(|m| len >= m)
        && map
            .get(max)
            .and_then(Value::as_u64)
            .is_none_or(|m| len <= m)
}

fn string_valid(map: &Map<String, Value>, text: &str) -> bool {
    if !map.contains_key("minLength") && !map.contains_key("maxLength") {
        return true;
    }
    // Lengths count Unicode code points, as JSON Schema defines them.
    within(map, "minLength", "maxLength", text.chars().count() as u64)
}

fn number_valid(map: &Map<String, Value>, n: &Number) -> bool {
    // Bounds compare as `f64`, as the compiled validator does: two integers
    // past 2^53 that round to the same `f64` are equal here too, so a
    // strict bound refuses what the validator refuses.
    let bound = |key: &str, ok: fn(std::cmp::Ordering) -> bool| {
        let (Some(b), Some(x)) = (map.get(key).and_then(Value::as_f64), n.as_f64()) else {
            return true;
        };
        x.partial_cmp(&b).is_some_and(ok)
    };
    bound("minimum", |o| o.is_ge())
        && bound("maximum", |o| o.is_le())
        && bound("exclusiveMinimum", |o| o.is_gt())
        && bound("exclusiveMaximum", |o| o.is_lt())
}

fn array_valid(map: &Map<String, Value>, items: &[Value]) -> bool {
    if !within(map, "minItems", "maxItems", items.len() as u64) {
        return false;
    }
    if map.get("uniqueItems") == Some(&Value::Bool(true)) && !distinct(items) {
        return false;
    }
    match map.get("items") {
        Some(schema) => items.iter().all(|item| valid(schema, item)),
        None => true,
    }
}

fn object_valid(map: &Map<String, Value>, object: &Map<String, Value>) -> bool {
    if !within(map, "minProperties", "maxProperties", object.len() as u64) {
        return false;
    }
    if let Some(required) = map.get("required").and_then(Value::as_array)
        && !required
            .iter()
            .all(|name| name.as_str().is_some_and(|n| object.contains_key(n)))
    {
        return false;
    }
    let properties = map.get("properties").and_then(Value::as_object);
    // Properties `properties` does not name: `additionalProperties` applies
    // to them; without it, `unevaluatedProperties` does (no other
    // applicator can have evaluated them in a covered schema).
    let others = map
        .get("additionalProperties")
        .or_else(|| map.get("unevaluatedProperties"));
    object
        .iter()
        .all(|(name, value)| match properties.and_then(|p| p.get(name)) {
            Some(schema) => valid(schema, value),
            None => others.is_none_or(|schema| valid(schema, value)),
        })
}

/// Whether `instance` is of JSON Schema type `name`; an integer is any
/// number with no fractional part (`1.0` too, as drafts 6 and later say).
fn has_type(instance: &Value, name: &str) -> bool {
    match (name, instance) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("object", Value::Object(_))
        | ("array", Value::Array(_))
        | ("number", Value::Number(_))
        | ("string", Value::String(_)) => true,
        ("integer", Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

/// The order of two JSON numbers for equality: exact when both are `u64`
/// or both `i64`, by `f64` otherwise (the compiled validator's rule).
fn compare(a: &Number, b: &Number) -> Option<std::cmp::Ordering> {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return Some(x.cmp(&y));
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return Some(x.cmp(&y));
    }
    a.as_f64()?.partial_cmp(&b.as_f64()?)
}

/// JSON Schema's equality: numbers by value (`1` equals `1.0`), arrays in
/// order, objects by their members whatever their order.
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y).is_some_and(|o| o.is_eq()),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

/// Whether no two of `items` are equal (by [`equal`]).
fn distinct(items: &[Value]) -> bool {
    items
        .iter()
        .enumerate()
        .all(|(i, a)| items[i + 1..].iter().all(|b| !equal(a, b)))
}
