//! The kit's one input rule, applied before any check's own code: a call
//! whose text holds a control character other than tab and newline is
//! denied with rule [`CONTROL_CHARACTER_RULE`] (`input.control-character`).
//!
//! Why: the program that finally reads the text does not read it the way
//! the check did. bash drops NUL bytes from a script read on stdin, so
//! `r\0m -rf ~` runs `rm -rf ~` while a parser sees a command `r\0m`; C
//! file APIs end a path at its first NUL (`settings.js\0on` opens
//! `settings.js`); escape sequences, backspaces and a lone carriage return
//! rewrite what a person reads on a terminal or in a log. No legitimate
//! argument needs them.
//!
//! What is refused: the C0 controls U+0000 to U+001F except tab (U+0009)
//! and line feed (U+000A), with one exception that is a rule about the
//! text, not about a field or a check: a carriage return (U+000D)
//! immediately followed by a line feed is a CRLF line end, as in a Windows
//! text file written with `write_file`, and is accepted; a carriage return
//! anywhere else is refused. Checks whose input is read by a program that
//! gives even a CRLF's carriage return a meaning of its own refuse it
//! themselves (shell-guard in commands, path-guard in paths). DEL (U+007F)
//! and the C1 controls (U+0080 to U+009F) are not refused: bash and the
//! kernel treat them as ordinary bytes, so they cannot make a check see
//! another command or path than the one that runs; where they are shown
//! to a person they are escaped like any other text ([`escape`]).
//!
//! Where: the tool name, every key and string of the arguments (at any
//! depth), and the context's agent, run id, principal and attributes (the
//! `cwd` a check resolves paths against is one). Not the history: earlier
//! calls were vetted when they were made, and one refused call must not
//! block the rest of the run. Not the tool info: the agent's owner
//! declares it, not the agent.
//!
//! The Python and JavaScript kits apply the same rule with the same rule
//! id and message (`plugins/python/toolvet_check`, `plugins/js/toolvet-check`).

use crate::json::{self, Step};
use crate::{Context, Decision, ToolCall};
use serde_json::Value;

/// The rule id of the kit's refusal of control characters.
pub const CONTROL_CHARACTER_RULE: &str = "input.control-character";

/// A refused control character: where it is and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlCharacter {
    /// The path of the text that holds it: `name`,
    /// `arguments.command`, `arguments["comm\u0000and"]` (a key),
    /// `context.attributes.cwd`.
    pub path: String,
    /// Whether the text is an object key (the path then names the key).
    pub in_key: bool,
    /// Its byte offset in the text (UTF-8).
    pub offset: usize,
    /// The character.
    pub character: char,
}

impl ControlCharacter {
    /// The deny the kit answers with.
    pub fn to_decision(&self) -> Decision {
        let what = if self.in_key {
            "The key"
        } else {
            "The value of"
        };
        let name = match char_name(self.character) {
            Some(n) => format!(" ({n})"),
            None => String::new(),
        };
        Decision::deny(
            CONTROL_CHARACTER_RULE,
            format!(
                "{what} `{}` holds the control character {}{name} at byte {}. Control characters \
                 other than tab and newline (and a carriage return other than in a CRLF line end) \
                 are refused in every argument: the program that reads the text does not read it \
                 as this check does (bash drops NUL bytes, file APIs cut a path at one, terminal \
                 escapes rewrite what a person reads). Send the text without it.",
                self.path,
                escape(self.character),
                self.offset
            ),
        )
    }
}

/// Whether `c`, followed by `next`, is refused (see the module docs).
pub fn is_refused(c: char, next: Option<char>) -> bool {
    match c {
        '\t' | '\n' => false,
        '\r' => next != Some('\n'),
        c => (c as u32) < 0x20,
    }
}

/// The first refused control character of `text`: its byte offset and
/// the character.
pub fn find_in(text: &str) -> Option<(usize, char)> {
    // Fast path: no byte below 0x20 other than tab and newline.
    if !text.bytes().any(|b| b < 0x20 && b != b'\t' && b != b'\n') {
        return None;
    }
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if is_refused(c, chars.peek().map(|&(_, n)| n)) {
            return Some((i, c));
        }
    }
    None
}

