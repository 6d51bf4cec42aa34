//! Credential detectors: which kinds of secret a piece of text holds.
//!
//! Every detector is a regular expression compiled once ([`Detectors::new`])
//! plus a validation step that keeps look-alikes out: placeholders
//! (`ghp_xxxx…`, `AKIA…EXAMPLE`), hashes and UUIDs (hex only), public keys
//! and certificates, lockfile integrity strings and JWT-shaped text whose
//! header is not a JOSE header.

use crate::kind::Kind;
use crate::named;
use crate::providers;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use check_catalog::encoded;
use regex::{Regex, RegexSet, SetMatches};
use serde_json::Value;

/// Options of the high-entropy detector.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EntropyOptions {
    /// Report tokens at or above this many bits per character.
    pub threshold: f64,
    /// Shortest token considered, in characters.
    pub min_length: usize,
    /// Longest token considered (longer ones are data blobs), in characters.
    pub max_length: usize,
}

impl Default for EntropyOptions {
    fn default() -> Self {
        Self {
            threshold: 4.5,
            min_length: 32,
            max_length: 256,
        }
    }
}

/// The compiled detectors.
#[derive(Debug)]
pub struct Detectors {
    pem_header: Regex,
    pem_body: Regex,
    aws_id: Regex,
    aws_secret: Regex,
    aws_label: Regex,
    github: Regex,
    slack_token: Regex,
    slack_webhook: Regex,
    stripe: Regex,
    anthropic: Regex,
    openai: Regex,
    jwt: Regex,
    userinfo_url: Regex,
    token: Regex,
    providers: providers::Compiled,
    named: Regex,
    entropy: EntropyOptions,
    /// The [`Scanned`] detectors as one set: a single pass over a text
    /// says which of them match in it, and only those then run.
    present: RegexSet,
}

/// The detectors [`Detectors::present`] holds, by their index in it.
#[derive(Clone, Copy)]
enum Scanned {
    PemHeader,
    AwsId,
    AwsSecret,
    Github,
    SlackToken,
    SlackWebhook,
    Stripe,
    Anthropic,
    Openai,
    Jwt,
    UserinfoUrl,
    Token,
}

/// The matches of `re` (detector `d`) in `text`: none without a search
/// when the set pass found that `d` does not match there.
fn found<'t>(
    present: &SetMatches,
    d: Scanned,
    re: &Regex,
    text: &'t str,
) -> impl Iterator<Item = regex::Match<'t>> {
    present
        .matched(d as usize)
        .then(|| re.find_iter(text))
        .into_iter()
        .flatten()
}

/// One secret found in a text: its kind and where it lies, as byte offsets
/// into the UTF-8 text given to [`Detectors::scan`] (`&text[start..end]`
/// is always a valid slice).
///
/// The span is the secret's own match for format detectors (a token, a
/// key's `-----BEGIN … PRIVATE KEY-----` header, a PuTTY key from its first
/// line to `Private-Lines:`, a URL from its scheme to its host); the value
/// alone for a password given by name (`password=VALUE`, or the whole text
/// when the argument's name labels a secret); and the whole text for a
/// Google Cloud service-account key written out as JSON text and for a
/// secret found inside an encoded (base64 or hex) blob of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// What it is.
    pub kind: Kind,
    /// Byte offset of the secret's first byte in the scanned text.
    pub start: usize,
    /// Byte offset just past its last byte (exclusive).
    pub end: usize,
}

