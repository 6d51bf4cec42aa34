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

use serde_json::Value;

/// Every value of `args` (an object) under a key naming the role: any of
/// `names`, ASCII case ignored (`Command`, `CMD`). Each distinct value
/// once, with the first key holding it, in the order of `names` then of
/// the keys. `null` values are left out (no tool runs a null; a tool that
/// reads it as absent uses another key, which is listed).
pub fn values<'a, S: AsRef<str>>(args: &'a Value, names: &[S]) -> Vec<(&'a str, &'a Value)> {
    let mut out: Vec<(&'a str, &'a Value)> = Vec::new();
    let Some(obj) = args.as_object() else {
        return out;
    };
    for name in names {
        for (key, value) in obj {
            if !key.eq_ignore_ascii_case(name.as_ref()) || value.is_null() {
                continue;
            }
            if !out.iter().any(|(_, v)| *v == value) {
                out.push((key.as_str(), value));
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
    fn equal_values_count_once_and_nulls_not_at_all() {
        let args = json!({"command": "ls", "cmd": "ls", "script": null});
        assert_eq!(values(&args, COMMAND), [("command", &json!("ls"))]);
        let args = json!({"command": null, "cmd": "rm -rf ~"});
        assert_eq!(values(&args, COMMAND), [("cmd", &json!("rm -rf ~"))]);
        assert!(values(&json!({"path": "x"}), COMMAND).is_empty());
        assert!(values(&json!("ls"), COMMAND).is_empty());
    }
}
