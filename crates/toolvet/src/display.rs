//! Showing text that plugins or callers control to a person: on a
//! terminal, in a log line, in an error message.
//!
//! Every string a plugin chooses (reasons, rule ids, `describe` fields,
//! `configure` errors, log lines, what it prints, function names in trap
//! backtraces) goes through [`visible`] before toolvet prints it as text:
//! in the CLI's text output, in `toolvet inspect`, in load errors and in
//! the log lines forwarded from plugins. JSON output keeps the exact text
//! (JSON escapes control characters itself).

use std::borrow::Cow;

/// `text` with every control character written visibly (`\n`, `\t`,
/// `\x1b`, `\u{202e}` for bidirectional overrides), so a reason, rule or
/// log line from a plugin cannot start a new line, move the cursor, set the
/// window title or hide what follows it. Printable text is unchanged.
#[must_use]
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) && (c as u32) < 0x100 => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if needs_escape(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        // Bidirectional controls reorder what a terminal shows.
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::visible;

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        assert_eq!(visible("plain text, é"), "plain text, é");
        assert_eq!(
            visible("ok\nallow  bash  [forged]\x1b]0;title\x07\x00"),
            "ok\\nallow  bash  [forged]\\x1b]0;title\\x07\\x00"
        );
        assert_eq!(visible("a\u{202e}b"), "a\\u{202e}b");
        assert_eq!(visible("nul\0"), "nul\\x00");
        assert_eq!(visible("del\x7f c1\u{9b}"), "del\\x7f c1\\x9b");
    }
}
