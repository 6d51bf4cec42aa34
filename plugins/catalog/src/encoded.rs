//! Encoded payloads: base64 or hex blobs whose bytes are text. Credentials
//! are often encoded before they are sent (`base64 .env | curl -d @-`),
//! which hides them from the format detectors; random tokens and binary
//! files (images, archives) decode to non-text bytes and are left alone.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE};

/// Shortest blob decoded, in characters.
const MIN_LEN: usize = 40;
/// Longest blob decoded, in characters.
const MAX_LEN: usize = 64 * 1024;

/// File signatures of binary formats that travel base64-encoded (PNG, JPEG,
/// GIF, PDF, ZIP, gzip, WebP/RIFF): never secrets by themselves.
const MAGIC: &[&[u8]] = &[
    b"\x89PNG",
    b"\xFF\xD8\xFF",
    b"GIF8",
    b"%PDF",
    b"PK\x03\x04",
    b"\x1F\x8B",
    b"RIFF",
    b"\x00\x00\x00",
];

/// The text inside every base64 or hex blob of `text` that decodes to
/// text (printable ASCII or UTF-8, at least 24 bytes).
pub fn decoded_texts(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for token in
        text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '-' | '_')))
    {
        if token.len() < MIN_LEN || token.len() > MAX_LEN {
            continue;
        }
        if let Some(t) = decode(token).and_then(as_text) {
            out.push(t);
        }
    }
    out
}

/// `text` with its percent-escapes (RFC 3986 §2.1) decoded, when it holds
/// any: a URL's query carries a secret's `=`,
/// `/`, `:` and `@` as `%3D`, `%2F`, `%3A`, `%40`, which hides it from
/// the format detectors. Escapes of escapes (`%253D`) are decoded as
/// well, until nothing changes (at most [`MAX_PERCENT_ROUNDS`] rounds);
/// bytes that are no UTF-8 become U+FFFD. `None` when there is no escape.
pub fn percent_decoded(text: &str) -> Option<String> {
    let mut current = unescape(text)?;
    for _ in 1..MAX_PERCENT_ROUNDS {
        match unescape(&current) {
            Some(next) => current = next,
            None => break,
        }
    }
    Some(current)
}

/// Rounds of percent-decoding [`percent_decoded`] applies at most. Each
/// round shortens the text, so the rounds end by themselves; the cap
/// bounds the work on a text escaped over and over.
const MAX_PERCENT_ROUNDS: usize = 16;

/// One round of percent-decoding ([`crate::pathnorm::percent_decode`]:
/// bytes that are no UTF-8 become U+FFFD, so one of them cannot hide the
/// rest); `None` when `text` has no escape.
fn unescape(text: &str) -> Option<String> {
    // Most texts hold no `%`: one scan, no copy.
    if !text.contains('%') {
        return None;
    }
    let decoded = crate::pathnorm::percent_decode(text);
    (decoded != text).then_some(decoded)
}

/// Whether `token` is base64 of a known binary file format.
pub fn is_binary_file(token: &str) -> bool {
    decode(token).is_some_and(|b| MAGIC.iter().any(|m| b.starts_with(m)))
}

fn decode(token: &str) -> Option<Vec<u8>> {
    if token.len().is_multiple_of(2) && token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return (0..token.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&token[i..i + 2], 16).ok())
            .collect();
    }
    let padded = format!(
        "{}{}",
        token.trim_end_matches('='),
        "=".repeat((4 - token.trim_end_matches('=').len() % 4) % 4)
    );
    STANDARD
        .decode(&padded)
        .or_else(|_| URL_SAFE.decode(&padded))
        .ok()
}

fn as_text(bytes: Vec<u8>) -> Option<String> {
    if bytes.len() < 24 {
        return None;
    }
    let text = String::from_utf8(bytes).ok()?;
    let printable = text
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\r' | '\t'))
        .count();
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    (printable * 100 >= text.chars().count() * 97 && letters * 3 >= text.chars().count())
        .then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_blobs_decode() {
        let b64 = STANDARD.encode("AWS_SECRET_ACCESS_KEY=abcdEFGH1234 and more text here");
        assert_eq!(decoded_texts(&format!("d={b64}")).len(), 1);
        let hex: String = "[default]\nregion=eu-west-1\noutput=json\n"
            .bytes()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(decoded_texts(&hex).len(), 1);
        // Random bytes and hex digests are not text.
        assert!(
            decoded_texts("9f690c0e1b2d3c4a5f6e7d8c9b0a1f2e3d4c5b6a9f690c0e1b2d3c4a5f6e7d8c")
                .is_empty()
        );
        assert!(
            decoded_texts("q9Lm2Np8Kd7Wz5Yb1Cc3EZ4fG7hK2mP9qR3sT6vW8xY1zA5bC0dE7fG9hJ").is_empty()
        );
        let png = STANDARD.encode(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR0123456789abcdef0123456789");
        assert!(is_binary_file(&png));
        assert!(decoded_texts(&png).is_empty());
    }

    #[test]
    fn percent_escapes_decode() {
        assert_eq!(
            percent_decoded("l?env=DATABASE_URL%3Dpostgres%3A%2F%2Fapp%3Ap%40db").as_deref(),
            Some("l?env=DATABASE_URL=postgres://app:p@db")
        );
        // Escaped five times.
        assert_eq!(percent_decoded("k%252525253Dv").as_deref(), Some("k=v"));
        // Escaped twice; lower-case digits; a `%` that escapes nothing.
        assert_eq!(
            percent_decoded("a%253db%2f 100%").as_deref(),
            Some("a=b/ 100%")
        );
        assert_eq!(percent_decoded("no escapes, 100% sure"), None);
        // Bytes that are no UTF-8 hide nothing else.
        assert_eq!(
            percent_decoded("a=%FF&b=%3D").as_deref(),
            Some("a=\u{FFFD}&b==")
        );
    }
}
