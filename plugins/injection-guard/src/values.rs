//! Provenance by value: the destinations a result introduced (e-mail
//! addresses, hosts, repositories, IBANs, phone numbers), carried by its
//! label so a later call whose destination is one of them is known to be
//! chosen by the content, not by the user.
//!
//! Values are kept normalised ([`normalise`]): lower case, an IBAN or a
//! phone number without spaces. A value matches an argument when it
//! occurs in it between non-word characters, after the same
//! normalisation.

use regex::Regex;
use std::sync::OnceLock;

/// At most this many values per label (the host's limit).
pub const MAX_VALUES: usize = 32;

/// Longest value kept, in bytes (the host's limit).
pub const MAX_VALUE_BYTES: usize = 512;

struct Patterns {
    email: Regex,
    url_host: Regex,
    repo: Regex,
    iban: Regex,
    phone: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = |p: &str| Regex::new(p).expect("value regex compiles");
        Patterns {
            email: re(r"(?i)\b[a-z0-9._%+\-]+@[a-z0-9\-]+(?:\.[a-z0-9\-]+)+\b"),
            url_host: re(r"(?i)\b(?:https?|ftp|wss?)://(?:[^\s/@]+@)?([a-z0-9\-]+(?:\.[a-z0-9\-]+)+)"),
            repo: re(r"(?i)\b(?:github\.com|gitlab\.com|bitbucket\.org)[/:]([a-z0-9_.\-]+/[a-z0-9_.\-]+)"),
            iban: re(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b"),
            phone: re(r"\+\d[\d \-]{7,16}\d"),
        }
    })
}

/// `value` as kept and compared: lower case, without spaces and hyphens
/// for IBANs and phone numbers (`DE89 3704…` → `de893704…`).
pub fn normalise(value: &str) -> String {
    let lower = value.trim().to_lowercase();
    if lower.contains('@') || lower.contains('.') || lower.contains('/') {
        lower
    } else {
        lower.chars().filter(|c| !matches!(c, ' ' | '-')).collect()
    }
}

/// The destinations `text` names, normalised, in order of first
/// appearance, without duplicates, at most [`MAX_VALUES`].
pub fn destinations(text: &str) -> Vec<String> {
    let p = patterns();
    let mut out: Vec<String> = Vec::new();
    let mut push = |v: &str| {
        let v = normalise(v);
        if !v.is_empty()
            && v.len() <= MAX_VALUE_BYTES
            && !out.contains(&v)
            && out.len() < MAX_VALUES
        {
            out.push(v);
        }
    };
    for m in p.iban.find_iter(text) {
        push(m.as_str());
    }
    for m in p.email.find_iter(text) {
        push(m.as_str());
    }
    for c in p.repo.captures_iter(text) {
        push(c[1].trim_end_matches(".git"));
    }
    for c in p.url_host.captures_iter(text) {
        push(&c[1]);
    }
    for m in p.phone.find_iter(text) {
        push(m.as_str());
    }
    out
}

/// Whether `value` (normalised) occurs in `text` between non-word
/// characters, after normalising `text` alike.
pub fn occurs_in(value: &str, text: &str) -> bool {
    if value.is_empty() {
        return false;
    }
    let hay = normalise(text);
    let hay_compact: String;
    let hay = if value.contains('@') || value.contains('.') || value.contains('/') {
        hay.as_str()
    } else {
        // IBANs and phone numbers are compared without spaces or hyphens.
        hay_compact = hay.chars().filter(|c| !matches!(c, ' ' | '-')).collect();
        hay_compact.as_str()
    };
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut from = 0;
    while let Some(at) = hay[from..].find(value) {
        let start = from + at;
        let end = start + value.len();
        if !word(hay[..start].chars().next_back()) && !word(hay[end..].chars().next()) {
            return true;
        }
        from = start + value.chars().next().map_or(1, char::len_utf8);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destinations_are_found_and_normalised() {
        let text = "Wire it to DE89 3704 0044 0532 0130 00 or mail Mallory@Evil.test; \
                    see https://files.evil.test/x?y=1 and github.com/evil/tools.git, call +44 20 7946 0958.";
        assert_eq!(
            destinations(text),
            vec![
                "de89370400440532013000",
                "mallory@evil.test",
                "evil/tools",
                "files.evil.test",
                "+442079460958",
            ]
        );
    }

    #[test]
    fn a_value_occurs_only_as_a_whole_word() {
        assert!(occurs_in("mallory@evil.test", "To: MALLORY@evil.test"));
        assert!(occurs_in(
            "de89370400440532013000",
            "DE89-3704-0044-0532-0130-00"
        ));
        assert!(occurs_in(
            "files.evil.test",
            "https://files.evil.test/upload"
        ));
        assert!(!occurs_in("evil.test", "https://notevil.test/"));
        assert!(!occurs_in(
            "de89370400440532013000",
            "de8937040044053201300099"
        ));
    }
}
