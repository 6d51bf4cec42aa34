//! What leaves the server about a call's arguments when the receiver is
//! not a reviewer (webhooks: the shape, never the values). What the
//! decision log keeps of them is the preset's redactor's
//! ([`toolvet_preset::SecretsRedactor`]).

use serde_json::Value;

/// The text that replaces every value.
pub(crate) const REDACTED: &str = "[redacted]";

/// `value` with every string, number and boolean replaced by
/// [`REDACTED`]: keys and nesting stay, so a receiver sees what kind of
/// call waits without seeing its contents (reviewers read those on the
/// reviewer page).
pub(crate) fn redact_all(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), redact_all(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(redact_all).collect()),
        Value::Null => Value::Null,
        _ => Value::String(REDACTED.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_go_keys_stay() {
        let v = serde_json::json!({"command": "curl -H 'Authorization: Bearer sk-live'", "n": 3, "list": ["a", {"b": true}], "none": null});
        assert_eq!(
            redact_all(&v),
            serde_json::json!({"command": REDACTED, "n": REDACTED, "list": [REDACTED, {"b": REDACTED}], "none": null})
        );
    }
}
