//! Credentials typed into a page or a form (`secrets.typed-credential`).
//!
//! A password, a card's security code or a one-time code has no format a
//! detector can recognise: `S3cr3tPassw0rd!` is only a string. What gives
//! it away is where it is typed. Browser and form tools carry the field
//! they type into next to the text: Playwright MCP's `browser_type` has an
//! `element` ("Password field"), a form filler has `{"name": "Card number",
//! "value": …}`, a login tool has a `password` argument. When the host's
//! facts find that an argument is typed or sent out (`outbound-content`)
//! and the field it goes to is described as a credential's, the text is a
//! credential leaving the run for whatever page the agent is on, which may
//! be a look-alike the agent was steered to. A person confirms the site.
//!
//! Only a value a credential could be is looked at: one line of at most
//! [`MAX_TYPED`] characters (a pull request's body is not a password).
//! The field's description is read from the typed value's own key and its
//! sibling string values in the same JSON object that are labels: one
//! line of at most [`MAX_LABEL_WORDS`] words, with no role in the facts
//! (never the typed or sent text, a URL, or another argument the host
//! knows the purpose of). It is split into words (`newPassword`,
//! `input[type=password]`, `cc-number` all give their words) and matched
//! against [`CREDENTIAL_FIELDS`].

use serde_json::Value;
use toolvet_pdk::{Role, ToolInfo};

/// Field descriptions that name a credential: single words and pairs of
/// consecutive words, lowercase. Passwords and PINs, one-time and
/// security codes, payment cards' numbers and verification codes (the
/// HTML autofill tokens `cc-number`, `cc-csc` included), API keys and
/// secrets.
pub const CREDENTIAL_FIELDS: &[&[&str]] = &[
    &["password"],
    &["passwd"],
    &["pwd"],
    &["passcode"],
    &["passphrase"],
    &["pin"],
    &["otp"],
    &["totp"],
    &["2fa"],
    &["mfa"],
    &["cvv"],
    &["cvv2"],
    &["cvc"],
    &["cvc2"],
    &["csc"],
    &["secret"],
    &["apikey"],
    &["one", "time"],
    &["security", "code"],
    &["verification", "code"],
    &["card", "number"],
    &["cc", "number"],
    &["credit", "card"],
    &["debit", "card"],
    &["api", "key"],
    &["secret", "key"],
    &["private", "key"],
    &["access", "token"],
];

/// The longest typed value, in characters, looked at as a credential
/// (private keys and service-account files are the detectors' part).
pub const MAX_TYPED: usize = 256;

/// The most words a field's label has.
pub const MAX_LABEL_WORDS: usize = 8;

/// A credential the call types into a field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Typed {
    /// JSON Pointer of the typed text in the arguments, e.g. `/text`.
    pub pointer: String,
    /// The credential the field's description names, e.g. `password` or
    /// `card number` (from [`CREDENTIAL_FIELDS`], never the call's text).
    pub field: String,
    /// JSON Pointer of the description, e.g. `/element` (the typed value's
    /// own pointer when its key is the description).
    pub described_at: String,
}

/// The first `outbound-content` value of `tool`'s facts, non-blank, that
/// is typed into a field described as a credential's, in the facts'
/// order. `None` without facts or when no field says so.
pub fn typed_credential(args: &Value, tool: &ToolInfo) -> Option<Typed> {
    let facts = tool.facts.as_ref()?;
    let has_role = |p: &str| facts.roles.iter().any(|r| r.pointer == p);
    facts
        .roles
        .iter()
        .filter(|r| {
            r.role == Role::OutboundContent
                && !r.value.trim().is_empty()
                && !r.value.contains('\n')
                && r.value.chars().count() <= MAX_TYPED
        })
        .find_map(|r| described_field(args, &r.pointer, &has_role))
}

/// The credential named by the key of the value at `pointer` or by a
/// sibling label of it (a string no role in the facts claims).
fn described_field(args: &Value, pointer: &str, has_role: &dyn Fn(&str) -> bool) -> Option<Typed> {
    let (parent, key) = pointer.rsplit_once('/')?;
    let key = key.replace("~1", "/").replace("~0", "~");
    let found = |field: String, described_at: String| Typed {
        pointer: pointer.to_string(),
        field,
        described_at,
    };
    if let Some(field) = credential_named(&key) {
        return Some(found(field, pointer.to_string()));
    }
    let Value::Object(siblings) = args.pointer(parent)? else {
        return None;
    };
    siblings.iter().find_map(|(k, v)| {
        let text = v.as_str()?;
        let at = format!("{parent}/{}", k.replace('~', "~0").replace('/', "~1"));
        if k == &key
            || has_role(&at)
            || text.contains("://")
            || text.contains('\n')
            || text.split_whitespace().count() > MAX_LABEL_WORDS
        {
            return None;
        }
        credential_named(text).map(|field| found(field, at))
    })
}

