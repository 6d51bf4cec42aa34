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

/// `text` with every character that is not shown as itself written
/// visibly (`\n`, `\t`, `\x1b`, `\u{202e}`), so a reason, rule, argument
/// or log line from a plugin or an agent cannot start a new line, move the
/// cursor, set the window title, reorder what a person reads or hide text
/// from them: control characters, the line and paragraph separators
/// U+2028 and U+2029, bidirectional controls, and invisible characters
/// (zero-width spaces and joiners, word joiners and invisible operators,
/// the byte-order mark, the soft hyphen, variation selectors and tag
/// characters, which can smuggle text a person does not see). Everything
/// else is unchanged. This is the one escaping rule for text a person
/// reads: terminals, logs, approval prompts and pages.
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

/// `text`, a name a person compares by eye (a principal, an agent, a run
/// or call id, a tool), as [`visible`] writes it and with every other
/// character outside ASCII written out too (`\u{430}lice@acme.com`): a
/// look-alike letter (Cyrillic `а` for Latin `a`, fullwidth or
/// mathematical letters) cannot pass for the name it imitates (review
/// s11 K7), and every space written `␠` (itself written out when the text
/// holds one), so `bob@acme.com ` is not `bob@acme.com` where a page
/// collapses white space (review s20 T2). For prose (reasons, messages,
/// arguments) use [`visible`]; for a name as one field of a text line,
/// [`field`].
#[must_use]
pub fn identifier(text: &str) -> Cow<'_, str> {
    if text.is_ascii() && !text.contains(' ') {
        return visible(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c == ' ' {
            out.push('\u{2420}');
        } else if c.is_ascii() {
            out.push_str(&visible(c.encode_utf8(&mut [0u8; 4])));
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    Cow::Owned(out)
}

/// The shortest run of spaces [`field`], [`quoted`] and [`one_line`] write
/// as a count (`␠×400`) rather than as blanks: padding that would push
/// the rest of a line out of a person's view, or fake the gap between two
/// records, is shown for what it is (review s20 T3).
pub const BLANK_RUN: usize = 3;

/// `text`, a name shown as one field of a line a person reads (a request,
/// run or call id, a tool, a principal, an attribute's key or value): as
/// it is when it is one plain word (ASCII letters, digits and
/// `._:@/+=,~%#-`), else quoted (`"c8  cwd /srv"`) with `"` and `\`
/// escaped, characters written out as [`identifier`] writes them and runs
/// of spaces counted ([`BLANK_RUN`]). So white space or a quote inside a
/// name can never end its field and fake the next one, or a second record
/// on the same line (review s20 T3), and `"bob@acme.com "` is not
/// `bob@acme.com`. The one rule for names on a line of text output
/// (`toolvet approvals list`, `show`'s and `approve`'s prompts).
#[must_use]
pub fn field(text: &str) -> Cow<'_, str> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "._:@/+=,~%#-".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(written(text, true, true))
}

/// `text`, prose shown as one field of a line (a reason), quoted as
/// [`field`] quotes, but with letters outside ASCII kept (`é`, `日本`):
/// its quotes and white space cannot end the field early.
#[must_use]
pub fn quoted(text: &str) -> String {
    written(text, true, false)
}

/// `text` (prose, or the text of JSON) on one line a person reads: as
/// [`visible`] writes it, with runs of spaces counted ([`BLANK_RUN`]) so
/// padding cannot push the rest of the line out of view.
#[must_use]
pub fn one_line(text: &str) -> Cow<'_, str> {
    if !text.contains(&" ".repeat(BLANK_RUN)) {
        return visible(text);
    }
    Cow::Owned(written(text, false, false))
}

/// `text` escaped as [`visible`] does, runs of spaces counted (`␠×N`: in
/// `ascii` output a `␠` of the text itself is written out, so the marker
/// cannot be forged there); quoted with `"` and `\` escaped when `quote`;
/// letters outside ASCII written out when `ascii`.
fn written(text: &str, quote: bool, ascii: bool) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    if quote {
        out.push('"');
    }
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' => {
                let mut run = 1;
                while chars.next_if_eq(&' ').is_some() {
                    run += 1;
                }
                if run >= BLANK_RUN {
                    out.push_str(&format!("\u{2420}\u{d7}{run}"));
                } else {
                    out.push_str(&" ".repeat(run));
                }
            }
            '"' if quote => out.push_str("\\\""),
            '\\' if quote => out.push_str("\\\\"),
            c if needs_escape(c) => out.push_str(&visible(c.encode_utf8(&mut [0u8; 4]))),
            c if ascii && !c.is_ascii() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    if quote {
        out.push('"');
    }
    out
}