impl Detectors {
    /// Compile every detector, the high-entropy one with `entropy` (about
    /// a millisecond natively). The patterns are fixed, so this does not
    /// fail. The result is immutable, `Send` and `Sync`: one value serves
    /// any number of threads.
    pub fn new(entropy: EntropyOptions) -> Self {
        // Word boundaries are ASCII (`(?-u:\b)`): the tokens are ASCII, and
        // Unicode boundaries make the automata several times slower to
        // build, which every fresh instance pays.
        let pattern = |p: &str| p.replace(r"\b", r"(?-u:\b)");
        let re = |p: &str| Regex::new(&pattern(p)).expect("detector regex compiles");
        let scanned = |d: Scanned, p: &str| (d, pattern(p));
        let scanned = [
            scanned(
                Scanned::PemHeader,
                r"-----BEGIN (?:(?:RSA|EC|DSA|OPENSSH|ENCRYPTED|PGP|SSH2 ENCRYPTED) )?PRIVATE KEY(?: BLOCK)?-----",
            ),
            scanned(Scanned::AwsId, r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b"),
            scanned(Scanned::AwsSecret, r"[A-Za-z0-9/+]{40}"),
            scanned(
                Scanned::Github,
                // No word boundaries: `_` is a word character, so `\b` missed
                // a token after a word prefix or before a suffix
                // (`tok_ghp_…`, `ghp_…_old`; review s20 T1).
                r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})",
            ),
            scanned(
                Scanned::SlackToken,
                r"\bxox[abposr]-[A-Za-z0-9][A-Za-z0-9-]{8,}",
            ),
            scanned(
                Scanned::SlackWebhook,
                r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}",
            ),
            scanned(Scanned::Stripe, r"\b[rs]k_live_[A-Za-z0-9]{16,}\b"),
            scanned(
                Scanned::Anthropic,
                r"\bsk-ant-[a-z0-9]{2,12}-[A-Za-z0-9_-]{20,}",
            ),
            scanned(
                Scanned::Openai,
                r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
            ),
            scanned(
                Scanned::Jwt,
                r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
            ),
            // Userinfo and host characters of RFC 3986 §3.2, ASCII only.
            scanned(
                Scanned::UserinfoUrl,
                r"\b[A-Za-z][A-Za-z0-9+.-]*://[A-Za-z0-9._~%!$&'()*+,;=:-]+@[A-Za-z0-9._~%\[\]:-]+",
            ),
            scanned(Scanned::Token, r"[A-Za-z0-9+/_-]{20,}={0,2}"),
        ];
        for (i, (d, _)) in scanned.iter().enumerate() {
            assert_eq!(*d as usize, i, "Scanned lists the detectors in order");
        }
        let compiled =
            |d: Scanned| Regex::new(&scanned[d as usize].1).expect("detector regex compiles");
        Self {
            pem_header: compiled(Scanned::PemHeader),
            pem_body: re(r"[A-Za-z0-9+/=]{40,}"),
            aws_id: compiled(Scanned::AwsId),
            aws_secret: compiled(Scanned::AwsSecret),
            // Matched against lowercased text (case-insensitive Unicode
            // matching is much slower to build).
            aws_label: re(r"aws[_. -]?secret|secret[_. -]?access[_. -]?key"),
            github: compiled(Scanned::Github),
            slack_token: compiled(Scanned::SlackToken),
            slack_webhook: compiled(Scanned::SlackWebhook),
            stripe: compiled(Scanned::Stripe),
            anthropic: compiled(Scanned::Anthropic),
            openai: compiled(Scanned::Openai),
            jwt: compiled(Scanned::Jwt),
            userinfo_url: compiled(Scanned::UserinfoUrl),
            token: compiled(Scanned::Token),
            providers: providers::combined(),
            named: named::text_regex(),
            present: RegexSet::new(scanned.iter().map(|(_, p)| p))
                .expect("detector regexes compile as a set"),
            entropy,
        }
    }

    /// Every secret in `text`. `label` is the argument's name (e.g.
    /// `aws_secret_access_key`), which counts as context for AWS secret
    /// keys and names a password (`""` when there is none);
    /// `aws_id_in_call` says whether an AWS access key id appears
    /// anywhere in the call ([`Detectors::has_aws_id`] on the call's JSON
    /// text), which makes any 40-character key-shaped token an AWS secret
    /// key.
    ///
    /// Hits come in the order of the detectors (private keys, service
    /// accounts, AWS, GitHub, Slack, Stripe, Anthropic, OpenAI, JWTs, URLs
    /// with passwords, the provider formats, named passwords, high-entropy
    /// tokens), each detector's in text
    /// order, then those found behind percent-escapes and in encoded
    /// blobs (each spanning the whole text). One kind may be found
    /// several times; spans of different kinds may overlap, except that a
    /// named password or a high-entropy token is reported only outside
    /// what another detector found (and high-entropy tokens only outside
    /// PEM blocks). See [`Hit`] for the spans.
    pub fn scan(&self, text: &str, label: &str, aws_id_in_call: bool) -> Vec<Hit> {
        let mut hits = self.scan_text(text, label, aws_id_in_call);
        // What the text hides counts too, spanning the whole text: behind
        // percent-escapes (a URL's query), and in encoded blobs that
        // decode to text, in the text as sent or unescaped.
        let unescaped = encoded::percent_decoded(text);
        let mut hidden = Vec::new();
        if let Some(u) = &unescaped {
            hidden.extend(self.scan_text(u, label, aws_id_in_call));
            // A form's encoding writes a space as `+`
            // (`-----BEGIN+RSA+PRIVATE+KEY-----%0A…`).
            if text.contains('+')
                && let Some(form) = encoded::percent_decoded(&text.replace('+', " "))
            {
                hidden.extend(self.scan_text(&form, label, aws_id_in_call));
            }
        }
        for layer in std::iter::once(text).chain(unescaped.as_deref()) {
            if layer.len() >= 40 {
                for decoded in encoded::decoded_texts(layer) {
                    hidden.extend(self.scan_text(&decoded, label, aws_id_in_call));
                }
            }
        }
        for h in hidden {
            if h.kind != Kind::HighEntropy {
                hits.push(Hit {
                    kind: h.kind,
                    start: 0,
                    end: text.len(),
                });
            }
        }
        hits
    }

    fn scan_text(&self, text: &str, label: &str, aws_id_in_call: bool) -> Vec<Hit> {
        let present = self.present.matches(text);
        let mut hits = Vec::new();
        let mut push = |kind, start, end| hits.push(Hit { kind, start, end });

        for m in found(&present, Scanned::PemHeader, &self.pem_header, text) {
            let after = &text[m.end()..];
            let window = &after[..floor_char_boundary(after, 800)];
            let cleaned = window.replace("\\n", "\n").replace("\\r", "\r");
            if self.pem_body.is_match(&cleaned) {
                push(Kind::PrivateKey, m.start(), m.end());
            }
        }
        if let Some(s) = text.find("PuTTY-User-Key-File-")
            && let Some(e) = text[s..].find("Private-Lines:")
        {
            push(Kind::PrivateKey, s, s + e + "Private-Lines:".len());
        }
        if text.contains("\"private_key\"") && text.contains("\"client_email\"") {
            push(Kind::GcpServiceAccount, 0, text.len());
        }
        let mut aws_here = false;
        for m in found(&present, Scanned::AwsId, &self.aws_id, text) {
            if !m.as_str().ends_with("EXAMPLE") {
                aws_here = true;
                push(Kind::AwsAccessKey, m.start(), m.end());
            }
        }
        for m in found(&present, Scanned::AwsSecret, &self.aws_secret, text) {
            let bounded = !text[..m.start()].ends_with(is_b64_char)
                && !text[m.end()..].starts_with(|c: char| is_b64_char(c) || c == '=');
            let s = m.as_str();
            if !bounded || s.contains("EXAMPLE") || !mixed_case_and_digit(s) {
                continue;
            }
            let before = &text[ceil_char_boundary(text, m.start().saturating_sub(100))..m.start()];
            if aws_here
                || aws_id_in_call
                || self.aws_label.is_match(&label.to_ascii_lowercase())
                || self.aws_label.is_match(&before.to_ascii_lowercase())
            {
                push(Kind::AwsSecretKey, m.start(), m.end());
            }
        }
        for m in found(&present, Scanned::Github, &self.github, text) {
            let body = m.as_str().split_once('_').map_or("", |(_, b)| b);
            if m.len() <= 255 && !is_placeholder(body) {
                push(Kind::GithubToken, m.start(), m.end());
            }
        }
        for m in found(&present, Scanned::SlackToken, &self.slack_token, text) {
            let body = &m.as_str()[5..];
            if body.bytes().any(|b| b.is_ascii_digit()) && !is_placeholder(body) {
                push(Kind::SlackToken, m.start(), m.end());
            }
        }
        for m in found(&present, Scanned::SlackWebhook, &self.slack_webhook, text) {
            let path = m.as_str().rsplit('/').next().unwrap_or("");
            if !is_placeholder(path) {
                push(Kind::SlackWebhook, m.start(), m.end());
            }
        }
        for m in found(&present, Scanned::Stripe, &self.stripe, text) {
            if !is_placeholder(&m.as_str()[8..]) {
                push(Kind::StripeKey, m.start(), m.end());
            }
        }
        for m in found(&present, Scanned::Anthropic, &self.anthropic, text) {
            let body = m.as_str().rsplit_once('-').map_or("", |(_, b)| b);
            if !is_placeholder(m.as_str()) && !is_placeholder(body) {
                push(Kind::AnthropicKey, m.start(), m.end());
            }
        }
        for m in found(&present, Scanned::Openai, &self.openai, text) {
            let s = m.as_str();
            if s.starts_with("sk-ant-") {
                continue;
            }
            // The random part must look random: `sk-learn-compatible-models`
            // and `sk-xxxxxxxx…` are not keys.
            let tail = s
                .trim_start_matches("sk-")
                .trim_start_matches("proj-")
                .trim_start_matches("svcacct-")
                .trim_start_matches("admin-");
            if tail.len() >= 20 && mixed_case_and_digit(tail) && !is_placeholder(tail) {
                push(Kind::OpenaiKey, m.start(), m.end());
            }
        }
        for m in found(&present, Scanned::Jwt, &self.jwt, text) {
            let header = m.as_str().split('.').next().unwrap_or("");
            if jose_header_has_alg(header) {
                push(Kind::Jwt, m.start(), m.end());
            }
        }
        for m in found(&present, Scanned::UserinfoUrl, &self.userinfo_url, text) {
            if has_real_password(m.as_str()) {
                push(Kind::BasicAuthUrl, m.start(), m.end());
            }
        }
        let provider_hits = if text.len() >= 20 {
            providers::find(&self.providers, text)
        } else {
            Vec::new()
        };
        for (i, start, end) in provider_hits {
            let body = &text[start..end];
            let tail = body.rsplit(['_', '-', '.']).next().unwrap_or(body);
            if !is_placeholder(tail) {
                push(Kind::Provider(i as u8), start, end);
            }
        }
        // Named secrets, where no format above recognised the value.
        let mut named_hits = Vec::new();
        if named::is_secret_name(label)
            && named::is_real_value(text)
            && !text.contains(char::is_whitespace)
        {
            named_hits.push((0, text.len()));
        }
        let lower = if text.contains([':', '=']) {
            text.to_ascii_lowercase()
        } else {
            String::new()
        };
        for c in self.named.captures_iter(&lower) {
            let v = c.get(1).expect("group 1");
            if named::is_real_value(&text[v.start()..v.end()]) {
                named_hits.push((v.start(), v.end()));
            }
        }
        for (s, e) in named_hits {
            if !hits.iter().any(|h| s < h.end && h.start < e) {
                hits.push(Hit {
                    kind: Kind::Password,
                    start: s,
                    end: e,
                });
            }
        }

        // High-entropy tokens, outside what was already recognised and
        // outside PEM blocks (certificates, public keys).
        let mut covered: Vec<(usize, usize)> = hits.iter().map(|h| (h.start, h.end)).collect();
        covered.extend(pem_blocks(text));
        for m in found(&present, Scanned::Token, &self.token, text) {
            let (s, e) = (m.start(), m.end());
            if covered.iter().any(|&(cs, ce)| s < ce && cs < e) {
                continue;
            }
            if self.is_high_entropy_token(m.as_str(), &text[..s]) {
                hits.push(Hit {
                    kind: Kind::HighEntropy,
                    start: s,
                    end: e,
                });
            }
        }
        hits
    }

    /// Whether `token` (preceded by `before`) is a random-looking secret
    /// rather than a hash, UUID, integrity string, public key, path or
    /// identifier.
    pub fn is_high_entropy_token(&self, token: &str, before: &str) -> bool {
        let opts = &self.entropy;
        let token = token.trim_end_matches('=');
        if token.len() < opts.min_length || token.len() > opts.max_length {
            return false;
        }
        // Hex (git SHAs, sha256 digests, UUIDs): never by default.
        if token.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-') {
            return false;
        }
        // Base64 of an image, archive or PDF.
        if encoded::is_binary_file(token) {
            return false;
        }
        // Subresource-integrity strings (package-lock.json, HTML), and
        // Stripe publishable keys (public by design) and test-mode keys.
        if [
            "sha1-", "sha256-", "sha384-", "sha512-", "pk_live_", "pk_test_", "sk_test_",
            "rk_test_",
        ]
        .iter()
        .any(|p| token.starts_with(p))
        {
            return false;
        }
        // Labelled digests and embedded data: `sha256:…`, go.sum `h1:…`,
        // `data:…;base64,…`, SSH public keys.
        let b = before.trim_end();
        if [
            "sha256:",
            "sha512:",
            "sha1:",
            "md5:",
            "h1:",
            "base64,",
            "ssh-rsa",
            "ssh-ed25519",
            "ssh-dss",
            "@openssh.com",
        ]
        .iter()
        .any(|p| b.ends_with(p))
            || (token.starts_with("AAAA")
                && b.rsplit(' ')
                    .next()
                    .is_some_and(|w| w.starts_with("ecdsa-sha2-")))
        {
            return false;
        }
        // Paths and identifiers: a `/`-separated segment that is a plain
        // lowercase word, e.g. `src/components/...`.
        if token.contains('/')
            && token.split('/').any(|seg| {
                seg.len() >= 3
                    && seg
                        .bytes()
                        .all(|c| c.is_ascii_lowercase() || c == b'_' || c == b'-')
            })
        {
            return false;
        }
        if is_placeholder(token) {
            return false;
        }
        let digits = token.bytes().filter(u8::is_ascii_digit).count();
        if digits < 2
            || !token.bytes().any(|c| c.is_ascii_uppercase())
            || !token.bytes().any(|c| c.is_ascii_lowercase())
        {
            return false;
        }
        shannon_entropy(token) >= opts.threshold
    }

    /// Whether a JSON object is a Google Cloud service-account key: it has
    /// both `private_key` and `client_email` string members.
    pub fn is_gcp_object(v: &Value) -> bool {
        v.as_object().is_some_and(|o| {
            o.get("private_key").is_some_and(Value::is_string)
                && o.get("client_email").is_some_and(Value::is_string)
        })
    }

    /// Whether the text holds an AWS access key id (used to decide whether
    /// 40-character tokens elsewhere in the call are AWS secret keys).
    pub fn has_aws_id(&self, text: &str) -> bool {
        self.aws_id
            .find_iter(text)
            .any(|m| !m.as_str().ends_with("EXAMPLE"))
    }
}

