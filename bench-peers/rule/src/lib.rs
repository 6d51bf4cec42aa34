//! The rule every contender of the peer benchmarks implements, so that
//! toolvet, Extism and Cedar are timed on the same work:
//!
//! > deny tool `bash` when its `command` argument contains `rm -rf`;
//! > allow every other call.
//!
//! The Cedar policy equivalent is in `crates/toolvet-bench/src/peers.rs`
//! (`context.command like "*rm -rf*"`). Plain Rust with no WebAssembly
//! dependency: the native benchmark calls [`check`] directly (the physical
//! limit), the toolvet check and the Extism plugin wrap it.

/// The substring that makes a `bash` call denied.
pub const PATTERN: &str = "rm -rf";

/// Rule id reported with the deny.
pub const RULE: &str = "bench.rm-rf";

/// The reason given for a denied call.
pub const REASON: &str =
    "The command contains `rm -rf`; delete specific files without -rf instead.";

/// Vet one call: `tool` is the tool name, `arguments` the JSON object text
/// of its arguments. Returns the deny reason, or `None` to allow.
///
/// Arguments are parsed as JSON (as any real check would) only for `bash`;
/// a `bash` call whose arguments are not JSON or have no string `command`
/// is allowed, as Cedar allows a request whose `forbid` cannot match.
pub fn check(tool: &str, arguments: &str) -> Option<&'static str> {
    if tool != "bash" {
        return None;
    }
    let args: serde_json::Value = serde_json::from_str(arguments).ok()?;
    let command = args.get("command")?.as_str()?;
    command.contains(PATTERN).then_some(REASON)
}

/// The `command` argument of a call, for hosts (Cedar) that evaluate the
/// pattern themselves: `None` when the arguments are not a JSON object
/// with a string `command`.
pub fn command(arguments: &str) -> Option<String> {
    let args: serde_json::Value = serde_json::from_str(arguments).ok()?;
    Some(args.get("command")?.as_str()?.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn denies_only_bash_with_the_pattern() {
        assert_eq!(check("bash", r#"{"command":"rm -rf /"}"#), Some(REASON));
        assert_eq!(check("bash", r#"{"command":"ls -la"}"#), None);
        assert_eq!(check("shell", r#"{"command":"rm -rf /"}"#), None);
        assert_eq!(check("bash", r#"{"cmd":"rm -rf /"}"#), None);
        assert_eq!(check("bash", "not json"), None);
        assert_eq!(command(r#"{"command":"ls"}"#).as_deref(), Some("ls"));
        assert_eq!(command(r#"{"command":1}"#), None);
    }
}