/// `c` as a reader sees it in a message: `\x00` for the C0 controls and
/// DEL, `\u{85}` for the C1 controls and other invisible or
/// direction-changing characters, `c` itself otherwise.
pub fn escape(c: char) -> String {
    let n = c as u32;
    if n < 0x20 || n == 0x7f {
        format!("\\x{n:02x}")
    } else if (0x80..0xa0).contains(&n)
        || matches!(n, 0x200b..=0x200f | 0x2028..=0x202e | 0x2060..=0x2064 | 0x2066..=0x2069 | 0xfeff)
    {
        format!("\\u{{{n:x}}}")
    } else {
        c.to_string()
    }
}

/// The usual name of the controls people meet, for messages.
fn char_name(c: char) -> Option<&'static str> {
    Some(match c {
        '\0' => "NUL",
        '\x07' => "BEL",
        '\x08' => "backspace",
        '\x0b' => "vertical tab",
        '\x0c' => "form feed",
        '\r' => "carriage return",
        '\x1b' => "ESC",
        _ => return None,
    })
}

/// Whether the JSON `text` decodes to a string or key holding a refused
/// character, read exactly from the text's escapes without parsing it
/// (most calls hold none, and then the parse is left to the check).
/// A raw control byte inside a string (not JSON) counts too.
fn json_text_has_refused(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    let mut in_string = false;
    // A carriage return was the last character decoded in this string.
    let mut pending_cr = false;
    while i < b.len() {
        let c = b[i];
        if !in_string {
            if c == b'"' {
                in_string = true;
                pending_cr = false;
            }
            i += 1;
            continue;
        }
        // The next decoded character (as a code point when it matters)
        // and how many bytes it took.
        let (decoded, len): (u32, usize) = match c {
            b'"' => {
                if pending_cr {
                    return true;
                }
                in_string = false;
                i += 1;
                continue;
            }
            b'\\' => match b.get(i + 1) {
                Some(b'u') => {
                    let hex = b
                        .get(i + 2..i + 6)
                        .and_then(|h| std::str::from_utf8(h).ok());
                    match hex.and_then(|h| u32::from_str_radix(h, 16).ok()) {
                        Some(n) => (n, 6),
                        // Not JSON: let the parse decide; be strict here.
                        None => return true,
                    }
                }
                Some(b'b') => (0x08, 2),
                Some(b'f') => (0x0c, 2),
                Some(b'n') => (0x0a, 2),
                Some(b'r') => (0x0d, 2),
                Some(b't') => (0x09, 2),
                Some(_) => (0x41, 2),
                None => return true,
            },
            c => (u32::from(c), 1),
        };
        if pending_cr && decoded != 0x0a {
            return true;
        }
        pending_cr = decoded == 0x0d;
        if decoded < 0x20 && !matches!(decoded, 0x09 | 0x0a | 0x0d) {
            return true;
        }
        i += len;
    }
    pending_cr
}

