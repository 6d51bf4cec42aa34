//! Patch texts read as the programs that apply them read them (review
//! s25 R7, R9): a reader that is stricter than the applier about what a
//! file header is misses the files the patch writes.
//!
//! - Codex's `apply_patch` format (openai/codex
//!   `codex-rs/apply-patch/src/parser.rs`, `parse_one_hunk`: "Be
//!   tolerant of case mismatches and extra padding around marker
//!   strings", the line is trimmed before the markers are matched): `***
//!   Add File:`, `*** Update File:`, `*** Delete File:`, `*** Move to:`,
//!   `*** Begin Patch`, `*** End Patch` with white space around them are
//!   headers. (Codex matches `*** Move to:` untrimmed; reading it trimmed
//!   too only adds a write.)
//! - git's C-quoted path names (`"b/\056claude/settings.json"`: git's
//!   `quote_c_style`, read back by `git apply` and GNU `patch`): a name
//!   in double quotes with `\a \b \t \n \v \f \r \" \\` and three-digit
//!   octal escapes of bytes.

/// A Codex patch header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodexHeader {
    /// `*** Add File: P`.
    Add,
    /// `*** Update File: P`.
    Update,
    /// `*** Delete File: P`.
    Delete,
    /// `*** Move to: P` (after an update).
    MoveTo,
}

/// The Codex header `line` is, with its path (trimmed, possibly empty),
/// read as Codex reads it: white space around the line is ignored.
pub fn codex_header(line: &str) -> Option<(CodexHeader, &str)> {
    let line = line.trim();
    [
        ("*** Add File:", CodexHeader::Add),
        ("*** Update File:", CodexHeader::Update),
        ("*** Delete File:", CodexHeader::Delete),
        ("*** Move to:", CodexHeader::MoveTo),
    ]
    .into_iter()
    .find_map(|(marker, h)| line.strip_prefix(marker).map(|p| (h, p.trim())))
}

/// Whether `line` is Codex's `marker` line (`*** Begin Patch`, `*** End
/// Patch`, `*** End of File`), white space around it ignored.
pub fn is_codex_marker(line: &str, marker: &str) -> bool {
    line.trim() == marker
}

/// The C-quoted name at the start of `text` (which starts with `"`),
/// decoded as git's `unquote_c_style` does, and the bytes it took (the
/// closing quote included). `None` when it is not closed or holds an
/// escape git does not write.
pub fn git_unquote(text: &str) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'"') {
        return None;
    }
    let mut out: Vec<u8> = Vec::new();
    let mut i = 1;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        match b {
            b'"' => return Some((String::from_utf8_lossy(&out).into_owned(), i)),
            b'\\' => {
                let e = *bytes.get(i)?;
                i += 1;
                out.push(match e {
                    b'a' => 7,
                    b'b' => 8,
                    b't' => b'\t',
                    b'n' => b'\n',
                    b'v' => 11,
                    b'f' => 12,
                    b'r' => b'\r',
                    b'"' | b'\\' => e,
                    b'0'..=b'3' => {
                        let d1 = *bytes.get(i)?;
                        let d2 = *bytes.get(i + 1)?;
                        if !(b'0'..=b'7').contains(&d1) || !(b'0'..=b'7').contains(&d2) {
                            return None;
                        }
                        i += 2;
                        ((e - b'0') << 6) | ((d1 - b'0') << 3) | (d2 - b'0')
                    }
                    _ => return None,
                });
            }
            _ => out.push(b),
        }
    }
    None
}

/// The file name of a `--- NAME` / `+++ NAME` line (the text after the
/// marker): a C-quoted name decoded, else the text up to a tab (the time
/// stamp), trimmed. `None` for no name.
pub fn diff_name(text: &str) -> Option<String> {
    let t = text.trim_start();
    let name = if t.starts_with('"') {
        match git_unquote(t) {
            Some((name, _)) => name,
            None => t.split('\t').next().unwrap_or(t).trim().to_string(),
        }
    } else {
        t.split('\t').next().unwrap_or(t).trim().to_string()
    };
    (!name.is_empty()).then_some(name)
}

/// The two names of a `diff --git A B` line (the text after `diff --git
/// `), each decoded when C-quoted (`"a/\056x" "b/\056x"`, or only one of
/// them quoted).
pub fn git_diff_names(rest: &str) -> Option<(String, String)> {
    let rest = rest.trim_end();
    if rest.starts_with('"') {
        let (a, used) = git_unquote(rest)?;
        let b = rest[used..].trim_start();
        let b = if b.starts_with('"') {
            git_unquote(b)?.0
        } else {
            b.to_string()
        };
        return Some((a, b));
    }
    if rest.ends_with('"')
        && let Some(k) = rest.rfind(" \"")
        && let Some((b, _)) = git_unquote(&rest[k + 1..])
    {
        return Some((rest[..k].to_string(), b));
    }
    rest.rsplit_once(" b/")
        .map(|(a, b)| (a.to_string(), format!("b/{b}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_headers_are_read_trimmed() {
        assert_eq!(
            codex_header("  *** Add File: .claude/settings.local.json"),
            Some((CodexHeader::Add, ".claude/settings.local.json"))
        );
        assert_eq!(
            codex_header("\t*** Update File: a \r"),
            Some((CodexHeader::Update, "a"))
        );
        assert_eq!(
            codex_header(" *** Delete File: /p/toolvet.toml"),
            Some((CodexHeader::Delete, "/p/toolvet.toml"))
        );
        assert_eq!(
            codex_header(" *** Move to: b"),
            Some((CodexHeader::MoveTo, "b"))
        );
        assert_eq!(codex_header("+*** Add File: x"), None);
        assert!(is_codex_marker("  *** End Patch ", "*** End Patch"));
    }

    #[test]
    fn git_quoted_names_are_decoded() {
        assert_eq!(
            git_unquote(r#""b/\056claude/settings.local.json""#),
            Some(("b/.claude/settings.local.json".into(), 34))
        );
        assert_eq!(
            git_unquote(r#""a\tb\"c\\d\303\251""#).map(|p| p.0),
            Some("a\tb\"c\\dé".into())
        );
        assert_eq!(git_unquote(r#""open"#), None);
        assert_eq!(
            diff_name("\"b/tmp/toolvet.tom\\154\"\t2026-01-01"),
            Some("b/tmp/toolvet.toml".into())
        );
        assert_eq!(diff_name("a/x y\t2026"), Some("a/x y".into()));
        assert_eq!(diff_name("  "), None);
        assert_eq!(
            git_diff_names(r#""a/\056claude/s.json" "b/\056claude/s.json""#),
            Some(("a/.claude/s.json".into(), "b/.claude/s.json".into()))
        );
        assert_eq!(
            git_diff_names(r#"a/x "b/\056x""#),
            Some(("a/x".into(), "b/.x".into()))
        );
        assert_eq!(
            git_diff_names("a/x b/y"),
            Some(("a/x".into(), "b/y".into()))
        );
    }
}
