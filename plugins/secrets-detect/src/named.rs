//! Secrets without a shape: a password, secret or token given by name,
//! either as a JSON member (`"client_secret": "…"`) or in text
//! (`password=…`, `DB_PASSWORD: …`). The value must look like a real one:
//! not a placeholder, a template or an environment reference, and not a
//! plain word (`token: string` is a type, not a token).

use regex::Regex;

/// Names that label a secret value (matched in lower case).
pub const SECRET_NAMES: &str = r"(?:password|passwd|passphrase|pwd|secret|client_secret|api_?key|access_?token|auth_?token|private_?key|secret_?key)";

/// The text detector: `NAME = value`, `NAME: value`, with the name possibly
/// prefixed (`db_password`, `DB_PASSWORD`). Matched against lower-cased
/// text; group 1 is the value.
pub fn text_regex() -> Regex {
    // The name is matched anywhere in a word (`db_password`), so the
    // expression starts with literals the matcher can search for quickly.
    Regex::new(&format!(
        r#"{SECRET_NAMES}(?-u:\b)\s*[:=]\s*["']?([^\s"'`,;)}}\]]{{6,}})"#
    ))
    .expect("named-secret regex compiles")
}

/// Whether a JSON member name labels a secret (`password`,
/// `client_secret`, `apiKey`, `db_password`), not a setting about one
/// (`password_min_length`, `token_url`).
pub fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase().replace('-', "_");
    let words: Vec<&str> = lower.split('_').filter(|w| !w.is_empty()).collect();
    let last = words.last().copied().unwrap_or("");
    let joined = words.join("");
    matches!(
        last,
        "password" | "passwd" | "passphrase" | "pwd" | "secret"
    ) || matches!(
        joined.as_str(),
        "apikey"
            | "accesstoken"
            | "authtoken"
            | "clientsecret"
            | "privatekey"
            | "secretkey"
            | "token"
    ) || lower.ends_with("apikey")
        || (lower.ends_with("password") && !lower.contains("_password_"))
}

/// Whether `value` (given for a secret name) is a real secret rather than
/// a placeholder, a template, a reference or a plain word.
pub fn is_real_value(value: &str) -> bool {
    let v = value.trim();
    if v.len() < 6 || v.len() > 200 {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    let references = [
        "$",
        "<",
        "{",
        "%(",
        "process.env",
        "os.environ",
        "os.getenv",
        "getenv",
        "env(",
        "env.",
        "secrets.",
        "vault:",
        "ssm:",
        "arn:",
        "${",
        "#{",
        "@",
        "settings.",
        "config.",
        "***",
        "...",
        "xxx",
    ];
    if references.iter().any(|r| lower.starts_with(r)) {
        return false;
    }
    let placeholders = [
        "changeme",
        "change_me",
        "password",
        "passw0rd",
        "secret",
        "example",
        "your",
        "placeholder",
        "dummy",
        "redacted",
        "replace",
        "required",
        "optional",
        "string",
        "null",
        "none",
        "true",
        "false",
        "undefined",
        "hidden",
        "masked",
        "todo",
        "fixme",
        "sample",
        "test123",
        "123456",
    ];
    if placeholders.iter().any(|p| lower.starts_with(p))
        || v.chars().all(|c| c == '*' || c == 'x' || c == 'X')
    {
        return false;
    }
    // A plain word is not a secret: it needs a digit or a symbol.
    v.chars()
        .any(|c| c.is_ascii_digit() || (c.is_ascii_punctuation() && c != '_' && c != '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for n in [
            "password",
            "DB_PASSWORD",
            "client_secret",
            "apiKey",
            "api-key",
            "auth_token",
            "smtpPassword",
            "token",
        ] {
            assert!(is_secret_name(n), "{n}");
        }
        for n in [
            "password_min_length",
            "password_require_symbols",
            "token_url",
            "secret_name",
            "username",
            "key",
        ] {
            assert!(!is_secret_name(n), "{n}");
        }
    }

    #[test]
    fn values() {
        for v in [
            "hunter2-prod-77",
            "Winter2026!Prod",
            "q8Jd-2kLm_Zp0x",
            "S3cr3t!",
        ] {
            assert!(is_real_value(v), "{v}");
        }
        for v in [
            "${DB_PASSWORD}",
            "os.environ['X']",
            "changeme",
            "your-api-key-here",
            "string",
            "********",
            "required",
            "abc",
        ] {
            assert!(!is_real_value(v), "{v}");
        }
        let re = text_regex();
        let text = "prod db: host=db1 user=app password=winter2026!prod";
        let c = re.captures(text).unwrap();
        assert_eq!(c.get(1).unwrap().as_str(), "winter2026!prod");
        assert!(re.captures("password reset email never arrives").is_none());
        assert!(re.captures("password_min_length: 12").is_none() || !is_real_value("12"));
    }
}