/// Byte ranges of PEM blocks (`-----BEGIN X-----` to the next
/// `-----END ...-----`, RFC 7468).
fn pem_blocks(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(s) = text[from..].find("-----BEGIN ").map(|i| from + i) {
        let Some(e) = text[s..].find("-----END ").map(|i| s + i) else {
            break;
        };
        let end = text[e + 9..]
            .find("-----")
            .map_or(text.len(), |i| e + 9 + i + 5);
        out.push((s, end));
        from = end;
    }
    out
}

fn is_b64_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '/' || c == '+'
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Upper- and lowercase letters and a digit (random base62/base64 text
/// nearly always has all three; hex, words and slugs do not).
pub fn mixed_case_and_digit(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_uppercase())
        && s.bytes().any(|b| b.is_ascii_lowercase())
        && s.bytes().any(|b| b.is_ascii_digit())
}

/// Documentation placeholders: runs like `xxxx`, `XXXX`, `0000`, `****`,
/// `<...>`, words like `your`, `example`, `placeholder`, `redacted`, or too
/// few distinct characters to be random.
pub fn is_placeholder(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    if [
        "xxxx",
        "****",
        "0000",
        "1234",
        "abcd",
        "<",
        "your",
        "example",
        "placeholder",
        "redacted",
        "dummy",
        "fake",
    ]
    .iter()
    .any(|p| lower.contains(p))
    {
        return true;
    }
    shannon_entropy(s) < 3.0
}

