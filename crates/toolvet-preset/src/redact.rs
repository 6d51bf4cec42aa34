//! The decision log's redactor: the credential detectors secrets-guard
//! uses ([`secrets_detect`]), run natively.

use secrets_detect::{Detectors, EntropyOptions, Kind};
use serde_json::Value;
use std::sync::LazyLock;

/// Redacts decision records with secrets-guard's detectors (provider
/// tokens, private keys, JWTs, URLs with passwords, named passwords,
/// high-entropy strings), with its default settings: each string value
/// holding a credential becomes `[redacted: secrets.<kind>]`.
///
/// The detectors are compiled on the first record redacted, not when the
/// redactor is made: a one-shot process that writes no decision log does
/// not pay for them (about 1 ms of regex compilation). Once compiled they
/// are immutable, so every thread shares them without a lock.
pub struct SecretsRedactor {
    detectors: LazyLock<Detectors>,
}

impl std::fmt::Debug for SecretsRedactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretsRedactor")
    }
}

impl SecretsRedactor {
    /// The detectors with secrets-guard's defaults (the default
    /// [`EntropyOptions`]), compiled on first use.
    pub fn new() -> SecretsRedactor {
        SecretsRedactor {
            detectors: LazyLock::new(|| Detectors::new(EntropyOptions::default())),
        }
    }

    /// The first credential found in `text`, a string value under the
    /// member `key` (`""` for none). It is scanned as secrets-guard scans
    /// a call whose arguments are that one member: the key names passwords
    /// (`password = "…"` is a secret by name), and an AWS access key id
    /// anywhere in it makes a 40-character token an AWS secret key.
    fn first_secret(&self, key: &str, text: &str) -> Option<Kind> {
        let call = serde_json::json!({ key: text }).to_string();
        let aws_in_call = self.detectors.has_aws_id(&call);
        let hits = self.detectors.scan(text, key, aws_in_call);
        hits.first().map(|hit| hit.kind)
    }

    fn walk(&self, key: &str, value: &mut Value) {
        match value {
            Value::Object(map) => map.iter_mut().for_each(|(k, v)| self.walk(k, v)),
            Value::Array(items) => items.iter_mut().for_each(|v| self.walk(key, v)),
            Value::String(text) => {
                if let Some(kind) = self.first_secret(key, text) {
                    *value = Value::String(replacement(kind));
                }
            }
            _ => {}
        }
    }

    /// What replaces `text` when it holds a credential
    /// (`[redacted: secrets.<kind>]`); `None` when it holds none.
    pub fn redact_text(&self, text: &str) -> Option<String> {
        self.first_secret("", text).map(replacement)
    }
}

/// The text a value holding a credential of `kind` becomes.
fn replacement(kind: Kind) -> String {
    format!("[redacted: {}]", kind.rule())
}

impl Default for SecretsRedactor {
    fn default() -> Self {
        Self::new()
    }
}

impl toolvet::audit::Redactor for SecretsRedactor {
    fn redact(&self, value: &mut Value) {
        self.walk("", value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolvet::audit::Redactor as _;

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

    #[test]
    fn the_member_name_and_an_aws_key_id_beside_are_context() {
        let r = SecretsRedactor::new();
        let mut v = serde_json::json!({
            "password": "hunter2-prod-77",
            "note": "hunter2-prod-77",
            "aws": ["AKIAZ3MHALW2NQX7TQ4K Zb8kT2qLw9Rf4Nx7Vp3Hs6Jm1Yc5Ud0Ea2Gi8Ko4"],
        });
        r.redact(&mut v);
        assert_eq!(v["password"], "[redacted: secrets.password]");
        assert_eq!(v["note"], "hunter2-prod-77");
        assert_eq!(v["aws"][0], "[redacted: secrets.aws-access-key]");
        assert_eq!(
            r.redact_text("deploy with ghp_R4nd0mT0k3nV4lu3Xq9Lm2Np8Kd7Wz5Yb1Cc3E")
                .as_deref(),
            Some("[redacted: secrets.github-token]")
        );
        assert_eq!(r.redact_text("git push origin main"), None);
    }
}
