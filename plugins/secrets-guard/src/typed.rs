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
use toolvet_pdk::{Effects, Role, ToolInfo};
#[cfg(test)]
use toolvet_pdk::{FactSource, RoleValue, ToolFacts};

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

/// The most words a field's description has when it is not under a
/// [`LABEL_KEYS`] key.
pub const MAX_LABEL_WORDS: usize = 8;

/// Keys whose value describes the field a text goes to (folded): read
/// whatever their length, and whatever role the host gave them (a
/// selector such as `#password` may look like a path to it).
pub const LABEL_KEYS: &[&str] = &[
    "element",
    "label",
    "name",
    "field",
    "selector",
    "placeholder",
    "aria_label",
    "arialabel",
    "target",
    "locator",
];

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
    // A message or a publication is text about something (an issue named
    // "API key rotation"), judged by the detectors; typing is into pages
    // and forms.
    if facts
        .effects
        .intersects(Effects::OUTBOUND_MESSAGE | Effects::PUBLISH)
    {
        return None;
    }
    let sent = |p: &str| {
        facts
            .roles
            .iter()
            .any(|r| r.pointer == p && r.role == Role::OutboundContent)
    };
    let has_role = |p: &str, label_key: bool| {
        sent(p) || (!label_key && facts.roles.iter().any(|r| r.pointer == p))
    };
    facts
        .roles
        .iter()
        .filter(|r| {
            // A line ending that submits the field is not part of it.
            let value = r.value.trim_end_matches(['\n', '\r']);
            r.role == Role::OutboundContent
                && !value.trim().is_empty()
                && !value.contains('\n')
                && value.chars().count() <= MAX_TYPED
        })
        .find_map(|r| described_field(args, &r.pointer, &has_role))
}

/// The credential named by the key of the value at `pointer` or by a
/// sibling label of it: a string under a [`LABEL_KEYS`] key that is not
/// itself sent, or a short one no role in the facts claims.
fn described_field(
    args: &Value,
    pointer: &str,
    has_role: &dyn Fn(&str, bool) -> bool,
) -> Option<Typed> {
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
        let label_key = LABEL_KEYS.contains(&check_catalog::roles::fold(k).as_str());
        if k == &key
            || has_role(&at, label_key)
            || text.contains("://")
            || text.contains('\n')
            || (!label_key && text.split_whitespace().count() > MAX_LABEL_WORDS)
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

/// `text`'s words, folded (NFKC, lower case: `ＰＡＳＳ` is `pass`), with
/// invisible characters dropped first (`Pass\u{200b}word` is one word):
/// split at every character that is not a letter or digit, where a
/// lowercase letter or digit meets an uppercase one (`newPassword` →
/// `new`, `password`), and before the last capital of a run that a
/// lowercase letter follows (`TOTPCode` → `totp`, `code`).
fn words(text: &str) -> Vec<String> {
    let chars: Vec<char> = text
        .chars()
        .filter(|c| !check_catalog::roles::invisible(*c))
        .collect();
    let mut out = Vec::new();
    let mut word = String::new();
    let mut push = |word: &mut String| {
        if !word.is_empty() {
            out.push(check_catalog::roles::fold(&std::mem::take(word)));
        }
    };
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            push(&mut word);
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1);
        let lower_before = prev.is_some_and(|p| p.is_lowercase() || p.is_numeric());
        let run_ends =
            prev.is_some_and(char::is_uppercase) && next.is_some_and(|n| n.is_lowercase());
        if c.is_uppercase() && (lower_before || run_ends) {
            push(&mut word);
        }
        word.push(c);
    }
    push(&mut word);
    out
}

/// Tool facts that find the text at `pointer` typed (`outbound-content`)
/// by a tool that only writes, for tests.
#[cfg(test)]
pub(crate) fn typed_at(pointer: &str, value: &str) -> ToolInfo {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolvet_pdk::RoleValue;

    fn field(args: Value, pointer: &str) -> Option<(String, String)> {
        let value = args.pointer(pointer).and_then(Value::as_str).unwrap_or("");
        typed_credential(&args, &typed_at(pointer, value)).map(|t| (t.field, t.described_at))
    }

    #[test]
    fn the_field_a_text_is_typed_into_is_read_from_its_key_and_siblings() {
        // (arguments, the typed text's pointer, the credential named, where.)
        // The last five after review s26: acronyms, other forms and
        // invisible characters, long labels under a label key, a submitting
        // line ending.
        for (args, pointer, credential, at) in [
            (
                json!({"element": "Password field", "target": "e42", "text": "S3cr3tPassw0rd!"}),
                "/text",
                "password",
                "/element",
            ),
            (
                json!({"fields": [{"name": "Email", "value": "a@b.c"},
                    {"name": "cardNumber", "value": "4539 5787 6362 1486"}]}),
                "/fields/1/value",
                "card number",
                "/fields/1/name",
            ),
            (
                json!({"selector": "input[autocomplete=cc-csc]", "value": "123"}),
                "/value",
                "csc",
                "/selector",
            ),
            (
                json!({"user": "alice", "newPassword": "hunter22"}),
                "/newPassword",
                "password",
                "/newPassword",
            ),
            (
                json!({"label": "Enter the one-time code", "text": "482913"}),
                "/text",
                "one time",
                "/label",
            ),
            (
                json!({"element": "TOTPCode", "text": "482913"}),
                "/text",
                "totp",
                "/element",
            ),
            (
                json!({"element": "ＰＡＳＳＷＯＲＤ", "text": "x1"}),
                "/text",
                "password",
                "/element",
            ),
            (
                json!({"element": "Pass\u{200b}word", "text": "x1"}),
                "/text",
                "password",
                "/element",
            ),
            (
                json!({"element": "Password textbox in the sign-in form below the email field",
                    "text": "x1"}),
                "/text",
                "password",
                "/element",
            ),
            (
                json!({"element": "Password", "text": "S3cr3t!\n"}),
                "/text",
                "password",
                "/element",
            ),
        ] {
            assert_eq!(
                field(args.clone(), pointer),
                Some((credential.to_string(), at.to_string())),
                "{args}"
            );
        }
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
        // A message about a credential types none.
        let mut message = typed_at("/body", "rotate them monthly");
        if let Some(f) = message.facts.as_mut() {
            f.effects = Effects::OUTBOUND_MESSAGE;
        }
        assert_eq!(
            typed_credential(
                &json!({"name": "API key rotation", "body": "rotate them monthly"}),
                &message
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
