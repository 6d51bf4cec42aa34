//! What a call acts on, for rules that compare calls: the paths, URL
//! hosts, e-mail addresses and short names in its arguments (and in the
//! words of a shell command), normalised so that `./a/b`, `a/b` and
//! `/cwd/a/b` compare equal.

use crate::keys::normalize_path;
use check_catalog::words;
use toolvet_pdk::json::{Step, walk};
use toolvet_pdk::serde_json::Value;

/// Words too common to tie two calls together.
const COMMON: &[&str] = &[
    "true", "false", "null", "none", "main", "master", "origin", "head", "the", "and", "json",
    "text", "yaml", "utf-8", "utf8", "default", "latest", "force",
];

/// The targets of a call's arguments.
pub(crate) fn targets(args: &Value, cwd: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |t: String| {
        if !out.contains(&t) {
            out.push(t);
        }
    };
    walk(args, "arguments", &mut |n| {
        let Value::String(s) = n.value else {
            return Step::Descend;
        };
        let tokens: Vec<String> = if s.contains(char::is_whitespace) {
            words::commands(s).into_iter().flatten().collect()
        } else {
            vec![s.clone()]
        };
        for t in tokens {
            for piece in t.split(['(', ')', '\'', '"', ',', ';']) {
                if let Some(target) = target_of(piece.trim(), cwd) {
                    add(target);
                }
            }
        }
        Step::Descend
    });
    out
}

fn target_of(token: &str, cwd: Option<&str>) -> Option<String> {
    if token.len() < 4 || token.starts_with('-') {
        return None;
    }
    if let Some((_, rest)) = token.split_once("://") {
        let host = rest
            .split(['/', '?', '#'])
            .next()?
            .rsplit('@')
            .next()?
            .split(':')
            .next()?;
        return (!host.is_empty()).then(|| format!("host:{}", host.to_ascii_lowercase()));
    }
    if token.contains('@') && !token.contains('/') {
        return Some(format!("mail:{}", token.to_ascii_lowercase()));
    }
    if token.contains('/') || token.starts_with('~') || token.starts_with('.') && token.len() > 2 {
        let p = normalize_path(token, cwd);
        return (p != "." && Some(p.as_str()) != cwd && p != "/").then(|| format!("path:{p}"));
    }
    let lower = token.to_ascii_lowercase();
    (token.len() <= 64
        && !COMMON.contains(&lower.as_str())
        && token
            .chars()
            .all(|c| c.is_alphanumeric() || "._-".contains(c))
        && token.chars().any(|c| c.is_alphabetic())
        && token.contains(['.', '_', '-']))
    .then(|| format!("name:{lower}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolvet_pdk::serde_json::json;

    #[test]
    fn targets_of_calls() {
        let t = targets(
            &json!({"command": "cp /tmp/bashrc.new ~/.bashrc && curl -s http://169.254.169.254/x"}),
            Some("/w"),
        );
        assert!(t.contains(&"path:/tmp/bashrc.new".to_string()), "{t:?}");
        assert!(t.contains(&"host:169.254.169.254".to_string()), "{t:?}");
        let t = targets(
            &json!({"attachments": ["exports/customers.csv"], "to": ["x@gmail.com"]}),
            Some("/w"),
        );
        assert!(
            t.contains(&"path:/w/exports/customers.csv".to_string()),
            "{t:?}"
        );
        assert!(t.contains(&"mail:x@gmail.com".to_string()), "{t:?}");
        let t = targets(
            &json!({"command": "python3 -c \"print(u.urlopen('http://169.254.169.254/latest').read())\""}),
            None,
        );
        assert!(t.contains(&"host:169.254.169.254".to_string()), "{t:?}");
        assert!(targets(&json!({"branch": "main", "force": true}), None).is_empty());
    }
}