/// The first refused control character in what a check reads of `call`
/// and `ctx` (see the module docs for where it looks), or `None`.
pub fn find(call: &ToolCall, ctx: &Context) -> Option<ControlCharacter> {
    let at = |path: &str, in_key: bool, text: &str| {
        find_in(text).map(|(offset, character)| ControlCharacter {
            path: path.to_string(),
            in_key,
            offset,
            character,
        })
    };
    if let Some(hit) = at("name", false, &call.name) {
        return Some(hit);
    }
    if json_text_has_refused(&call.arguments) {
        let mut hit = None;
        json::walk(call.json(), "arguments", &mut |node| {
            let found = match node.value {
                Value::String(s) => at(node.path, false, s),
                Value::Object(map) => map
                    .keys()
                    .find_map(|k| at(&json::child_path(node.path, k), true, k)),
                _ => None,
            };
            match found {
                Some(f) => {
                    hit = Some(f);
                    Step::Stop
                }
                None => Step::Descend,
            }
        });
        // The text says there is one; if the walk cannot show where (the
        // text is not JSON), refuse the arguments as a whole.
        return Some(hit.unwrap_or_else(|| {
            let (offset, character) = find_in(&call.arguments).unwrap_or((0, '\0'));
            ControlCharacter {
                path: "arguments".into(),
                in_key: false,
                offset,
                character,
            }
        }));
    }
    for (path, value) in [
        ("context.agent", &ctx.agent),
        ("context.run_id", &ctx.run_id),
        ("context.principal", &ctx.principal),
    ] {
        if let Some(hit) = value.as_deref().and_then(|v| at(path, false, v)) {
            return Some(hit);
        }
    }
    ctx.attributes.iter().find_map(|(k, v)| {
        let path = json::child_path("context.attributes", k);
        at(&path, true, k).or_else(|| at(&path, false, v))
    })
}

