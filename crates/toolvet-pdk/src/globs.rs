//! Tool-name globs with the host's matching rules.
//!
//! The host selects the checks for a call with case-insensitive globs over
//! the tool name (agent frameworks spell one tool `bash` and `Bash`), where
//! `*` matches any characters, `/` and `.` included (MCP names such as
//! `github/create_issue` or `mcp__github__create_issue`). A check that
//! matches tool names in its own settings must use the same rules, or a
//! rule the host applied to `Bash` would be skipped inside the check: use
//! [`Globs`] for every such list. The same rules suit argument names
//! (`*_url`, `Authorization`), which are matched the same way.

use crate::settings::Key;
use globset::{Glob, GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use serde::Deserialize;

/// A list of name globs: `*`, `?`, `[ab]`, `{a,b}`, `\` escapes; ASCII
/// case ignored; `*` crosses `/` and `.`.
///
/// The patterns are parsed (so validated) and compiled into one automaton
/// when the list is built, that is in `configure`: the host snapshots a
/// per-call check after `configure` (`[host] preinitialize`), so every
/// fresh instance starts with the automaton built. (Compiled on the first
/// match instead, each fresh instance paid for it again: about 130 µs of
/// tool-policy's first call.)
#[derive(Debug, Clone)]
pub struct Globs {
    compiled: Compiled,
    patterns: Vec<String>,
}

#[derive(Debug, Clone)]
enum Compiled {
    Set(GlobSet),
    /// A set too large for one automaton: one matcher per glob.
    Each(Vec<GlobMatcher>),
}

impl Globs {
    /// Compile `patterns`, the value of setting `key` (e.g.
    /// `Key::new("deny")`), so that an error names the entry:
    /// `settings.deny[2]: invalid glob "a[b": unclosed character class; missing ']'`
    /// or `settings.deny[0]: empty glob`.
    ///
    /// # Errors
    /// An empty (or all-space) glob or one that does not parse.
    pub fn compile<S: AsRef<str>>(patterns: &[S], key: &Key) -> Result<Self, String> {
        Self::compile_at(patterns, |i| key.index(i))
    }

    /// [`Globs::compile`] for a setting written as one string rather than a
    /// list (see [`GlobList`]): errors name `key` itself, without an index.
    ///
    /// # Errors
    /// As [`Globs::compile`].
    pub fn compile_one(pattern: &str, key: &Key) -> Result<Self, String> {
        Self::compile_at(&[pattern], |_| key.clone())
    }

    fn compile_at<S: AsRef<str>>(
        patterns: &[S],
        at: impl Fn(usize) -> Key,
    ) -> Result<Self, String> {
        let mut globs = Vec::with_capacity(patterns.len());
        for (i, g) in patterns.iter().enumerate() {
            let g = g.as_ref();
            if g.trim().is_empty() {
                return Err(at(i).error("empty glob"));
            }
            let glob = GlobBuilder::new(g)
                .case_insensitive(true)
                .literal_separator(false)
                .build()
                .map_err(|e| at(i).error(format!("invalid glob {g:?}: {}", e.kind())))?;
            globs.push(glob);
        }
        let mut set = GlobSetBuilder::new();
        for g in &globs {
            set.add(g.clone());
        }
        let compiled = match set.build() {
            Ok(set) => Compiled::Set(set),
            Err(_) => Compiled::Each(globs.iter().map(Glob::compile_matcher).collect()),
        };
        Ok(Self {
            compiled,
            patterns: patterns.iter().map(|g| g.as_ref().to_string()).collect(),
        })
    }

    /// Compile patterns the check itself ships (its defaults).
    ///
    /// # Panics
    /// If a pattern is invalid: a bug in the check, caught by its tests.
    pub fn builtin(patterns: &[&str]) -> Self {
        Self::compile(patterns, &Key::new("builtin")).expect("built-in globs are valid")
    }

    /// Whether `name` matches any of the globs.
    pub fn is_match(&self, name: &str) -> bool {
        match &self.compiled {
            Compiled::Set(set) => set.is_match(name),
            Compiled::Each(each) => each.iter().any(|m| m.is_match(name)),
        }
    }

    /// Whether the list is empty (then nothing matches).
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// The globs as written.
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// The globs as written, backquoted and joined for a message:
    /// `` `read_file` or `view_*` ``.
    pub fn describe(&self, joiner: &str) -> String {
        self.patterns
            .iter()
            .map(|g| format!("`{g}`"))
            .collect::<Vec<_>>()
            .join(joiner)
    }
}

/// A setting that takes one glob or a list of them (`"write_file"` or
/// `["read_file", "view_*"]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged, expecting = "a tool-name glob or a list of globs")]
pub enum GlobList {
    /// A single glob.
    One(String),
    /// Several globs.
    Many(Vec<String>),
}

impl Default for GlobList {
    fn default() -> Self {
        GlobList::Many(Vec::new())
    }
}

impl GlobList {
    /// The globs, in order.
    pub fn list(&self) -> Vec<String> {
        match self {
            GlobList::One(g) => vec![g.clone()],
            GlobList::Many(v) => v.clone(),
        }
    }

    /// Compile the globs of setting `key`; an empty list is an error
    /// (`settings.{key}: name at least one tool`) unless `may_be_empty`.
    ///
    /// # Errors
    /// An empty list, an empty glob or one that does not parse, naming the
    /// entry (`settings.{key}[1]`, or `settings.{key}` for a single glob).
    pub fn compile(&self, key: &Key, may_be_empty: bool) -> Result<Globs, String> {
        match self {
            GlobList::Many(v) if v.is_empty() && !may_be_empty => {
                Err(key.error("name at least one tool"))
            }
            GlobList::Many(v) => Globs::compile(v, key),
            GlobList::One(g) => Globs::compile_one(g, key),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_rules() {
        let g = Globs::compile(
            &["bash", "github/*", "mcp__*__create_issue"],
            &Key::new("tools"),
        )
        .unwrap();
        assert!(g.is_match("Bash"));
        assert!(g.is_match("BASH"));
        assert!(g.is_match("github/repos/list"));
        assert!(g.is_match("mcp__GitHub__create_issue"));
        assert!(!g.is_match("bash2"));
        assert_eq!(
            g.describe(" or "),
            "`bash` or `github/*` or `mcp__*__create_issue`"
        );
    }

    #[test]
    fn errors_name_the_entry() {
        let e = Globs::compile(&["ok", "a[b"], &Key::new("deny")).unwrap_err();
        assert_eq!(
            e,
            "settings.deny[1]: invalid glob \"a[b\": unclosed character class; missing ']'"
        );
        let e = Globs::compile(&[" "], &Key::new("rules").index(2).field("tools")).unwrap_err();
        assert_eq!(e, "settings.rules[2].tools[0]: empty glob");
        let e = GlobList::One("a[".into())
            .compile(&Key::new("write"), false)
            .unwrap_err();
        assert!(e.starts_with("settings.write: invalid glob"), "{e}");
        let e = GlobList::Many(vec![])
            .compile(&Key::new("read"), false)
            .unwrap_err();
        assert_eq!(e, "settings.read: name at least one tool");
        assert!(
            GlobList::default()
                .compile(&Key::new("x"), true)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn one_or_many() {
        let one: GlobList = serde_json::from_str("\"a\"").unwrap();
        let many: GlobList = serde_json::from_str("[\"a\", \"b\"]").unwrap();
        assert_eq!(one.list(), ["a"]);
        assert_eq!(many.list(), ["a", "b"]);
        let bad = serde_json::from_str::<GlobList>("3")
            .unwrap_err()
            .to_string();
        assert!(bad.contains("a tool-name glob or a list of globs"), "{bad}");
    }
}
