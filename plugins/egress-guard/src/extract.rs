//! Finding the URLs a call will reach in its JSON arguments.

use serde_json::Value;
use toolvet_pdk::Globs;
use toolvet_pdk::json::{Step, walk};

pub use toolvet_pdk::json::child_path;

/// A URL (or URL-like text) found in the arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Where it was found, e.g. `arguments.url` or `arguments.args[2]`.
    pub path: String,
    /// The text, trimmed.
    pub text: String,
    /// Found as the whole value of a URL argument (`url_args`), rather than
    /// as a token inside free text.
    pub from_url_arg: bool,
}

/// Whether the argument name `key` matches `url_args` as written or as a
/// decoder that ignores case and Unicode form reads it (`ＵＲＬ`,
/// `web\u{200b}hook_url`: `check_catalog::roles::fold`).
pub fn is_url_arg(key: &str, url_args: &Globs) -> bool {
    url_args.is_match(key) || url_args.is_match(&check_catalog::roles::fold(key))
}

/// The whole values of arguments whose names match `url_args` (see
/// [`is_url_arg`]), at any depth. A matching argument that holds an array
/// contributes each string in it.
pub fn url_arg_values(args: &Value, url_args: &Globs) -> Vec<Candidate> {
    let mut out = Vec::new();
    walk(args, "arguments", &mut |n| {
        if n.depth == 0 || !is_url_arg(n.key, url_args) {
            return Step::Descend;
        }
        match n.value {
            Value::String(s) if !s.trim().is_empty() => out.push(Candidate {
                path: n.path.to_string(),
                text: s.trim().to_string(),
                from_url_arg: true,
            }),
            Value::Array(_) => return Step::Descend,
            _ => {}
        }
        Step::Descend
    });
    out
}

/// Schemes that are dangerous without `//` (and so would be missed by a
/// `scheme://` search): `data:`, `javascript:`, `file:` and friends.
const OPAQUE_SCHEMES: &[&str] = &[
    "data:",
    "javascript:",
    "vbscript:",
    "file:",
    "gopher:",
    "dict:",
    "ldap:",
    "tftp:",
    "jar:",
    "netdoc:",
    "expect:",
    "php:",
];

/// URL-looking tokens in every string of the arguments, for URL tools whose
/// destination is not in a named URL argument (e.g. `curl` with
/// `{"args": ["-s", "http://..."]}` or `{"command": "curl http://..."}`).
///
/// A token counts when it has a `scheme://` prefix, starts with one of the
/// opaque schemes above, or is a bare address such as
/// `169.254.169.254/latest` or `localhost:8080` (see [`is_bare_host_url`]).
pub fn free_text_urls(args: &Value) -> Vec<Candidate> {
    let mut out = Vec::new();
    walk_text(args, "arguments", &mut out);
    out
}