/// The kit's deny for `call` in `ctx` when it holds a refused control
/// character ([`find`]), or `None` when the check may look at it.
pub fn refusal(call: &ToolCall, ctx: &Context) -> Option<Decision> {
    find(call, ctx).map(|hit| hit.to_decision())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(args: &str) -> ToolCall {
        ToolCall::new("bash", args)
    }

    fn hit(args: &str) -> Option<ControlCharacter> {
        find(&call(args), &Context::default())
    }

    #[test]
    fn the_text_rule() {
        assert_eq!(find_in("r\0m -rf ~"), Some((1, '\0')));
        assert_eq!(find_in("a\tb\nc"), None);
        assert_eq!(find_in("line one\r\nline two\r\n"), None);
        assert_eq!(find_in("echo a\rrm -rf ~"), Some((6, '\r')));
        assert_eq!(find_in("ends with\r"), Some((9, '\r')));
        assert_eq!(find_in("\r\r\n"), Some((0, '\r')));
        assert_eq!(find_in("é\x1b[2K"), Some((2, '\x1b')));
        assert_eq!(find_in("del \x7f and c1 \u{85} pass"), None);
        for n in 0..0x20u8 {
            let c = char::from(n);
            let refused = !matches!(c, '\t' | '\n'); // a CR before `y` is refused
            assert_eq!(find_in(&format!("x{c}y")).is_some(), refused, "{n:#x}");
        }
    }

    #[test]
    fn the_escapes_in_json_text_are_read_exactly() {
        for (text, refused) in [
            (r#"{"command": "r\u0000m -rf ~"}"#, true),
            (r#"{"command": "su\u0000do id"}"#, true),
            (r#"{"a": "x\u001By"}"#, true),
            (r#"{"a": "x\u001by"}"#, true),
            (r#"{"a": "x\by"}"#, true),
            (r#"{"a": "x\fy"}"#, true),
            (r#"{"a": "x\ry"}"#, true),
            (r#"{"a": "x\r"}"#, true),
            (r#"{"a": "x\r\ny\r\n"}"#, false),
            (r#"{"a": "x\u000d\u000ay"}"#, false),
            (r#"{"a": "x\n\ty\u0009"}"#, false),
            (r#"{"a": "C:\\root\\bin \\u0000 \\r"}"#, false),
            (r#"{"a": "\"q\"", "b": ["é", 1, null]}"#, false),
            (r#"{"a\u0000b": 1}"#, true),
            (r#"{"a": "\ud83d\ude00"}"#, false),
        ] {
            assert_eq!(json_text_has_refused(text), refused, "{text}");
            let value: Value = serde_json::from_str(text).unwrap();
            let decoded = json::strings(&value, "a")
                .iter()
                .any(|(_, _, s)| find_in(s).is_some())
                || value
                    .as_object()
                    .unwrap()
                    .keys()
                    .any(|k| find_in(k).is_some());
            assert_eq!(decoded, refused, "the decoded text agrees: {text}");
        }
    }

    #[test]
    fn the_four_nul_variants_name_their_argument() {
        let h = hit(r#"{"command": "r\u0000m -rf ~"}"#).unwrap();
        assert_eq!(
            (h.path.as_str(), h.offset, h.character, h.in_key),
            ("arguments.command", 1, '\0', false)
        );
        let h = hit(r#"{"command": "su\u0000do rm -rf /"}"#).unwrap();
        assert_eq!((h.path.as_str(), h.offset), ("arguments.command", 2));
        let h = hit(r#"{"command": "terraform dest\u0000roy -auto-approve"}"#).unwrap();
        assert_eq!((h.path.as_str(), h.offset), ("arguments.command", 14));
        let h = hit(r#"{"path": "/w/.claude/settings.js\u0000on", "content": "{}"}"#).unwrap();
        assert_eq!((h.path.as_str(), h.offset), ("arguments.path", 22));
        let d = h.to_decision();
        assert_eq!(d.rule(), Some(CONTROL_CHARACTER_RULE));
        let Decision::Deny(reason) = d else {
            panic!("a deny")
        };
        assert!(
            reason.message.starts_with(
                "The value of `arguments.path` holds the control character \\x00 (NUL) at byte 22."
            ),
            "{}",
            reason.message
        );
        assert!(!reason.message.contains('\0'), "the reason is escaped");
    }

    #[test]
    fn keys_nesting_names_and_context() {
        let h = hit(r#"{"comm\u0000and": "rm -rf ~"}"#).unwrap();
        assert_eq!(h.path, r#"arguments["comm\u0000and"]"#);
        assert!(h.in_key);
        let h = hit(r#"{"edits": [{"path": "a"}, {"new": "x\u001b[31m"}]}"#).unwrap();
        assert_eq!((h.path.as_str(), h.offset), ("arguments.edits[1].new", 1));
        let h = find(&ToolCall::new("ba\u{0}sh", "{}"), &Context::default()).unwrap();
        assert_eq!(h.path, "name");
        let ctx = Context {
            attributes: vec![("cwd".into(), "/home/a\rb".into())],
            ..Context::default()
        };
        let h = find(&call("{}"), &ctx).unwrap();
        assert_eq!(
            (h.path.as_str(), h.character),
            ("context.attributes.cwd", '\r')
        );
        let ctx = Context {
            principal: Some("bob\x08\x08\x08alice".into()),
            ..Context::default()
        };
        assert_eq!(find(&call("{}"), &ctx).unwrap().path, "context.principal");
        // The history is not the call's: earlier calls were vetted then.
        let ctx = Context {
            history: vec![crate::PriorCall {
                name: "bash".into(),
                arguments: r#"{"command": "r\u0000m"}"#.into(),
                outcome: crate::Outcome::Denied,
                returned: None,
            }],
            ..Context::default()
        };
        assert_eq!(find(&call(r#"{"command": "ls"}"#), &ctx), None);
    }

    #[test]
    fn ordinary_text_passes() {
        for args in [
            r#"{"command": "printf 'a\tb\n' | sort"}"#,
            r#"{"path": "notes.txt", "content": "one\r\ntwo\r\n"}"#,
            r#"{"content": "del \u007f, c1 \u0085, é, 😀"}"#,
            r#"{"n": 1, "list": [true, null, {"k": "v"}]}"#,
            "{}",
        ] {
            assert_eq!(hit(args), None, "{args}");
        }
    }

    #[test]
    fn text_that_is_not_json_is_refused_as_a_whole() {
        let h = hit("{\"command\": \"r\0m\"").unwrap();
        assert_eq!((h.path.as_str(), h.character), ("arguments", '\0'));
    }

    #[test]
    fn escapes_for_messages() {
        assert_eq!(escape('\0'), "\\x00");
        assert_eq!(escape('\x1b'), "\\x1b");
        assert_eq!(escape('\x7f'), "\\x7f");
        assert_eq!(escape('\u{85}'), "\\u{85}");
        assert_eq!(escape('\u{202e}'), "\\u{202e}");
        assert_eq!(escape('é'), "é");
    }
}
