//! Closing open object schemas (the `additional_properties = true` setting).
//!
//! JSON Schema allows properties an object schema does not declare unless
//! the schema says `additionalProperties: false`. Tool declarations often
//! leave that out although the tool ignores (or chokes on) unknown
//! arguments, and an unknown argument is often a misspelt known one.

use toolvet_pdk::serde_json::{Map, Value};

/// How many local `$ref` hops are followed to see whether a schema is
/// object-shaped.
const MAX_REF_HOPS: usize = 8;

/// Close every object schema that sits where a value is described (the root,
/// `properties/*`, `patternProperties/*`, `additionalProperties`, `items`,
/// `prefixItems/*`, `additionalItems`, `unevaluatedItems`, `contains`) and
/// is object-shaped (declares `properties`, or is a local `$ref` to / an
/// `allOf`/`anyOf`/`oneOf` of such a schema), unless it already says
/// something about extra properties (`additionalProperties`,
/// `unevaluatedProperties`, `patternProperties`).
///
/// Drafts 2019-09 and 2020-12 (and schemas without `$schema`) get
/// `unevaluatedProperties: false`, which sees the properties declared
/// through `allOf`/`anyOf`/`oneOf`/`$ref`, so composed schemas stay valid.
/// Older drafts (`$schema` naming draft-03 to draft-07) get
/// `additionalProperties: false`, and only where the schema has no
/// `$ref`/`allOf`/`anyOf`/`oneOf`/`if`/`dependencies` (closing those would
/// refuse properties declared in the composed parts).
///
/// Members of `allOf`/`anyOf`/`oneOf`/`not`/`if`/`then`/`else`,
/// `$defs`/`definitions` and `dependentSchemas` describe part of a value,
/// not a whole one, so they are not closed themselves (their nested value
/// positions are).
pub fn close_objects(document: &mut Value) {
    let modern = match document.get("$schema").and_then(Value::as_str) {
        Some(s) => !["draft-03", "draft-04", "draft-06", "draft-07"]
            .iter()
            .any(|d| s.contains(d)),
        None => true,
    };
    let snapshot = document.clone();
    close(document, &snapshot, modern, true);
}

fn close(node: &mut Value, root: &Value, modern: bool, value_position: bool) {
    let Value::Object(map) = node else {
        return;
    };
    if value_position
        && ![
            "additionalProperties",
            "unevaluatedProperties",
            "patternProperties",
        ]
        .iter()
        .any(|k| map.contains_key(*k))
        && object_shaped(map, root, 0)
    {
        if modern {
            map.insert("unevaluatedProperties".into(), Value::Bool(false));
        } else if !["$ref", "allOf", "anyOf", "oneOf", "if", "dependencies"]
            .iter()
            .any(|k| map.contains_key(*k))
        {
            map.insert("additionalProperties".into(), Value::Bool(false));
        }
    }
    for (key, child) in map.iter_mut() {
        match key.as_str() {
            "properties" | "patternProperties" => each_member(child, root, modern, true),
            "$defs" | "definitions" | "dependentSchemas" => each_member(child, root, modern, false),
            "additionalProperties" | "additionalItems" | "unevaluatedItems" | "contains" => {
                close(child, root, modern, true);
            }
            "items" => match child {
                Value::Array(items) => {
                    items.iter_mut().for_each(|i| close(i, root, modern, true));
                }
                _ => close(child, root, modern, true),
            },
            "prefixItems" => {
                if let Value::Array(items) = child {
                    items.iter_mut().for_each(|i| close(i, root, modern, true));
                }
            }
            "allOf" | "anyOf" | "oneOf" => {
                if let Value::Array(members) = child {
                    members
                        .iter_mut()
                        .for_each(|m| close(m, root, modern, false));
                }
            }
            "not" | "if" | "then" | "else" => close(child, root, modern, false),
            _ => {}
        }
    }
}

/// Apply [`close`] to every value of an object of schemas.
fn each_member(node: &mut Value, root: &Value, modern: bool, value_position: bool) {
    if let Value::Object(members) = node {
        members
            .values_mut()
            .for_each(|m| close(m, root, modern, value_position));
    }
}