/// The [`CREDENTIAL_FIELDS`] entry `text`'s words contain, joined by a
/// space.
fn credential_named(text: &str) -> Option<String> {
    let words = words(text);
    CREDENTIAL_FIELDS
        .iter()
        .find(|entry| words.windows(entry.len()).any(|w| w == **entry))
        .map(|entry| entry.join(" "))
}

/// `text`'s words, lowercase: split at every character that is not a
/// letter or digit and where a lowercase letter or digit meets an
/// uppercase one (`newPassword` → `new`, `password`).
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolvet_pdk::{Effects, FactSource, RoleValue, ToolFacts};

    fn typed_at(pointer: &str, value: &str) -> ToolInfo {
        ToolInfo {
            facts: Some(ToolFacts {
                effects: Effects::WRITE,
                irreversible: false,
                protected_target: false,
                roles: vec![RoleValue {
                    role: Role::OutboundContent,
                    pointer: pointer.into(),
                    value: value.into(),
                    dialect: None,
                }],
                source: FactSource::Inferred(vec!["test".into()]),
            }),
            ..ToolInfo::default()
        }
    }

    fn field(args: Value, pointer: &str) -> Option<(String, String)> {
        let value = args.pointer(pointer).and_then(Value::as_str).unwrap_or("");
        typed_credential(&args, &typed_at(pointer, value)).map(|t| (t.field, t.described_at))
    }

    #[test]
    fn the_field_a_text_is_typed_into_is_read_from_its_key_and_siblings() {
        let f = |a: &str, b: &str| Some((a.to_string(), b.to_string()));
        assert_eq!(
            field(
                json!({"element": "Password field", "target": "e42", "text": "S3cr3tPassw0rd!"}),
                "/text"
            ),
            f("password", "/element")
        );
        assert_eq!(
            field(
                json!({"fields": [{"name": "Email", "value": "a@b.c"},
                    {"name": "cardNumber", "value": "4539 5787 6362 1486"}]}),
                "/fields/1/value"
            ),
            f("card number", "/fields/1/name")
        );
        assert_eq!(
            field(
                json!({"selector": "input[autocomplete=cc-csc]", "value": "123"}),
                "/value"
            ),
            f("csc", "/selector")
        );
        assert_eq!(
            field(
                json!({"user": "alice", "newPassword": "hunter22"}),
                "/newPassword"
            ),
            f("password", "/newPassword")
        );
        assert_eq!(
            field(
                json!({"label": "Enter the one-time code", "text": "482913"}),
                "/text"
            ),
            f("one time", "/label")
        );
    }

    #[test]
    fn other_fields_urls_and_the_text_itself_name_no_credential() {
        // Fields that are not a credential's, including words that only
        // contain a credential's (`shipping` holds `pin`).
        for args in [
            json!({"element": "Search box", "target": "e7", "text": "reset my password"}),
            json!({"element": "Shipping address", "text": "1 Main St"}),
            json!({"element": "Spinner", "text": "3"}),
            json!({"url": "https://example.com/reset-password", "text": "hello"}),
            // Prose beside the text is not a label.
            json!({"title": "Detect keys", "text": "x",
                "body": "Refuses a file that starts with a private key header, as the hook does"}),
        ] {
            assert_eq!(field(args.clone(), "/text"), None, "{args}");
        }
        // Text another role claims is not a label: a pull request's title
        // beside its body, both sent.
        let args = json!({"title": "Rotate the API key", "body": "ok"});
        let mut tool = typed_at("/body", "ok");
        if let Some(f) = tool.facts.as_mut() {
            f.roles.push(RoleValue {
                role: Role::OutboundContent,
                pointer: "/title".into(),
                value: "Rotate the API key".into(),
                dialect: None,
            });
        }
        assert_eq!(typed_credential(&args, &tool), None);
        // A long or many-line text is not a credential typed.
        assert_eq!(
            field(json!({"element": "Password", "text": "a\nb"}), "/text"),
            None
        );
        assert_eq!(
            field(
                json!({"element": "Password", "text": "a".repeat(257)}),
                "/text"
            ),
            None
        );
        // Blank text is not typed; without facts nothing is typed.
        assert_eq!(
            field(json!({"element": "Password", "text": "  "}), "/text"),
            None
        );
        assert_eq!(
            typed_credential(
                &json!({"element": "Password", "text": "x"}),
                &ToolInfo::default()
            ),
            None
        );
    }
}