/// `json`, the text of serialized JSON, with every character [`visible`]
/// escapes written as a JSON escape (`\u2028`, `\u202e`, `\ud83f\udc41`
/// for characters past U+FFFF): the same JSON value, but nothing in it is
/// hidden from, reorders or breaks the lines of a person or a line-based
/// tool reading the text. serde_json already escapes ASCII control
/// characters, and outside strings JSON holds only ASCII, so only
/// characters inside strings change. For JSON a person reads (`toolvet
/// approvals show`) and decision-log records.
#[must_use]
pub fn json_visible(json: &str) -> Cow<'_, str> {
    let hidden = |c: char| !c.is_ascii() && needs_escape(c);
    if !json.chars().any(hidden) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 12);
    for c in json.chars() {
        if hidden(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether `c` is written escaped by [`visible`].
#[must_use]
pub fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            // Line and paragraph separators start a new line in many views.
            '\u{2028}' | '\u{2029}'
            // Bidirectional controls reorder what a person reads.
            | '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            // Invisible: soft hyphen, combining grapheme joiner, Hangul
            // fillers, Khmer inherent vowels, Mongolian selectors and vowel
            // separator, zero-width space/non-joiner/joiner, word joiner and
            // invisible operators, deprecated format characters, byte-order
            // mark, interlinear annotation marks.
            | '\u{00ad}' | '\u{034f}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}'
            | '\u{180b}'..='\u{180f}' | '\u{200b}'..='\u{200d}' | '\u{2060}'..='\u{2064}'
            | '\u{206a}'..='\u{206f}' | '\u{3164}' | '\u{feff}' | '\u{ffa0}'
            | '\u{fff9}'..='\u{fffb}'
            // Variation selectors and tag characters: invisible, and used
            // to hide text in what looks like a plain word or emoji.
            | '\u{fe00}'..='\u{fe0f}' | '\u{e0000}'..='\u{e007f}' | '\u{e0100}'..='\u{e01ef}'
        )
}

#[cfg(test)]
mod tests {
    use super::{field, identifier, one_line, quoted, visible};

    /// Review s20 T3: a name holding white space or quotes cannot fake
    /// the next field, nor padding a second record.
    #[test]
    fn a_field_cannot_end_early_or_hide_behind_padding() {
        assert_eq!(field("c8"), "c8");
        assert_eq!(field("apr_1f/x:y@z.com"), "apr_1f/x:y@z.com");
        assert_eq!(field(""), "\"\"");
        assert_eq!(
            field(r#"c8  cwd /home  arguments {"command":"ls"}"#),
            r#""c8  cwd /home  arguments {\"command\":\"ls\"}""#
        );
        assert_eq!(field("bob@acme.com "), "\"bob@acme.com \"");
        assert_eq!(field(r"a\b"), r#""a\\b""#);
        assert_eq!(
            field(&format!("x{}y", " ".repeat(400))),
            "\"x\u{2420}\u{d7}400y\""
        );
        assert_eq!(field("\u{430}b\n"), r#""\u{430}b\n""#);
        assert_eq!(field("\u{2420}\u{d7}9"), r#""\u{2420}\u{d7}9""#);
        assert_eq!(quoted("é  \"x\""), r#""é  \"x\"""#);
        assert_eq!(one_line("a  b"), "a  b");
        assert_eq!(one_line("a     b\n"), "a\u{2420}\u{d7}5b\\n");
    }

    #[test]
    fn look_alike_letters_in_names_are_written_out() {
        assert_eq!(identifier("alice@acme.com"), "alice@acme.com");
        assert_eq!(identifier("\u{430}lice@acme.com"), "\\u{430}lice@acme.com");
        assert_eq!(identifier("ci\u{202e}bot\n"), "ci\\u{202e}bot\\n");
        assert_ne!(identifier("\u{430}lice"), identifier("alice"));
        // Review s20 T2: white space is seen, and the mark is not forged.
        assert_eq!(identifier(" bob@acme.com "), "\u{2420}bob@acme.com\u{2420}");
        assert_eq!(identifier("\u{2420}bob"), "\\u{2420}bob");
    }

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

    #[test]
    fn json_keeps_its_value_and_shows_hidden_characters() {
        use super::json_visible;
        let value = serde_json::json!({
            "command": "ls\u{2028}rm -rf ~\u{202e}\u{200b}\u{e0041}",
            "k\u{2029}": ["é", "\n"],
        });
        let text = serde_json::to_string(&value).unwrap();
        let shown = json_visible(&text);
        assert_eq!(
            shown,
            r#"{"command":"ls\u2028rm -rf ~\u202e\u200b\udb40\udc41","k\u2029":["é","\n"]}"#
        );
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&shown).unwrap(),
            value
        );
        assert!(matches!(
            json_visible(r#"{"a":"é"}"#),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn separators_bidi_and_invisible_characters_are_shown() {
        for (c, shown) in [
            ('\u{2028}', "\\u{2028}"),
            ('\u{2029}', "\\u{2029}"),
            ('\u{202e}', "\\u{202e}"),
            ('\u{2067}', "\\u{2067}"),
            ('\u{061c}', "\\u{61c}"),
            ('\u{200b}', "\\u{200b}"),
            ('\u{200c}', "\\u{200c}"),
            ('\u{200d}', "\\u{200d}"),
            ('\u{2060}', "\\u{2060}"),
            ('\u{2064}', "\\u{2064}"),
            ('\u{feff}', "\\u{feff}"),
            ('\u{00ad}', "\\xad"),
            ('\u{fe0f}', "\\u{fe0f}"),
            ('\u{e0041}', "\\u{e0041}"),
            ('\u{e0100}', "\\u{e0100}"),
        ] {
            assert_eq!(visible(&format!("rm{c}x")), format!("rm{shown}x"), "{c:?}");
        }
        // Neighbours of the ranges are ordinary text.
        for plain in [
            "\u{2027}", "\u{202f}", "\u{2065}", "\u{200a}", "\u{fe10}", "é", "日本",
        ] {
            assert_eq!(visible(plain), plain);
        }
    }
}