fn walk_text(v: &Value, root: &str, out: &mut Vec<Candidate>) {
    walk(v, root, &mut |n| {
        if let Value::String(s) = n.value {
            for token in
                s.split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`'))
            {
                let token = token
                    .trim_matches(|c: char| matches!(c, '(' | ')' | ',' | ';' | '[' | ']'))
                    .trim_end_matches('.');
                if token.is_empty() {
                    continue;
                }
                if has_authority_scheme(token)
                    || has_special_scheme(token)
                    || has_opaque_scheme(token)
                    || is_bare_host_url(token)
                {
                    out.push(Candidate {
                        path: n.path.to_string(),
                        text: token.to_string(),
                        from_url_arg: false,
                    });
                }
            }
        }
        Step::Descend
    });
}

/// `scheme://...` with a syntactically valid scheme (RFC 3986 §3.1).
pub fn has_authority_scheme(s: &str) -> bool {
    scheme_len(s).is_some_and(|n| s[n..].starts_with("://"))
}

/// A web scheme written with one slash or none (`http:/169.254.169.254`,
/// `https:example.com`): the URL Standard and curl read it as `http://…`.
/// A bare port (`http:8080`) is not one.
pub fn has_special_scheme(s: &str) -> bool {
    scheme_len(s).is_some_and(|n| {
        let rest = &s[n + 1..];
        ["http", "https", "ftp", "ftps", "ws", "wss"]
            .iter()
            .any(|w| s[..n].eq_ignore_ascii_case(w))
            && !rest.is_empty()
            && !rest.bytes().all(|b| b.is_ascii_digit())
    })
}

fn has_opaque_scheme(s: &str) -> bool {
    OPAQUE_SCHEMES
        .iter()
        // Compare bytes: `p.len()` may fall inside a multi-byte character
        // of `s` (found by fuzz/egress_url).
        .any(|p| s.len() > p.len() && s.as_bytes()[..p.len()].eq_ignore_ascii_case(p.as_bytes()))
}

/// The length of a leading `scheme` (letter, then letters, digits, `+-.`)
/// that is followed by `:`.
pub fn scheme_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if b.first().is_none_or(|c| !c.is_ascii_alphabetic()) {
        return None;
    }
    let n = b
        .iter()
        .position(|c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')))?;
    (b[n] == b':').then_some(n)
}

/// A bare `host[:port][/path]` token whose host is an address: dotted
/// hex/decimal digits (`127.0.0.1`, `0x7f.1/`), one `0x` hex number, a
/// decimal number of 8+ digits (`2852039166/`), a bracketed IPv6 address
/// (`[::1]:80`), or a loopback/metadata name. To keep numbers such as `10.5`
/// (a timeout) or `3/4` out, the token must carry a port or path, or be a
/// full dotted quad.
pub fn is_bare_host_url(token: &str) -> bool {
    let (hostport, has_path) = match token.find('/') {
        Some(i) => (&token[..i], true),
        None => (token, false),
    };
    let (host, has_port) = if let Some(rest) = hostport.strip_prefix('[') {
        match rest.find(']') {
            Some(i) => (&hostport[..i + 2], hostport[i + 2..].starts_with(':')),
            None => return false,
        }
    } else {
        match hostport.rsplit_once(':') {
            Some((h, p)) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => (h, true),
            Some(_) => return false,
            None => (hostport, false),
        }
    };
    if host.is_empty() {
        return false;
    }
    let lower = host.to_ascii_lowercase();
    let named = lower == "localhost"
        || lower.ends_with(".localhost")
        || lower == "metadata.google.internal";
    let numeric = (host.len() > 2
        && host.as_bytes()[..2].eq_ignore_ascii_case(b"0x")
        && host.as_bytes()[2..].iter().all(|b| b.is_ascii_hexdigit()))
        || (host.len() >= 8 && host.bytes().all(|b| b.is_ascii_digit()));
    let addressy = host.starts_with('[')
        || numeric
        || (host.contains('.')
            && host
                .bytes()
                .all(|b| b.is_ascii_hexdigit() || b == b'.' || b == b'x' || b == b'X'));
    let dotted_quad = host.split('.').count() == 4;
    (named || addressy) && (has_path || has_port || dotted_quad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn opaque_scheme_check_survives_multibyte_text() {
        // A fuzz crash: a scheme prefix length falling inside `Ά`.
        assert!(!has_opaque_scheme("127Ά1ips1o..::is1.me0x6"));
        assert!(!has_opaque_scheme("ÿÿÿÿÿÿÿÿÿÿÿ"));
        assert!(has_opaque_scheme("data:text/plain,x"));
        // The second fuzz crash: a 2-byte prefix inside `·`.
        assert!(!is_bare_host_url("$·ips  1o"));
        assert!(!is_bare_host_url("0·/x"));
        assert!(is_bare_host_url("0x7f000001/admin"));
    }

    fn globs(pats: &[&str]) -> Globs {
        Globs::builtin(pats)
    }

    #[test]
    fn paths() {
        assert_eq!(child_path("arguments", "url"), "arguments.url");
        assert_eq!(child_path("arguments", "x y"), "arguments[\"x y\"]");
        assert_eq!(child_path("arguments", "0a"), "arguments[\"0a\"]");
        // One rule for every check (the kit's): a leading `-` is quoted too.
        assert_eq!(child_path("arguments", "-v"), "arguments[\"-v\"]");
    }

    #[test]
    fn url_args_in_any_case_and_unicode_form() {
        // A decoder that ignores case and Unicode form reads these as `url`.
        let args = json!({
            "U\u{200b}RL": "http://169.254.169.254/",
            "opts": {"\u{ff35}\u{ff32}\u{ff2c}": "http://b.example"}
        });
        let got: Vec<String> = url_arg_values(&args, &globs(&["url"]))
            .into_iter()
            .map(|c| c.text)
            .collect();
        assert_eq!(got, ["http://169.254.169.254/", "http://b.example"]);
        assert!(!is_url_arg("curl", &globs(&["url"])));
    }

    #[test]
    fn url_args_at_any_depth() {
        let args = json!({
            "url": " https://a.example/ ",
            "opts": {"callback_url": "http://b.example", "n": 3},
            "urls": ["http://c.example", 4],
            "body": "http://not-a-destination.example"
        });
        let got: Vec<(String, String)> = url_arg_values(&args, &globs(&["url", "urls", "*_url"]))
            .into_iter()
            .map(|c| (c.path, c.text))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "arguments.opts.callback_url".into(),
                    "http://b.example".into()
                ),
                ("arguments.url".into(), "https://a.example/".into()),
                ("arguments.urls[0]".into(), "http://c.example".into()),
            ]
        );
    }

    #[test]
    fn free_text_tokens() {
        let args = json!({
            "args": ["-s", "-m", "10.5", "-o", "out.json", "http://169.254.169.254/latest/meta-data/"],
            "command": "curl 127.1:8080/admin; echo done > 2024.01.log",
            "other": "see (file:///etc/passwd), or 10.0.0.5"
        });
        let got: Vec<String> = free_text_urls(&args).into_iter().map(|c| c.text).collect();
        assert_eq!(
            got,
            vec![
                "http://169.254.169.254/latest/meta-data/",
                "127.1:8080/admin",
                "file:///etc/passwd",
                "10.0.0.5",
            ]
        );
    }

    #[test]
    fn bare_hosts() {
        assert!(is_bare_host_url("169.254.169.254"));
        assert!(is_bare_host_url("0xa9fea9fe/latest"));
        assert!(is_bare_host_url("localhost:3000"));
        assert!(is_bare_host_url("[::1]:80"));
        assert!(is_bare_host_url("2852039166/"));
        assert!(!is_bare_host_url("3/4"));
        assert!(!is_bare_host_url("10.5"));
        assert!(!is_bare_host_url("1.2.3"));
        assert!(!is_bare_host_url("data/file.zip"));
        assert!(!is_bare_host_url("localhost"));
        assert!(!is_bare_host_url("key:value"));
    }

    #[test]
    fn schemes() {
        assert_eq!(scheme_len("https://x"), Some(5));
        assert_eq!(scheme_len("localhost:8080"), Some(9));
        assert_eq!(scheme_len("1http:"), None);
        assert!(has_authority_scheme("gopher://x"));
        assert!(!has_authority_scheme("x:/y"));
        // Review s9 G12: one- and no-slash web schemes.
        assert!(has_special_scheme("http:/169.254.169.254"));
        assert!(has_special_scheme("HTTPS:example.com"));
        assert!(!has_special_scheme("http:8080"));
        assert!(!has_special_scheme("key:value"));
    }
}