/// Shannon entropy of the text's characters, in bits per character
/// (`-Σ p·log2 p` over the character frequencies; 0 for empty text).
pub fn shannon_entropy(s: &str) -> f64 {
    let mut counts = [0usize; 256];
    let mut n = 0usize;
    for b in s.bytes() {
        counts[b as usize] += 1;
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n as f64;
            -p * p.log2()
        })
        .sum()
}

/// Whether a base64url JWT header decodes to a JSON object with `alg`
/// (RFC 7515 §4.1.1).
pub fn jose_header_has_alg(header: &str) -> bool {
    URL_SAFE_NO_PAD
        .decode(header.trim_end_matches('='))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .is_some_and(|v| v.get("alg").is_some_and(Value::is_string))
}

/// Whether a `scheme://user:password@host` URL carries a real password
/// (not empty, not a placeholder such as `${DB_PASSWORD}`, `<password>`,
/// `****` or `password`).
pub fn has_real_password(text: &str) -> bool {
    let Ok(url) = url::Url::parse(text) else {
        return false;
    };
    let Some(raw) = url.password() else {
        return false;
    };
    let pw = percent_decode(raw);
    let lower = pw.to_ascii_lowercase();
    let templated = pw.starts_with('$')
        || pw.starts_with('{')
        || pw.starts_with('<')
        || pw.starts_with('%')
        || pw.starts_with(':');
    let placeholder = [
        "password", "passwd", "pass", "secret", "changeme", "example", "xxx", "***", "...",
    ]
    .iter()
    .any(|p| {
        lower == *p
            || (p.len() == 3
                && lower.starts_with(p)
                && lower
                    .chars()
                    .all(|c| c == lower.chars().next().unwrap_or('x')))
    });
    !pw.is_empty() && !templated && !placeholder
}

