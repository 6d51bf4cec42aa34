//! Look-alike hosts: a host whose registrable domain (eTLD+1, from the
//! public suffix list through the `psl` crate) is not a trusted one but is
//! made to look like it:
//!
//! - the trusted domain inside the subdomain part
//!   (`github.com.login-check.io`, `registry.npmjs.org.mirror.io`) or
//!   spelled with a hyphen (`pypi-org.com`);
//! - a registrable name one typing slip away from a trusted one (a letter
//!   added, dropped or two neighbours swapped: `githb.com`, `gooogle.com`,
//!   `gihtub.com`), for names of 5+ letters. A changed letter does not
//!   count: distinct real names differ that way (`wikimedia`/`wikipedia`),
//!   and the look-alike letters that phishing swaps in are the homoglyph
//!   rule's;
//! - an internationalised name whose letters, mapped to the Latin letters
//!   they resemble, spell a trusted one (`gіthub.com` with a Cyrillic і).
//!
//! The same brand on another public suffix (`google.co.uk`, `github.blog`)
//! is not a look-alike: its registrable name is the trusted name itself.

/// Well-known domains agents talk to, whose look-alikes are phishing or
/// typo-squatting (package registries, code hosts, cloud and AI
/// providers). The `trusted_hosts` setting replaces them.
pub const DEFAULT_TRUSTED: &[&str] = &[
    "github.com",
    "githubusercontent.com",
    "gitlab.com",
    "bitbucket.org",
    "npmjs.org",
    "npmjs.com",
    "pypi.org",
    "pythonhosted.org",
    "crates.io",
    "rubygems.org",
    "golang.org",
    "docker.com",
    "docker.io",
    "google.com",
    "googleapis.com",
    "microsoft.com",
    "azure.com",
    "amazonaws.com",
    "amazon.com",
    "apple.com",
    "openai.com",
    "anthropic.com",
    "huggingface.co",
    "stripe.com",
    "paypal.com",
    "slack.com",
    "atlassian.com",
    "cloudflare.com",
    "vercel.com",
    "netlify.com",
    "heroku.com",
    "digitalocean.com",
    "stackoverflow.com",
    "wikipedia.org",
];

/// Why `host` looks like one of `trusted` (registrable domains) without
/// being it, naming the trusted domain.
pub fn lookalike(host: &str, trusted: &[String]) -> Option<(String, &'static str)> {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let registrable = psl::domain_str(&host)?.to_string();
    if trusted
        .iter()
        .any(|t| *t == registrable || registrable.ends_with(&format!(".{t}")))
    {
        return None;
    }
    let (reg_name, _) = registrable.split_once('.')?;
    let sub = host
        .strip_suffix(&registrable)
        .unwrap_or("")
        .trim_end_matches('.');
    let skeleton = skeleton(reg_name);
    for t in trusted {
        let Some((t_name, _)) = t.split_once('.') else {
            continue;
        };
        let t_hyphen = t.replace('.', "-");
        if !sub.is_empty()
            && (format!(".{sub}.").contains(&format!(".{t}."))
                || sub.split('.').any(|l| l == t_hyphen))
        {
            return Some((t.clone(), "it puts that name in front of another domain"));
        }
        if reg_name == t_hyphen || reg_name.starts_with(&format!("{t_hyphen}-")) {
            return Some((t.clone(), "it spells that name with a hyphen"));
        }
        if reg_name != t_name && skeleton == t_name {
            return Some((t.clone(), "its letters only look like that name's"));
        }
        if t_name.len() >= 5 && reg_name != t_name && edit_distance(reg_name, t_name) <= 1 {
            return Some((t.clone(), "it is a misspelling of that name"));
        }
    }
    None
}

