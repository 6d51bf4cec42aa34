//! Keys as a lenient decoder may read them. Go's `encoding/json` and many
//! MCP servers match an object's keys to their fields case-insensitively
//! (`QUERY` fills `query`, `ſtatement` fills `statement`, the last match
//! winning); others normalise Unicode first. [`fold`] is the one rule
//! toolvet uses for "these two keys may be read as one": the strict
//! readers ([`crate::strict_json::parse_json_strict`], [`crate::CallRequest`]'s
//! constructors, the MCP proxy's client reader) refuse two keys of one
//! object that fold alike, so what a check judges under one key is what
//! the tool runs.

use unicode_normalization::UnicodeNormalization;

/// Whether `c` is not seen, or moves or hides what follows: controls,
/// format characters (zero-width, bidirectional), variation selectors and
/// the other default-ignorable code points.
pub fn invisible(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{ad}' | '\u{34f}' | '\u{61c}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}'
            | '\u{180b}'..='\u{180f}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}' | '\u{3164}' | '\u{fe00}'..='\u{fe0f}' | '\u{feff}'
            | '\u{ffa0}' | '\u{fff0}'..='\u{fffb}' | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}' | '\u{e0000}'..='\u{e0fff}')
}

/// `text` with its invisible characters (other than control characters,
/// which [`crate::display::visible`] writes) shown as `\u{…}`, for error
/// messages about keys that differ only by them.
pub fn escape_invisible(text: &str) -> String {
    text.chars()
        .map(|c| {
            if invisible(c) && !c.is_control() {
                format!("\\u{{{:x}}}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// `text` as a decoder that ignores case and Unicode form may read it:
/// NFKC (`ｐａｒａｍｓ` → `params`, `ﬁ` → `fi`), then every character
/// upper- then lower-cased (`ſ` → `s`, `K` (Kelvin) → `k`, `ı` → `i`),
/// without white space, invisible characters and the dot that
/// lower-casing `İ` adds. Two keys of one object must not fold alike.
pub fn fold(text: &str) -> String {
    text.nfkc()
        .flat_map(char::to_uppercase)
        .flat_map(char::to_lowercase)
        .filter(|c| !c.is_whitespace() && !invisible(*c) && *c != '\u{307}')
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_a_lenient_decoder_reads_as_one_fold_alike() {
        for key in [
            "query",
            "QUERY",
            "Query",
            "ｑｕｅｒｙ",
            "qu\u{200b}ery",
            "query\u{feff}",
            " query",
        ] {
            assert_eq!(fold(key), "query", "{key:?}");
        }
        assert_eq!(fold("ſtatement"), "statement");
        assert_eq!(fold("\u{212a}ey"), "key");
        assert_eq!(fold("İd"), "id");
        assert_eq!(fold("ﬁle"), "file");
        assert_ne!(fold("query"), fold("queries"));
        assert_eq!(fold("\u{200b}"), "");
    }

    #[test]
    fn invisible_characters_are_shown() {
        assert_eq!(escape_invisible("a\u{200b}b"), "a\\u{200b}b");
        assert_eq!(escape_invisible("a\nb"), "a\nb");
        assert!(invisible('\u{202e}') && invisible('\u{e0041}') && !invisible('a'));
    }
}
