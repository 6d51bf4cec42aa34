//! The decision log's redactor: secrets-guard's detectors, run natively.

use serde_json::Value;
use toolvet_pdk::Check as _;

/// What a value becomes when the detectors cannot be used (a poisoned
/// lock): nothing of it is kept.
const REDACTED: &str = "[redacted]";

/// Redacts decision records with secrets-guard's detectors (provider
/// tokens, private keys, JWTs, URLs with passwords, named passwords,
/// high-entropy strings), with its default settings: each string value
/// holding a credential becomes `[redacted: secrets.<kind>]`.
///
/// The detectors are compiled on the first record redacted, not when the
/// redactor is made: a one-shot process that writes no decision log does
/// not pay for them (about 1 ms of regex compilation).
pub struct SecretsRedactor {
    /// The check is not `Sync` (its globs compile lazily); the decision
    /// log's one writer thread is its only user.
    guard: std::sync::LazyLock<std::sync::Mutex<secrets_guard::SecretsGuard>>,
}

impl std::fmt::Debug for SecretsRedactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretsRedactor")
    }
}

impl SecretsRedactor {
    /// The detectors with secrets-guard's defaults, compiled on first use.
    pub fn new() -> SecretsRedactor {
        SecretsRedactor {
            guard: std::sync::LazyLock::new(Self::detectors),
        }
    }

    /// # Panics
    /// Never: the default settings are valid (a unit test builds them).
    fn detectors() -> std::sync::Mutex<secrets_guard::SecretsGuard> {
        std::sync::Mutex::new(
            secrets_guard::SecretsGuard::new(secrets_guard::Settings::default())
                .expect("secrets-guard's default settings are valid"),
        )
    }

    fn walk(guard: &secrets_guard::SecretsGuard, key: &str, value: &mut Value) {
        match value {
            Value::Object(map) => map.iter_mut().for_each(|(k, v)| Self::walk(guard, k, v)),
            Value::Array(items) => items.iter_mut().for_each(|v| Self::walk(guard, key, v)),
            Value::String(text) => {
                // The key matters: `password = "…"` is a secret by name.
                let probe = serde_json::json!({ key: text.as_str() });
                let found = guard.find(&probe, &probe.to_string());
                if let Some(first) = found.first() {
                    *value = Value::String(format!("[redacted: {}]", first.kind.rule()));
                }
            }
            _ => {}
        }
    }
}

impl SecretsRedactor {
    /// What replaces `text` when it holds a credential
    /// (`[redacted: secrets.<kind>]`, or `[redacted]` when the detectors
    /// cannot run); `None` when it holds none.
    pub fn redact_text(&self, text: &str) -> Option<String> {
        let mut value = serde_json::json!({ "": text });
        toolvet::Redactor::redact(self, &mut value);
        match value.get("").and_then(Value::as_str) {
            Some(kept) if kept == text => None,
            Some(replaced) => Some(replaced.to_string()),
            None => Some(REDACTED.to_string()),
        }
    }
}

impl Default for SecretsRedactor {
    fn default() -> Self {
        Self::new()
    }
}

impl toolvet::Redactor for SecretsRedactor {
    fn redact(&self, value: &mut Value) {
        match self.guard.lock() {
            Ok(guard) => Self::walk(&guard, "", value),
            // Fail closed: a poisoned detector keeps nothing.
            Err(_) => *value = Value::String(REDACTED.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolvet::Redactor as _;

    #[test]
    fn credentials_are_redacted_and_the_rest_kept() {
        let r = SecretsRedactor::new();
        let mut v = serde_json::json!({
            "command": "git push",
            "token": "ghp_R4nd0mT0k3nV4lu3Xq9Lm2Np8Kd7Wz5Yb1Cc3E",
            "headers": [{"Authorization": "Bearer sk-proj-Xk9Lm2Np8Kd7Wz5Yb1Cc3Ef4Gh6Jq0Rs2Tu4Vw6Xy8Za_b1C3d5E7"}],
            "n": 3
        });
        r.redact(&mut v);
        assert_eq!(v["command"], "git push");
        assert_eq!(v["n"], 3);
        let token = v["token"].as_str().unwrap();
        assert!(token.starts_with("[redacted: secrets."), "{token}");
        assert!(!v.to_string().contains("R4nd0m"), "{v}");
        assert!(!v.to_string().contains("Xk9Lm2Np8Kd7"), "{v}");
    }
}
