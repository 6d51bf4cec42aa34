//! Arguments that fill one role: the command of a shell tool (`command`,
//! `cmd`, `script`), its working directory (`cwd`, `workdir`, …), the
//! path of a file tool.
//!
//! A check that reads the *first* of several names present judges one
//! value while the tool may use another: an agent sends a harmless
//! `command` and a harmful `cmd`, or `Command` for a tool whose decoder
//! ignores case. So a check asks for [`values`]: every value the role has
//! in the call, and judges each of them, the strictest outcome winning.
//! That was chosen over refusing such calls as ambiguous because some
//! tools do take two of the names for different things (a `script` name
//! and a `command` line); judging both keeps them working and leaves
//! nothing unjudged. A call whose values differ is also never a source of
//! facts that make a later call pass (see [`crate::run`]): which value ran
//! is unknown.

//!
//! Keys are matched by their [`fold`]: a decoder that ignores case reads
//! `Query`, `QUERY`, `ſtatement` (long s) and `\u{212a}ey` (Kelvin sign) as
//! `query`, `statement` and `key`, so a check does too. The host refuses
//! two keys of one object that fold alike before any check runs, so a
//! role's name is held by one key of an object at most.

use serde_json::Value;
use unicode_normalization::UnicodeNormalization;

/// Argument names that hold a shell command by default (shell-guard's
/// `command_args` when the policy sets none).
pub const COMMAND_ARGS: &[&str] = &["command", "cmd", "script"];

/// Argument names that hold a shell command for any tool, beside the
/// [`COMMAND_ARGS`] or a policy's own list.
pub const ALWAYS_COMMAND_ARGS: &[&str] = &["shell_command"];

/// `text` as a decoder that ignores case and Unicode form may read a key:
/// NFKC (`ｑｕｅｒｙ` → `query`, `ﬁle` → `file`), every character upper-
/// then lower-cased (`ſ` → `s`, `K` → `k`, `ı` → `i`), without white
/// space, invisible characters and the dot that lower-casing `İ` adds.
/// The same rule as the host's `toolvet::fold::fold`, which refuses two
/// keys that fold alike (checks are built for WebAssembly and cannot link
/// the host, so the rule is written here a second time; the tests below
/// hold both to the same examples).
pub fn fold(text: &str) -> String {
    text.nfkc()
        .flat_map(char::to_uppercase)
        .flat_map(char::to_lowercase)
        .filter(|c| !c.is_whitespace() && !invisible(*c) && *c != '\u{307}')
        .collect()
}

/// Whether `c` is not seen, or moves or hides what follows (controls,
/// zero-width and bidirectional format characters, variation selectors,
/// the other default-ignorable code points): dropped by [`fold`].
pub fn invisible(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{ad}' | '\u{34f}' | '\u{61c}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}'
            | '\u{180b}'..='\u{180f}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}' | '\u{3164}' | '\u{fe00}'..='\u{fe0f}' | '\u{feff}'
            | '\u{ffa0}' | '\u{fff0}'..='\u{fffb}' | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}' | '\u{e0000}'..='\u{e0fff}')
}

/// Whether the argument key `key` names `name` for a decoder that ignores
/// case and Unicode form: their [`fold`]s are equal (`QUERY` is `query`,
/// `ſql` is `sql`). An empty fold names nothing.
pub fn same_key(key: &str, name: &str) -> bool {
    let key = fold(key);
    !key.is_empty() && key == fold(name)
}

/// Every value of `args` (an object) under a key naming the role: any of
/// `names`, matched by [`fold`] (`Command`, `CMD`, `ſcript`). Each distinct
/// value once, with the first key holding it, in the order of `names` then
/// of the keys. `null` values are left out (no tool runs a null; a tool
/// that reads it as absent uses another key, which is listed).
pub fn values<'a, S: AsRef<str>>(args: &'a Value, names: &[S]) -> Vec<(&'a str, &'a Value)> {
    let mut out: Vec<(&'a str, &'a Value)> = Vec::new();
    let Some(obj) = args.as_object() else {
        return out;
    };
    // Each key folded once.
    let keys: Vec<(String, &'a str, &'a Value)> = obj
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (fold(k), k.as_str(), v))
        .collect();
    for name in names {
        let name = fold(name.as_ref());
        if name.is_empty() {
            continue;
        }
        for (folded, key, value) in &keys {
            if *folded == name && !out.iter().any(|(_, v)| v == value) {
                out.push((key, value));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const COMMAND: &[&str] = &["command", "cmd", "script"];

    #[test]
    fn every_value_of_the_role_is_returned() {
        let args = json!({"command": "ls", "cmd": "rm -rf ~"});
        assert_eq!(
            values(&args, COMMAND),
            [("command", &json!("ls")), ("cmd", &json!("rm -rf ~"))]
        );
        let args = json!({"Command": "rm -rf ~", "command": "ls", "SCRIPT": "x"});
        let got: Vec<&str> = values(&args, COMMAND).iter().map(|(k, _)| *k).collect();
        assert_eq!(got, ["Command", "command", "SCRIPT"]);
    }

    #[test]
    fn keys_are_found_in_any_case_and_unicode_form() {
        // A decoder that ignores case runs these as `query`/`statement`.
        let roles: &[&str] = &["query", "sql", "statement"];
        for (key, text) in [
            ("Query", "DROP TABLE users"),
            ("QUERY", "DROP TABLE users"),
            ("\u{17f}tatement", "DROP TABLE users"),
            ("SQL", "DELETE FROM users"),
            ("\u{ff51}\u{ff55}\u{ff45}\u{ff52}\u{ff59}", "DROP TABLE t"),
            ("qu\u{200b}ery", "DROP TABLE t"),
        ] {
            let args = json!({ key: text });
            assert_eq!(values(&args, roles), [(key, &json!(text))], "{key:?}");
        }
        assert!(same_key("\u{212a}ey", "key") && same_key("\u{130}D", "id"));
        assert!(!same_key("queries", "query") && !same_key("\u{200b}", ""));
        assert!(values(&json!({"query_id": 1, "subquery": "x"}), roles).is_empty());
        // The host's examples (toolvet::fold tests), the same here.
        for (key, folded) in [
            ("QUERY", "query"),
            ("\u{ff51}\u{ff55}\u{ff45}\u{ff52}\u{ff59}", "query"),
            ("query\u{feff}", "query"),
            (" query", "query"),
            ("\u{17f}tatement", "statement"),
            ("\u{212a}ey", "key"),
            ("\u{130}d", "id"),
            ("\u{fb01}le", "file"),
            ("\u{200b}", ""),
        ] {
            assert_eq!(fold(key), folded, "{key:?}");
        }
    }

    #[test]
    fn equal_values_count_once_and_nulls_not_at_all() {
        let args = json!({"command": "ls", "cmd": "ls", "script": null});
        assert_eq!(values(&args, COMMAND), [("command", &json!("ls"))]);
        let args = json!({"command": null, "cmd": "rm -rf ~"});
        assert_eq!(values(&args, COMMAND), [("cmd", &json!("rm -rf ~"))]);
        assert!(values(&json!({"path": "x"}), COMMAND).is_empty());
        assert!(values(&json!("ls"), COMMAND).is_empty());
    }
}