/// Whether a schema describes an object with declared properties, directly
/// or through local `$ref`s and `allOf`/`anyOf`/`oneOf`.
fn object_shaped(map: &Map<String, Value>, root: &Value, hops: usize) -> bool {
    if hops > MAX_REF_HOPS {
        return false;
    }
    if map.get("properties").is_some_and(Value::is_object) {
        return true;
    }
    if let Some(Value::String(r)) = map.get("$ref")
        && let Some(target) = resolve_local(root, r).and_then(Value::as_object)
        && object_shaped(target, root, hops + 1)
    {
        return true;
    }
    ["allOf", "anyOf", "oneOf"].iter().any(|k| {
        map.get(*k)
            .and_then(Value::as_array)
            .is_some_and(|members| {
                members
                    .iter()
                    .filter_map(Value::as_object)
                    .any(|m| object_shaped(m, root, hops + 1))
            })
    })
}

/// The target of a local reference (`#`, `#/$defs/x`), if any.
fn resolve_local<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolvet_pdk::serde_json::json;

    #[test]
    fn closes_root_and_nested_property_objects() {
        let mut s = json!({
            "type": "object",
            "properties": {
                "a": { "type": "object", "properties": { "b": { "type": "string" } } },
                "free": { "type": "object" },
                "list": { "type": "array", "items": { "properties": { "c": {} } } }
            }
        });
        close_objects(&mut s);
        assert_eq!(s["unevaluatedProperties"], json!(false));
        assert_eq!(s["properties"]["a"]["unevaluatedProperties"], json!(false));
        // A free-form object (no declared properties) stays open.
        assert!(
            s["properties"]["free"]
                .get("unevaluatedProperties")
                .is_none()
        );
        assert_eq!(
            s["properties"]["list"]["items"]["unevaluatedProperties"],
            json!(false)
        );
    }

    #[test]
    fn explicit_choices_are_kept() {
        let mut s = json!({ "properties": { "a": {} }, "additionalProperties": true });
        close_objects(&mut s);
        assert!(s.get("unevaluatedProperties").is_none());
        let mut s = json!({ "properties": { "a": {} }, "patternProperties": { "^x-": {} } });
        close_objects(&mut s);
        assert!(s.get("unevaluatedProperties").is_none());
    }

    #[test]
    fn composition_members_are_not_closed_but_their_parent_is() {
        let mut s = json!({
            "allOf": [ { "properties": { "a": {} } }, { "properties": { "b": {} } } ]
        });
        close_objects(&mut s);
        assert_eq!(s["unevaluatedProperties"], json!(false));
        assert!(s["allOf"][0].get("unevaluatedProperties").is_none());
    }

    #[test]
    fn local_refs_to_object_schemas_are_closed_at_the_use_site() {
        let mut s = json!({
            "$defs": {
                "addr": { "properties": { "city": {} } },
                "meta": { "type": "object" }
            },
            "properties": {
                "home": { "$ref": "#/$defs/addr" },
                "extra": { "$ref": "#/$defs/meta" }
            }
        });
        close_objects(&mut s);
        assert_eq!(
            s["properties"]["home"]["unevaluatedProperties"],
            json!(false)
        );
        assert!(
            s["properties"]["extra"]
                .get("unevaluatedProperties")
                .is_none()
        );
        assert!(s["$defs"]["addr"].get("unevaluatedProperties").is_none());
    }

    #[test]
    fn old_drafts_use_additional_properties_only_without_composition() {
        let mut s = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": {
                "plain": { "properties": { "x": {} } },
                "composed": { "allOf": [ { "properties": { "y": {} } } ], "properties": { "z": {} } }
            }
        });
        close_objects(&mut s);
        assert_eq!(s["additionalProperties"], json!(false));
        assert_eq!(
            s["properties"]["plain"]["additionalProperties"],
            json!(false)
        );
        assert!(
            s["properties"]["composed"]
                .get("additionalProperties")
                .is_none()
        );
        assert!(s.get("unevaluatedProperties").is_none());
    }

    #[test]
    fn ref_cycles_terminate() {
        let mut s = json!({ "$defs": { "a": { "$ref": "#/$defs/a" } }, "properties": { "p": { "$ref": "#/$defs/a" } } });
        close_objects(&mut s);
        assert!(s["properties"]["p"].get("unevaluatedProperties").is_none());
    }
}