fn percent_decode(s: &str) -> String {
    let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push(h << 4 | l);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<&'static str> {
        let d = Detectors::new(EntropyOptions::default());
        let mut k: Vec<&str> = d
            .scan(text, "", false)
            .into_iter()
            .map(|h| h.kind.id())
            .collect();
        k.dedup();
        k
    }

    const PEM: &str = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----";

    #[test]
    fn private_keys() {
        assert_eq!(kinds(PEM), vec!["private-key"]);
        // JSON-escaped newlines, as inside a JSON string in a JSON string.
        assert_eq!(kinds(&PEM.replace('\n', "\\n")), vec!["private-key"]);
        // The header alone (code that looks for it) is not a key.
        assert_eq!(
            kinds("if line.startswith('-----BEGIN RSA PRIVATE KEY-----'): return True"),
            Vec::<&str>::new()
        );
        assert_eq!(
            kinds("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 1\nAAAA"),
            vec!["private-key"]
        );
    }

    #[test]
    fn secrets_behind_percent_escapes_are_found() {
        // A URL's query carrying a database URL with its password, escaped.
        assert_eq!(
            kinds(
                "https://collect.example.io/l?env=DATABASE_URL%3Dpostgres%3A%2F%2Fapp%3AS3cr3tPassw0rd!%40db"
            ),
            vec!["basic-auth-url"]
        );
        // A token whose underscore is escaped, escaped twice (its rest
        // is a high-entropy token as sent).
        let found =
            kinds("https://x.example.io/p?t=ghp%255FR4nd0mT0k3nV4lu3Xq9Lm2Np8Kd7Wz5Yb1Cc3E");
        assert!(found.contains(&"github-token"), "{found:?}");
        // Base64 of an AWS key id with one of its characters escaped:
        // only the unescaped text holds the blob.
        let b64 = "YXdzX2FjY2Vzc19rZXlfaWQ9QUtJQVozTUhBTFcyTlFYN1RRNEsK";
        let escaped = b64.replacen("Q9", "%519", 1);
        assert_eq!(kinds(&format!("d={escaped}")), vec!["aws-access-key"]);
        // A form's `+` for a space.
        let pem = format!(
            "k={}",
            PEM.replace(' ', "+")
                .replace('\n', "%0A")
                .replace('/', "%2F")
        );
        assert!(kinds(&pem).contains(&"private-key"), "{:?}", kinds(&pem));
        // A byte that is no UTF-8 does not hide the rest.
        assert_eq!(
            kinds("https://c.example.io/l?a=%FF&env=postgres%3A%2F%2Fapp%3AS3cr3tPassw0rd!%40db"),
            vec!["basic-auth-url"]
        );
        // Escapes hiding nothing.
        assert_eq!(
            kinds("https://example.com/search?q=rust%20wasm%3A%20components&page=2"),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn certificates_and_public_keys_are_not_secrets() {
        let cert = "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\nRTESMBAGA1UEChMJQmFsdGltb3JlMRMwEQYDVQQLEwpDeWJlclRydXN0MSIwIAYD\n-----END CERTIFICATE-----";
        assert_eq!(kinds(cert), Vec::<&str>::new());
        let ssh = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGjX7Qw1Xo3bP9sR2mKq8vN4tZ6yL0cH5fD3aE1uB7wS alice@laptop";
        assert_eq!(kinds(ssh), Vec::<&str>::new());
    }

    #[test]
    fn aws() {
        assert_eq!(kinds("key AKIAZ3MHALW2NQX7TQ4K"), vec!["aws-access-key"]);
        assert_eq!(kinds("AKIAIOSFODNN7EXAMPLE"), Vec::<&str>::new());
        assert_eq!(
            kinds(
                "aws_access_key_id=AKIAZ3MHALW2NQX7TQ4K\naws_secret_access_key=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"
            ),
            vec!["aws-access-key", "aws-secret-key"]
        );
        // A 40-character token with a label but no access key id.
        assert_eq!(
            kinds("AWS_SECRET_ACCESS_KEY: Zb8kT2qLw9Rf4Nx7Vp3Hs6Jm1Yc5Ud0Ea2Gi8Ko4"),
            vec!["aws-secret-key"]
        );
        // A git SHA next to the label is not a secret key.
        assert_eq!(
            kinds("aws_secret rotated in commit 9fceb02d0ae598e95dc970b74767f19372d61af8"),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn vendor_tokens() {
        assert_eq!(
            kinds("token ghp_R4nd0mT0k3nV4lu3Xq9Lm2Np8Kd7Wz5Yb1Cc3E"),
            vec!["github-token"]
        );
        assert_eq!(
            kinds("ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
            Vec::<&str>::new()
        );
        // Review s20 T1: after a word prefix, before a suffix.
        for embedded in [
            "tok_ghp_16C7e42F292c6912E7710c838347Ae178B4a",
            "users_ghp_16C7e42F292c6912E7710c838347Ae178B4a_old",
        ] {
            assert!(kinds(embedded).contains(&"github-token"), "{embedded}");
        }
        assert_eq!(
            kinds(
                "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"
            ),
            vec!["github-token"]
        );
        assert_eq!(
            kinds("xoxb-2401738012-4819203746512-Tq7VbN3mKx9PzL2wRc8YdHs4"),
            vec!["slack-token"]
        );
        assert_eq!(
            kinds(
                "https://hooks.slack.com/services/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"
            ),
            vec!["slack-webhook"]
        );
        assert_eq!(
            kinds("sk_live_51HqT9kLm2Np8Kd7Wz5Yb1Cc3Ef4Gh"),
            vec!["stripe-key"]
        );
        assert_eq!(
            kinds("sk_test_51HqT9kLm2Np8Kd7Wz5Yb1Cc3Ef4Gh"),
            Vec::<&str>::new()
        );
        assert_eq!(
            kinds("pk_live_51HqT9kLm2Np8Kd7Wz5Yb1Cc3Ef4Gh"),
            Vec::<&str>::new()
        );
        assert_eq!(
            kinds("sk-ant-api03-Xk9Lm2Np8Kd7Wz5Yb1Cc3Ef4Gh6Jq0Rs2Tu4Vw6Xy8Za-b1C3d5E7AA"),
            vec!["anthropic-key"]
        );
        assert_eq!(
            kinds("OPENAI_API_KEY=sk-proj-Xk9Lm2Np8Kd7Wz5Yb1Cc3Ef4Gh6Jq0Rs2Tu4Vw6Xy8Za_b1C3d5E7"),
            vec!["openai-key"]
        );
        assert_eq!(
            kinds("sk-learn-compatible-estimators-and-pipelines"),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn jwts() {
        let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
        assert_eq!(kinds(&format!("Authorization: Bearer {jwt}")), vec!["jwt"]);
        // eyJ… parts whose header has no `alg`.
        let fake = "eyJmb28iOiJiYXIifQ.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc";
        assert!(!kinds(fake).contains(&"jwt"));
        assert!(jose_header_has_alg("eyJhbGciOiJub25lIn0"));
        assert!(!jose_header_has_alg("eyJhbGci"));
    }

    #[test]
    fn basic_auth_urls() {
        assert_eq!(
            kinds("https://deploy:S3cr3t-Pa55@registry.example.com/v2/"),
            vec!["basic-auth-url"]
        );
        assert_eq!(
            kinds("postgres://app:${DB_PASSWORD}@db:5432/app"),
            Vec::<&str>::new()
        );
        assert_eq!(
            kinds("https://user:password@example.com/"),
            Vec::<&str>::new()
        );
        assert_eq!(kinds("https://anonymous@ftp.gnu.org/"), Vec::<&str>::new());
        assert_eq!(
            kinds("https://user:%3Cpass%3E@example.com/"),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn gcp_service_account() {
        let text = r#"{"type": "service_account", "project_id": "p", "private_key_id": "k", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n-----END PRIVATE KEY-----\n", "client_email": "svc@p.iam.gserviceaccount.com"}"#;
        let k = kinds(text);
        assert!(k.contains(&"gcp-service-account"), "{k:?}");
        assert!(Detectors::is_gcp_object(
            &serde_json::json!({"private_key": "x", "client_email": "y"})
        ));
        assert!(!Detectors::is_gcp_object(
            &serde_json::json!({"private_key": "x"})
        ));
    }

    #[test]
    fn entropy_filters() {
        let d = Detectors::new(EntropyOptions::default());
        let yes = |t: &str| d.is_high_entropy_token(t, "");
        assert!(yes("q8Zr3LwK9vT2mXpB7nY4cF6hJ1sD0gAeR5uI"));
        assert!(yes("Tq7VbN3mKx9PzL2wRc8YdHs4Fj6Gk1Ae0Bu5"));
        // Hex digests, UUIDs, words and paths.
        assert!(!yes("9fceb02d0ae598e95dc970b74767f19372d61af8"));
        assert!(!yes(
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        ));
        assert!(!yes("123e4567-e89b-12d3-a456-426614174000"));
        assert!(!yes("getUserAccountSettingsForOrganizationById"));
        assert!(!yes("src/components/UserProfile2Card/index2Page"));
        assert!(!yes(
            "sha512-Vq0QyQ3Tz5Fh8Wc2bN7LmK4pR9sX1yA6eG3jD0uI5oZ8tB2wC7vE4nM1kH6gJ9fL"
        ));
        assert!(!d.is_high_entropy_token("Vq0QyQ3Tz5Fh8Wc2bN7LmK4pR9sX1yA6eG3jD0uI5oZ8", "\"h1:"));
        assert!((shannon_entropy("aaaa") - 0.0).abs() < 1e-9);
        assert!((shannon_entropy("abcd") - 2.0).abs() < 1e-9);
    }

    #[test]
    fn spans_are_byte_offsets_into_the_text() {
        let d = Detectors::new(EntropyOptions::default());
        let spans = |text: &str, label: &str| -> Vec<(&'static str, String)> {
            d.scan(text, label, false)
                .into_iter()
                .map(|h| (h.kind.id(), text[h.start..h.end].to_string()))
                .collect()
        };
        // A token, after multi-byte text.
        assert_eq!(
            spans("clé → ghp_R4nd0mT0k3nV4lu3Xq9Lm2Np8Kd7Wz5Yb1Cc3E.", ""),
            vec![(
                "github-token",
                "ghp_R4nd0mT0k3nV4lu3Xq9Lm2Np8Kd7Wz5Yb1Cc3E".to_string()
            )]
        );
        // A password by name: the value only; by the argument's name: all.
        assert_eq!(
            spans("DB_PASSWORD=Winter2026!Prod ok", ""),
            vec![("password", "Winter2026!Prod".to_string())]
        );
        assert_eq!(
            spans("hunter2-prod-77", "password"),
            vec![("password", "hunter2-prod-77".to_string())]
        );
        // A private key: its header.
        assert_eq!(
            spans(PEM, "")[0],
            ("private-key", "-----BEGIN RSA PRIVATE KEY-----".to_string())
        );
        // A secret inside an encoded blob: the whole text.
        let blob = "ghp_R4nd0mT0k3nV4lu3Xq9Lm2Np8Kd7Wz5Yb1Cc3E is the token"
            .bytes()
            .map(|b| format!("{b:02x}"))
            .collect::<String>();
        let text = format!("data {blob}");
        let found = spans(&text, "");
        assert!(found.contains(&("github-token", text.clone())), "{found:?}");
    }

    #[test]
    fn detectors_are_shared_between_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<Detectors>();
    }

    #[test]
    fn placeholders() {
        assert!(is_placeholder("XXXXXXXXXXXXXXXXXXXX"));
        assert!(is_placeholder("your-token-here-please-change"));
        assert!(!is_placeholder("R4nd0mT0k3nV4lu3Xq9Lm2Np8Kd7Wz5Yb1Cc3E"));
    }
}