/// Letters mapped to the ASCII letters they resemble (Unicode's
/// confusables for Cyrillic and Greek, digits read as letters). Punycode
/// labels (`xn--`) are decoded first by the URL parser's IDNA step, so
/// they arrive here as Unicode only when the caller passes the Unicode
/// form; both are handled.
fn skeleton(label: &str) -> String {
    let decoded = if let Some(p) = label.strip_prefix("xn--") {
        idna_decode(p).unwrap_or_else(|| label.to_string())
    } else {
        label.to_string()
    };
    decoded
        .chars()
        .map(|c| match c {
            'а' => 'a',
            'е' => 'e',
            'о' => 'o',
            'р' => 'p',
            'с' => 'c',
            'у' => 'y',
            'х' => 'x',
            'і' => 'i',
            'ј' => 'j',
            'ѕ' => 's',
            'һ' => 'h',
            'ԁ' => 'd',
            'ɡ' => 'g',
            'ο' => 'o',
            'α' => 'a',
            'ν' => 'v',
            'ι' => 'i',
            'κ' => 'k',
            'τ' => 't',
            'ρ' => 'p',
            '0' => 'o',
            '1' => 'l',
            'ı' => 'i',
            c => c,
        })
        .collect()
}

/// Punycode (RFC 3492) decoding of one label body.
fn idna_decode(input: &str) -> Option<String> {
    let (base, rest) = match input.rfind('-') {
        Some(i) => (&input[..i], &input[i + 1..]),
        None => ("", input),
    };
    let mut out: Vec<char> = base.chars().collect();
    let (mut n, mut i, mut bias) = (128u32, 0u32, 72u32);
    let mut it = rest.bytes().peekable();
    while it.peek().is_some() {
        let old_i = i;
        let mut w = 1u32;
        let mut k = 36u32;
        loop {
            let b = it.next()?;
            let digit = match b {
                b'a'..=b'z' => b - b'a',
                b'A'..=b'Z' => b - b'A',
                b'0'..=b'9' => b - b'0' + 26,
                _ => return None,
            } as u32;
            i = i.checked_add(digit.checked_mul(w)?)?;
            let t = if k <= bias {
                1
            } else if k >= bias + 26 {
                26
            } else {
                k - bias
            };
            if digit < t {
                break;
            }
            w = w.checked_mul(36 - t)?;
            k += 36;
        }
        let len = out.len() as u32 + 1;
        let mut delta = if old_i == 0 {
            (i - old_i) / 700
        } else {
            (i - old_i) / 2
        };
        delta += delta / len;
        let mut k = 0;
        while delta > ((36 - 1) * 26) / 2 {
            delta /= 35;
            k += 36;
        }
        bias = k + (36 * delta) / (delta + 38);
        n = n.checked_add(i / len)?;
        i %= len;
        out.insert(i as usize, char::from_u32(n)?);
        i += 1;
    }
    Some(out.into_iter().collect())
}

/// Typing-slip distance of two short strings: insertions, deletions and
/// swaps of neighbouring letters cost 1, a changed letter 2 (optimal
/// string alignment).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = if a[i - 1] == b[j - 1] { 0 } else { 2 };
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t() -> Vec<String> {
        DEFAULT_TRUSTED.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn lookalikes() {
        for h in [
            "github.com.login-check.io",
            "registry.npmjs.org.mirror-fast.io",
            "pypi-org.com",
            "githb.com",
            "gooogle.com",
            "xn--gthub-n4a.com",
            "g\u{456}thub.com",
            "github-com.evil.io",
        ] {
            assert!(lookalike(h, &t()).is_some(), "{h}");
        }
        for h in [
            "github.com",
            "api.github.com",
            "raw.githubusercontent.com",
            "github.blog",
            "acme.github.io",
            "www.google.co.uk",
            "docs.google.com",
            "registry.npmjs.org",
            "files.pythonhosted.org",
            "example.com",
            "gitlab.example.org",
            "acme-artifacts.s3.amazonaws.com",
            "githubstatus.com",
            "upload.wikimedia.org",
        ] {
            assert_eq!(lookalike(h, &t()), None, "{h}");
        }
        assert_eq!(edit_distance("githb", "github"), 1);
        assert_eq!(edit_distance("gihtub", "github"), 1);
        assert_eq!(edit_distance("wikimedia", "wikipedia"), 2);
        assert_eq!(edit_distance("gooogle", "google"), 1);
        assert!(lookalike("gihtub.com", &t()).is_some());
        let puny = url::Url::parse("https://g\u{456}thub.com/")
            .unwrap()
            .host_str()
            .unwrap()
            .to_string();
        assert!(puny.starts_with("xn--"), "{puny}");
        assert!(lookalike(&puny, &t()).is_some(), "{puny}");
        assert_eq!(skeleton(puny.split('.').next().unwrap()), "github");
    }
}
